package harness

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// astDepth is the depth of the syntax tree under n, counted in nodes.
func astDepth(n syntax.Node) int {
	deepest := 0
	syntax.Walk(n, func(c syntax.Node) bool {
		if c == n {
			return true
		}
		if c != nil {
			if d := astDepth(c); d > deepest {
				deepest = d
			}
		}
		return false
	})
	return deepest + 1
}

func TestShellNestingRatio(t *testing.T) {
	for _, src := range []string{
		"true", "( true )", "( ( true ) )", "{ true; }", "{ { true; }; }", "echo $(true)", "echo $($(true))",
		"echo ${a:-${b}}", "if true; then true; fi", "if true; then if true; then true; fi; fi",
		"true && true && true", "echo $((1+2+3))", "echo $((-(-(1))))", "[[ ! a && b ]]",
		"echo \"$(echo \"$(true)\")\"", "case x in a) ( true ) ;; esac", "for i in a; do for j in b; do true; done; done",
		"cat <<EOF\n$( ( true ) )\nEOF\n", "a=(1 2 3)", "f() { g() { true; }; }", "echo `true`",
	} {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		d, _ := ShellNesting(src, 1000)
		t.Logf("%-60q scan %3d ast %3d", src, d, astDepth(f))
	}
}

// FuzzShellNesting checks that the scan bounds what the parser builds: for
// any input bash accepts, the syntax tree is no deeper than a few nodes per
// level the scan counted. An input that hides nesting from the scan (in
// what it takes for a quote, a comment or a here-document) fails here.
func FuzzShellNesting(f *testing.F) {
	for _, seed := range []string{
		"( ( true ) )", "echo \"$(echo \"$(true)\")\"", "case x in (a) ( b ) ;; b|c) { d; } ;; esac",
		"cat <<-'EOF'\n\t$( (\nEOF\n( true )", "cat <<EOF\n$( ( true ) )\nEOF\n", "echo ${a:-'}'} ( x )",
		"echo \"${a:-'}\" ( x )", "x=$(( ((1)) ? 2 : -3 ))", "[[ ! ( a && b ) ]]", "echo `echo \\`true\\``",
		"f() { # (\n ( true ); }", "echo a#( b", "echo $'a\\'b' ( c )", "for ((i=0;i<3;i++)); do true; done",
		"while read -r x; do case $x in *) echo ;; esac; done < <(ls)", "a=( $(b) \"$(c)\" )",
		"if a; then b; elif c; then d; else e; fi", "{ echo }; }", "echo }; { true; }",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 2000 {
			return
		}
		d, _ := ShellNesting(src, 1<<20)
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			return
		}
		if a := astDepth(file); a > 4*d+9 {
			t.Errorf("scan says %d levels, the syntax tree is %d deep: %q", d, a, src)
		}
	})
}
