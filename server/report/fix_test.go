package report

import (
	"strings"
	"testing"

	"github.com/polylane/polylane/causal/patch"
)

// TestWorkflowPatchSaysActionlintChecked: a patch that changes a workflow
// says in the comment and in the fix pull request that actionlint checked
// it (patch.Build refuses one that adds an actionlint error); a patch that
// changes no workflow says nothing about actionlint.
func TestWorkflowPatchSaysActionlintChecked(t *testing.T) {
	const sentence = "Checked with actionlint"
	for _, tc := range []struct {
		path string
		want bool
	}{
		{".github/workflows/ci.yml", true},
		{".github/workflows/release.yaml", true},
		{"Taskfile.yml", false},
		{"ci/workflows/ci.yml", false},
	} {
		d := loadFixture(t, "rollout-race")
		d.Patch.Files = []patch.FileChange{{Path: tc.path, Added: 1}}
		out, err := Comment(d, Options{BotLogin: "polylane[bot]"})
		if err != nil {
			t.Fatal(err)
		}
		_, body, err := PullRequest(d, Options{BotLogin: "polylane[bot]"})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out, sentence); got != tc.want {
			t.Errorf("%s: comment says actionlint checked it: %v, want %v", tc.path, got, tc.want)
		}
		if got := strings.Contains(body, sentence); got != tc.want {
			t.Errorf("%s: pull request body says actionlint checked it: %v, want %v", tc.path, got, tc.want)
		}
	}
}
