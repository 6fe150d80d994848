package impact

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

func TestAssessSyntheticRepos(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		repo     string
		changes  []Change
		affected []string
		reason   string // a substring of the summary
	}{
		{name: "recipe of a target the image build does not run", repo: "multistage",
			changes: []Change{{Path: "Makefile", Lines: []int{9, 10}}}, reason: "no RUN in the stages"},
		{name: "recipe of the target RUN make build runs", repo: "multistage",
			changes: []Change{{Path: "Makefile", Lines: []int{6}}}, affected: []string{"ghcr.io/acme/multi"}, reason: "RUN make build"},
		{name: "shared make variable", repo: "multistage",
			changes: []Change{{Path: "Makefile", Lines: []int{1}}}, affected: []string{"ghcr.io/acme/multi"}},
		{name: "script copied only into a stage the final image does not use", repo: "multistage",
			changes: []Change{{Path: "hack/tools.sh"}}, reason: "hack/tools.sh is copied into build stage build"},
		{name: "file left out by .dockerignore", repo: "multistage",
			changes: []Change{{Path: "docs/guide.md"}}, reason: `.dockerignore ("**/*.md")`},
		{name: "file copied into the final stage", repo: "multistage",
			changes: []Change{{Path: "config/app.yaml"}}, affected: []string{"ghcr.io/acme/multi"}, reason: "copied into the final stage"},
		{name: "source compiled in a build stage", repo: "multistage",
			changes: []Change{{Path: "internal/server/server.go"}}, affected: []string{"ghcr.io/acme/multi"}},
		{name: "the Dockerfile itself", repo: "multistage",
			changes: []Change{{Path: "Dockerfile", Lines: []int{3}}}, affected: []string{"ghcr.io/acme/multi"}},
		{name: "the .dockerignore", repo: "multistage",
			changes: []Change{{Path: ".dockerignore"}}, affected: []string{"ghcr.io/acme/multi"}},
		{name: "non-publishing job of the publishing workflow", repo: "multistage",
			changes: []Change{{Path: ".github/workflows/release.yml", Lines: []int{10}}}, reason: "changes only job lint"},
		{name: "publishing job", repo: "multistage",
			changes: []Change{{Path: ".github/workflows/release.yml", Lines: []int{20}}}, affected: []string{"ghcr.io/acme/multi"}},
		{name: "workflow triggers", repo: "multistage",
			changes: []Change{{Path: ".github/workflows/release.yml", Lines: []int{4}}}, affected: []string{"ghcr.io/acme/multi"}},
		{name: "test workflow", repo: "multistage",
			changes: []Change{{Path: ".github/workflows/ci.yml", Lines: []int{8}}}},
		{name: "chart, kustomize base and plain manifest", repo: "charts",
			changes:  []Change{{Path: "charts/api/values.yaml"}, {Path: "deploy/kustomize/base/deployment.yaml"}, {Path: "k8s/worker.yaml"}},
			affected: []string{"api", "ghcr.io/acme/api", "ghcr.io/acme/worker"}},
		{name: "test kustomization and harness", repo: "charts",
			changes: []Change{{Path: "test/e2e/fixture.yaml"}, {Path: "Makefile"}}},
		{name: "goreleaser source", repo: "goreleaser",
			changes: []Change{{Path: "cmd/apicli/main.go"}}, affected: []string{"apicli", "ghcr.io/acme/apicli"}},
		{name: "goreleaser test file", repo: "goreleaser",
			changes: []Change{{Path: "cmd/apicli/main_test.go"}, {Path: "Makefile"}}},
		{name: "compose service build", repo: "compose",
			changes: []Change{{Path: "web/app.py"}}, affected: []string{"registry.example.com/shop/web"}},
		{name: "compose deployment file", repo: "compose",
			changes:  []Change{{Path: "deploy/docker-compose.yml"}},
			affected: []string{"registry.example.com/shop/web", "postgres"}},
		{name: "test compose Dockerfile", repo: "compose",
			changes: []Change{{Path: "test/Dockerfile.test"}}},
		{name: "Dockerfile only tests build", repo: "testonly",
			changes: []Change{{Path: "Dockerfile.test"}}, reason: "no deploy edge"},
		{name: "make target the publishing job runs", repo: "makepush",
			changes: []Change{{Path: "Makefile", Lines: []int{9}}}, affected: []string{"ghcr.io/acme/operator"}, reason: "publishing job push"},
		{name: "make target the publishing job does not run", repo: "makepush",
			changes: []Change{{Path: "Makefile", Lines: []int{6}}}},
		{name: "nothing deployed", repo: "nodeploy",
			changes: []Change{{Path: "Makefile"}}, reason: "no deploy edge"},
		{name: "job that calls a publishing reusable workflow", repo: "reusable",
			changes: []Change{{Path: ".github/workflows/release.yml", Lines: []int{12}}}, affected: []string{"ghcr.io/acme/svc"}},
		{name: "test job next to a reusable publish", repo: "reusable",
			changes: []Change{{Path: ".github/workflows/release.yml", Lines: []int{9}}}},
		{name: "reusable publishing workflow", repo: "reusable",
			changes: []Change{{Path: ".github/workflows/image.yml", Lines: []int{10}}}, affected: []string{"ghcr.io/acme/svc"}},
		{name: "Dockerfile with another name", repo: "reusable",
			changes: []Change{{Path: "images/svc.Dockerfile"}}, affected: []string{"ghcr.io/acme/svc"}},
		{name: "script copied but never run by the build", repo: "reusable",
			changes: []Change{{Path: "scripts/lint.sh"}}},
		{name: "deploy workflow", repo: "kubedeploy",
			changes: []Change{{Path: ".github/workflows/deploy.yml", Lines: []int{14}}}, affected: []string{"Helm release web", "infrastructure managed by terraform in infra"}},
		{name: "values file of the production release", repo: "kubedeploy",
			changes: []Change{{Path: "deploy/values-prod.yaml"}}, affected: []string{"Helm release web"}},
		{name: "values file of the kind test release", repo: "kubedeploy",
			changes: []Change{{Path: "hack/values-kind.yaml"}}},
		{name: "terraform configuration", repo: "kubedeploy",
			changes: []Change{{Path: "infra/main.tf"}}, affected: []string{"infrastructure managed by terraform in infra"}},
		{name: "terraform docs", repo: "kubedeploy",
			changes: []Change{{Path: "infra/README.md"}}},
		{name: "chart template", repo: "kubedeploy",
			changes: []Change{{Path: "charts/web/templates/deployment.yaml"}}, affected: []string{"Helm release web", "web"}},
		{name: "test workflow that deploys into kind", repo: "kubedeploy",
			changes: []Change{{Path: ".github/workflows/e2e.yml", Lines: []int{11}}}},
		{name: "harness swept into the final image by COPY . .", repo: "flatimage",
			changes: []Change{{Path: "Makefile"}, {Path: ".github/workflows/ci.yml"}, {Path: "scripts/lint.sh"}}, reason: "nothing in the image runs the changed lines"},
		{name: "entrypoint script", repo: "flatimage",
			changes: []Change{{Path: "scripts/entrypoint.sh"}}, affected: []string{"docker.io/acme/flat"}, reason: "the container runs it"},
		{name: "script copied on purpose", repo: "flatimage",
			changes: []Change{{Path: "scripts/healthcheck.sh"}}, affected: []string{"docker.io/acme/flat"}},
		{name: "application source in a flat image", repo: "flatimage",
			changes: []Change{{Path: "app.py"}}, affected: []string{"docker.io/acme/flat"}},
		{name: "build settings of an app published to Google Play", repo: "playstore",
			changes: []Change{{Path: "gradle.properties"}}, affected: []string{"Android app on Google Play"}},
		{name: "test workflow of an app published to Google Play", repo: "playstore",
			changes: []Change{{Path: ".github/workflows/ci.yml", Lines: []int{8}}}},
		{name: "Dockerfile nobody here pushes", repo: "unpublished",
			changes: []Change{{Path: "site/index.html"}}, affected: []string{"image built from Dockerfile"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			im, err := Assess(os.DirFS(filepath.Join("testdata", "repos", tc.repo)), "acme/multi", tc.changes)
			if err != nil {
				t.Fatalf("Assess: %v", err)
			}
			got := slices.Clone(im.Affected)
			slices.Sort(got)
			want := slices.Clone(tc.affected)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Assess(%s, %v) affected = %q, want %q\nsummary: %s", tc.repo, tc.changes, got, want, im.Summary)
			}
			if im.CIOnly != (len(tc.affected) == 0) {
				t.Errorf("Assess(%s) ci_only = %v, want %v", tc.repo, im.CIOnly, len(tc.affected) == 0)
			}
			if !strings.Contains(im.Summary, tc.reason) {
				t.Errorf("Assess(%s) summary lacks %q:\n%s", tc.repo, tc.reason, im.Summary)
			}
			if len(im.Files) != len(tc.changes) {
				t.Errorf("Assess(%s) has %d file verdicts, want %d", tc.repo, len(im.Files), len(tc.changes))
			}
		})
	}
}

