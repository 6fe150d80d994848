package harness

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestShellNestingCounts(t *testing.T) {
	deep := func(open, body, close string, n int) string {
		return strings.Repeat(open, n) + body + strings.Repeat(close, n)
	}
	tests := []struct {
		name     string
		src      string
		min, max int
	}{
		{"flat", "echo hello; ls -la | wc -l", 0, 1},
		{"subshells", deep("( ", "true", " )", 5), 5, 5},
		{"braces", deep("{ ", "true", "; }", 5), 5, 5},
		{"substitutions", "echo " + deep("$(", "true", ")", 5), 5, 5},
		{"arithmetic parentheses", "echo $((" + deep("(", "1", ")", 5) + "))", 7, 7},
		{"if blocks", deep("if true; then ", "true", "; fi", 5), 5, 5},
		{"loops", deep("while true; do ", "true", "; done", 3), 3, 3},
		{"and chain", strings.Repeat("true && ", 9) + "true", 9, 9},
		{"chain ends at a newline", strings.Repeat("true && true\n", 50), 1, 1},
		{"function declarations", strings.Repeat("f() ", 6) + "true", 6, 6},
		{"parentheses in single quotes", "echo '" + strings.Repeat("(", 500) + "'", 0, 0},
		{"parentheses in double quotes", `echo "` + strings.Repeat("(", 500) + `"`, 1, 1},
		{"parentheses in a comment", "# " + strings.Repeat("( ", 500) + "\ntrue", 0, 0},
		{"hash inside a word", "echo a#" + strings.Repeat("( ", 3) + "b" + strings.Repeat(" )", 3), 3, 3},
		{"quoted here-document", "cat <<'EOF'\n" + strings.Repeat("$( ", 500) + "\nEOF\n( true )", 1, 1},
		{"here-document expands", "cat <<EOF\n" + deep("$(", "true", ")", 4) + "\nEOF\n", 4, 4},
		{"case patterns", "case $x in a) ( true ) ;; (b|c) { d; } ;; *) e ;; esac", 2, 2},
		{"closing brace as an argument does not close", "{ echo }; { echo }; { true; }; }; }; }", 2, 3},
		{"done as an argument does not close", "while true; do echo done; while true; do true; done; done", 2, 2},
		{"single quote inside a quoted parameter", `echo "${a:-'}" ( x )`, 2, 2},
		{"ANSI-C quote with an escaped quote", `echo $'a\'b' ( c )`, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := ShellNesting(tt.src, 1000)
			if d < tt.min || d > tt.max {
				t.Errorf("depth %d, want %d..%d", d, tt.min, tt.max)
			}
		})
	}
}

func TestShellNestingStopsAtTheLimit(t *testing.T) {
	src := "true\n" + strings.Repeat("( ", 200000) + "true" + strings.Repeat(" )", 200000)
	d, line := ShellNesting(src, MaxNesting)
	if d != MaxNesting+1 || line != 2 {
		t.Errorf("depth %d at line %d, want %d at line 2", d, line, MaxNesting+1)
	}
	err := CheckShell(".github/workflows/ci.yml", 30, src)
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrLimit) || le.Line != 31 || le.Block != 30 {
		t.Fatalf("CheckShell = %v", err)
	}
	if want := "the shell script at line 30 of .github/workflows/ci.yml nests deeper than 200 levels (line 31)"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q, want it to start with %q", err, want)
	}
}

func TestYAMLAndJSONNesting(t *testing.T) {
	tests := []struct {
		name     string
		yaml     bool
		src      string
		min, max int
	}{
		{"workflow", true, "on: push\njobs:\n  a:\n    steps:\n      - run: |\n          ( ( ( [[[[ {{{{\n      - uses: x\n", 3, 6},
		{"flow nesting", true, "a: " + strings.Repeat("[", 300) + strings.Repeat("]", 300), 300, 400},
		{"block sequences on one line", true, strings.Repeat("- ", 300) + "x", 300, 400},
		{"block indentation", true, indentBomb(300), 300, 400},
		{"quoted brackets", true, `a: "[[[[[[[[[["` + "\nb: '{{{{{{'\n", 1, 2},
		{"comment brackets", true, "a: 1 # [[[[[[[[[[\n", 1, 2},
		{"json", false, `{"a": [[[{"b": "[[[["}]]]}`, 5, 5},
		{"json escapes", false, `{"a": "\"[[[[[[["}`, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d int
			if tt.yaml {
				d, _ = YAMLNesting([]byte(tt.src), 1000)
			} else {
				d, _ = JSONNesting([]byte(tt.src), 1000)
			}
			if d < tt.min || d > tt.max {
				t.Errorf("depth %d, want %d..%d", d, tt.min, tt.max)
			}
		})
	}
}

func indentBomb(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	return b.String()
}

// TestRepoNotesWhatItSkips reads files over each limit through a Repo: each
// is refused with a LimitError and listed by Skipped, and the read budget
// refuses files once it is spent.
func TestRepoNotesWhatItSkips(t *testing.T) {
	bomb := strings.Repeat("( ", 1000) + "true" + strings.Repeat(" )", 1000)
	r := NewRepo(fstest.MapFS{
		"deep.sh":                 {Data: []byte(bomb)},
		"Taskfile.yml":            {Data: []byte("version: '3'\ntasks:\n  a:\n    cmds: " + strings.Repeat("[", 500) + strings.Repeat("]", 500) + "\n")},
		"package.json":            {Data: []byte(`{"scripts": ` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + "}")},
		".github/workflows/w.yml": {Data: []byte("jobs:\n  j:\n    steps:\n      - name: S\n        run: ./deep.sh\n")},
	})
	if _, err := r.Script("deep.sh"); !errors.Is(err, ErrLimit) {
		t.Errorf("script: %v", err)
	}
	if _, err := r.Taskfile("Taskfile.yml"); !errors.Is(err, ErrLimit) {
		t.Errorf("taskfile: %v", err)
	}
	if _, err := r.Package("."); !errors.Is(err, ErrLimit) {
		t.Errorf("package.json: %v", err)
	}
	var files []string
	for _, s := range r.Skipped() {
		files = append(files, s.File)
	}
	if got := strings.Join(files, ","); got != "Taskfile.yml,deep.sh,package.json" {
		t.Errorf("skipped %s", got)
	}

	big := strings.Repeat("echo x\n", MaxFileBytes/8)
	fsys := fstest.MapFS{}
	for i := 0; i < MaxRepoBytes/len(big)+2; i++ {
		fsys[string(rune('a'+i))+".sh"] = &fstest.MapFile{Data: []byte(big)}
	}
	r = NewRepo(fsys)
	var budget error
	for name := range fsys {
		if _, err := r.ReadFile(name); err != nil {
			budget = err
		}
	}
	var le *LimitError
	if !errors.As(budget, &le) || le.What != "budget" {
		t.Errorf("reading past the budget: %v", budget)
	}
}

// TestMakeExpansionIsBounded expands variables that double at each level:
// the text stops growing at the bound instead of reaching gigabytes.
func TestMakeExpansionIsBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 8; i++ {
		b.WriteString(string(rune('A'+i)) + " = " + strings.Repeat("$("+string(rune('B'+i))+")", 64) + "\n")
	}
	b.WriteString("I = xxxxxxxx\nall:\n\techo $(A)\n")
	mf, err := ParseMakefile("Makefile", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(mf.Targets["all"].Recipe[0].Shell); n > 2*maxExpansion {
		t.Errorf("expanded recipe is %d bytes", n)
	}
}
