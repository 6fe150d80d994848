package harness

import (
	"path"
	"strings"
)

// justValueFlags are just's flags that take a value.
var justValueFlags = map[string]bool{
	"--shell": true, "--shell-arg": true, "--dotenv-filename": true, "--dotenv-path": true, "-E": true,
	"--color": true, "--command-color": true, "--list-heading": true, "--list-prefix": true, "--chooser": true,
	"--timestamp-format": true, "--unstable": false, "--justfile": true, "-f": true, "--working-directory": true, "-d": true,
}

// justCall resolves `just [flags] [NAME=VALUE...] [RECIPE [ARGS...]...]`:
// the justfile found from the working directory (or -f), its recipes with
// their dependencies, each taking as many arguments as it has parameters.
func (rs *resolver) justCall(parent *Node, args []string, dir string, depth int) {
	file, workdir := "", ""
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			words = append(words, args[i+1:]...)
			i = len(args)
		case a == "-f" || a == "--justfile" || a == "-d" || a == "--working-directory":
			if i+1 < len(args) {
				if a == "-f" || a == "--justfile" {
					file = args[i+1]
				} else {
					workdir = args[i+1]
				}
				i++
			}
		case a == "--set":
			i += 2
		case a == "-c" || a == "--command" || a == "-l" || a == "--list" || a == "--summary" || a == "--evaluate":
			return // runs no recipe
		case strings.HasPrefix(a, "-"):
			if justValueFlags[a] && i+1 < len(args) {
				i++
			}
		case strings.Contains(a, "=") && len(words) == 0:
		default:
			words = append(words, a)
		}
	}
	if len(words) == 1 && strings.Contains(words[0], "/") {
		// `just dir/recipe` runs recipe from the justfile found from dir.
		d, r := path.Split(words[0])
		dir, words = path.Join(dir, d), []string{r}
	}
	var jf *Justfile
	var err error
	if file != "" {
		jf, err = rs.repo.Justfile(path.Join(dir, file))
	} else {
		jf, err = rs.repo.FindJustfile(dir)
	}
	if err != nil || jf == nil {
		parent.Note = "justfile not found"
		return
	}
	cwd := path.Dir(jf.Path)
	if workdir != "" {
		cwd = path.Join(dir, workdir)
	}
	if len(words) == 0 && len(jf.Order) > 0 {
		words = []string{jf.Order[0]}
	}
	for len(words) > 0 && !rs.full() {
		owner, r := rs.justRecipe(jf, words[0], nil)
		if r == nil {
			rs.add(parent, &Node{Kind: NodeUnresolved, File: jf.Path, Symbol: words[0], Note: "recipe not found"})
			return
		}
		n := len(r.Params)
		if r.Variadic {
			n = len(words) - 1
		}
		words = words[min(len(words), n+1):]
		rs.justRun(parent, owner, r, cwd, dir, depth)
	}
}

// justRecipe finds a recipe by name in a justfile, its imports, or a
// module (module::recipe).
func (rs *resolver) justRecipe(jf *Justfile, name string, seen map[*Justfile]bool) (*Justfile, *JustRecipe) {
	if r := jf.Recipe(name); r != nil {
		return jf, r
	}
	if seen == nil {
		seen = map[*Justfile]bool{}
	}
	if seen[jf] || len(seen) > maxIncluded {
		return nil, nil
	}
	seen[jf] = true
	if mod, rest, ok := strings.Cut(name, "::"); ok {
		if inc, ok := jf.Modules[mod]; ok {
			if sub := rs.justModule(jf, inc); sub != nil {
				return rs.justRecipe(sub, rest, seen)
			}
		}
		return nil, nil
	}
	for _, inc := range jf.Imports {
		child, err := rs.repo.Justfile(path.Join(path.Dir(jf.Path), inc.Path))
		if err != nil || child == nil {
			continue
		}
		if owner, r := rs.justRecipe(child, name, seen); r != nil {
			return owner, r
		}
	}
	return nil, nil
}

// justModule returns the justfile of a module: its path, else NAME.just,
// NAME/mod.just or NAME/justfile next to the parent.
func (rs *resolver) justModule(jf *Justfile, inc Include) *Justfile {
	base := path.Dir(jf.Path)
	cands := []string{path.Join(base, inc.Path)}
	if inc.Path == "" {
		cands = []string{path.Join(base, inc.Namespace+".just"), path.Join(base, inc.Namespace, "mod.just")}
		for _, n := range justfileNames {
			cands = append(cands, path.Join(base, inc.Namespace, n))
		}
	}
	for _, p := range cands {
		if rs.repo.Exists(p) {
			if sub, err := rs.repo.Justfile(p); err == nil {
				return sub
			}
		}
	}
	return nil
}

// justRun adds a recipe node: its dependencies, its body lines (each line a
// shell of its own, or the whole body for a shebang recipe) and the
// dependencies it runs after (&&).
func (rs *resolver) justRun(parent *Node, jf *Justfile, r *JustRecipe, cwd, callerDir string, depth int) {
	key := jf.Path + "#" + r.Name
	if depth > maxResolveDepth || rs.active[key] || rs.full() {
		parent.Note = "recursion cut at recipe " + r.Name
		return
	}
	rs.active[key] = true
	defer delete(rs.active, key)
	if r.NoCD {
		cwd = callerDir
	}
	vars := map[string]string{}
	for k, v := range jf.Vars {
		vars[k] = v.Text
	}
	n := rs.add(parent, &Node{Kind: NodeJustRecipe, File: jf.Path, Line: r.Line, EndLine: r.EndLine,
		Symbol: r.Name, Justfile: jf, Dir: cwd, Vars: vars})
	for _, d := range r.Deps {
		if owner, dep := rs.justRecipe(jf, d.Recipe, nil); dep != nil {
			rs.justRun(n, owner, dep, path.Dir(owner.Path), callerDir, depth+1)
		}
	}
	for _, rl := range r.Lines {
		if rs.full() {
			return
		}
		ln := rs.add(n, &Node{Kind: NodeJustLine, File: jf.Path, Line: rl.Line, EndLine: rl.EndLine,
			Symbol: r.Name, Text: rl.Shell, Recipe: rl, Justfile: jf, Dir: cwd})
		sh := rs.parse(jf.Path, rl.Line, rl.Source, false)
		ln.Script = sh
		if sh.Err != nil {
			ln.Note = sh.Err.Error()
			continue
		}
		rs.commands(ln, sh, sh.Commands, cwd, depth+1)
	}
	for _, d := range r.Post {
		if owner, dep := rs.justRecipe(jf, d.Recipe, nil); dep != nil {
			rs.justRun(n, owner, dep, path.Dir(owner.Path), callerDir, depth+1)
		}
	}
}
