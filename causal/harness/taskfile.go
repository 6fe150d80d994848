package harness

import (
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Taskfile is a Taskfile v3.
type Taskfile struct {
	Path     string
	Version  string
	Vars     map[string]Value
	Env      map[string]Value
	Includes []Include
	Tasks    map[string]*Task
	// Order lists task names in source order.
	Order []string
}

// Include is an included Taskfile (Taskfile includes:) or Makefile include.
type Include struct {
	Namespace string
	Path      string
	Dir       string
	Line      int
	Optional  bool
}

// Task is one task.
type Task struct {
	Name     string
	Line     int
	EndLine  int
	Desc     string
	Internal bool
	Dir      string
	Deps     []TaskCall
	Vars     map[string]Value
	Cmds     []*TaskCmd
	// CmdsLine is the line of the cmds: key, 0 for the short forms.
	CmdsLine int
	// ItemColumn is the 1-based column of the "-" of the cmds items.
	ItemColumn int
}

// TaskCall is a call of another task (task: in cmds, or deps).
type TaskCall struct {
	Task string
	Line int
	Vars map[string]Value
}

// TaskCmd is one entry of a task's cmds.
type TaskCmd struct {
	// Line is the line of the entry (its "-" item or first key).
	Line    int
	EndLine int
	// Shell is the command text and ShellLine the line its first line is on.
	Shell     string
	ShellLine int
	// Call is set for a "task:" entry.
	Call *TaskCall
	// Defer is set for a defer: entry.
	Defer bool
	// For lists the loop items of a for: entry: literal items, or the
	// resolved words of a for: {var: NAME}; ForVar names the variable.
	For    []string
	ForVar string
	// ForAs is the loop variable name (default ITEM).
	ForAs       string
	IgnoreError bool
	Silent      bool
	// Column is the 1-based column of the entry's first character after "- ".
	Column int
}

// ParseTaskfile parses a Taskfile.
func ParseTaskfile(p string, data []byte) (*Taskfile, error) {
	root, err := parseYAML(p, data)
	if err != nil {
		return nil, err
	}
	tf := &Taskfile{Path: p, Tasks: map[string]*Task{}}
	tf.Version = scalar(lookup(root, "version"))
	tf.Vars = stringMap(lookup(root, "vars"))
	tf.Env = stringMap(lookup(root, "env"))
	for _, inc := range pairs(lookup(root, "includes")) {
		in := Include{Namespace: inc.Key.Value, Line: inc.Key.Line}
		if inc.Value.Kind == yaml.ScalarNode {
			in.Path = inc.Value.Value
		} else {
			in.Path = scalar(lookup(inc.Value, "taskfile"))
			in.Dir = scalar(lookup(inc.Value, "dir"))
			in.Optional = scalar(lookup(inc.Value, "optional")) == "true"
		}
		tf.Includes = append(tf.Includes, in)
	}
	for _, tp := range pairs(lookup(root, "tasks")) {
		t := parseTask(tp.Key, tp.Value)
		if _, dup := tf.Tasks[t.Name]; !dup {
			tf.Order = append(tf.Order, t.Name)
		}
		tf.Tasks[t.Name] = t
	}
	return tf, nil
}

func parseTask(key, n *yaml.Node) *Task {
	t := &Task{Name: key.Value, Line: key.Line, EndLine: lastLine(n)}
	switch n.Kind {
	case yaml.ScalarNode:
		// short form: name: command
		t.Cmds = append(t.Cmds, &TaskCmd{Line: n.Line, EndLine: t.EndLine, Shell: n.Value, ShellLine: blockStartLine(n), Column: n.Column})
		return t
	case yaml.SequenceNode:
		t.Cmds = parseCmds(n)
		return t
	}
	t.Desc = scalar(lookup(n, "desc"))
	t.Internal = scalar(lookup(n, "internal")) == "true"
	t.Dir = scalar(lookup(n, "dir"))
	t.Vars = stringMap(lookup(n, "vars"))
	for _, d := range items(lookup(n, "deps")) {
		if d.Kind == yaml.ScalarNode {
			t.Deps = append(t.Deps, TaskCall{Task: d.Value, Line: d.Line})
			continue
		}
		t.Deps = append(t.Deps, TaskCall{Task: scalar(lookup(d, "task")), Line: d.Line, Vars: stringMap(lookup(d, "vars"))})
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		switch k.Value {
		case "cmds":
			t.CmdsLine = k.Line
			t.Cmds = parseCmds(v)
			if sq := items(v); len(sq) > 0 {
				t.ItemColumn = sq[0].Column - 2
			}
		case "cmd":
			if v != nil && v.Kind == yaml.ScalarNode {
				t.Cmds = append(t.Cmds, &TaskCmd{Line: k.Line, EndLine: lastLine(v), Shell: v.Value, ShellLine: blockStartLine(v), Column: v.Column})
			}
		}
	}
	return t
}

func parseCmds(n *yaml.Node) []*TaskCmd {
	var out []*TaskCmd
	for _, it := range items(n) {
		c := &TaskCmd{Line: it.Line, EndLine: lastLine(it), Column: it.Column}
		switch it.Kind {
		case yaml.ScalarNode:
			c.Shell, c.ShellLine = it.Value, blockStartLine(it)
		case yaml.MappingNode:
			parseCmdMapping(c, it)
		}
		out = append(out, c)
	}
	return out
}

func parseCmdMapping(c *TaskCmd, it *yaml.Node) {
	if d := lookup(it, "defer"); d != nil {
		c.Defer = true
		if d.Kind == yaml.ScalarNode {
			c.Shell, c.ShellLine = d.Value, blockStartLine(d)
			return
		}
		it = d
	}
	if cmd := lookup(it, "cmd"); cmd != nil {
		c.Shell, c.ShellLine = scalar(cmd), blockStartLine(cmd)
	}
	if tk := lookup(it, "task"); tk != nil {
		c.Call = &TaskCall{Task: scalar(tk), Line: tk.Line, Vars: stringMap(lookup(it, "vars"))}
	}
	c.IgnoreError = scalar(lookup(it, "ignore_error")) == "true"
	c.Silent = scalar(lookup(it, "silent")) == "true"
	if f := lookup(it, "for"); f != nil {
		c.ForAs = "ITEM"
		switch f.Kind {
		case yaml.SequenceNode:
			c.For = scalarList(f)
		case yaml.MappingNode:
			c.ForVar = scalar(lookup(f, "var"))
			if as := scalar(lookup(f, "as")); as != "" {
				c.ForAs = as
			}
			if m := lookup(f, "matrix"); m != nil {
				c.ForVar = "matrix"
			}
		case yaml.ScalarNode:
			c.ForVar = f.Value
		}
	}
}

// TaskNames returns the task names, sorted.
func (tf *Taskfile) TaskNames() []string {
	out := make([]string, 0, len(tf.Tasks))
	for n := range tf.Tasks {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ForItems returns the items a for: entry iterates over, resolving a var:
// reference against the task's and the file's variables.
func (tf *Taskfile) ForItems(t *Task, c *TaskCmd) []string {
	if len(c.For) > 0 || c.ForVar == "" {
		return c.For
	}
	v, ok := t.Vars[c.ForVar]
	if !ok {
		v, ok = tf.Vars[c.ForVar]
	}
	if !ok || strings.Contains(v.Text, "{{") {
		return nil
	}
	return strings.Fields(v.Text)
}

// taskfileNames are the file names task looks for, in its order.
var taskfileNames = []string{
	"Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml",
	"Taskfile.dist.yml", "taskfile.dist.yml", "Taskfile.dist.yaml", "taskfile.dist.yaml",
}

// includePath resolves an include's file path relative to the including file.
func includePath(from, inc string) string {
	p := inc
	if !path.IsAbs(p) {
		p = path.Join(path.Dir(from), p)
	}
	return path.Clean(p)
}
