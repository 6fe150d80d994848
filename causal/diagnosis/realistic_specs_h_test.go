package diagnosis

import (
	"fmt"
	"time"
)

// rsPRRegression: a Go billing API. A pull request that reworks mid-cycle
// proration fails its own test on the branch, is merged anyway, and main
// fails the same way on every run since the merge. setup-go's download of
// the toolchain fails now and then in an earlier step.
func rsPRRegression() *rsScenario {
	workflow := `name: Go

on:
  push:
    branches: [main]
  pull_request:
    branches: [main]

jobs:
  test:
    runs-on: ubuntu-latest
    services:
      postgres:
        image: postgres:17
        env:
          POSTGRES_PASSWORD: billing
          POSTGRES_DB: billing_test
        ports:
          - 5432:5432
        options: >-
          --health-cmd pg_isready
          --health-interval 5s
          --health-timeout 5s
          --health-retries 10
    env:
      DATABASE_URL: postgres://postgres:billing@localhost:5432/billing_test?sslmode=disable
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version: '1.23.4'
      - name: Vet
        run: make vet
      - name: Test
        run: make test
`
	makefile := ".PHONY: vet test build\n\nvet:\n\tgo vet ./...\n\ntest:\n\tgo test -race -count=1 ./...\n\nbuild:\n\tCGO_ENABLED=0 go build -o bin/billing ./cmd/billing\n"
	pkgs := []string{"cmd/billing", "internal/catalog", "internal/invoice", "internal/payments", "internal/store"}
	test := func(c *rsCtx, fail bool) []string {
		out := []string{"go test -race -count=1 ./..."}
		for _, p := range pkgs {
			if p == "cmd/billing" {
				out = append(out, "?   \tgithub.com/meadowlark/billing/cmd/billing\t[no test files]")
				continue
			}
			if fail && p == "internal/invoice" {
				out = append(out, "--- FAIL: TestInvoice_ProratesMidCycleUpgrade (0.01s)",
					"    invoice_test.go:88: total = 1450, want 1433", "FAIL",
					fmt.Sprintf("FAIL\tgithub.com/meadowlark/billing/internal/invoice\t%ss", c.secs(1.5, 3, 3)))
				continue
			}
			out = append(out, fmt.Sprintf("ok  \tgithub.com/meadowlark/billing/%s\t%ss", p, c.secs(1, 6, 3)))
		}
		if fail {
			out = append(out, "FAIL", "make: *** [Makefile:7: test] Error 1")
		}
		return out
	}
	return &rsScenario{
		name: "rs-go-merged-pr-regression", repo: "meadowlark/billing", repoID: 677340219, workflow: "Go",
		path: ".github/workflows/go.yml", wfID: 79904127, jobName: "test", runner: rsRunner{labels: []string{"ubuntu-latest"}},
		services: []rsService{{name: "postgres", image: "postgres:17", health: true, port: "5432:5432"}},
		jobEnv:   []string{"DATABASE_URL: postgres://postgres:billing@localhost:5432/billing_test?sslmode=disable"},
		steps: []rsStep{checkout(),
			{uses: "actions/setup-go@v5", with: []string{"go-version: 1.23.4", "check-latest: false", "token: ***", "cache: true"}, post: true, secs: [2]int{3, 9},
				out: func(c *rsCtx) []string {
					return []string{"Setup go version spec 1.23.4", "Attempting to download 1.23.4...", "matching 1.23.4...", "Acquiring 1.23.4 from https://github.com/actions/go-versions/releases/download/1.23.4-12150286211/go-1.23.4-linux-x64.tar.gz",
						"Extracting Go...", "Successfully set up Go version 1.23.4", fmt.Sprintf("Cache restored successfully (%d MB)", c.n(90, 140))}
				}},
			{name: "Vet", run: []string{"make vet"}, secs: [2]int{10, 25}, out: func(*rsCtx) []string { return []string{"go vet ./..."} }},
			{name: "Test", run: []string{"make test"}, secs: [2]int{40, 80}, out: func(c *rsCtx) []string { return test(c, false) }},
		},
		files: map[string]string{".github/workflows/go.yml": workflow, "Makefile": makefile, "go.mod": "module github.com/meadowlark/billing\n\ngo 1.23.4\n",
			"Dockerfile":                    "FROM golang:1.23.4 AS build\nWORKDIR /src\nCOPY . .\nRUN CGO_ENABLED=0 go build -o /out/billing ./cmd/billing\n\nFROM gcr.io/distroless/static-debian12\nCOPY --from=build /out/billing /billing\nENTRYPOINT [\"/billing\"]\n",
			"internal/invoice/proration.go": "package invoice\n\n// Prorate returns the share of a plan's price for the days left in the cycle.\nfunc Prorate(priceCents, daysLeft, daysInCycle int64) int64 {\n\treturn priceCents * daysLeft / daysInCycle\n}\n"},
		history: "....p....N.....p..p...N....p...x..N..qq..qRRRRRxRR",
		failures: map[byte]rsFailure{
			'N': {step: "Run actions/setup-go@v5", secs: [2]int{20, 40}, out: func(c *rsCtx) []string {
				return []string{"Setup go version spec 1.23.4", "Attempting to download 1.23.4...", "matching 1.23.4...",
					"Acquiring 1.23.4 from https://github.com/actions/go-versions/releases/download/1.23.4-12150286211/go-1.23.4-linux-x64.tar.gz",
					"##[warning]Failed to download version 1.23.4: Error: read ECONNRESET",
					"Falling back to download directly from Go", "Install from dist", "Acquiring go1.23.4 from https://storage.googleapis.com/golang/go1.23.4.linux-amd64.tar.gz",
					"##[error]Failed to download version 1.23.4: Error: Unexpected HTTP response: 503"}
			}},
			'R': {step: "Test", exit: 2, secs: [2]int{40, 80}, out: func(c *rsCtx) []string { return test(c, true) }},
		},
		prBranches: []string{"feature/mid-cycle-proration"}, prFail: 'R',
		authors:  []string{"okafor-c", "lsandberg", "mtanaka"},
		messages: []string{"Prorate mid-cycle upgrades", "Payments: idempotency keys", "Catalog: annual plans", "Store: pgx v5.7", "Invoice: tax lines per region"},
		start:    time.Date(2026, 10, 9, 8, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "regression", mechanism: "test-failure", cause: "total = 1450, want 1433",
			patch: false, pattern: "persistent"},
	}
}

