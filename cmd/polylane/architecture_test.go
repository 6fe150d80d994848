package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of this module.
const module = "github.com/polylane/polylane"

// goFile is one parsed Go file of the module.
type goFile struct {
	path    string // slash path from the module root
	pkg     string // the package's directory, from the module root
	test    bool
	imports []string
	file    *ast.File
}

// moduleFiles parses every Go file of the module (testdata and vendored
// trees left out).
func moduleFiles(t *testing.T) []goFile {
	t.Helper()
	root := filepath.Join("..", "..")
	var out []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if name == "testdata" || name == "node_modules" || (strings.HasPrefix(name, ".") && p != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		g := goFile{path: rel, pkg: filepath.ToSlash(filepath.Dir(rel)), test: strings.HasSuffix(name, "_test.go"), file: f}
		for _, im := range f.Imports {
			v, _ := strconv.Unquote(im.Path.Value)
			g.imports = append(g.imports, v)
		}
		out = append(out, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pure reports whether a package directory holds pure code: analysis/ and
// causal/ take values and return values (design.md, "Shape of the house").
func pure(pkg string) bool {
	return pkg == "analysis" || strings.HasPrefix(pkg, "analysis/") || pkg == "causal" || strings.HasPrefix(pkg, "causal/")
}

// testSupport reports whether a package exists only for tests (its name
// ends in "test"), where I/O is allowed.
func testSupport(pkg string) bool { return strings.HasSuffix(pkg, "test") }

// forbiddenInPure are imports that mean I/O, a clock-reading logger, a
// database, a process or GitHub.
var forbiddenInPure = []string{"net/http", "database/sql", "os/exec", "log", "log/slog", "github.com/rs/zerolog",
	"github.com/google/go-github", "github.com/jackc/pgx", "modernc.org/sqlite", "github.com/riverqueue/river",
	"github.com/sashabaranov/go-openai", module + "/server", module + "/store", module + "/cmd"}

// importsAny reports which of prefixes an import path is or is under.
func importsAny(path string, prefixes []string) string {
	for _, p := range prefixes {
		if path == p || strings.HasPrefix(path, p+"/") {
			return p
		}
	}
	return ""
}

// architectureViolations lists the rules a set of files breaks.
func architectureViolations(files []goFile) []string {
	var out []string
	for _, f := range files {
		if f.test {
			continue
		}
		for _, im := range f.imports {
			if pure(f.pkg) && !testSupport(f.pkg) {
				if p := importsAny(im, forbiddenInPure); p != "" {
					out = append(out, f.path+": a pure package imports "+im)
				}
			}
			if importsAny(im, []string{"github.com/google/go-github"}) != "" &&
				!strings.HasPrefix(f.pkg, "server/ghclient") && !strings.HasPrefix(f.pkg, "server/githubtest") {
				out = append(out, f.path+": only server/ghclient and the simulator talk to GitHub, but it imports "+im)
			}
			if f.pkg == "analysis/gha" && strings.HasPrefix(im, module+"/") {
				out = append(out, f.path+": the wire types are a leaf, but they import "+im)
			}
			if strings.HasPrefix(f.pkg, "store") && importsAny(im, []string{module + "/server", module + "/cmd"}) != "" {
				out = append(out, f.path+": the store imports "+im)
			}
			if testSupport(strings.TrimPrefix(im, module+"/")) && strings.HasPrefix(im, module+"/") && !testSupport(f.pkg) && f.pkg != "cmd/polylane" {
				out = append(out, f.path+": product code imports the test-support package "+im)
			}
		}
		if pure(f.pkg) && !testSupport(f.pkg) {
			out = append(out, clockCalls(f)...)
		}
		for _, d := range f.file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				out = append(out, f.path+": func init() (register values in a literal list instead)")
			}
		}
	}
	sort.Strings(out)
	return out
}

// clockCalls lists the calls of a pure file that read the clock or sleep:
// pure code is given "now".
func clockCalls(f goFile) []string {
	var out []string
	ast.Inspect(f.file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == "time" {
			switch sel.Sel.Name {
			case "Now", "Since", "Until", "Sleep", "After", "Tick", "NewTimer", "NewTicker", "AfterFunc":
				out = append(out, f.path+": a pure package calls time."+sel.Sel.Name)
			}
		}
		return true
	})
	return out
}

// TestArchitecture holds the architecture's rules as a test: analysis/ and
// causal/ stay pure (no network, database, process, logger, GitHub client,
// server or store package, no clock), only server/ghclient and the GitHub
// simulator import go-github, GitHub's wire types (analysis/gha) are a
// leaf, the store does not import the server, and
// product code does not import test-support packages, and no code outside
// tests has a func init().
func TestArchitecture(t *testing.T) {
	files := moduleFiles(t)
	if len(files) < 100 {
		t.Fatalf("only %d Go files found: the walk did not start at the module root", len(files))
	}
	for _, v := range architectureViolations(files) {
		t.Error(v)
	}
}

// TestArchitectureCatches feeds the rules files that break each of them.
func TestArchitectureCatches(t *testing.T) {
	bad := func(path string, imports ...string) goFile {
		dir := filepath.ToSlash(filepath.Dir(path))
		return goFile{path: path, pkg: dir, imports: imports, file: &ast.File{}}
	}
	cases := []goFile{
		bad("causal/x.go", "net/http"),
		bad("analysis/history/x.go", "os/exec"),
		bad("causal/harness/x.go", "github.com/rs/zerolog"),
		bad("causal/x.go", module+"/store"),
		bad("server/dashboard/x.go", "github.com/google/go-github/v66/github"),
		bad("store/sqlite/x.go", module+"/server/webhook"),
		bad("server/worker/x.go", module+"/causal/patch/patchtest"),
		bad("analysis/gha/x.go", module+"/analysis"),
	}
	for _, c := range cases {
		if v := architectureViolations([]goFile{c}); len(v) != 1 {
			t.Errorf("%s importing %v: %d violations, want 1", c.path, c.imports, len(v))
		}
	}
	clock, err := parser.ParseFile(token.NewFileSet(), "x.go", "package causal\nimport \"time\"\nvar x = time.Now()\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if v := architectureViolations([]goFile{{path: "causal/x.go", pkg: "causal", file: clock}}); len(v) != 1 {
		t.Errorf("time.Now in causal: %v", v)
	}
	withInit, err := parser.ParseFile(token.NewFileSet(), "x.go", "package worker\nfunc init() {}\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if v := architectureViolations([]goFile{{path: "server/worker/x.go", pkg: "server/worker", file: withInit}}); len(v) != 1 {
		t.Errorf("func init in server/worker: %v", v)
	}
	if v := architectureViolations([]goFile{bad("causal/patch/patchtest/x.go", "os/exec")}); len(v) != 0 {
		t.Errorf("a test-support package may run processes: %v", v)
	}
}
