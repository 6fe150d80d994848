package causal

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// workload is one object a rollout wait covers.
type workload struct {
	Resource string // deployment, statefulset, daemonset, pod
	Name     string
	// Cmd is the harness command that changed it (its flags are reused).
	Cmd *harness.Node
}

var stsPod = regexp.MustCompile(`^(.+)-(\d+)$`)

// changedWorkloads lists the workloads the log shows were changed, in order,
// with the command that changed each. A deleted pod of a changed
// StatefulSet is kept as a pod: the harness recreates it by hand, which is
// what a StatefulSet with the OnDelete strategy needs, and rollout status
// refuses such StatefulSets.
func (x *fixContext) changedWorkloads() []workload {
	var out []workload
	seen := map[string]bool{}
	deletedOf := map[string]event{}
	for _, e := range x.find.ChangeEvents {
		if e.Kind == evPodDeleted {
			if m := stsPod.FindStringSubmatch(e.Name); m != nil {
				deletedOf[m[1]] = e
			}
		}
	}
	var pods []workload
	for _, e := range x.find.ChangeEvents {
		if e.Name == "" || seen[e.Object] || strings.ContainsAny(e.Name, "{}$\"'`") {
			continue
		}
		seen[e.Object] = true
		cmd := x.commandFor(e, isChange)
		switch e.Kind {
		case evWorkloadChanged:
			if d, ok := deletedOf[e.Name]; ok && e.Resource == "statefulset" {
				pods = append(pods, workload{Resource: "pod", Name: d.Name, Cmd: x.commandFor(d, isChange)})
				continue
			}
			out = append(out, workload{Resource: e.Resource, Name: e.Name, Cmd: cmd})
		}
	}
	return append(out, pods...)
}

// kubeFlags are the connection flags of a kubectl command, as written.
type kubeFlags struct {
	Program   string
	Conn      []string // --kubeconfig/--context/--cluster/--server with values
	Namespace string   // "-n X" or "--namespace X" as written
	Timeout   string
}

// flagsOf reads the program word and connection flags of a kubectl-like
// command from its source words.
func flagsOf(n *harness.Node) kubeFlags {
	var f kubeFlags
	if n == nil || n.Cmd == nil || len(n.Cmd.Words) == 0 {
		return f
	}
	w := n.Cmd.Words
	f.Program = w[0]
	for i := 1; i < len(w); i++ {
		a := w[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "--kubeconfig", "--context", "--cluster", "--server", "-s", "--user", "--insecure-skip-tls-verify":
			if hasVal || name == "--insecure-skip-tls-verify" {
				f.Conn = append(f.Conn, a)
			} else if i+1 < len(w) {
				f.Conn = append(f.Conn, a, w[i+1])
				i++
			}
		case "-n", "--namespace":
			if hasVal {
				f.Namespace = a
			} else if i+1 < len(w) {
				f.Namespace = a + " " + w[i+1]
				i++
			}
		case "--timeout":
			if hasVal {
				f.Timeout = val
			} else if i+1 < len(w) {
				f.Timeout = w[i+1]
				i++
			}
		}
		if strings.HasPrefix(a, "-n") && len(a) > 2 && !strings.HasPrefix(a, "--") && f.Namespace == "" {
			f.Namespace = "-n " + a[2:]
		}
	}
	return f
}

func (f kubeFlags) prefix(ns string) string {
	parts := []string{f.Program}
	parts = append(parts, f.Conn...)
	if ns != "" {
		parts = append(parts, ns)
	}
	return strings.Join(parts, " ")
}

