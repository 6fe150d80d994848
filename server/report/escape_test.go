package report

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain words", "plain words"},
		{"a\nb\tc\r\n  d", "a b c d"},
		{"**bold** _i_ `c`", `\*\*bold\*\* \_i\_ \` + "`c\\`"},
		{"<b>x</b> &amp;", `\<b\>x\</b\> \&amp;`},
		{"[l](u) ![i](u)", `\[l\](u) !\[i\](u)`},
		{"@octocat", "@\u2060octocat"},
		{"see #12", "see \\#\u206012"},
		{"https://e.example", "https:\u2060//e.example"},
		{"www.e.example WWW.x", "www\u2060.e.example WWW\u2060.x"},
		{"- item", `\- item`},
		{"12. item", `12\. item`},
		{"3) item", `3\) item`},
		{"$x$ ~s~ |c|", `\$x\$ \~s\~ \|c\|`},
		{"rtl\u202eevil\u200bzero\x00nul\x1b[31m", "rtl evil zero nul \\[31m"},
		{"bad \xff byte", "bad \uFFFD byte"},
	}
	for _, tc := range tests {
		if got := text(tc.in, 0); got != tc.want {
			t.Errorf("text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"go test ./...", "`go test ./...`"},
		{"a`b", "``a`b``"},
		{"``x```", "```` ``x``` ````"},
		{"`x", "`` `x ``"},
		{"", "(empty)"},
		{"a\nb", "`a b`"},
	}
	for _, tc := range tests {
		if got := code(tc.in, 0); got != tc.want {
			t.Errorf("code(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestProse(t *testing.T) {
	tests := []struct{ in, want string }{
		{"run `make deps` twice", "run `make deps` twice"},
		{"odd ` count @x", "odd \\` count @\u2060x"},
		{"`a``b` and `@c`", "`a` `b` and `@c`"},
		{"empty `` code", "empty code"},
		{"`` `` 0)", "0\\)"},
		{"`a`   `b`", "`a` `b`"},
		{"(E1, E3)", "(E1, E3)"},
	}
	for _, tc := range tests {
		if got := prose(tc.in, 0); got != tc.want {
			t.Errorf("prose(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
		tail string
	}{
		{"short", 10, "short", "short"},
		{"abcdefghij", 5, "abcd…", "…ghij"},
		{"ééééé", 3, "éé…", "…éé"},
		{"abc", 1, "…", "…"},
		{"abc", 0, "abc", "abc"},
	}
	for _, tc := range tests {
		if got := clip(tc.in, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
		if got := clipTail(tc.in, tc.n); got != tc.tail {
			t.Errorf("clipTail(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.tail)
		}
	}
}

func TestFenced(t *testing.T) {
	got := fenced("diff", "+```\n+````x\n")
	if !strings.HasPrefix(got, "`````diff\n") || !strings.HasSuffix(got, "\n`````\n") {
		t.Errorf("fence does not outgrow the backtick runs inside: %q", got)
	}
	if got := fenced("", "a\x1b[1m\u202eb"); got != "```\na?[1m?b\n```\n" {
		t.Errorf("control characters kept: %q", got)
	}
}

func TestMermaidLabel(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{`say "hi"`, 0, "say #quot;hi#quot;"},
		{"a<b>&c", 0, "a#lt;b#gt;#amp;c"},
		{"x[1](2){3}|;%#`", 0, "x#91;1#93;#40;2#41;#123;3#125;#124;#59;#37;#35;#96;"},
		{"line\nbreak", 0, "line break"},
		{"", 0, "empty"},
		{"abcdefgh", 4, "abc…"},
	}
	for _, tc := range tests {
		if got := mermaidLabel(tc.in, tc.n); got != tc.want {
			t.Errorf("mermaidLabel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLinks(t *testing.T) {
	l := newLinker("octo/repo", "0123456789abcdef0123456789abcdef01234567")
	tests := []struct{ got, want string }{
		{l.blob("dir/a b(1).yml", 7), "https://github.com/octo/repo/blob/0123456789abcdef0123456789abcdef01234567/dir/a%20b%281%29.yml#L7"},
		{l.blob("../etc/passwd", 1), ""},
		{l.blob("/abs", 1), ""},
		{l.job(1, 2, 3, 40), "https://github.com/octo/repo/actions/runs/1/job/2#step:3:40"},
		{l.job(1, 2, 0, 0), "https://github.com/octo/repo/actions/runs/1/job/2"},
		{l.commit("nothex"), ""},
		{newLinker("evil/../x", "abc1234").run(1), ""},
		{newLinker("octo/repo", "<script>").blob("a", 1), ""},
		{safeURL("javascript:alert(1)"), ""},
		{safeURL("https://d.example/x?y=1"), "https://d.example/x?y=1"},
		{safeURL("https://d.example/x)(y"), ""},
	}
	for i, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("case %d: got %q, want %q", i, tc.got, tc.want)
		}
	}
}
