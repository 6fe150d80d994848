package worker

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/polylane/polylane/store/storetest"
)

// hostileLines are log lines that try to reach GitHub's renderer through
// Polylane's comment: HTML, images, links, a mention, a fence that would
// close a code block, a heading, emphasis, a table, an HTML comment that
// would hide the rest, terminal escapes and invalid UTF-8.
var hostileLines = []string{
	"\x1b[1;31m" + strings.Repeat("\x1b[0m\x1b[38;5;196m\x1b]8;;https://evil.example/osc\x07", 40000) + "ANSI bomb\x1b[0m",
	"=== FAIL: internal/leader TestLeader<img_src=x_onerror=alert(1)>@octocat[x](https://evil.example/PWNED)```**PWNED** (3.86s)",
	"    election_test.go:142: <script>alert('PWNED')</script> @octocat <!-- [click](https://evil.example/PWNED) ![i](https://evil.example/i.png) **PWNED** \xff\xfe\xc3\x28",
	"    election_test.go:143: ```",
	"## PWNED heading",
	"| PWNED | table |",
	"> PWNED quote @polylane fix https://evil.example/bare www.evil.example",
	"@polylane fix",
}

// hostileLogScenario writes the sweep's scenario with the pull-request
// run's failed log replaced around its failure: a 10 MB line, then the
// hostile lines, then the failure itself.
func hostileLogScenario(t *testing.T) string {
	t.Helper()
	dir := cutScenario(t, sweepSource, sweepKeepRuns)
	path := filepath.Join(dir, "logs", "33608870762.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []string
	for _, l := range lines {
		if strings.Contains(l, "=== FAIL: internal/leader") {
			ts := l[:strings.IndexByte(l, ' ')]
			out = append(out, ts+" "+strings.Repeat("x", 10<<20))
			for _, h := range hostileLines {
				out = append(out, ts+" "+h)
			}
			continue
		}
		out = append(out, l)
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHostileLogInComment diagnoses and publishes a pull-request failure
// whose log carries hostile lines: the diagnosis finishes in bounded time,
// and the sticky comment posted through the simulator renders none of the
// injections (no HTML but Polylane's own, no foreign link or image, no
// live mention, no heading, quote, table or emphasis made of log text).
func TestHostileLogInComment(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], hostileLogScenario(t))
	run, number := r.prFailure(t)
	start := time.Now()
	r.diagnoseAndPublish(t, run.ID)
	if took := time.Since(start); took > time.Minute {
		t.Errorf("diagnosis and publication took %s", took)
	}
	rec, _ := r.storedDiagnosis(t, run.ID, run.RunAttempt)
	if len(rec.Document) > 1<<20 {
		t.Errorf("the stored diagnosis is %d bytes: the 10 MB line was kept", len(rec.Document))
	}
	comments := r.botComments(number)
	if len(comments) != 1 {
		t.Fatalf("%d comments, want 1", len(comments))
	}
	body := comments[0].Body
	if !strings.Contains(body, "PWNED") {
		t.Fatalf("the comment shows none of the hostile log text; the test proves nothing:\n%.3000s", body)
	}
	for _, p := range markdownProblems(body) {
		t.Errorf("%s", p)
	}
	if t.Failed() {
		t.Logf("comment:\n%.6000s", body)
	}
}

// markdownProblems parses a comment as GitHub does (CommonMark with GFM)
// and reports what log text could make of it.
func markdownProblems(doc string) []string {
	src := []byte(doc)
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	root := md.Parser().Parse(text.NewReader(src))
	var problems []string
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if p := nodeProblem(n, src); p != "" {
			problems = append(problems, p)
		}
		return ast.WalkContinue, nil
	})
	return problems
}

// allowedHTML is the HTML Polylane writes itself.
var allowedHTML = []string{"<!-- polylane:", "<details><summary>Diff</summary>", "</details>"}

func nodeProblem(n ast.Node, src []byte) string {
	switch n := n.(type) {
	case *ast.HTMLBlock, *ast.RawHTML:
		raw := rawText(n, src)
		for _, ok := range allowedHTML {
			if strings.HasPrefix(strings.TrimSpace(raw), ok) {
				return ""
			}
		}
		return fmt.Sprintf("HTML reaches the renderer: %.120q", raw)
	case *ast.Link:
		if !trustedURL(string(n.Destination)) {
			return fmt.Sprintf("link to %s", n.Destination)
		}
	case *ast.Image:
		return fmt.Sprintf("image %s", n.Destination)
	case *ast.AutoLink:
		if url := string(n.URL(src)); !trustedURL(url) {
			return fmt.Sprintf("autolink to %s", url)
		}
	case *ast.Heading, *ast.Emphasis, *ast.Blockquote:
		if strings.Contains(plainText(n, src), "PWNED") {
			return fmt.Sprintf("log text made a %s: %.120q", n.Kind(), plainText(n, src))
		}
	case *ast.Text:
		if _, inCode := n.Parent().(*ast.CodeSpan); !inCode && bytes.Contains(n.Segment.Value(src), []byte("@octocat")) {
			return fmt.Sprintf("live mention in %.120q", n.Segment.Value(src))
		}
	}
	if n.Kind().String() == "Table" && strings.Contains(plainText(n, src), "PWNED") {
		return "log text made a table"
	}
	return ""
}

// trustedURL: Polylane links only to GitHub and its dashboard.
func trustedURL(u string) bool {
	return strings.HasPrefix(u, "https://github.com/") || strings.HasPrefix(u, "#")
}

func rawText(n ast.Node, src []byte) string {
	var b strings.Builder
	switch n := n.(type) {
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			s := n.Segments.At(i)
			b.Write(s.Value(src))
		}
	case *ast.HTMLBlock:
		for i := 0; i < n.Lines().Len(); i++ {
			s := n.Lines().At(i)
			b.Write(s.Value(src))
		}
	}
	return b.String()
}

// plainText collects the text under a node.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// TestMarkdownProblemsCatch: the checker the hostile tests rely on sees
// each kind of injection.
func TestMarkdownProblemsCatch(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"x <img src=x> y", "HTML reaches"},
		{"<div>\nPWNED\n</div>", "HTML reaches"},
		{"[a](https://evil.example)", "link to"},
		{"![i](https://github.com/i.png)", "image"},
		{"see https://evil.example/x", "autolink"},
		{"hi @octocat", "live mention"},
		{"## PWNED", "Heading"},
		{"> PWNED", "Blockquote"},
		{"**PWNED**", "Emphasis"},
		{"| PWNED | b |\n|---|---|\n| 1 | 2 |", "table"},
	}
	for _, tc := range tests {
		if got := strings.Join(markdownProblems(tc.doc), "; "); !strings.Contains(got, tc.want) {
			t.Errorf("%q: problems %q, want %q", tc.doc, got, tc.want)
		}
	}
	clean := "<!-- polylane:assessment v1 -->\n### Title\n\n`@octocat` [run](https://github.com/o/r) `**PWNED**`\n\n<details><summary>Diff</summary>\n\n```diff\n+x\n```\n\n</details>\n"
	if p := markdownProblems(clean); len(p) != 0 {
		t.Errorf("clean comment reported: %v", p)
	}
}