// fixRolloutStatus waits for every changed workload to finish rolling out,
// right after the gate (or after the last change when there is no gate).
func fixRolloutStatus(x *fixContext) (*fixPlan, error) {
	anchor := x.find.Gate
	if anchor == nil {
		anchor = x.find.Trigger
	}
	if anchor == nil {
		return nil, noFix("the command to add the wait after was not located")
	}
	wls := x.changedWorkloads()
	if len(wls) == 0 {
		if t := x.find.Trigger; t != nil && t.Tool() == "helm" && !strings.Contains(t.Text, "--wait") {
			return helmWait(x.facts, t)
		}
		return nil, noFix("the log does not name the workloads that were changed")
	}
	cmds, names, timeout := rolloutCommands(anchor, wls)
	site, err := x.anchorSite(anchor)
	if err != nil {
		return nil, err
	}
	comment := "The changes above roll the pods out again, and Available stays true while the old pods serve;\nwait until every changed workload has finished rolling out before using it."
	out, err := patch.InsertShell(site, true, cmds, comment)
	if err != nil {
		return nil, noFix("%v", err)
	}
	gateWords := "the harness goes on right after changing the workloads"
	if x.find.Gate != nil {
		gateWords = fmt.Sprintf("the gate `%s` passes while the old pods still serve%s", clipWords(firstLineOf(x.find.Gate.Cmd.Raw), 120), cite(x.ids["gate"]...))
	}
	rationale := fmt.Sprintf("The harness restarts %s%s, and %s. "+
		"`kubectl rollout status` returns only when the new pods are updated and available and the old ones are gone, so the commands after it reach a server that has finished restarting. "+
		"The patch adds one wait per changed workload, with the same kubeconfig and namespace flags and a %s bound; a pod the harness deletes by hand is waited on until its replacement is Ready. "+
		"It changes only the CI harness.", strings.Join(names, ", "), cite(x.ids["changes"]...), gateWords, timeout)
	return &fixPlan{
		Title:     "Wait for the rollout of every workload the harness changes",
		Rationale: rationale,
		Edits:     []patch.FileEdit{edit(site, out)},
	}, nil
}

// helmWait makes a helm upgrade wait for its release to roll out.
func helmWait(x *facts, n *harness.Node) (*fixPlan, error) {
	site, out, err := x.addArgs(n, subcommandWord(n), []string{"--wait", "--timeout", "5m"})
	if err != nil {
		return nil, err
	}
	rationale := fmt.Sprintf("`%s` returned as soon as the new release was stored%s, while its pods were still being replaced, and the next call failed against them%s. With --wait, helm returns only when the release's Deployments and StatefulSets have rolled out (up to 5 minutes).",
		commandName(n), cite(x.ids["changes"]...), cite(x.ids["cause"]...))
	return &fixPlan{Title: "Wait for the Helm upgrade to roll out", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// rolloutCommands writes one wait per workload with the anchor's program
// and connection flags, the namespace of the command that changed it, and
// the anchor's timeout (5m without one).
func rolloutCommands(anchor *harness.Node, wls []workload) (cmds, names []string, timeout string) {
	base := flagsOf(anchor)
	if base.Program == "" || !strings.Contains(base.Program, "kubectl") && !strings.Contains(strings.ToUpper(base.Program), "KUBECTL") {
		if c := wls[0].Cmd; c != nil {
			base = flagsOf(c)
		}
	}
	timeout = base.Timeout
	if timeout == "" || !validDuration.MatchString(timeout) {
		timeout = "5m"
	}
	for _, w := range wls {
		ns := base.Namespace
		if w.Cmd != nil {
			if wf := flagsOf(w.Cmd); wf.Namespace != "" {
				ns = wf.Namespace
			}
		}
		if w.Resource == "pod" {
			cmds = append(cmds, fmt.Sprintf("%s wait --for=condition=Ready pod/%s --timeout=%s", base.prefix(ns), w.Name, timeout))
		} else {
			cmds = append(cmds, fmt.Sprintf("%s rollout status %s/%s --timeout=%s", base.prefix(ns), shortResource(w.Resource), w.Name, timeout))
		}
		if w.Resource == "pod" {
			names = append(names, "pod "+w.Name+" (deleted by hand)")
			continue
		}
		names = append(names, w.Resource+"/"+w.Name)
	}
	return cmds, names, timeout
}

var validDuration = regexp.MustCompile(`^\d+(s|m|h)$|^\d+m\d+s$`)

func shortResource(r string) string {
	if r == "deployment" {
		return "deploy"
	}
	return r
}

// anchorSite returns the site to insert after an anchor command: its whole
// Taskfile entry, its recipe line, or its statement.
func (x *facts) anchorSite(n *harness.Node) (patch.Site, error) {
	if s, ok := x.taskEntrySite(n); ok {
		return s, nil
	}
	return x.siteOf(n)
}
