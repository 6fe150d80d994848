package patch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/polylane/polylane/causal/patch/patchtest"
)

func TestBuild(t *testing.T) {
	t.Parallel()
	repo := fstest.MapFS{
		"Makefile":    {Data: []byte("deps:\n\tnpm ci\n\ntest:\n\tnpm test\n")},
		"hack/run.sh": {Data: []byte("#!/bin/sh\nkubectl apply -f x.yaml\n")},
	}
	edits := []FileEdit{
		{Path: "Makefile", Old: repo["Makefile"].Data,
			New: []byte("deps:\n\tfor i in 1 2 3; do npm ci && exit 0; sleep 10; done; exit 1\n\ntest:\n\tnpm test\n")},
		{Path: "hack/retry.sh", New: []byte("#!/bin/sh\nfor i in 1 2 3; do \"$@\" && exit 0; sleep 5; done\nexit 1\n")},
		{Path: "hack/run.sh", Old: repo["hack/run.sh"].Data, New: repo["hack/run.sh"].Data},
	}
	p, err := BuildIn(repo, "Retry npm ci", "npm ci fails on registry resets", edits)
	if err != nil {
		t.Fatalf("BuildIn: %v", err)
	}
	want := []FileChange{{Path: "Makefile", Added: 1, Removed: 1}, {Path: "hack/retry.sh", Added: 3, Removed: 0}}
	if len(p.Files) != len(want) {
		t.Fatalf("Build files = %+v, want %+v", p.Files, want)
	}
	for i := range want {
		if p.Files[i] != want[i] {
			t.Errorf("Build file %d = %+v, want %+v", i, p.Files[i], want[i])
		}
	}
	if got := Count(p.Diff); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Count(diff) = %+v, want %+v", got, want)
	}
	if p.Title != "Retry npm ci" || p.Rationale == "" {
		t.Errorf("Build title/rationale = %q/%q", p.Title, p.Rationale)
	}
	if err := patchtest.ApplyCheck(t, repo, p.Diff); err != nil {
		t.Fatalf("git apply --check: %v\n%s", err, p.Diff)
	}
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	repo := fstest.MapFS{"Makefile": {Data: []byte("test:\n\tgo test ./...\n")}}
	tests := []struct {
		name  string
		edits []FileEdit
		is    error
		rule  string
	}{
		{name: "nothing changes", edits: []FileEdit{{Path: "Makefile", Old: repo["Makefile"].Data, New: repo["Makefile"].Data}}, is: ErrNoChange},
		{name: "invalid change", edits: []FileEdit{{Path: "Makefile", Old: repo["Makefile"].Data, New: []byte("test:\n\t-go test ./...\n")}}, rule: RuleContinueOnError},
		{name: "escaping path", edits: []FileEdit{{Path: "../x", New: []byte("x\n")}}, rule: RulePath},
		{name: "stale old", edits: []FileEdit{{Path: "Makefile", Old: []byte("other\n"), New: []byte("x:\n")}}},
		{name: "creating an existing file", edits: []FileEdit{{Path: "Makefile", New: []byte("x:\n")}}},
		{name: "editing a missing file", edits: []FileEdit{{Path: "nope", Old: []byte("a\n"), New: []byte("b\n")}}},
		{name: "same path twice", edits: []FileEdit{
			{Path: "new.txt", New: []byte("a\n")}, {Path: "new.txt", New: []byte("b\n")}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := BuildIn(repo, "t", "r", tc.edits)
			if err == nil {
				t.Fatalf("BuildIn = %+v, want an error", p)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("BuildIn error = %v, want %v", err, tc.is)
			}
			var ve *ValidationError
			if tc.rule != "" && (!errors.As(err, &ve) || ve.Rule != tc.rule) {
				t.Errorf("BuildIn error = %v, want rule %s", err, tc.rule)
			}
		})
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	diff := "diff --git a/a.yaml b/a.yaml\n--- a/a.yaml\n+++ b/a.yaml\n@@ -1,3 +1,2 @@\n--- doc\n-- x\n+++ y\n keep\n" +
		"diff --git a/gone b/gone\ndeleted file mode 100644\n--- a/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" +
		"diff --git \"a/caf\\303\\251\" \"b/caf\\303\\251\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/caf\\303\\251\"\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n"
	want := []FileChange{{"a.yaml", 1, 2}, {"gone", 0, 1}, {"caf\u00e9", 1, 0}}
	got := Count(diff)
	if len(got) != len(want) {
		t.Fatalf("Count = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Count[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestCountPlainDiff(t *testing.T) {
	t.Parallel()
	diff := "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n--- a/y\n+++ b/y\n@@ -1 +1,2 @@\n y\n+z\n"
	got := Count(diff)
	want := []FileChange{{"x", 1, 1}, {"y", 1, 0}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Count(plain diff) = %+v, want %+v", got, want)
	}
}

// TestBuildAppliesToScenario builds a rollout-status patch on the karmada
// example's Taskfile, read in place, and checks git accepts it at repo/.
func TestBuildAppliesToScenario(t *testing.T) {
	t.Parallel()
	root := filepath.Join(sharedScenarios(t), "karmada-rollout", "repo")
	repo := os.DirFS(root)
	old, err := fs.ReadFile(repo, "Taskfile.yaml")
	if err != nil {
		t.Fatalf("read Taskfile: %v", err)
	}
	gate := "      - kubectl --kubeconfig {{.HOST_KUBECONFIG}} -n karmada-system wait --for=condition=Available deploy --all --timeout=10m\n"
	if !strings.Contains(string(old), gate) {
		t.Skip("the scenario's Taskfile no longer has the readiness gate this test edits")
	}
	wait := gate + "      - kubectl --kubeconfig {{.HOST_KUBECONFIG}} -n karmada-system rollout status statefulset/etcd --timeout=10m\n" +
		"      - for: [karmada-apiserver, karmada-controller-manager]\n" +
		"        cmd: kubectl --kubeconfig {{.HOST_KUBECONFIG}} -n karmada-system rollout status deploy/{{.ITEM}} --timeout=10m\n"
	p, err := BuildIn(repo, "Wait for the Karmada rollout", "r", []FileEdit{{Path: "Taskfile.yaml", Old: old,
		New: []byte(strings.Replace(string(old), gate, wait, 1))}})
	if err != nil {
		t.Fatalf("BuildIn: %v", err)
	}
	if len(p.Files) != 1 || p.Files[0].Added != 3 || p.Files[0].Removed != 0 {
		t.Errorf("files = %+v, want Taskfile.yaml +3/-0", p.Files)
	}
	if err := patchtest.ApplyCheck(t, repo, p.Diff); err != nil {
		t.Fatalf("git apply --check at the scenario's repo: %v\n%s", err, p.Diff)
	}
}
