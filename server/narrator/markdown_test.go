package narrator

import (
	"strings"
	"testing"

	"github.com/polylane/polylane/server/report"
)

func TestMarkdown(t *testing.T) {
	d := loadDiagnosis(t, "rollout.json")
	const wj = report.WordJoiner
	cases := []struct{ name, in, want string }{
		{"code span kept", "The gate `kubectl wait` passes (E5).", "The gate `kubectl wait` passes \\(E5\\)."},
		{"mention broken", "ask @octocat", "ask @" + wj + "octocat"},
		{"issue reference broken", "see #12", "see \\#" + wj + "12"},
		{"url broken", "go to https://evil.example/x", "go to https:" + wj + "//evil.example/x"},
		{"www broken", "www.evil.example", "www" + wj + ".evil.example"},
		{"html escaped", "<img src=x onerror=alert(1)>", "\\<img src=x onerror=alert\\(1\\)\\>"},
		{"heading escaped", "# Title", "\\#" + wj + " Title"},
		{"emphasis dropped", "a **bold** claim", "a bold claim"},
		{"unknown link escaped", "[click](https://evil.example/x)", "\\[click\\]\\(https:" + wj + "//evil.example/x\\)"},
		{"grounded link kept", "the [run](https://github.com/orbit-labs/skyline/actions/runs/7300112233)",
			"the [run](https://github.com/orbit-labs/skyline/actions/runs/7300112233)"},
		{"odd backticks escaped", "a `b c", "a 'b c"},
		{"list items", "Two things:\n- first `x`\n* second\n1. third", "Two things:\n- first `x`\n- second\n- third"},
		{"paragraphs", "one\ntwo\n\n\n\nthree", "one two\n\nthree"},
		{"leading markers escaped", "+1 to that\n\n=== no", "\\+1 to that\n\n\\=== no"},
		{"ordered number escaped", "2026. was a year", "2026\\. was a year"},
		{"invisible dropped", "a\u202eb\u200bc\x1b[31m", "abc\\[31m"},
		{"table pipe escaped", "| a | b |", "\\| a \\| b \\|"},
		{"mention inside code stays code", "`@octocat`", "`@octocat`"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Markdown(d, tc.in); got != tc.want {
				t.Fatalf("Markdown(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add("`a` @b #1 <c> [d](https://e) **f**\n- g\n\n1. h")
	f.Add("``` \n# x\n> y")
	g := newGrounds(loadDiagnosis(f, "rollout.json"))
	f.Fuzz(func(t *testing.T, s string) {
		md := markdown(g, s)
		for i, part := range strings.Split(md, "`") {
			if i%2 == 1 {
				if strings.Contains(part, "\n") {
					t.Fatalf("a code span spans lines: %q", md)
				}
				continue
			}
			plain := strings.ReplaceAll(part, "\\<", "")
			if strings.Contains(plain, "<") {
				t.Fatalf("unescaped < outside code in %q", md)
			}
			if strings.Contains(strings.ReplaceAll(part, "@"+report.WordJoiner, ""), "@") {
				t.Fatalf("live mention outside code in %q", md)
			}
		}
		for _, line := range strings.Split(md, "\n") {
			trimmed := strings.TrimLeft(line, " ")
			if strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, ">") || strings.HasPrefix(trimmed, "```") {
				t.Fatalf("block structure in %q", md)
			}
		}
	})
}
