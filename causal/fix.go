package causal

import (
	"errors"
	"fmt"
	"strings"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/impact"
	"github.com/polylane/polylane/causal/patch"
)

// fixFunc builds the file edits of one fix shape, its title and rationale.
type fixFunc func(x *fixContext) (*fixPlan, error)

// fixPlan is a fix shape applied to the repository.
type fixPlan struct {
	Title     string
	Rationale string
	Edits     []patch.FileEdit
	// Credentials describe the credentials the edits pass, to whom and
	// where (fix_credentials.go).
	Credentials []impact.Credential
	// Setting is the line that sets the bound the fix raises (a
	// configuration file's timeout, say), when it is not in the command's
	// own file: the chain's producer moves there (see followFix).
	Setting *Location
}

// errNoFix says that no safe patch fits; its message becomes the note.
var errNoFix = errors.New("no safe patch")

func noFix(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errNoFix, fmt.Sprintf(format, args...))
}

// propose runs the matched rule's fix shape and builds the patch.
func (x *explainer) propose() {
	switch {
	case x.regression() && !x.settingsRegression():
		x.fixNote = "This is a regression in the code under test, so the fix belongs in the change that introduced it; Polylane proposes no harness patch."
		if o, ok := x.outgrownLimit(); ok {
			x.fixNote = fmt.Sprintf("Since a change the job needs more %s than %s gives it: make the change need less, or raise the limit. "+
				"Whether the change or the limit is wrong is its maintainers' call (%s), so Polylane proposes no patch.", o.need, o.limit, o.doubt)
		}
		return
	case x.rule == nil:
		x.fixNote = "No mechanism rule matched, so Polylane proposes no patch rather than guess."
		return
	}
	fc := &fixContext{facts: &x.facts, rule: x.rule, matched: x.matched, find: x.find, family: x.family}
	recipe, hasRecipe := familyRecipe(fc)
	switch {
	case x.rule.Fix == nil && !hasRecipe:
		x.fixNote = noPatchNote(x.rule.Category)
		return
	case x.rule.Transient && x.in.Verdict.Kind == history.Broken:
		x.fixNote = "The failure persists through the whole window, so a retry would not help; Polylane proposes no patch."
		return
	}
	var plan *fixPlan
	err := errNoFix
	if hasRecipe {
		plan, err = recipe(fc)
	}
	if recipeErr := err; err != nil && x.rule.Fix != nil {
		// the family's own recipe says best why it does not fit
		if plan, err = x.rule.Fix(fc); err != nil && hasRecipe {
			err = recipeErr
		}
	}
	if err != nil {
		x.fixNote = "Polylane proposes no patch: " + strings.TrimPrefix(err.Error(), errNoFix.Error()+": ")
		return
	}
	p, err := patch.BuildIn(x.in.Repo, plan.Title, plan.Rationale, plan.Edits)
	if err != nil {
		x.fixNote = "The patch Polylane drafted failed validation, so none is offered: " + err.Error()
		return
	}
	x.patch, x.creds = p, plan.Credentials
	x.followFix(plan)
}

// settingsRegression reports a failure that persists from one run on but
// whose cause is a setting outside the repository rather than a commit: a
// credential refused for its permissions (an organisation's default token
// permissions turned read-only, say) is fixed by the workflow declaring
// what it needs, whichever commit happened to run first after the change.
func (x *explainer) settingsRegression() bool {
	return x.rule != nil && x.rule.Category == Credentials && x.family != nil && x.family.Fix != ""
}

