package impact

import (
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestObserve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		repo     string
		workflow string
		step     string
		added    []string
		want     []string
	}{
		{name: "upload on failure", repo: "testdata/repos/multistage", workflow: ".github/workflows/ci.yml", step: "End-to-end tests",
			added: []string{"\tfor i in 1 2 3; do kind create cluster --name e2e && break; echo \"kind create failed (attempt $$i/3)\"; sleep 10; done",
				"\tfor attempt in 1 2; do make up && exit 0; echo \"up failed (attempt $${attempt}/2), retrying in $$((attempt * 10))s\"; sleep 1; done; exit 1"},
			want: []string{
				`The changed step is visible in the CI workflow (.github/workflows/ci.yml), job e2e, step "End-to-end tests".`,
				"When the job fails it uploads e2e-logs (tmp/logs, tmp/events.txt).",
				`It prints "kind create failed (attempt $i/3)".`,
				`It prints "up failed (attempt $attempt/2), retrying in $((attempt * 10))s".`,
			}},
		{name: "no diagnostics", repo: "testdata/repos/nodeploy", workflow: ".github/workflows/ci.yml", step: "Run make test",
			added: []string{"          npm_config_fetch_retries: \"5\"", "  curl --retry 5 -fsSL https://example.com/x -o x"},
			want: []string{
				"The job collects and uploads no diagnostics on failure; the step log is the only record.",
				"npm retries a failed registry fetch up to 5 times and logs each retry as a warning before giving up.",
				"curl prints a warning for every retry, with the attempts left.",
			}},
		{name: "unknown step", repo: "testdata/repos/nodeploy", workflow: ".github/workflows/ci.yml", step: "Deploy",
			want: []string{`the step "Deploy" was not found in it`}},
		{name: "unknown workflow", repo: "testdata/repos/nodeploy", workflow: ".github/workflows/gone.yml", step: "x",
			want: []string{"could not be read"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Observe(os.DirFS(tc.repo), tc.workflow, tc.step, tc.added)
			for _, w := range tc.want {
				if !slices.ContainsFunc(got, func(n string) bool { return strings.Contains(n, w) }) {
					t.Errorf("Observe(%s, %q) = %q, want a note containing %q", tc.workflow, tc.step, got, w)
				}
			}
		})
	}
}

func TestObserveScenario(t *testing.T) {
	t.Parallel()
	repo := scenarioRepo(t, "karmada-rollout")
	added := []string{
		"      - kubectl --kubeconfig {{.HOST_KUBECONFIG}} -n karmada-system rollout status statefulset/etcd --timeout=10m",
		"        cmd: kubectl --kubeconfig {{.HOST_KUBECONFIG}} -n karmada-system rollout status deploy/{{.ITEM}} --timeout=10m",
		`      - echo "Karmada control plane is Available and rolled out"`,
	}
	got := Observe(repo, ".github/workflows/test-e2e.yml", "Provision Kind + Karmada environment", added)
	want := []string{
		`The changed step is visible in the E2E Tests workflow (.github/workflows/test-e2e.yml), job e2e, step "Provision Kind + Karmada environment".`,
		`When the job fails it runs "Collect diagnostics" (writes host-pods.txt, host-events.txt, karmada-clusters.txt) and uploads e2e-diagnostics (tmp/e2e/diagnostics).`,
		"kubectl rollout status reports the progress of statefulset/etcd until the rollout completes or times out.",
		"kubectl rollout status reports the progress of deploy/<ITEM> until the rollout completes or times out.",
		`It prints "Karmada control plane is Available and rolled out".`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("Observe = %q\nwant %q", got, want)
	}
}

// TestHostileRepository feeds malformed and oversized files: Assess and
// Observe must return without panicking and still find the sane edge.
func TestHostileRepository(t *testing.T) {
	t.Parallel()
	repo := fstest.MapFS{
		"Dockerfile":                            {Data: []byte("FROM a AS b\nCOPY --from=b . .\nFROM b AS b\nCOPY [\"unterminated\nRUN \\\n")},
		".dockerignore":                         {Data: []byte("[\n!\n**\n\\\n")},
		"deploy/bad.yaml":                       {Data: []byte("apiVersion: v1\nkind: [\n")},
		"deploy/anchors.yaml":                   {Data: []byte("a: &a [*a]\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")},
		"charts/x/Chart.yaml":                   {Data: []byte("\x00\x01binary")},
		"k8s/kustomization.yaml":                {Data: []byte("resources: [../k8s, ., ../../../etc]\n")},
		"docker-compose.yml":                    {Data: []byte("services:\n  a:\n    build: {context: ../../outside}\n")},
		".goreleaser.yml":                       {Data: []byte("dockers: 3\n")},
		".github/workflows/x.yml":               {Data: []byte("on: push\njobs:\n  a:\n    steps:\n      - run: docker build -t ${{ x }} $(pwd) && docker push \"${{ x }}\"\n      - uses: docker/build-push-action@v6\n        with: {push: true, file: ../../Dockerfile}\n")},
		".github/workflows/big.yml":             {Data: []byte("jobs:\n  a:\n    steps:\n      - run: " + strings.Repeat("echo x; ", 20000) + "\n")},
		"Makefile":                              {Data: []byte("a: a\n\t$(MAKE) a\n")},
		"Taskfile.yml":                          {Data: []byte("version: '3'\ntasks:\n  a:\n    cmds: [{task: a}]\n")},
		"src/" + strings.Repeat("d/", 60) + "f": {Data: []byte("x")},
	}
	im, err := Assess(repo, "o/r", []Change{{Path: "Makefile"}, {Path: "Dockerfile", Lines: []int{-1, 0, 1 << 30}}, {Path: "../../etc/passwd"}})
	if err != nil {
		t.Fatalf("Assess: %v", err)
	}
	if len(im.DeployEdges) == 0 {
		t.Errorf("Assess found no deploy edge in a repository with a Dockerfile and manifests")
	}
	_ = Observe(repo, ".github/workflows/x.yml", "Run docker build", []string{"echo \"${{ x }}\"", "{{", "$((", "'"})
}
