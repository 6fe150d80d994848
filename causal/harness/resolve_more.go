package harness

import (
	"io/fs"
	"path"
	"sort"
	"strings"
)

// maxListed bounds the files one directory listing contributes.
const maxListed = 200

// List returns the regular files directly in dir whose names end in
// suffix, sorted, at most maxListed.
func (r *Repo) List(dir, suffix string) []string {
	entries, err := fs.ReadDir(r.fsys, cleanDir(dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), suffix) {
			out = append(out, path.Join(cleanDir(dir), e.Name()))
		}
		if len(out) >= maxListed {
			break
		}
	}
	sort.Strings(out)
	return out
}

// batsValueFlags are bats options that take a value.
var batsValueFlags = map[string]bool{
	"-o": true, "--output": true, "-f": true, "--filter": true, "-j": true, "--jobs": true, "-F": true,
	"--formatter": true, "--report-formatter": true, "--filter-tags": true, "--setup-suite-file": true,
	"--gather-test-outputs-in": true, "--code-quote-style": true, "--line-reference-format": true,
	"--filter-status": true,
}

// batsCall resolves `bats [flags] PATH...`: each test file named, or every
// .bats file of a directory, in the order bats runs them.
func (rs *resolver) batsCall(parent *Node, args []string, dir string, depth int) {
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "-"):
			if batsValueFlags[a] && i+1 < len(args) {
				i++
			}
		case strings.HasSuffix(a, ".bats"):
			files = append(files, a)
		default:
			a = parent.ExpandVars(a)
			for _, f := range rs.repo.List(path.Join(dir, a), ".bats") {
				files = append(files, path.Join(a, path.Base(f)))
			}
		}
	}
	for _, f := range files {
		if rs.full() {
			return
		}
		rs.script(parent, f, dir, depth, false)
	}
}

// manifestCall adds the local Helm chart or kustomize directory a command
// renders or applies: helm install|upgrade|template|lint|package with a
// chart path, kustomize build DIR, kubectl apply|create|delete|diff -k DIR
// and kubectl kustomize DIR.
func (rs *resolver) manifestCall(parent *Node, tool string, args []string, dir string) {
	switch tool {
	case "helm":
		if p := helmChart(args); p != "" {
			rs.manifestLeaf(parent, NodeChart, path.Join(dir, parent.ExpandVars(p)), []string{"Chart.yaml"})
		}
	case "kustomize":
		if len(args) > 1 && args[0] == "build" {
			rs.manifestLeaf(parent, NodeKustomization, path.Join(dir, parent.ExpandVars(args[1])), kustomizationNames)
		}
	default:
		for i, a := range args {
			d := ""
			switch {
			case (a == "-k" || a == "--kustomize") && i+1 < len(args):
				d = args[i+1]
			case strings.HasPrefix(a, "--kustomize="):
				d = strings.TrimPrefix(a, "--kustomize=")
			case a == "kustomize" && i == 0 && len(args) > 1:
				d = args[1]
			}
			if d != "" {
				rs.manifestLeaf(parent, NodeKustomization, path.Join(dir, parent.ExpandVars(d)), kustomizationNames)
				return
			}
		}
	}
}

// kustomizationNames are the files kustomize reads in a directory.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// helmChartVerbs take a chart; those that also take a release name first.
var helmChartVerbs = map[string]int{"install": 1, "upgrade": 1, "template": 1, "lint": 0, "package": 0, "show": 1}

// helmValueFlags are helm options that take a value.
var helmValueFlags = map[string]bool{
	"-f": true, "--values": true, "--set": true, "--set-string": true, "--set-file": true, "-n": true,
	"--namespace": true, "--version": true, "--timeout": true, "--kube-context": true, "--kubeconfig": true,
	"--repo": true, "-o": true, "--output": true, "--post-renderer": true, "--description": true, "-d": true,
	"--destination": true, "--api-versions": true, "--kube-version": true, "--set-json": true,
}

// helmChart returns the chart a helm command uses when it is a local path.
func helmChart(args []string) string {
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if helmValueFlags[a] && i+1 < len(args) {
				i++
			}
			continue
		}
		words = append(words, a)
	}
	if len(words) == 0 {
		return ""
	}
	skip, ok := helmChartVerbs[words[0]]
	if words[0] == "show" && len(words) > 2 {
		skip = 1
	}
	if !ok || len(words) < skip+2 {
		return ""
	}
	chart := words[skip+1]
	if !strings.HasPrefix(chart, ".") && !strings.HasPrefix(chart, "/") && strings.Count(chart, "/") == 1 && !strings.Contains(chart, "charts/") {
		return "" // repo/chart from a chart repository
	}
	return chart
}

// manifestLeaf adds a chart or kustomization node for the first of names
// found in dir.
func (rs *resolver) manifestLeaf(parent *Node, kind, dir string, names []string) {
	if strings.ContainsAny(dir, "$`{}") || strings.Contains(dir, "://") {
		return
	}
	for _, n := range names {
		if p := cleanPath(path.Join(dir, n)); p != "" && rs.repo.Exists(p) {
			rs.add(parent, &Node{Kind: kind, File: p, Line: 1, Symbol: cleanDir(dir), Dir: cleanDir(dir)})
			return
		}
	}
}

// ResolveScript adds the script at p under parent, with its commands and
// what they call, and returns its node (nil when p is not a repository
// file). It is for a script the log shows ran although no call in the
// model reaches it.
func (r *Repo) ResolveScript(parent *Node, p string) *Node {
	if parent == nil || !r.Exists(p) {
		return nil
	}
	rs := &resolver{repo: r, active: map[string]bool{}}
	before := len(parent.Children)
	rs.script(parent, p, ".", 1, false)
	if len(parent.Children) == before {
		return nil
	}
	return parent.Children[len(parent.Children)-1]
}

// ResolveMakeTarget adds target of the makefile at p, run from dir, under
// parent, with its prerequisites and recipe, and returns its node (nil when
// the makefile or the target is not there). It is for a target the log
// shows failed (make's "*** [file:line: target]") although no call in the
// model reaches it, as when a wrapper makefile forwards $(MAKECMDGOALS).
func (r *Repo) ResolveMakeTarget(parent *Node, p, target, dir string) *Node {
	if parent == nil || target == "" || !r.Exists(p) {
		return nil
	}
	mf, err := r.Makefile(p)
	if err != nil || mf == nil {
		return nil
	}
	rs := &resolver{repo: r, active: map[string]bool{}}
	if rs.targetOwner(mf, target, cleanDir(dir), nil) == nil {
		return nil
	}
	before := len(parent.Children)
	rs.target(parent, mf, target, cleanDir(dir), 1)
	if len(parent.Children) == before {
		return nil
	}
	return parent.Children[len(parent.Children)-1]
}