// followFix makes the producer the place the fix changes, so that the chain
// and its flowchart (fix → producer) agree: the setting the plan names, or,
// when every edit is in one file that calls the producer (a workflow step
// whose composite action or script runs the failing command), that caller.
func (x *explainer) followFix(plan *fixPlan) {
	if s := plan.Setting; s != nil {
		x.chain.Producer = Producer{File: s.File, Line: s.Line, Symbol: s.Symbol}
		return
	}
	path := ""
	for _, e := range plan.Edits {
		if path != "" && e.Path != path {
			return
		}
		path = e.Path
	}
	if path == "" || path == x.chain.Producer.File || x.producer == nil {
		return
	}
	at := firstChangedLine(plan.Edits[0])
	for n := x.producer.Parent; n != nil; n = n.Parent {
		// an edit inside the caller, or, for a full disk, a step inserted
		// right before it: the command that hit the full disk is only the
		// last writer, and where space is made is where the fix belongs
		// (a login before an anonymous pull keeps the pull as producer)
		before := n.Line == at && x.rule != nil && x.rule.Category == ResourceExhaustion && insertsStep(plan.Edits[0], at)
		if n.File == path && n.Line > 0 && (n.Line < at || before) && at <= n.EndLine+1 {
			x.chain.Producer = Producer{File: n.File, Line: n.Line, Symbol: symbolOf(n)}
			return
		}
	}
}

// insertsStep reports whether an edit's new content at line at (1-based)
// starts a new workflow step ("- name: …", "- uses: …", "- run: …").
func insertsStep(e patch.FileEdit, at int) bool {
	lines := strings.Split(string(e.New), "\n")
	if at < 1 || at > len(lines) {
		return false
	}
	return strings.HasPrefix(strings.TrimSpace(lines[at-1]), "- ")
}

// firstChangedLine is the 1-based line of an edit's old content where the
// new content first differs.
func firstChangedLine(e patch.FileEdit) int {
	old, new := strings.Split(string(e.Old), "\n"), strings.Split(string(e.New), "\n")
	i := 0
	for i < len(old) && i < len(new) && old[i] == new[i] {
		i++
	}
	return i + 1
}

// editLines returns the lines that an argument edit of n's command changes
// in its site: the command's own lines, or in a Makefile the recipe line
// that holds it.
func editLines(n *harness.Node, site patch.Site) (line, end int) {
	if site.Host == patch.HostMakefile {
		return site.Line, site.EndLine
	}
	return n.Cmd.Line, n.Cmd.EndLine
}

// addArgs adds args after the word after in n's command, in n's site.
func (x *facts) addArgs(n *harness.Node, after string, args []string) (patch.Site, []byte, error) {
	site, err := x.siteOf(n)
	if err != nil {
		return patch.Site{}, nil, err
	}
	line, end := editLines(n, site)
	out, err := patch.AddArgs(site.Content, line, end, after, args)
	if err != nil {
		return patch.Site{}, nil, noFix("%v", err)
	}
	return site, out, nil
}

// siteOf returns the patch site for a command node: the file, its host kind
// and the lines of the unit the edit anchors to.
func (x *facts) siteOf(n *harness.Node) (patch.Site, error) {
	if n == nil || n.Cmd == nil {
		return patch.Site{}, noFix("the command to change was not located in the harness")
	}
	content, err := x.repo.ReadFile(n.File)
	if err != nil {
		return patch.Site{}, noFix("cannot read %s", n.File)
	}
	s := patch.Site{Path: n.File, Content: content}
	first, last := statementLines(n)
	// The nearest unit that holds the command's text decides the host: a
	// script called from a recipe or task is patched in the script.
	host := n.Nearest(harness.NodeTaskCmd, harness.NodeRecipe, harness.NodeJustLine, harness.NodeInstruction, harness.NodeScript, harness.NodeStep)
	hostKind := ""
	if host != nil {
		hostKind = host.Kind
	}
	switch {
	case n.Parent != nil && hostKind == harness.NodeTaskCmd && n.Script != nil:
		tc := host
		s.Host = patch.HostTaskfile
		s.Line, s.EndLine = first, last
		if tc.TaskCmd != nil && tc.TaskCmd.ShellLine == tc.TaskCmd.Line && first == tc.TaskCmd.Line {
			// a single-line entry: the statement is the entry.
			s.Line, s.EndLine = tc.Line, tc.EndLine
		}
		s.RunKeyLine = tc.Line
	case hostKind == harness.NodeRecipe:
		s.Host = patch.HostMakefile
		s.Line, s.EndLine = host.Line, host.EndLine
	case hostKind == harness.NodeInstruction:
		// a RUN instruction: an argument edit changes the command's own
		// lines; new commands go in RUN instructions around it.
		s.Host = patch.HostDockerfile
		s.Line, s.EndLine = host.Line, host.EndLine
	case hostKind == harness.NodeJustLine && host.Recipe != nil && host.Justfile != nil && !host.Justfile.Recipes[host.Symbol].Shebang:
		// a just recipe line is one shell line, indented like its neighbours.
		s.Host = patch.HostScript
		s.Line, s.EndLine = first, last
	case hostKind == harness.NodeScript:
		s.Host = patch.HostScript
		s.Line, s.EndLine = first, last
	case hostKind == harness.NodeStep && host.Step != nil && host.File == n.File:
		if sh := x.stepShell(host.Step); !posixShell(sh) {
			return patch.Site{}, noFix("step %q runs in %s, and Polylane writes its edits in POSIX shell only", host.Step.DisplayName(), sh)
		}
		s.Host = patch.HostRun
		s.Line, s.EndLine = first, last
		s.RunKeyLine = host.Step.RunKeyLine
	default:
		return patch.Site{}, noFix("the command lives in %s, which Polylane does not patch", n.File)
	}
	return s, nil
}