// rsDeprecatedArtifactAction: a Helm charts repository whose lint-and-test
// workflow still uploads chart-testing logs with actions/upload-artifact@v3.
// Since GitHub retired v3 every run is refused while the runner prepares the
// job, on main and on pull requests alike.
func rsDeprecatedArtifactAction() *rsScenario {
	workflow := `name: Lint and Test Charts

on:
  pull_request:
  push:
    branches: [main]

jobs:
  lint-test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0

      - uses: azure/setup-helm@v4
        with:
          version: v3.16.3

      - uses: actions/setup-python@v5
        with:
          python-version: '3.12'

      - uses: helm/chart-testing-action@v2.6.1

      - name: Lint charts
        run: ct lint --config ct.yaml --target-branch ${{ github.event.repository.default_branch }}

      - uses: helm/kind-action@v1.10.0

      - name: Install charts
        run: ct install --config ct.yaml --target-branch ${{ github.event.repository.default_branch }}

      - name: Upload chart-testing logs
        if: failure()
        uses: actions/upload-artifact@v3
        with:
          name: ct-logs
          path: /tmp/ct-logs
`
	release := `name: Release Charts

on:
  push:
    branches: [main]
    paths: ['charts/**']

jobs:
  release:
    runs-on: ubuntu-latest
    permissions:
      contents: write
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - name: Configure Git
        run: |
          git config user.name "$GITHUB_ACTOR"
          git config user.email "$GITHUB_ACTOR@users.noreply.github.com"
      - uses: azure/setup-helm@v4
      - uses: helm/chart-releaser-action@v1.6.0
        env:
          CR_TOKEN: "${{ secrets.GITHUB_TOKEN }}"
`
	refused := func(*rsCtx) []string {
		return []string{"##[error]This request has been automatically failed because it uses a deprecated version of `actions/upload-artifact: v3`. Learn more: https://github.blog/changelog/2024-04-16-deprecation-notice-v3-of-the-artifact-actions/"}
	}
	return &rsScenario{
		name: "rs-helm-charts-deprecated-artifact", repo: "skyforge/charts", repoID: 598771204, workflow: "Lint and Test Charts",
		path: ".github/workflows/lint-test.yaml", wfID: 64410983, jobName: "lint-test", runner: rsRunner{labels: []string{"ubuntu-latest"}},
		steps: []rsStep{
			{uses: "actions/checkout@v4", with: []string{"fetch-depth: 0"}, post: true, secs: [2]int{1, 3}},
			{uses: "azure/setup-helm@v4", with: []string{"version: v3.16.3"}, secs: [2]int{2, 5}},
			{uses: "actions/setup-python@v5", with: []string{"python-version: 3.12"}, secs: [2]int{1, 4}},
			{uses: "helm/chart-testing-action@v2.6.1", secs: [2]int{5, 12}},
			{name: "Lint charts", run: []string{"ct lint --config ct.yaml --target-branch main"}, secs: [2]int{10, 30}},
			{uses: "helm/kind-action@v1.10.0", post: true, secs: [2]int{40, 80}},
			{name: "Install charts", run: []string{"ct install --config ct.yaml --target-branch main"}, secs: [2]int{60, 180}},
			{name: "Upload chart-testing logs", uses: "actions/upload-artifact@v3", with: []string{"name: ct-logs", "path: /tmp/ct-logs"}, always: true, secs: [2]int{1, 2}},
		},
		files: map[string]string{".github/workflows/lint-test.yaml": workflow, ".github/workflows/release.yaml": release,
			"ct.yaml":                                  "chart-dirs:\n  - charts\nvalidate-maintainers: false\nhelm-extra-args: --timeout 600s\n",
			"charts/ingestd/Chart.yaml":                "apiVersion: v2\nname: ingestd\nversion: 1.8.3\nappVersion: \"2.4.0\"\n",
			"charts/ingestd/values.yaml":               "image:\n  repository: ghcr.io/skyforge/ingestd\n  tag: \"\"\nreplicaCount: 2\n",
			"charts/ingestd/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-ingestd\nspec:\n  replicas: {{ .Values.replicaCount }}\n"},
		history: "LLLqLLLLLLqLLLLLLLLqLLLLLLLLLLqLLLL",
		failures: map[byte]rsFailure{
			'L': {step: "Set up job", secs: [2]int{0, 1}, out: refused},
		},
		prBranches: []string{"ingestd/2.4.0", "fix/pdb-min-available"}, prFail: 'L',
		authors:  []string{"renovate[bot]", "amal-k", "vtorres"},
		messages: []string{"ingestd: bump appVersion to 2.4.0", "ingestd: PodDisruptionBudget", "ingestd: probes on /readyz", "Update helm/kind-action", "ingestd: resources for arm64"},
		start:    time.Date(2026, 9, 29, 9, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "broken", mechanism: "dependency", cause: "deprecated version of `actions/upload-artifact: v3`",
			producer: &rsAnchor{file: ".github/workflows/lint-test.yaml", from: "uses: actions/upload-artifact@v3"},
			patch:    true, patchFiles: []string{".github/workflows/lint-test.yaml"}, ciOnly: &rsTrue, pattern: "persistent"},
	}
}

