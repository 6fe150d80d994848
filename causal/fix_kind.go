package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// kind creates a cluster by starting node containers and running kubeadm in
// them; on a loaded runner kubeadm may wait for the kubelet and the API
// server longer than it allows. kind deletes the nodes of a failed creation,
// so one more attempt after `kind delete cluster` starts clean (mechanisms
// catalogue #35).

// kindCreate reports whether a command creates a kind cluster.
func kindCreate(n *harness.Node) bool {
	return n != nil && n.Tool() == "kind" && subcommand(n) == "create"
}

// kindClusterName returns the --name word of a kind command as written
// (make or shell variables kept), "" when it names none.
func kindClusterName(n *harness.Node) string {
	words := n.Cmd.Words
	for i, w := range words {
		switch {
		case w == "--name" && i+1 < len(words):
			return words[i+1]
		case strings.HasPrefix(w, "--name="):
			return strings.TrimPrefix(w, "--name=")
		}
	}
	return ""
}

// fixKindRecreate retries a failed kind cluster creation once, deleting the
// half-made cluster in between.
func fixKindRecreate(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if !kindCreate(n) {
		return nil, noFix("the command that failed to create the cluster was not located")
	}
	if r := x.retryOf(n); r != "" {
		return nil, noFix("`kind create cluster` is already retried (%s), so the cluster cannot start on this runner at all", r)
	}
	site, err := x.siteOf(n)
	if err != nil {
		return nil, err
	}
	cleanup := "kind delete cluster"
	if name := kindClusterName(n); name != "" {
		cleanup += " --name " + name
	}
	out, err := patch.WrapRetry(site, patch.Retry{Attempts: 2, Delay: 10, What: "kind create cluster", Cleanup: cleanup})
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("kubeadm could not bring the kind control plane up in time%s, and kind removed the node containers after the failure. "+
		"The patch tries the creation once more after `%s`, two attempts in all: a slow start on a busy runner gets a second chance, while a cluster that cannot start twice in a row still fails the step.",
		cite(append(x.ids["cause"], x.ids["emitter"]...)...), cleanup)
	return &fixPlan{Title: "Retry kind cluster creation once", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}
