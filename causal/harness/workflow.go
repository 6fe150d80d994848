package harness

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Workflow is a GitHub Actions workflow file.
type Workflow struct {
	Path string
	Name string
	// DefaultShell is defaults.run.shell, if set.
	DefaultShell string
	// DefaultWorkDir is defaults.run.working-directory, if set.
	DefaultWorkDir string
	Env            map[string]Value
	Jobs           []*Job
	// HasPermissions is set when the workflow declares permissions for
	// its jobs' token.
	HasPermissions bool
}

// Job is one job of a workflow.
type Job struct {
	ID   string
	Name string
	Line int
	// Uses is set for a job that calls a reusable workflow.
	Uses     string
	UsesLine int
	With     map[string]Value
	RunsOn   string
	// RunsOnLine is the line of the runs-on value (0 without one).
	RunsOnLine int
	// HasPermissions is set when the job declares its token's permissions.
	HasPermissions bool
	TimeoutMinutes Value
	DefaultShell   string
	DefaultWorkDir string
	Env            map[string]Value
	Services       []*Service
	// Matrix lists the keys of strategy.matrix, the keys that only its
	// include entries add too; MatrixDynamic is set when the matrix is an
	// expression whose keys are not known before the run.
	Matrix        []string
	MatrixDynamic bool
	Steps         []*Step
	// StepsLine is the line of the steps: key.
	StepsLine int
	// Needs are the ids of the jobs this one needs; If is its condition.
	Needs []string
	If    string
}

// Gate says whether the job is an aggregate gate, one that needs other jobs
// and fails because one of them failed: checks is set when it checks their
// results (needs.<id>.result, contains(needs.*), toJSON(needs)), always when
// it runs whatever they concluded (always(), !cancelled(), failure()); such
// a job is a gate only when its failure states no cause of its own.
func (j *Job) Gate() (checks, always bool) {
	if len(j.Needs) == 0 {
		return false, false
	}
	cond := strings.ReplaceAll(j.If, " ", "")
	always = strings.Contains(cond, "always()") || strings.Contains(cond, "!cancelled()") || strings.Contains(cond, "failure()")
	for _, st := range j.Steps {
		text := strings.ReplaceAll(st.Run+" "+st.If, " ", "")
		for _, v := range st.With {
			text += " " + strings.ReplaceAll(v.Text, " ", "")
		}
		if strings.Contains(text, "needs.") && strings.Contains(text, ".result") ||
			strings.Contains(text, "toJSON(needs)") || strings.Contains(text, "contains(needs.") {
			return true, always
		}
	}
	return false, always
}

// Service is a service container of a job.
type Service struct {
	Name      string
	Line      int
	Image     Value
	Options   Value
	Ports     []string
	Env       map[string]Value
	EndLine   int
	KeyColumn int
}

// Step is one step of a job.
type Step struct {
	// Index is the 0-based position in the job's steps list.
	Index int
	// Line is the line of the step's sequence item (the "- " line).
	Line int
	// EndLine is the last line that belongs to the step.
	EndLine int
	// Column is the 1-based column of the step's first key.
	Column int
	ID     string
	Name   string
	// Run is the script of a run: step and RunLine the line of its first line.
	Run     string
	RunLine int
	// RunKeyLine is the line of the run: key.
	RunKeyLine       int
	Uses             string
	UsesLine         int
	With             map[string]Value
	If               string
	ContinueOnError  string
	TimeoutMinutes   Value
	WorkingDirectory string
	Shell            string
	Env              map[string]Value
}

// DisplayName is the name GitHub gives the step in the jobs API and the log:
// its name, else "Run <first line of run>", else "Run <uses>".
func (s *Step) DisplayName() string {
	if s.Name != "" {
		return s.Name
	}
	if s.Run != "" {
		first := strings.TrimSpace(firstLine(s.Run))
		return "Run " + first
	}
	if s.Uses != "" {
		return "Run " + s.Uses
	}
	return ""
}