// stepShell returns the shell a run: step runs in: its own shell:, the
// job's or the workflow's defaults.run.shell, else the runner's default
// (pwsh on Windows runners, bash elsewhere).
func (x *facts) stepShell(s *harness.Step) string {
	if s.Shell != "" {
		return s.Shell
	}
	if x.job != nil && x.job.DefaultShell != "" {
		return x.job.DefaultShell
	}
	if x.wf != nil && x.wf.DefaultShell != "" {
		return x.wf.DefaultShell
	}
	if x.job != nil && strings.Contains(strings.ToLower(x.job.RunsOn), "windows") {
		return "pwsh"
	}
	return "bash"
}

// posixShell reports whether a shell: value runs a POSIX shell.
func posixShell(shell string) bool {
	f := strings.Fields(shell)
	if len(f) == 0 {
		return true
	}
	prog := f[0]
	if i := strings.LastIndexAny(prog, `/\`); i >= 0 {
		prog = prog[i+1:]
	}
	switch strings.TrimSuffix(strings.ToLower(prog), ".exe") {
	case "bash", "sh", "dash", "zsh", "ksh":
		return true
	}
	return false
}

// taskEntrySite returns the site of the whole Taskfile cmds entry holding n.
func (x *facts) taskEntrySite(n *harness.Node) (patch.Site, bool) {
	tc := n.Nearest(harness.NodeTaskCmd)
	if tc == nil {
		return patch.Site{}, false
	}
	content, err := x.repo.ReadFile(tc.File)
	if err != nil {
		return patch.Site{}, false
	}
	return patch.Site{Path: tc.File, Content: content, Host: patch.HostTaskfile, Line: tc.Line, EndLine: tc.EndLine}, true
}

// statementLines returns the lines of the statement a command belongs to:
// the whole pipeline when it is part of one.
func statementLines(n *harness.Node) (int, int) {
	c := n.Cmd
	first, last := c.Line, c.EndLine
	if c.PipeLen <= 1 || n.Parent == nil {
		return first, last
	}
	for _, sib := range n.Parent.Children {
		sc := sib.Cmd
		if sc == nil || sc.Script != c.Script || sc.PipeLen != c.PipeLen {
			continue
		}
		if sc.Line <= last+3 && sc.EndLine >= first-3 && sib.File == n.File {
			first = min(first, sc.Line)
			last = max(last, sc.EndLine)
		}
	}
	return first, last
}

// edit returns a file edit from a site and its new content.
func edit(s patch.Site, out []byte) patch.FileEdit {
	return patch.FileEdit{Path: s.Path, Old: s.Content, New: out}
}

// fixTarget is the command a fix changes: the emitter, or for a command
// inside a package.json script the harness command that runs the script.
func (x *facts) fixTarget() *harness.Node {
	return liftOutOfPackage(x.em.Node)
}
