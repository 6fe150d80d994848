package harness

import (
	"path"
	"strings"
)

// taskCall resolves `task [flags] NAME... [VAR=value] [-- args]`.
func (rs *resolver) taskCall(parent *Node, args []string, dir string, depth int) {
	var names []string
	vars := map[string]string{}
	file := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i = len(args)
		case a == "-d" || a == "--dir":
			if i+1 < len(args) {
				dir = path.Join(dir, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "--dir="):
			dir = path.Join(dir, strings.TrimPrefix(a, "--dir="))
		case a == "-t" || a == "--taskfile":
			if i+1 < len(args) {
				file = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--taskfile="):
			file = strings.TrimPrefix(a, "--taskfile=")
		case strings.HasPrefix(a, "-"):
		case strings.Contains(a, "="):
			kv := strings.SplitN(a, "=", 2)
			vars[kv[0]] = kv[1]
		default:
			names = append(names, a)
		}
	}
	var tf *Taskfile
	var err error
	if file != "" {
		tf, err = rs.repo.Taskfile(path.Join(dir, file))
	} else {
		tf, err = rs.repo.FindTaskfile(dir)
	}
	if err != nil || tf == nil {
		parent.Note = "task file not found"
		return
	}
	if len(names) == 0 {
		names = []string{"default"}
	}
	rs.root = tf
	for _, name := range names {
		rs.task(parent, tf, name, vars, path.Dir(tf.Path), depth, "")
	}
}

// task adds a task node and its deps and cmds. name is relative to tf, whose
// namespace prefix (from the root Taskfile's includes) is ns; a leading ":"
// names a task of the root Taskfile.
func (rs *resolver) task(parent *Node, tf *Taskfile, name string, callVars map[string]string, dir string, depth int, ns string) {
	if strings.HasPrefix(name, ":") && rs.root != nil {
		tf, ns, name = rs.root, "", strings.TrimPrefix(name, ":")
	}
	owner, local, sub := rs.taskOwner(tf, name, 0)
	prefix := ns + sub
	if owner == nil {
		rs.add(parent, &Node{Kind: NodeUnresolved, File: tf.Path, Symbol: name, Note: "task not found"})
		return
	}
	t := owner.Tasks[local]
	key := owner.Path + "#" + local
	if depth > maxResolveDepth || rs.active[key] || rs.full() {
		parent.Note = "recursion cut at task " + name
		return
	}
	rs.active[key] = true
	defer delete(rs.active, key)
	if t.Dir != "" {
		dir = path.Join(path.Dir(owner.Path), t.Dir)
	}
	n := rs.add(parent, &Node{Kind: NodeTask, File: owner.Path, Line: t.Line, EndLine: t.EndLine,
		Symbol: prefix + local, Task: t, Taskfile: owner, Dir: dir, Vars: taskScope(owner, t, callVars)})
	for _, d := range t.Deps {
		rs.task(n, owner, d.Task, nil, dir, depth+1, prefix)
	}
	for _, c := range t.Cmds {
		if rs.full() {
			return
		}
		rs.taskCmd(n, owner, t, c, prefix, dir, depth)
	}
}

func (rs *resolver) taskCmd(n *Node, owner *Taskfile, t *Task, c *TaskCmd, prefix, dir string, depth int) {
	cn := rs.add(n, &Node{Kind: NodeTaskCmd, File: owner.Path, Line: c.Line, EndLine: c.EndLine,
		Symbol: n.Symbol, Text: c.Shell, TaskCmd: c, Task: t, Taskfile: owner, Dir: dir,
		Items: owner.ForItems(t, c)})
	if c.Call != nil {
		cn.Text = "task: " + c.Call.Task
		vars := map[string]string{}
		for k, v := range c.Call.Vars {
			vars[k] = v.Text
		}
		rs.task(cn, owner, c.Call.Task, vars, dir, depth+1, prefix)
		return
	}
	if strings.TrimSpace(c.Shell) == "" {
		return
	}
	sh := rs.parse(owner.Path, c.ShellLine, c.Shell, false)
	cn.Script = sh
	if sh.Err != nil {
		cn.Note = sh.Err.Error()
		return
	}
	rs.commands(cn, sh, sh.Commands, dir, depth+1)
}

