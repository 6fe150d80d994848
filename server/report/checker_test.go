package report

import (
	"strings"
	"testing"

	"github.com/polylane/polylane/causal/catalogue"
)

// TestCheckMarkdownCatches makes sure the safety checker used by the
// golden tests reports each kind of injection it is meant to catch.
func TestCheckMarkdownCatches(t *testing.T) {
	s := safety{repo: "o/r", dashboard: "https://dash.example/x", token: "PWNED"}
	tests := []struct {
		name, doc, want string
	}{
		{"image", "a ![x](https://o.example/i.png)", "image"},
		{"autolink", "see https://evil.example now", "autolink"},
		{"www autolink", "see www.evil.example now", "autolink"},
		{"email autolink", "mail a@evil.example", "autolink"},
		{"mention", "ping @octocat please", "@o"},
		{"issue reference", "see #42", "holds \"#4\""},
		{"inline HTML", "a <b>bold</b>", "inline HTML"},
		{"HTML block", "<div>\nx\n</div>", "HTML block line"},
		{"foreign link", "[x](https://evil.example)", "link to"},
		{"foreign heading", "## PWNED", "heading not written"},
		{"quote", "> PWNED", "block quote"},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |", "Table node"},
		{"nested list", "- - PWNED", "list opened at the start"},
		{"ordered list", "1. PWNED", "ordered list"},
		{"emphasis", "**PWNED**", "emphasis"},
		{"strikethrough", "~~PWNED~~", "strikethrough"},
		{"two diffs", "```diff\na\n```\n\n```diff\nb\n```", "fenced blocks"},
		{"bad flowchart", "```mermaid\nflowchart TD\n  a[\"x\"] --> b\n```", "invalid flowchart"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			problems := strings.Join(checkMarkdown(tc.doc, s), "\n")
			if !strings.Contains(problems, tc.want) {
				t.Errorf("problems %q lack %q", problems, tc.want)
			}
		})
	}
	ok := "<!-- polylane:assessment v1 repo=o/r class=c run=1 attempt=1 -->\n### Polylane: x\n\nA [link](https://github.com/o/r/blob/s/f) and `@code #1 https://x` and [dash](https://dash.example/x).\n"
	if p := checkMarkdown(ok, s); len(p) > 0 {
		t.Errorf("clean document reported: %v", p)
	}
}

// TestCheckMarkdownFamilySources: a document may link the public threads
// the shipped catalogue cites for its error family ("Known elsewhere"),
// and no other family's.
func TestCheckMarkdownFamilySources(t *testing.T) {
	fams := catalogue.Default.Families()
	fam := fams[0]
	other := ""
	for _, f := range fams[1:] {
		if !catalogue.Default.Cites(fam.ID, f.Sources[0]) {
			other = f.Sources[0]
			break
		}
	}
	if other == "" {
		t.Fatal("no source of another family to try")
	}
	s := safety{repo: "o/r", family: fam.ID}
	if p := checkMarkdown("- [t]("+fam.Sources[0]+")\n", s); len(p) > 0 {
		t.Errorf("the family's own source reported: %v", p)
	}
	if p := strings.Join(checkMarkdown("- [t]("+other+")\n", s), "\n"); !strings.Contains(p, "link to") {
		t.Errorf("another family's source %s not reported: %q", other, p)
	}
	if p := strings.Join(checkMarkdown("- [t]("+fam.Sources[0]+")\n", safety{repo: "o/r"}), "\n"); !strings.Contains(p, "link to") {
		t.Errorf("a family source linked without a family not reported: %q", p)
	}
}
