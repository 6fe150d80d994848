package causal

import (
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// changeVerbs are kubectl subcommands that can change a pod template or
// replace pods.
var changeVerbs = map[string]bool{
	"patch": true, "set": true, "apply": true, "rollout": true, "delete": true, "scale": true,
	"edit": true, "replace": true, "annotate": true, "label": true,
}

// gateAfterChange finds a readiness gate that passed after the harness
// changed workloads, with no rollout wait in between.
func (x *explainer) gateAfterChange() (finding, bool) {
	changes := ofKind(x.evs, evWorkloadChanged, evPodDeleted, evRelease)
	if len(changes) == 0 || x.tr == nil {
		return finding{}, false
	}
	last := changes[len(changes)-1].Line.N
	var gateEv *event
	for i := range x.evs {
		e := &x.evs[i]
		if e.Line.N > last && e.Kind == evRolledOut {
			return finding{}, false
		}
		if e.Line.N > last && e.Kind == evGatePassed && gateEv == nil {
			gateEv = e
		}
	}
	if gateEv == nil {
		return finding{}, false
	}
	gate := x.commandBefore(gateEv.Line.N, isGate)
	if gate == nil {
		gate = x.treeBefore(isGate, "")
	}
	if gate == nil {
		return finding{}, false
	}
	f := finding{Gate: gate, ChangeEvents: changes}
	f.Changes = x.changeCommands(changes)
	if len(f.Changes) > 0 {
		f.Trigger = f.Changes[len(f.Changes)-1]
	}
	return f, true
}

// changeWithoutWait finds workload changes that nothing waited for before
// the failing call.
func (x *explainer) changeWithoutWait() (finding, bool) {
	changes := ofKind(x.evs, evWorkloadChanged, evPodDeleted, evRelease)
	if len(changes) == 0 || x.tr == nil {
		return finding{}, false
	}
	last := changes[len(changes)-1].Line.N
	for _, e := range x.evs {
		if e.Line.N > last && (e.Kind == evGatePassed || e.Kind == evRolledOut) {
			return finding{}, false
		}
	}
	f := finding{ChangeEvents: changes, Changes: x.changeCommands(changes)}
	if len(f.Changes) == 0 {
		return finding{}, false
	}
	f.Trigger = f.Changes[len(f.Changes)-1]
	return f, true
}

// isGate reports whether a command is a readiness gate: kubectl wait on a
// condition.
func isGate(n *harness.Node) bool {
	if subcommand(n) != "wait" {
		return false
	}
	switch n.Tool() {
	case "kubectl", "oc", "karmadactl":
		return strings.Contains(n.Text, "--for")
	}
	return false
}

// isChange reports whether a command changes workloads.
func isChange(n *harness.Node) bool {
	switch n.Tool() {
	case "kubectl", "oc", "karmadactl":
		return changeVerbs[subcommand(n)]
	case "helm":
		sc := subcommand(n)
		return sc == "upgrade" || sc == "install" || sc == "rollback"
	}
	return false
}

// commandBefore returns the command that printed log line n: the last trace
// hit before it, or the command inside that hit, that satisfies ok.
func (x *facts) commandBefore(n int, ok func(*harness.Node) bool) *harness.Node {
	for i := len(x.hits) - 1; i >= 0; i-- {
		h := x.hits[i]
		if h.Line.N >= n {
			continue
		}
		for _, c := range descendants(h.Node) {
			if ok(c) {
				return c
			}
		}
		if h.Kind == echoTask || h.Kind == echoMake || h.Kind == echoXtrace {
			return nil
		}
	}
	return nil
}

// commandFor returns the harness command that printed an event line: from
// the log's echoes, else the command before the emitter that names the
// event's object.
func (x *facts) commandFor(e event, ok func(*harness.Node) bool) *harness.Node {
	if c := x.commandBefore(e.Line.N, ok); c != nil {
		return c
	}
	if e.Name == "" {
		return nil
	}
	return x.treeBefore(ok, e.Name)
}

// treeBefore returns the last command before the emitter, in execution
// order, that satisfies ok and (when name is set) names it as a word.
func (x *facts) treeBefore(ok func(*harness.Node) bool, name string) *harness.Node {
	if x.tr == nil || x.em.Node == nil {
		return nil
	}
	for i := x.tr.index[x.em.Node] - 1; i >= 0; i-- {
		n := x.tr.flat[i]
		if n.Kind != harness.NodeCommand || !ok(n) {
			continue
		}
		if name == "" || namesWord(n, name) {
			return n
		}
	}
	return nil
}

// namesWord reports whether a command's arguments name an object, alone or
// as kind/name.
func namesWord(n *harness.Node, name string) bool {
	for _, a := range n.EffectiveArgs() {
		if a == name || strings.HasSuffix(a, "/"+name) {
			return true
		}
	}
	return false
}

// changeCommands maps change events to the harness commands that caused
// them, in order, without duplicates.
func (x *explainer) changeCommands(evs []event) []*harness.Node {
	var out []*harness.Node
	seen := map[*harness.Node]bool{}
	for _, e := range evs {
		c := x.commandFor(e, isChange)
		if c != nil && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// isStarter reports whether a command starts something that serves later
// (an install, a detached container, a background server) and does not wait.
func isStarter(n *harness.Node) bool {
	args := n.EffectiveArgs()
	text := " " + strings.Join(args, " ") + " "
	switch n.Tool() {
	case "helm":
		sc := subcommand(n)
		return (sc == "install" || sc == "upgrade") && !strings.Contains(text, " --wait") && !strings.Contains(text, " --atomic")
	case "docker", "podman":
		sc := subcommand(n)
		if sc == "compose" {
			return strings.Contains(text, " up ") && !strings.Contains(text, " --wait")
		}
		return sc == "run" && (strings.Contains(text, " -d ") || strings.Contains(text, " --detach"))
	case "docker-compose":
		return strings.Contains(text, " up ") && !strings.Contains(text, " --wait")
	case "kubectl", "oc":
		sc := subcommand(n)
		return (sc == "apply" || sc == "create") && !strings.Contains(text, "--dry-run")
	}
	return n.Cmd != nil && n.Cmd.Background
}

// isWait reports whether a command waits for readiness.
func isWait(n *harness.Node) bool {
	if n.Cmd != nil && n.Cmd.RetryLoop() != nil {
		return true
	}
	sc := subcommand(n)
	text := n.Text
	return sc == "wait" || strings.Contains(text, "rollout status") || strings.Contains(text, "--wait") ||
		strings.Contains(text, "pg_isready") || strings.Contains(text, "wait-for") || strings.Contains(text, "healthcheck")
}

// startedWithoutWait finds the last starter before the emitter with no wait
// between them, or a service container without a health check.
func (x *explainer) startedWithoutWait() (finding, bool) {
	if x.em.Node != nil && x.tr != nil {
		idx := x.tr.index[x.em.Node]
		for i := idx - 1; i >= 0; i-- {
			n := x.tr.flat[i]
			if n.Kind != harness.NodeCommand {
				continue
			}
			if isWait(n) {
				break
			}
			if isStarter(n) {
				return finding{Install: n}, true
			}
		}
	}
	if s := x.unhealthyService(); s != nil {
		return finding{Service: s}, true
	}
	return finding{}, false
}

// unhealthyService returns the job's service container the endpoint points
// at (by port, or the only one) when it has no health check.
func (x *explainer) unhealthyService() *harness.Service {
	if x.job == nil || len(x.job.Services) == 0 {
		return nil
	}
	_, port := splitPort(x.endpoint)
	var only *harness.Service
	for _, s := range x.job.Services {
		if strings.Contains(s.Options.Text, "--health-cmd") {
			continue
		}
		for _, p := range s.Ports {
			if port != "" && strings.HasPrefix(p, port+":") || p == port {
				return s
			}
		}
		if only == nil {
			only = s
		} else {
			only = &harness.Service{}
		}
	}
	if only != nil && only.Name != "" {
		return only
	}
	return nil
}

func splitPort(ep string) (string, string) {
	i := strings.LastIndexByte(ep, ':')
	if i < 0 {
		return ep, ""
	}
	return ep[:i], ep[i+1:]
}