// rsKindNewWorkflow: a queue operator's brand-new e2e workflow creates a
// three-node kind cluster on a hosted runner and waits only 60 s; kubeadm
// times out starting the control plane in two of its first four runs.
func rsKindNewWorkflow() *rsScenario {
	workflow := `name: E2E

on:
  push:
    branches: [main]
  pull_request:

jobs:
  e2e:
    runs-on: ubuntu-latest
    timeout-minutes: 40
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version-file: go.mod
      - name: Create kind cluster
        run: make kind-up
      - name: Deploy operator
        run: make deploy-e2e
      - name: Run e2e tests
        run: make test-e2e
      - name: Export kind logs
        if: failure()
        run: kind export logs ./kind-logs --name queue-e2e
`
	makefile := `KIND_CLUSTER ?= queue-e2e
KIND_NODE_IMAGE ?= kindest/node:v1.31.2
IMG ?= ghcr.io/tessera-io/queue-operator:e2e

.PHONY: kind-up kind-down deploy-e2e test-e2e docker-build

kind-up:
	kind create cluster --name $(KIND_CLUSTER) --config hack/kind-3nodes.yaml --image $(KIND_NODE_IMAGE) --wait 60s

kind-down:
	kind delete cluster --name $(KIND_CLUSTER)

docker-build:
	docker build -t $(IMG) .

deploy-e2e: docker-build
	kind load docker-image $(IMG) --name $(KIND_CLUSTER)
	kubectl apply -k config/e2e
	kubectl -n queue-system rollout status deploy/queue-operator --timeout=3m

test-e2e:
	go test ./test/e2e/... -v -count=1 -timeout 20m
`
	kindCfg := "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n  - role: control-plane\n  - role: worker\n  - role: worker\n"
	create := func(c *rsCtx, fail bool) []string {
		out := []string{"kind create cluster --name queue-e2e --config hack/kind-3nodes.yaml --image kindest/node:v1.31.2 --wait 60s",
			"Creating cluster \"queue-e2e\" ...", " ✓ Ensuring node image (kindest/node:v1.31.2) 🖼", " ✓ Preparing nodes 📦 📦 📦  ", " ✓ Writing configuration 📜"}
		if !fail {
			return append(out, " ✓ Starting control-plane 🕹️", " ✓ Installing CNI 🔌", " ✓ Installing StorageClass 💾", " ✓ Joining worker nodes 🚜",
				" ✓ Waiting ≤ 1m0s for control-plane = Ready ⏳ ", fmt.Sprintf(" • Ready after %ds 💚", c.n(18, 40)),
				"Set kubectl context to \"kind-queue-e2e\"")
		}
		ts := c.r.started.Add(time.Duration(c.n(60, 120)) * time.Second)
		klog := func(d time.Duration, file string, msg string) string {
			return fmt.Sprintf("I%s %7d %s] %s", ts.Add(d).Format("0102 15:04:05.000000"), c.n(200, 260), file, msg)
		}
		return append(out, " ✗ Starting control-plane 🕹️", `Deleted nodes: ["queue-e2e-worker" "queue-e2e-control-plane" "queue-e2e-worker2"]`,
			`ERROR: failed to create cluster: failed to init node with kubeadm: command "docker exec --privileged queue-e2e-control-plane kubeadm init --skip-phases=preflight --config=/kind/kubeadm.conf --skip-token-print --v=6" failed with error: exit status 1`,
			"Command Output: "+klog(0, "initconfiguration.go:261", `loading configuration from "/kind/kubeadm.conf"`),
			klog(time.Second, "certs.go:112", `creating a new certificate authority for ca`),
			`[wait-control-plane] Waiting for the kubelet to boot up the control plane as static Pods from directory "/etc/kubernetes/manifests". This can take up to 4m0s`,
			"[kubelet-check] Initial timeout of 40s passed.", "", "Unfortunately, an error has occurred:", "\ttimed out waiting for the condition", "",
			"This error is likely caused by:", "\t- The kubelet is not running",
			"\t- The kubelet is unhealthy due to a misconfiguration of the node in some way (required cgroups disabled)", "",
			"couldn't initialize a Kubernetes cluster", "k8s.io/kubernetes/cmd/kubeadm/app/cmd/phases/init.runWaitControlPlanePhase",
			"\tk8s.io/kubernetes/cmd/kubeadm/app/cmd/phases/init/waitcontrolplane.go:110",
			"make: *** [Makefile:8: kind-up] Error 1")
	}
	return &rsScenario{
		name: "rs-go-kind-new-workflow", repo: "tessera-io/queue-operator", repoID: 781442096, workflow: "E2E",
		path: ".github/workflows/e2e.yml", wfID: 98860214, jobName: "e2e", runner: rsRunner{labels: []string{"ubuntu-latest"}},
		steps: []rsStep{checkout(),
			{uses: "actions/setup-go@v5", with: []string{"go-version-file: go.mod", "check-latest: false", "token: ***", "cache: true"}, post: true, secs: [2]int{3, 9},
				out: func(*rsCtx) []string {
					return []string{"Setup go version spec 1.23.4", "Found in cache @ /opt/hostedtoolcache/go/1.23.4/x64", "Successfully set up Go version 1.23.4"}
				}},
			{name: "Create kind cluster", run: []string{"make kind-up"}, secs: [2]int{50, 80}, out: func(c *rsCtx) []string { return create(c, false) }},
			{name: "Deploy operator", run: []string{"make deploy-e2e"}, secs: [2]int{60, 120}, out: func(c *rsCtx) []string {
				return []string{"docker build -t ghcr.io/tessera-io/queue-operator:e2e .", "kind load docker-image ghcr.io/tessera-io/queue-operator:e2e --name queue-e2e",
					"kubectl apply -k config/e2e", "namespace/queue-system created", "deployment.apps/queue-operator created",
					"kubectl -n queue-system rollout status deploy/queue-operator --timeout=3m", "deployment \"queue-operator\" successfully rolled out"}
			}},
			{name: "Run e2e tests", run: []string{"make test-e2e"}, secs: [2]int{200, 400}, out: func(c *rsCtx) []string {
				return []string{"go test ./test/e2e/... -v -count=1 -timeout 20m", fmt.Sprintf("ok  \tgithub.com/tessera-io/queue-operator/test/e2e\t%ss", c.secs(190, 390, 3))}
			}},
			{name: "Export kind logs", run: []string{"kind export logs ./kind-logs --name queue-e2e"}, always: true, secs: [2]int{5, 10}, out: func(*rsCtx) []string {
				return []string{"ERROR: unknown cluster \"queue-e2e\""}
			}},
		},
		files: map[string]string{".github/workflows/e2e.yml": workflow, "Makefile": makefile, "hack/kind-3nodes.yaml": kindCfg,
			"go.mod":     "module github.com/tessera-io/queue-operator\n\ngo 1.23.4\n",
			"Dockerfile": "FROM golang:1.23.4 AS build\nWORKDIR /src\nCOPY go.mod go.sum ./\nRUN go mod download\nCOPY cmd/ cmd/\nCOPY api/ api/\nCOPY internal/ internal/\nRUN CGO_ENABLED=0 go build -o /out/manager ./cmd/manager\n\nFROM gcr.io/distroless/static:nonroot\nCOPY --from=build /out/manager /manager\nUSER 65532:65532\nENTRYPOINT [\"/manager\"]\n"},
		history: "p.Kq.K",
		failures: map[byte]rsFailure{
			'K': {step: "Create kind cluster", exit: 2, secs: [2]int{90, 150}, out: func(c *rsCtx) []string { return create(c, true) }},
		},
		prBranches: []string{"ci/e2e-workflow"}, prFail: 'K',
		authors:  []string{"ifeoma-n", "d-larsen"},
		messages: []string{"CI: e2e workflow on kind", "Operator: requeue on conflict", "E2E: dead-letter test"},
		start:    time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC),
		// The cause is kubeadm's reason, not kind's "ERROR: failed to create
		// cluster … exit status 1", which only wraps the failed kubeadm call.
		expect: rsExpect{verdict: "new", mechanismAny: []string{"timeout", "resource-exhaustion"}, cause: "timed out waiting for the condition",
			producer: &rsAnchor{file: "Makefile", from: "kind create cluster"},
			patch:    true, patchFilesAny: []string{"Makefile", ".github/workflows/e2e.yml"}, ciOnly: &rsTrue, pattern: "intermittent"},
	}
}
