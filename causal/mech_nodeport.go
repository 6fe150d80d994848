package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// A Service that asks for a fixed NodePort fails when the cluster already
// gave that port to another Service. The API server allocates NodePorts at
// random from 30000–32767 to every Service that does not name one
// (kubernetes.io/docs/concepts/services-networking/service/#type-nodeport),
// and a k3s or k3d cluster starts with Traefik's LoadBalancer Service,
// which takes two of them. In zarf-dev/zarf#2357 the registry's fixed
// NodePort 31337 collided with them now and then; the maintainers created
// the k3d cluster without Traefik.

// nodePortCases is the corpus case whose miss led to this rule.
var nodePortCases = []string{"zarf-dev/zarf"}

var ruleNodePortAllocated = rule{ID: "port-conflict/nodeport-allocated", Category: PortConflict, Catalogue: 27, Wide: true,
	Cause:    res(`provided port is already allocated`),
	Harness:  (*explainer).clusterCreation,
	Producer: roleInstall, Fix: fixK3dTraefik, Cases: nodePortCases,
	Summary: "{emitter_desc} asked for a fixed NodePort that the cluster had already given to another Service: '{cause_short}'{cause_cite}. " +
		"The API server hands out NodePorts at random from 30000–32767 to every Service that names none, so a fixed one collides now and then.{cluster_note}",
	Values: map[string]summaryValue{"cluster_note": valueClusterNote}}

// valueClusterNote names the command that created the cluster and what it
// starts that takes NodePorts.
func valueClusterNote(x *explainer) string {
	n := x.find.Install
	if n == nil {
		return ""
	}
	s := fmt.Sprintf(" The cluster comes from %s", describe(n))
	if isK3dCreate(n) && !mentionsTraefik(n) {
		s += ", whose k3s server starts Traefik with a LoadBalancer Service that takes two random NodePorts"
	}
	return s + "."
}

// clusterCreation finds the command that created the test cluster: in an
// earlier step of the job, or before the emitter in the failing step. The
// rule holds without one; the producer is then the emitter's step.
func (x *explainer) clusterCreation() (finding, bool) {
	if n := x.treeBefore(isClusterCreate, ""); n != nil {
		return finding{Install: n}, true
	}
	if x.job == nil || x.wf == nil {
		return finding{}, true
	}
	var found *harness.Node
	for _, s := range x.job.Steps {
		if s == x.step {
			break
		}
		for _, n := range descendants(x.repo.ResolveStep(x.wf, x.job, s)) {
			if n.Kind == harness.NodeCommand && isClusterCreate(n) {
				found = n
			}
		}
	}
	return finding{Install: found}, true
}

// isClusterCreate reports whether a command creates a local Kubernetes
// cluster.
func isClusterCreate(n *harness.Node) bool {
	switch n.Tool() {
	case "k3d", "kind":
		return hasArgs(n, "cluster", "create") || hasArgs(n, "create", "cluster")
	case "minikube":
		return subcommand(n) == "start"
	}
	return false
}

// isK3dCreate reports whether n is "k3d cluster create".
func isK3dCreate(n *harness.Node) bool {
	return n != nil && n.Tool() == "k3d" && hasArgs(n, "cluster", "create")
}

// hasArgs reports whether a command's first arguments (after the
// program) are words.
func hasArgs(n *harness.Node, words ...string) bool {
	args := n.EffectiveArgs()
	if len(args) > 0 {
		args = args[1:]
	}
	if len(args) < len(words) {
		return false
	}
	for i, w := range words {
		if args[i] != w {
			return false
		}
	}
	return true
}

// mentionsTraefik reports whether a command already configures Traefik.
func mentionsTraefik(n *harness.Node) bool {
	return strings.Contains(strings.ToLower(n.Text), "traefik")
}

// fixK3dTraefik creates the k3d cluster without the bundled Traefik, as
// zarf's maintainers did; k3d passes the flag to the k3s server with
// --k3s-arg (k3d.io, "k3d cluster create"; docs.k3s.io, "Packaged
// Components"). It declines when the harness uses Traefik.
func fixK3dTraefik(x *fixContext) (*fixPlan, error) {
	n := x.find.Install
	if !isK3dCreate(n) {
		return nil, noFix("the cluster was not created by `k3d cluster create` in the harness, so Polylane cannot tell which Service holds the port; give the Service a NodePort outside the range the cluster allocates from, or none")
	}
	if mentionsTraefik(n) {
		return nil, noFix("`%s` already configures Traefik", commandName(n))
	}
	if x.harnessUsesTraefik() {
		return nil, noFix("the harness uses Traefik, so it cannot be left out of the cluster")
	}
	site, out, err := x.addArgs(n, "create", []string{`--k3s-arg=--disable=traefik@server:0`})
	if err != nil {
		return nil, err
	}
	rationale := fmt.Sprintf("The Service's fixed NodePort was already taken%s. k3d's k3s server starts Traefik with a LoadBalancer Service, and the API server gives it two NodePorts at random from the same range; "+
		"nothing in the harness uses Traefik, so the patch creates the cluster without it and the range holds only the ports the tests ask for. A Service of the tests that still collides names its own port twice.",
		cite(x.ids["cause"]...))
	return &fixPlan{Title: "Create the k3d cluster without Traefik", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// harnessUsesTraefik reports whether a step of the job names Traefik.
func (x *facts) harnessUsesTraefik() bool {
	if x.job == nil || x.wf == nil {
		return false
	}
	for _, s := range x.job.Steps {
		for _, n := range descendants(x.repo.ResolveStep(x.wf, x.job, s)) {
			if n.Kind == harness.NodeCommand && !isClusterCreate(n) && mentionsTraefik(n) {
				return true
			}
		}
	}
	return false
}