// ParseWorkflow parses a workflow file.
func ParseWorkflow(path string, data []byte) (*Workflow, error) {
	root, err := parseYAML(path, data)
	if err != nil {
		return nil, err
	}
	wf := &Workflow{Path: path, Name: scalar(lookup(root, "name")), Env: stringMap(lookup(root, "env"))}
	if run := lookup(lookup(root, "defaults"), "run"); run != nil {
		wf.DefaultShell = scalar(lookup(run, "shell"))
		wf.DefaultWorkDir = scalar(lookup(run, "working-directory"))
	}
	wf.HasPermissions = lookup(root, "permissions") != nil
	for _, p := range pairs(lookup(root, "jobs")) {
		wf.Jobs = append(wf.Jobs, parseJob(p.Key, p.Value))
	}
	return wf, nil
}

func parseJob(key, n *yaml.Node) *Job {
	j := &Job{ID: key.Value, Line: key.Line, Name: scalar(lookup(n, "name"))}
	if u := lookup(n, "uses"); u != nil {
		j.Uses, j.UsesLine = scalar(u), u.Line
	}
	j.With = stringMap(lookup(n, "with"))
	j.HasPermissions = lookup(n, "permissions") != nil
	if r := lookup(n, "runs-on"); r != nil {
		j.RunsOn, j.RunsOnLine = strings.Join(scalarList(r), ","), r.Line
	}
	if t := lookup(n, "timeout-minutes"); t != nil {
		j.TimeoutMinutes = Value{Text: scalar(t), Line: t.Line}
	}
	if run := lookup(lookup(n, "defaults"), "run"); run != nil {
		j.DefaultShell = scalar(lookup(run, "shell"))
		j.DefaultWorkDir = scalar(lookup(run, "working-directory"))
	}
	j.Env = stringMap(lookup(n, "env"))
	j.Needs, j.If = scalarList(lookup(n, "needs")), scalar(lookup(n, "if"))
	for _, p := range pairs(lookup(n, "services")) {
		j.Services = append(j.Services, parseService(p.Key, p.Value))
	}
	j.Matrix, j.MatrixDynamic = matrixKeys(lookup(lookup(n, "strategy"), "matrix"))
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "steps" {
			j.StepsLine = n.Content[i].Line
		}
	}
	stepNodes := items(lookup(n, "steps"))
	for i, sn := range stepNodes {
		s := parseStep(i, sn)
		j.Steps = append(j.Steps, s)
	}
	for i, s := range j.Steps {
		s.EndLine = lastLine(stepNodes[i])
	}
	return j
}

// matrixKeys returns the dimensions of a job's matrix: its own keys and
// the keys its include entries add.
func matrixKeys(m *yaml.Node) (keys []string, dynamic bool) {
	if m = deref(m); m == nil {
		return nil, false
	}
	if m.Kind == yaml.ScalarNode {
		return nil, true
	}
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, p := range pairs(m) {
		switch p.Key.Value {
		case "exclude":
		case "include":
			if p.Value.Kind == yaml.ScalarNode {
				dynamic = true
			}
			for _, it := range items(p.Value) {
				for _, q := range pairs(it) {
					add(q.Key.Value)
				}
			}
		default:
			add(p.Key.Value)
		}
	}
	return keys, dynamic
}

func parseService(key, n *yaml.Node) *Service {
	s := &Service{Name: key.Value, Line: key.Line, KeyColumn: key.Column, EndLine: lastLine(n)}
	if n.Kind == yaml.ScalarNode {
		s.Image = Value{Text: n.Value, Line: n.Line}
		return s
	}
	if im := lookup(n, "image"); im != nil {
		s.Image = Value{Text: scalar(im), Line: im.Line}
	}
	if o := lookup(n, "options"); o != nil {
		s.Options = Value{Text: scalar(o), Line: o.Line}
	}
	s.Ports = scalarList(lookup(n, "ports"))
	s.Env = stringMap(lookup(n, "env"))
	return s
}

