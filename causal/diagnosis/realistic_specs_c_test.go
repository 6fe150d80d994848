package diagnosis

import (
	"fmt"
	"strings"
	"time"
)

// rsTimeout: a Phoenix app whose integration suite has grown close to the
// step's 12-minute limit; the slow runs cross it and the runner stops the step.
func rsTimeout() *rsScenario {
	workflow := `name: Test

on:
  push:
    branches: [main]
  pull_request:

jobs:
  test:
    runs-on: ubuntu-latest
    env:
      MIX_ENV: test
    steps:
      - uses: actions/checkout@v4

      - uses: erlef/setup-beam@v1
        with:
          otp-version: '27.1'
          elixir-version: '1.17.3'

      - uses: actions/cache@v4
        with:
          path: |
            deps
            _build
          key: mix-${{ runner.os }}-${{ hashFiles('mix.lock') }}

      - name: Install dependencies
        run: mix deps.get

      - name: Compile
        run: mix compile --warnings-as-errors

      - name: Unit tests
        run: mix test --exclude integration

      - name: Integration tests
        timeout-minutes: 12
        run: mix test --only integration --trace
`
	modules := []string{"FieldNotes.Sync.UpstreamTest", "FieldNotes.Sync.ConflictTest", "FieldNotes.Media.ThumbnailerTest", "FieldNotes.Archive.ExportTest",
		"FieldNotes.Archive.ReconcileTest", "FieldNotesWeb.ObservationLiveTest", "FieldNotesWeb.MapLiveTest"}
	trace := func(c *rsCtx, upto int, cut bool) []string {
		var out []string
		for k, m := range modules[:upto] {
			file := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(m, "FieldNotes"), ".", "/"))
			out = append(out, "", fmt.Sprintf("%s [test%s.exs]", m, strings.TrimSuffix(file, "test")+"_test"))
			for t := 0; t < 3; t++ {
				line := fmt.Sprintf("  * test case %d of %s (%sms) [L#%d]", t+1, strings.TrimSuffix(m[strings.LastIndex(m, ".")+1:], "Test"), c.secs(2000, 30000, 1), 20+t*31)
				if cut && k == upto-1 && t == 2 {
					line = "  * test reconciles 20k observations against the archive [L#133]"
				}
				out = append(out, line)
			}
		}
		return out
	}
	return &rsScenario{
		name: "rs-elixir-step-timeout", repo: "verdant/fieldnotes", repoID: 611457390, workflow: "Test",
		path: ".github/workflows/test.yml", wfID: 66190344, jobName: "test", runner: rsRunner{labels: []string{"ubuntu-latest"}},
		jobEnv: []string{"MIX_ENV: test"},
		steps: []rsStep{checkout(),
			{uses: "erlef/setup-beam@v1", with: []string{"otp-version: 27.1", "elixir-version: 1.17.3"}, secs: [2]int{10, 25}, out: func(c *rsCtx) []string {
				return []string{"Installing Erlang/OTP 27.1 - built on ubuntu-24.04", "Installed Erlang/OTP version", "Installing Elixir 1.17.3-otp-27", "Installed Elixir version"}
			}},
			{uses: "actions/cache@v4", with: []string{"path: deps\n_build", "key: mix-Linux-" + "3f61c0a9e2d4"}, post: true, secs: [2]int{3, 8}, out: func(c *rsCtx) []string {
				return []string{fmt.Sprintf("Cache Size: ~%d MB (%d B)", c.n(60, 80), c.n(60_000_000, 80_000_000)), "Cache restored successfully", "Cache restored from key: mix-Linux-3f61c0a9e2d4"}
			}},
			{name: "Install dependencies", run: []string{"mix deps.get"}, secs: [2]int{2, 5}, out: func(c *rsCtx) []string {
				return []string{"Resolving Hex dependencies...", "Resolution completed in " + c.secs(0.05, 0.2, 3) + "s", "All dependencies are up to date"}
			}},
			{name: "Compile", run: []string{"mix compile --warnings-as-errors"}, secs: [2]int{20, 60}, out: func(c *rsCtx) []string {
				return []string{"Compiling 212 files (.ex)", "Generated fieldnotes app"}
			}},
			{name: "Unit tests", run: []string{"mix test --exclude integration"}, secs: [2]int{40, 60}, out: func(c *rsCtx) []string {
				return []string{"Running ExUnit with seed: " + fmt.Sprint(c.n(1000, 999999)) + ", max_cases: 8", "Excluding tags: [:integration]", "",
					strings.Repeat(".", 72), fmt.Sprintf("Finished in %s seconds (%ss async, %ss sync)", c.secs(38, 45, 1), c.secs(10, 14, 1), c.secs(25, 31, 1)),
					"318 tests, 0 failures, 41 excluded"}
			}},
			{name: "Integration tests", run: []string{"mix test --only integration --trace"}, secs: [2]int{590, 706}, out: func(c *rsCtx) []string {
				out := append([]string{"Running ExUnit with seed: 0, max_cases: 1", "Including tags: [:integration]", "Excluding tags: [:test]"}, trace(c, len(modules), false)...)
				return append(out, "", fmt.Sprintf("Finished in %s seconds (0.00s async, %s sync)", c.secs(585, 700, 1), c.secs(585, 700, 1)), "41 tests, 0 failures, 318 excluded")
			}},
		},
		files: map[string]string{".github/workflows/test.yml": workflow,
			"mix.exs":    "defmodule FieldNotes.MixProject do\n  use Mix.Project\n\n  def project do\n    [app: :fieldnotes, version: \"0.31.0\", elixir: \"~> 1.17\", deps: deps()]\n  end\n\n  defp deps, do: [{:phoenix, \"~> 1.7.14\"}, {:ecto_sqlite3, \"~> 0.17\"}]\nend\n",
			"Dockerfile": "FROM hexpm/elixir:1.17.3-erlang-27.1-debian-bookworm-20241111-slim AS build\nENV MIX_ENV=prod\nWORKDIR /app\nCOPY mix.exs mix.lock ./\nRUN mix deps.get --only prod\nCOPY config config\nCOPY lib lib\nCOPY priv priv\nRUN mix release\n\nFROM debian:bookworm-slim\nCOPY --from=build /app/_build/prod/rel/fieldnotes /app\nCMD [\"/app/bin/fieldnotes\", \"start\"]\n"},
		history: "......p.....U.......p...O.......q......O..p.....x......O....p..U....O...p.O",
		failures: map[byte]rsFailure{
			'O': {step: "Integration tests", secs: [2]int{720, 720}, out: func(c *rsCtx) []string {
				out := append([]string{"Running ExUnit with seed: 0, max_cases: 1", "Including tags: [:integration]", "Excluding tags: [:test]"}, trace(c, 5, true)...)
				return append(out, "##[error]The action 'Integration tests' has timed out after 12 minutes.")
			}},
			'U': {step: "Unit tests", exit: 2, secs: [2]int{40, 60}, out: func(c *rsCtx) []string {
				seed := c.n(1000, 999999)
				return append([]string{fmt.Sprintf("Running ExUnit with seed: %d, max_cases: 8", seed), "Excluding tags: [:integration]", "", strings.Repeat(".", 30)},
					lines(fmt.Sprintf(`

  1) test expires stale drafts after 24h (FieldNotes.DraftsTest)
     test/fieldnotes/drafts_test.exs:52
     Assertion with == failed
     code:  assert length(Drafts.list_stale(now)) == 2
     left:  3
     right: 2
     stacktrace:
       test/fieldnotes/drafts_test.exs:61: (test)

%s
Finished in %s seconds (12.1s async, 29.1s sync)
318 tests, 1 failure, 41 excluded

Randomized with seed %d`, strings.Repeat(".", 40), c.secs(38, 45, 1), seed))...)
			}},
		},
		prBranches: []string{"feature/offline-sync", "fix/map-clustering"}, prFail: 'U', rerunFail: 'O',
		authors:  []string{"sofia-r", "bwright", "hana-k"},
		messages: []string{"Sync: resume from cursor", "Add thumbnail cache", "Archive export as GeoPackage", "Map: cluster markers", "Reconcile archive nightly"},
		start:    time.Date(2026, 9, 10, 8, 30, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanism: "timeout", cause: "has timed out after 12 minutes",
			producer: &rsAnchor{file: ".github/workflows/test.yml", from: "timeout-minutes: 12"},
			patch:    true, patchFiles: []string{".github/workflows/test.yml"}, ciOnly: &rsTrue, pattern: "intermittent"},
	}
}

