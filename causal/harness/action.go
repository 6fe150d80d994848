package harness

import (
	"path"
	"regexp"
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

// uses resolves a step that uses an action: a local composite action's
// steps, or the image a docker/build-push-action step builds. inputs are
// the step's with: values.
func (rs *resolver) uses(parent *Node, s *Step, inputs map[string]string, depth int) {
	action, _, _ := strings.Cut(s.Uses, "@")
	switch {
	case isBuildAction(s.Uses):
		rs.buildAction(parent, inputs, ".", depth)
	case commandActions[strings.ToLower(action)]:
		rs.commandInput(parent, s, depth)
	default:
		rs.compositeSteps(parent, s.Uses, inputs, depth)
	}
}

// commandActions run their command: input as a shell script (retrying it).
var commandActions = map[string]bool{"nick-fields/retry": true, "nick-invision/retry": true, "wandalen/wretry.action": true}

// commandInput adds the commands of a step's command: input.
func (rs *resolver) commandInput(parent *Node, s *Step, depth int) {
	v, ok := s.With["command"]
	if !ok || strings.TrimSpace(v.Text) == "" || !posixShell(s.With["shell"].Text) {
		return
	}
	line := v.Line
	if strings.Contains(strings.TrimRight(v.Text, "\n"), "\n") {
		line++ // a block scalar starts on the line after its key
	}
	sh := rs.parse(parent.File, line, v.Text, false)
	if sh.Err == nil {
		rs.commands(parent, sh, sh.Commands, parent.Dir, depth+1)
	}
}

// isBuildAction reports whether a uses: is docker/build-push-action.
func isBuildAction(uses string) bool {
	action, _, _ := strings.Cut(uses, "@")
	return strings.EqualFold(action, "docker/build-push-action")
}

// stepInputs returns a step's with: values: those the runner evaluated
// where the file has an expression, and ${{ inputs.NAME }} replaced by the
// calling step's inputs.
func stepInputs(with map[string]Value, evaluated, caller map[string]string) map[string]string {
	out := make(map[string]string, len(with))
	for k, v := range with {
		text := v.Text
		if e, ok := evaluated[k]; ok && strings.Contains(text, "${{") {
			text = e
		}
		out[k] = inputExpr.ReplaceAllStringFunc(text, func(m string) string {
			if val, ok := caller[inputExpr.FindStringSubmatch(m)[1]]; ok {
				return val
			}
			return m
		})
	}
	return out
}

// inputExpr matches ${{ inputs.NAME }}.
var inputExpr = regexp.MustCompile(`\$\{\{\s*inputs\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`)

// compositeSteps adds the steps of a local composite action a step uses,
// as step nodes under the root: run: steps with their commands, and the
// actions its steps use in turn.
func (rs *resolver) compositeSteps(root *Node, uses string, inputs map[string]string, depth int) {
	if !strings.HasPrefix(uses, "./") || depth > maxResolveDepth {
		return
	}
	dir := rs.inRepo(strings.SplitN(uses, "@", 2)[0])
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
			Symbol: s.DisplayName(), Step: s, Dir: root.Dir})
		if s.WorkingDirectory != "" && !strings.Contains(s.WorkingDirectory, "${{") {
			n.Dir = rs.inRepo(s.WorkingDirectory)
		}
		if s.Uses != "" {
			rs.uses(n, s, stepInputs(s.With, nil, inputs), depth+1)
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