func parseStep(i int, n *yaml.Node) *Step {
	s := &Step{Index: i, Line: n.Line, Column: n.Column}
	s.ID = scalar(lookup(n, "id"))
	s.Name = scalar(lookup(n, "name"))
	for _, p := range pairs(n) {
		switch p.Key.Value {
		case "run":
			s.Run, s.RunLine, s.RunKeyLine = scalar(p.Value), blockStartLine(p.Value), p.Key.Line
		case "uses":
			s.Uses, s.UsesLine = scalar(p.Value), p.Value.Line
		case "if":
			s.If = scalar(p.Value)
		case "continue-on-error":
			s.ContinueOnError = scalar(p.Value)
		case "timeout-minutes":
			s.TimeoutMinutes = Value{Text: scalar(p.Value), Line: p.Value.Line}
		case "working-directory":
			s.WorkingDirectory = scalar(p.Value)
		case "shell":
			s.Shell = scalar(p.Value)
		}
	}
	s.With = stringMap(lookup(n, "with"))
	s.Env = stringMap(lookup(n, "env"))
	if n.Kind == yaml.MappingNode && len(n.Content) > 0 {
		s.Line = n.Content[0].Line
		s.Column = n.Content[0].Column
	}
	return s
}

// lastLine returns the last source line covered by a node, bounded in depth.
func lastLine(n *yaml.Node) int {
	best := 0
	var walk func(*yaml.Node, int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 64 {
			return
		}
		l := n.Line
		if n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			l = n.Line + strings.Count(strings.TrimRight(n.Value, "\n"), "\n") + 1
		} else if n.Kind == yaml.ScalarNode {
			l = n.Line + strings.Count(n.Value, "\n")
		}
		if l > best {
			best = l
		}
		if n.Kind == yaml.AliasNode {
			return
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return best
}

// FindStep locates the step a failure names. It matches by display name
// first (exact, then case-insensitive, then a prefix match for names GitHub
// truncates). Without a name it falls back to the jobs API step number:
// number 1 is "Set up job", so number N is the (N-2)th step. A name that
// matches no step is a step the runner adds (containers, post steps).
func (w *Workflow) FindStep(jobName, stepName string, number int) (*Job, *Step, error) {
	jobs := w.candidateJobs(jobName)
	for _, match := range []func(string, string) bool{
		func(a, b string) bool { return a == b },
		strings.EqualFold,
		namePrefix,
	} {
		for _, j := range jobs {
			for _, s := range j.Steps {
				if stepName != "" && match(s.DisplayName(), stepName) {
					return j, s, nil
				}
			}
		}
	}
	if stepName == "" && number >= 2 && len(jobs) == 1 && number-2 < len(jobs[0].Steps) {
		return jobs[0], jobs[0].Steps[number-2], nil
	}
	return nil, nil, fmt.Errorf("no step %q (number %d) in job %q of %s", stepName, number, jobName, w.Path)
}

// FindJob returns the job a jobs-API job name refers to, or nil when the
// name does not single one out.
func (w *Workflow) FindJob(jobName string) *Job {
	jobs := w.candidateJobs(jobName)
	if len(jobs) == 1 {
		return jobs[0]
	}
	return nil
}

// candidateJobs returns the jobs a jobs-API job name can refer to: a job whose
// name or id equals it, or whose name is a prefix of a matrix job name such as
// "test (ubuntu, 18)".
func (w *Workflow) candidateJobs(jobName string) []*Job {
	var exact, loose []*Job
	for _, j := range w.Jobs {
		name := j.Name
		if name == "" {
			name = j.ID
		}
		switch {
		case jobName == "" || name == jobName || j.ID == jobName:
			exact = append(exact, j)
		case strings.HasPrefix(jobName, name+" (") || strings.HasPrefix(jobName, j.ID+" ("),
			strings.HasSuffix(jobName, " / "+name), strings.Contains(name, "${{"):
			loose = append(loose, j)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	if len(loose) > 0 {
		return loose
	}
	return w.Jobs
}

// namePrefix matches a display name against a name GitHub shortened.
func namePrefix(display, want string) bool {
	want = strings.TrimSuffix(strings.TrimSpace(want), "...")
	return len(want) >= 8 && strings.HasPrefix(display, want)
}

// ScriptLine maps a 1-based line inside the step's run script to its line in
// the workflow file.
func (s *Step) ScriptLine(n int) int {
	if n < 1 {
		n = 1
	}
	return s.RunLine + n - 1
}

// Int returns the value as an integer, 0 when it is empty or an expression.
func (v Value) Int() int {
	n, err := strconv.Atoi(strings.TrimSpace(v.Text))
	if err != nil {
		return 0
	}
	return n
}

func firstLine(s string) string {
	s = strings.TrimLeft(s, "\n")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
