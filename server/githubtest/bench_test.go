package githubtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-github/v66/github"
)

// BenchmarkListRunsPage measures one page of 100 runs of the shared
// karmada scenario through go-github and ghinstallation, loopback included.
func BenchmarkListRunsPage(b *testing.B) {
	dir := filepath.Join(sharedDir(), "scenarios", "karmada-rollout")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("shared scenario not found at %s; set POLYLANE_SHARED_DIR", dir)
	}
	f := readFacts(b, dir)
	s, err := Start(Options{Scenarios: []string{dir}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, err := s.NewInstallationClient(f.Inst)
	if err != nil {
		b.Fatal(err)
	}
	opts := &github.ListWorkflowRunsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := c.Actions.ListWorkflowRunsByID(context.Background(), f.Owner, f.Name, f.WorkflowID, opts); err != nil {
			b.Fatal(err)
		}
	}
}