// taskOwner finds the Taskfile that defines name, following includes
// (ns:task). It returns the Taskfile, the local name and the namespace prefix.
func (rs *resolver) taskOwner(tf *Taskfile, name string, depth int) (*Taskfile, string, string) {
	if _, ok := tf.Tasks[name]; ok {
		return tf, name, ""
	}
	if depth > 6 {
		return nil, "", ""
	}
	for _, inc := range tf.Includes {
		if !strings.HasPrefix(name, inc.Namespace+":") || inc.Path == "" {
			continue
		}
		p := includePath(tf.Path, inc.Path)
		var child *Taskfile
		var err error
		if rs.repo.Exists(p) {
			child, err = rs.repo.Taskfile(p)
		} else {
			child, err = rs.repo.FindTaskfile(p)
		}
		if err != nil || child == nil {
			continue
		}
		owner, local, prefix := rs.taskOwner(child, strings.TrimPrefix(name, inc.Namespace+":"), depth+1)
		if owner != nil {
			return owner, local, inc.Namespace + ":" + prefix
		}
	}
	return nil, "", ""
}

func taskScope(tf *Taskfile, t *Task, call map[string]string) map[string]string {
	vars := map[string]string{}
	for k, v := range tf.Vars {
		vars[k] = v.Text
	}
	for k, v := range t.Vars {
		vars[k] = v.Text
	}
	for k, v := range call {
		vars[k] = v
	}
	return vars
}

// makeCall resolves `make [flags] [VAR=value] TARGET...`.
func (rs *resolver) makeCall(parent *Node, args []string, dir string, depth int) {
	var targets []string
	file := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "--directory":
			if i+1 < len(args) {
				dir = path.Join(dir, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			dir = path.Join(dir, a[2:])
		case a == "-f" || a == "--file" || a == "--makefile":
			if i+1 < len(args) {
				file = args[i+1]
				i++
			}
		case a == "-j" || a == "-l" || a == "-o" || a == "-W":
			if i+1 < len(args) && atoiBounded(args[i+1]) > 0 {
				i++
			}
		case strings.HasPrefix(a, "-"):
		case strings.Contains(a, "="):
		default:
			targets = append(targets, a)
		}
	}
	var mf *Makefile
	var err error
	if file != "" {
		mf, err = rs.repo.Makefile(path.Join(dir, file))
	} else {
		mf, err = rs.repo.FindMakefile(dir)
	}
	if err != nil || mf == nil {
		parent.Note = "makefile not found"
		return
	}
	if len(targets) == 0 {
		if d := mf.DefaultTarget(); d != "" {
			targets = []string{d}
		}
	}
	for _, t := range targets {
		if rs.targetOwner(mf, t, dir, nil) == nil {
			parent.Note = "make target " + t + " is not in " + mf.Path
			continue
		}
		rs.target(parent, mf, t, dir, depth)
	}
}

// target adds a make target node, its prerequisites and its recipe. dir
// is the directory make runs in: included makefiles are found from it, and
// make's variables (every included file's, and MAKE) are in scope.
func (rs *resolver) target(parent *Node, mf *Makefile, name, dir string, depth int) {
	owner := rs.targetOwner(mf, name, dir, nil)
	if owner == nil {
		return
	}
	t := owner.Targets[name]
	key := owner.Path + "#" + name
	if depth > maxResolveDepth || rs.active[key] || rs.full() {
		parent.Note = "recursion cut at target " + name
		return
	}
	rs.active[key] = true
	defer delete(rs.active, key)
	vars := rs.makeScope(mf, dir)
	n := rs.add(parent, &Node{Kind: NodeTarget, File: owner.Path, Line: t.Line, EndLine: t.EndLine,
		Symbol: name, Makefile: owner, Dir: dir, Vars: vars})
	for _, p := range t.Prereqs {
		rs.target(n, mf, p, dir, depth+1)
	}
	for _, rl := range t.Recipe {
		if rs.full() {
			return
		}
		rn := rs.add(n, &Node{Kind: NodeRecipe, File: owner.Path, Line: rl.Line, EndLine: rl.EndLine,
			Symbol: name, Text: rl.Shell, Recipe: rl, Makefile: owner, Dir: dir})
		sh := rs.parse(owner.Path, rl.Line, rl.Source, true)
		rn.Script = sh
		if sh.Err != nil {
			rn.Note = sh.Err.Error()
			continue
		}
		rs.commands(rn, sh, sh.Commands, dir, depth+1)
	}
}

