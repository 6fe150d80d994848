package harness

import (
	"path"
	"strings"
)

// packageCall resolves `npm|yarn|pnpm|bun [flags] run SCRIPT` and the
// scripts they run without run (test, start, and any name for yarn, pnpm
// and bun), in the directory --prefix, -C, --dir or --cwd names.
func (rs *resolver) packageCall(parent *Node, tool string, args []string, dir string, depth int) {
	args, dir = packageDir(args, dir)
	if len(args) == 0 {
		return
	}
	name := args[0]
	switch name {
	case "run", "run-script":
		if len(args) < 2 {
			return
		}
		name = args[1]
	case "test", "t", "tst", "start", "stop", "restart":
		if name == "t" || name == "tst" {
			name = "test"
		}
	default:
		if tool == "npm" {
			return
		}
	}
	rs.packageScript(parent, name, dir, depth)
}

// packageDirFlags are the package managers' flags that name the package's
// directory; packageValueFlags other flags that take a value.
var (
	packageDirFlags   = map[string]bool{"--prefix": true, "-C": true, "--dir": true, "--cwd": true}
	packageValueFlags = map[string]bool{"-w": true, "--workspace": true, "--filter": true, "-F": true, "--loglevel": true}
)

// packageDir reads a package manager's leading flags: the directory they
// name and the words after them.
func packageDir(args []string, dir string) ([]string, string) {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		name, value, eq := strings.Cut(args[0], "=")
		switch {
		case packageDirFlags[name] && eq:
			dir = path.Join(dir, value)
		case packageDirFlags[name] && len(args) > 1:
			dir, args = path.Join(dir, args[1]), args[1:]
		case packageValueFlags[name] && !eq && len(args) > 1:
			args = args[1:]
		}
		args = args[1:]
	}
	return args, dir
}

// runAllCall resolves npm-run-all, run-s and run-p: the package scripts
// they name, a trailing * matching every script with that prefix.
func (rs *resolver) runAllCall(parent *Node, args []string, dir string, depth int) {
	pj, err := rs.repo.Package(dir)
	if err != nil {
		return
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		prefix, glob := strings.CutSuffix(a, "*")
		for _, name := range pj.Names() {
			if name == a || glob && strings.HasPrefix(name, prefix) {
				rs.packageScript(parent, name, dir, depth)
			}
		}
	}
}

// packageScript adds a package.json script of dir with its pre- and post-
// hooks.
func (rs *resolver) packageScript(parent *Node, name, dir string, depth int) {
	pj, err := rs.repo.Package(dir)
	if err != nil || rs.full() {
		return
	}
	v, ok := pj.Scripts[name]
	if !ok {
		return
	}
	key := pj.Path + "#" + name
	if rs.active[key] {
		return
	}
	rs.active[key] = true
	defer delete(rs.active, key)
	n := rs.add(parent, &Node{Kind: NodePackage, File: pj.Path, Line: v.Line, EndLine: v.Line, Symbol: name, Text: v.Text, Dir: dir})
	for _, hook := range []string{"pre" + name, name, "post" + name} {
		hv, ok := pj.Scripts[hook]
		if !ok {
			continue
		}
		sh := rs.parse(pj.Path, hv.Line, hv.Text, false)
		if sh.Err == nil {
			rs.commands(n, sh, sh.Commands, dir, depth)
		}
	}
}