// rsWaitBeforeCreate: a kubebuilder operator whose e2e deploy script waits on
// the controller's pods right after `kubectl apply`, before the Deployment
// controller has created them.
func rsWaitBeforeCreate() *rsScenario {
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
        uses: helm/kind-action@v1
        with:
          cluster_name: lease-e2e
          version: v0.25.0
          node_image: kindest/node:v1.31.2

      - name: Deploy operator
        run: make e2e-deploy IMG=lease-operator:e2e

      - name: Run e2e tests
        run: make test-e2e

      - name: Dump cluster state
        if: failure()
        run: |
          kubectl get pods -A -o wide
          kubectl -n lease-system logs deploy/lease-controller-manager --tail=200 || true
`
	makefile := `IMG ?= ghcr.io/canopy-io/lease-operator:latest
KIND_CLUSTER ?= lease-e2e
LOCALBIN ?= $(shell pwd)/bin
KUSTOMIZE ?= $(LOCALBIN)/kustomize

.PHONY: build
build:
	go build -o bin/manager ./cmd

.PHONY: docker-build
docker-build:
	docker build -t $(IMG) .

.PHONY: kustomize
kustomize: $(KUSTOMIZE)
$(KUSTOMIZE):
	GOBIN=$(LOCALBIN) go install sigs.k8s.io/kustomize/kustomize/v5@v5.5.0

.PHONY: e2e-deploy
e2e-deploy: docker-build kustomize
	kind load docker-image $(IMG) --name $(KIND_CLUSTER)
	./hack/e2e/deploy.sh $(IMG)

.PHONY: test-e2e
test-e2e:
	go test ./test/e2e/ -v -ginkgo.v -timeout 20m
`
	deploy := `#!/usr/bin/env bash
set -o errexit -o nounset -o pipefail

IMG="$1"
NAMESPACE=lease-system

echo "==> installing CRDs"
kubectl apply -k config/crd
kubectl wait --for=condition=Established crd/leases.coordination.canopy.io --timeout=60s

echo "==> deploying controller ${IMG}"
(cd config/manager && ../../bin/kustomize edit set image controller="${IMG}")
./bin/kustomize build config/default | kubectl apply -f -

echo "==> waiting for the controller"
kubectl -n "${NAMESPACE}" wait --for=condition=Ready pod -l control-plane=controller-manager --timeout=180s
`
	deployOut := func(c *rsCtx, ok bool) []string {
		out := []string{"docker build -t lease-operator:e2e .", "#0 building with \"default\" instance using docker driver", fmt.Sprintf("#14 writing image sha256:%s done", c.hex(64)),
			"#14 naming to docker.io/library/lease-operator:e2e done",
			"kind load docker-image lease-operator:e2e --name lease-e2e",
			fmt.Sprintf(`Image: "lease-operator:e2e" with ID "sha256:%s" not yet present on node "lease-e2e-control-plane", loading...`, c.hex(64)),
			"./hack/e2e/deploy.sh lease-operator:e2e", "==> installing CRDs",
			"customresourcedefinition.apiextensions.k8s.io/leases.coordination.canopy.io created",
			"customresourcedefinition.apiextensions.k8s.io/leases.coordination.canopy.io condition met",
			"==> deploying controller lease-operator:e2e",
			"namespace/lease-system created", "serviceaccount/lease-controller-manager created",
			"role.rbac.authorization.k8s.io/lease-leader-election-role created", "clusterrole.rbac.authorization.k8s.io/lease-manager-role created",
			"rolebinding.rbac.authorization.k8s.io/lease-leader-election-rolebinding created", "clusterrolebinding.rbac.authorization.k8s.io/lease-manager-rolebinding created",
			"service/lease-controller-manager-metrics-service created", "deployment.apps/lease-controller-manager created",
			"==> waiting for the controller"}
		if ok {
			return append(out, fmt.Sprintf("pod/lease-controller-manager-%s condition met", c.suffix()))
		}
		return append(out, "error: no matching resources found", "make: *** [Makefile:22: e2e-deploy] Error 1")
	}
	return &rsScenario{
		name: "rs-operator-wait-before-create", repo: "canopy-io/lease-operator", repoID: 675530188, workflow: "E2E",
		path: ".github/workflows/e2e.yml", wfID: 77345120, jobName: "e2e", runner: rsRunner{labels: []string{"ubuntu-latest"}},
		steps: []rsStep{checkout(),
			{uses: "actions/setup-go@v5", with: []string{"go-version-file: go.mod", "check-latest: false", "token: ***", "cache: true"}, post: true, secs: [2]int{5, 15}, out: func(c *rsCtx) []string {
				return []string{"Setup go version spec 1.23.3", "Found in cache @ /opt/hostedtoolcache/go/1.23.3/x64", "Added go to the path", "Cache restored successfully"}
			}},
			{name: "Create kind cluster", uses: "helm/kind-action@v1", with: []string{"cluster_name: lease-e2e", "version: v0.25.0", "node_image: kindest/node:v1.31.2"}, post: true, secs: [2]int{40, 70},
				out: func(c *rsCtx) []string {
					return []string{"Installing kind...", "Creating kind cluster...", "Creating cluster \"lease-e2e\" ...", " • Ensuring node image (kindest/node:v1.31.2) 🖼  ...",
						" ✓ Starting control-plane 🕹️", "Set kubectl context to \"kind-lease-e2e\"", "Waiting for cluster to be ready...", "node/lease-e2e-control-plane condition met"}
				}},
			{name: "Deploy operator", run: []string{"make e2e-deploy IMG=lease-operator:e2e"}, secs: [2]int{70, 110}, out: func(c *rsCtx) []string { return deployOut(c, true) }},
			{name: "Run e2e tests", run: []string{"make test-e2e"}, secs: [2]int{200, 260}, out: func(c *rsCtx) []string {
				return []string{"go test ./test/e2e/ -v -ginkgo.v -timeout 20m", fmt.Sprintf("Ran 9 of 9 Specs in %s seconds", c.secs(190, 250, 3)), "SUCCESS! -- 9 Passed | 0 Failed | 0 Pending | 0 Skipped",
					"--- PASS: TestE2E (" + c.secs(190, 250, 2) + "s)", "PASS", fmt.Sprintf("ok  \tgithub.com/canopy-io/lease-operator/test/e2e\t%ss", c.secs(190, 250, 3))}
			}},
			{name: "Dump cluster state", run: []string{"kubectl get pods -A -o wide", "kubectl -n lease-system logs deploy/lease-controller-manager --tail=200 || true"}, always: true, secs: [2]int{1, 3},
				out: func(c *rsCtx) []string {
					return []string{"NAMESPACE            NAME                                              READY   STATUS              RESTARTS   AGE",
						fmt.Sprintf("lease-system         lease-controller-manager-%s         0/1     ContainerCreating   0          %ds", c.suffix(), c.n(2, 9))}
				}},
		},
		files: map[string]string{".github/workflows/e2e.yml": workflow, "Makefile": makefile, "hack/e2e/deploy.sh": deploy,
			"go.mod":                            "module github.com/canopy-io/lease-operator\n\ngo 1.23.3\n",
			"Dockerfile":                        "FROM golang:1.23 AS builder\nWORKDIR /workspace\nCOPY go.mod go.sum ./\nRUN go mod download\nCOPY cmd/ cmd/\nCOPY api/ api/\nCOPY internal/ internal/\nRUN CGO_ENABLED=0 go build -a -o manager ./cmd\n\nFROM gcr.io/distroless/static:nonroot\nWORKDIR /\nCOPY --from=builder /workspace/manager .\nUSER 65532:65532\nENTRYPOINT [\"/manager\"]\n",
			"config/default/kustomization.yaml": "namespace: lease-system\nnamePrefix: lease-\nresources:\n- ../crd\n- ../rbac\n- ../manager\n"},
		history: ".....W......p...G......W...q....p.....W.....x...W..p......G....W..W",
		failures: map[byte]rsFailure{
			'W': {step: "Deploy operator", exit: 2, secs: [2]int{60, 90}, out: func(c *rsCtx) []string { return deployOut(c, false) }},
			'G': {step: "Run e2e tests", exit: 2, secs: [2]int{200, 260}, out: func(c *rsCtx) []string {
				at := c.r.started.Add(4 * time.Minute).Format("01/02/06 15:04:05.000")
				return append([]string{"go test ./test/e2e/ -v -ginkgo.v -timeout 20m"}, lines(fmt.Sprintf(`  [FAILED] Timed out after 60.001s.
  Expected
      <string>: Pending
  to equal
      <string>: Acquired
  In [It] at: %s/test/e2e/lease_test.go:97 @ %s
------------------------------

Summarizing 1 Failure:
  [FAIL] Lease controller when a holder renews [It] keeps the lease acquired across renewals
  %s/test/e2e/lease_test.go:97

Ran 9 of 9 Specs in %s seconds
FAIL! -- 8 Passed | 1 Failed | 0 Pending | 0 Skipped
--- FAIL: TestE2E (%ss)
FAIL
FAIL	github.com/canopy-io/lease-operator/test/e2e	%ss
FAIL
make: *** [Makefile:26: test-e2e] Error 1`, c.ws, at, c.ws, c.secs(190, 250, 3), c.secs(190, 250, 2), c.secs(190, 250, 3)))...)
			}},
		},
		prBranches: []string{"feat/lease-metrics", "fix/renew-jitter"}, prFail: 'G', rerunFail: 'W',
		authors:  []string{"dmitri-v", "claire-n"},
		messages: []string{"controller: requeue on conflict", "api: add holderIdentity printer column", "webhook: default lease duration", "e2e: cover renewals", "chore: bump controller-runtime"},
		start:    time.Date(2026, 10, 2, 10, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanism: "ordering", cause: "no matching resources found",
			producer: &rsAnchor{file: "hack/e2e/deploy.sh", from: "wait --for=condition=Ready pod"},
			patch:    true, patchFiles: []string{"hack/e2e/deploy.sh"}, ciOnly: &rsTrue, pattern: "intermittent"},
	}
}