// makeScope returns the variables a make run in dir with mf sees.
func (rs *resolver) makeScope(mf *Makefile, dir string) map[string]string {
	key := mf.Path + "|" + dir
	if v, ok := rs.makeScopes[key]; ok {
		return v
	}
	vars := map[string]string{"MAKE": "make"}
	rs.makeVars(mf, dir, vars, map[*Makefile]bool{})
	if rs.makeScopes == nil {
		rs.makeScopes = map[string]map[string]string{}
	}
	rs.makeScopes[key] = vars
	return vars
}

// makeVars collects the variables of a makefile and the files it includes
// into vars: an included file's first, so the including file's own win.
func (rs *resolver) makeVars(mf *Makefile, dir string, vars map[string]string, seen map[*Makefile]bool) {
	if seen[mf] || len(seen) > maxIncluded {
		return
	}
	seen[mf] = true
	for _, inc := range mf.Includes {
		for _, child := range rs.included(mf, inc, dir) {
			rs.makeVars(child, dir, vars, seen)
		}
	}
	for k, v := range mf.Vars {
		vars[k] = v.Text
	}
}

// included returns the makefile an include names: found from the
// directory make runs in, as make looks for it, else next to the including
// file.
func (rs *resolver) included(mf *Makefile, inc Include, dir string) []*Makefile {
	var out []*Makefile
	for _, p := range []string{path.Join(dir, inc.Path), path.Join(path.Dir(mf.Path), inc.Path)} {
		if strings.Contains(path.Base(p), "*") {
			out = append(out, rs.globbed(mf, p)...)
			if len(out) > 0 {
				return out
			}
			continue
		}
		if !rs.repo.Exists(p) {
			continue
		}
		if child, err := rs.repo.Makefile(p); err == nil && child != nil && child != mf {
			return []*Makefile{child}
		}
	}
	return nil
}

// globbed returns the makefiles a wildcard include (dir/*.mk) names.
func (rs *resolver) globbed(mf *Makefile, pattern string) []*Makefile {
	prefix, suffix, _ := strings.Cut(path.Base(pattern), "*")
	if strings.Contains(suffix, "*") {
		return nil
	}
	var out []*Makefile
	for _, p := range rs.repo.List(path.Dir(pattern), suffix) {
		if !strings.HasPrefix(path.Base(p), prefix) || len(out) >= 64 {
			continue
		}
		if child, err := rs.repo.Makefile(p); err == nil && child != nil && child != mf {
			out = append(out, child)
		}
	}
	return out
}

// maxIncluded bounds the files one lookup through includes or imports
// visits.
const maxIncluded = 64

// targetOwner finds the Makefile (this one or an include) defining name,
// visiting each file once.
func (rs *resolver) targetOwner(mf *Makefile, name, dir string, seen map[*Makefile]bool) *Makefile {
	if _, ok := mf.Targets[name]; ok {
		return mf
	}
	if seen == nil {
		seen = map[*Makefile]bool{}
	}
	if seen[mf] || len(seen) > maxIncluded {
		return nil
	}
	seen[mf] = true
	for _, inc := range mf.Includes {
		for _, child := range rs.included(mf, inc, dir) {
			if owner := rs.targetOwner(child, name, dir, seen); owner != nil {
				return owner
			}
		}
	}
	return nil
}
