package harness

import (
	"path"
	"strings"
)

// Action is a local composite action (action.yml with runs.using: composite).
type Action struct {
	Path  string
	Steps []*Step
}

// Action returns the composite action at dir (action.yml or action.yaml), or
// nil when there is none or it is not a composite action.
func (r *Repo) Action(dir string) *Action {
	for _, name := range []string{"action.yml", "action.yaml"} {
		p := cleanPath(path.Join(dir, name))
		if p == "" || !r.Exists(p) {
			continue
		}
		data, err := r.ReadFile(p)
		if err != nil {
			return nil
		}
		root, err := parseYAML(p, data)
		if err != nil {
			return nil
		}
		runs := lookup(root, "runs")
		if scalar(lookup(runs, "using")) != "composite" {
			return nil
		}
		a := &Action{Path: p}
		nodes := items(lookup(runs, "steps"))
		for i, sn := range nodes {
			s := parseStep(i, sn)
			s.EndLine = lastLine(sn)
			a.Steps = append(a.Steps, s)
		}
		return a
	}
	return nil
}

// compositeSteps adds the run: steps of a local composite action a step
// uses, as step nodes under the root.
func (rs *resolver) compositeSteps(root *Node, uses string, depth int) {
	if !strings.HasPrefix(uses, "./") || depth > maxResolveDepth {
		return
	}
	dir := strings.SplitN(uses, "@", 2)[0]
	a := rs.repo.Action(dir)
	if a == nil || rs.active[a.Path] {
		return
	}
	rs.active[a.Path] = true
	defer delete(rs.active, a.Path)
	for _, s := range a.Steps {
		if rs.full() {
			return
		}
		n := rs.add(root, &Node{Kind: NodeStep, File: a.Path, Line: s.Line, EndLine: s.EndLine,
			Symbol: s.DisplayName(), Step: s, Dir: firstNonEmpty(s.WorkingDirectory, root.Dir)})
		if s.Uses != "" {
			rs.compositeSteps(n, s.Uses, depth+1)
			continue
		}
		if s.Run == "" || !posixShell(s.Shell) {
			continue
		}
		sh := rs.parse(a.Path, s.RunLine, s.Run, false)
		n.Script = sh
		if sh.Err == nil {
			rs.commands(n, sh, sh.Commands, n.Dir, depth+1)
		}
	}
}