func TestAssessNotes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		repo    string
		note    string
		assumed bool // an edge counted as deployed, not a file that is not deployed
	}{
		{"testonly", "Dockerfile.test is built only for tests", false},
		{"charts", "The kustomization in test/e2e serves tests, not a deployment; the harness uses it in e2e (Makefile:2)", false},
		{"charts", "test/charts/fixture sits under test tooling", false},
		{"compose", "docker-compose.test.yml is a Compose file for tests", false},
		{"unpublished", "may be built by an outside service", true},
	}
	for _, tc := range tests {
		im, err := Assess(os.DirFS(filepath.Join("testdata", "repos", tc.repo)), "", nil)
		if err != nil {
			t.Fatalf("Assess(%s): %v", tc.repo, err)
		}
		has := func(n string) bool { return strings.Contains(n, tc.note) }
		want, other := im.Notes, im.Assumed
		if tc.assumed {
			want, other = im.Assumed, im.Notes
		}
		if !slices.ContainsFunc(want, has) || slices.ContainsFunc(other, has) {
			t.Errorf("Assess(%s) notes = %q, assumed = %q, want %q in the %s list", tc.repo, im.Notes, im.Assumed, tc.note, map[bool]string{true: "assumed", false: "notes"}[tc.assumed])
		}
		for _, n := range im.Notes {
			if strings.Contains(n, "counted as deployed") {
				t.Errorf("Assess(%s): a note about a file that is not deployed says it is counted as deployed: %q", tc.repo, n)
			}
		}
	}
}

func TestAssessEdges(t *testing.T) {
	t.Parallel()
	im, err := Assess(os.DirFS("testdata/repos/multistage"), "Acme/Multi", nil)
	if err != nil {
		t.Fatalf("Assess: %v", err)
	}
	want := []Edge{{Source: "Dockerfile", Kind: OCIImage, Artifact: "ghcr.io/acme/multi", Via: ".github/workflows/release.yml",
		Job: "image", Context: ".", Line: 22}}
	if !slices.Equal(im.DeployEdges, want) {
		t.Errorf("deploy edges = %+v, want %+v", im.DeployEdges, want)
	}
}

func TestAssessNilRepo(t *testing.T) {
	t.Parallel()
	if _, err := Assess(nil, "", nil); err == nil {
		t.Fatal("Assess(nil) succeeded, want an error")
	}
}

// goldenJSON compares v, as indented JSON, with testdata/golden/name
// (UPDATE=1 rewrites it).
func goldenJSON(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	scenariotest.Golden(t, filepath.Join("testdata", "golden", name), append(got, '\n'))
}
