package impact

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

// scenarioRepo returns the repo/ tree of a shared example scenario, read in
// place; it skips when the shared tree is absent, unless CI=true.
func scenarioRepo(t testing.TB, name string) fs.FS {
	t.Helper()
	return os.DirFS(scenariotest.Path(t, "scenarios", name, "repo"))
}

// insertAfter returns a unified-diff-shaped change that inserts lines after
// the first line of file containing anchor, as the lines a patch touches.
func insertAfter(t *testing.T, repo fs.FS, file, anchor string) Change {
	t.Helper()
	data, err := fs.ReadFile(repo, file)
	if err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, anchor) {
			return Change{Path: file, Lines: []int{i + 1, i + 2}}
		}
	}
	t.Skipf("%s no longer contains %q", file, anchor)
	return Change{}
}

func TestAssessScenarios(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, scenario, repository string
		change                     func(t *testing.T, repo fs.FS) Change
		edge                       Edge
		affected                   bool
		golden                     string
	}{
		{name: "karmada Taskfile gate", scenario: "karmada-rollout", repository: "datum-cloud/compute",
			change: func(t *testing.T, repo fs.FS) Change {
				return insertAfter(t, repo, "Taskfile.yaml", "wait --for=condition=Available deploy --all")
			},
			edge:   Edge{Source: "Dockerfile", Kind: OCIImage, Artifact: "ghcr.io/datum-cloud/compute", Via: ".github/workflows/publish.yml"},
			golden: "karmada-taskfile.json"},
		{name: "karmada operator source", scenario: "karmada-rollout", repository: "datum-cloud/compute",
			change:   func(*testing.T, fs.FS) Change { return Change{Path: "internal/controller/setup.go"} },
			edge:     Edge{Source: "Dockerfile", Kind: OCIImage, Artifact: "ghcr.io/datum-cloud/compute", Via: ".github/workflows/publish.yml"},
			affected: true},
		{name: "karmada Dockerfile", scenario: "karmada-rollout", repository: "datum-cloud/compute",
			change:   func(*testing.T, fs.FS) Change { return Change{Path: "Dockerfile", Lines: []int{20}} },
			edge:     Edge{Source: "Dockerfile", Kind: OCIImage, Artifact: "ghcr.io/datum-cloud/compute", Via: ".github/workflows/publish.yml"},
			affected: true},
		{name: "karmada publish workflow", scenario: "karmada-rollout", repository: "datum-cloud/compute",
			change:   func(*testing.T, fs.FS) Change { return Change{Path: ".github/workflows/publish.yml"} },
			edge:     Edge{Source: "Dockerfile", Kind: OCIImage, Artifact: "ghcr.io/datum-cloud/compute", Via: ".github/workflows/publish.yml"},
			affected: true},
		{name: "karmada e2e script", scenario: "karmada-rollout", repository: "datum-cloud/compute",
			change: func(*testing.T, fs.FS) Change { return Change{Path: "hack/e2e/patch-cluster-secret.sh"} },
			edge:   Edge{Source: "Dockerfile", Kind: OCIImage, Artifact: "ghcr.io/datum-cloud/compute", Via: ".github/workflows/publish.yml"}},
		{name: "webshop Makefile deps", scenario: "npm-registry-flake", repository: "acme/webshop",
			change: func(t *testing.T, repo fs.FS) Change { return insertAfter(t, repo, "Makefile", "deps:") },
			edge:   Edge{Source: "Dockerfile", Kind: OCIImage, Artifact: "ghcr.io/acme/webshop", Via: ".github/workflows/deploy.yml"},
			golden: "webshop-makefile.json"},
		{name: "webshop CI workflow", scenario: "npm-registry-flake", repository: "acme/webshop",
			change: func(*testing.T, fs.FS) Change { return Change{Path: ".github/workflows/ci.yml", Lines: []int{24, 25}} },
			edge:   Edge{Source: "Dockerfile", Kind: OCIImage, Artifact: "ghcr.io/acme/webshop", Via: ".github/workflows/deploy.yml"}},
		{name: "webshop nginx config", scenario: "npm-registry-flake", repository: "acme/webshop",
			change:   func(*testing.T, fs.FS) Change { return Change{Path: "deploy/nginx.conf"} },
			edge:     Edge{Source: "Dockerfile", Kind: OCIImage, Artifact: "ghcr.io/acme/webshop", Via: ".github/workflows/deploy.yml"},
			affected: true},
		{name: "webshop app source", scenario: "npm-registry-flake", repository: "acme/webshop",
			change:   func(*testing.T, fs.FS) Change { return Change{Path: "src/main.tsx"} },
			edge:     Edge{Source: "Dockerfile", Kind: OCIImage, Artifact: "ghcr.io/acme/webshop", Via: ".github/workflows/deploy.yml"},
			affected: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := scenarioRepo(t, tc.scenario)
			im, err := Assess(repo, tc.repository, []Change{tc.change(t, repo)})
			if err != nil {
				t.Fatalf("Assess: %v", err)
			}
			if len(im.DeployEdges) != 1 {
				t.Fatalf("deploy edges = %+v, want exactly one", im.DeployEdges)
			}
			got := im.DeployEdges[0]
			if got.Source != tc.edge.Source || got.Kind != tc.edge.Kind || got.Artifact != tc.edge.Artifact || got.Via != tc.edge.Via {
				t.Errorf("deploy edge = %+v, want %+v", got, tc.edge)
			}
			if im.CIOnly == tc.affected {
				t.Errorf("ci_only = %v, want %v\nsummary: %s", im.CIOnly, !tc.affected, im.Summary)
			}
			if tc.affected && !slices.Contains(im.Affected, tc.edge.Artifact) {
				t.Errorf("affected = %q, want %s", im.Affected, tc.edge.Artifact)
			}
			if tc.golden != "" {
				goldenJSON(t, tc.golden, im)
			}
		})
	}
}
