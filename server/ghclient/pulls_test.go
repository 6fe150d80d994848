package ghclient_test

import (
	"strings"
	"testing"

	"github.com/polylane/polylane/server/ghclient"
)

// TestFixPullSendsNoForkFlag: a pull request between two branches of one
// repository is opened without maintainer_can_modify, which only concerns
// a fork's head branch.
func TestFixPullSendsNoForkFlag(t *testing.T) {
	sim := startSim(t)
	r := tinyRepoHandle(t, newClient(t, sim, nil))
	ctx := testCtx(t)
	head, err := r.BranchHead(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	base, err := r.GetCommit(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := r.CreateTree(ctx, base.Tree, []ghclient.TreeFile{{Path: "fix.txt", Content: []byte("fix\n")}})
	if err != nil {
		t.Fatal(err)
	}
	commit, err := r.CreateCommit(ctx, "fix", tree, []string{head})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.CreateBranch(ctx, "polylane/fix-x", commit); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CreatePull(ctx, ghclient.NewPull{Title: "fix", Body: "b", Head: "polylane/fix-x", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	for _, w := range sim.Writes() {
		if strings.HasSuffix(w.Path, "/pulls") && strings.Contains(string(w.Body), "maintainer_can_modify") {
			t.Errorf("the pull request was opened with maintainer_can_modify: %s", w.Body)
		}
	}
}
