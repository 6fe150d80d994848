package report

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	gtext "github.com/yuin/goldmark/text"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/causal"
)

// FuzzComment puts arbitrary text into every field that carries untrusted
// input and checks that the comment stays safe, bounded and well formed.
func FuzzComment(f *testing.F) {
	for _, seed := range []string{
		"plain", "@octocat #12 https://evil.example www.evil.example a@b.example",
		"<script>x</script> <!-- c --> ![i](https://e.example/i.png) [l](javascript:x)",
		"``` `` ` \n# h\n- l\n1. o\n> q\n| t | t |", "\u202e\u2060\u0000\x1b[31m", "x --> y[\"z\"]; click y call f() %% c",
		"$x$ ~~s~~ **b** _i_ \\ &amp; &#64;", strings.Repeat("`", 200), strings.Repeat("é", 5000),
	} {
		f.Add(seed)
	}
	base := loadFixture(f, "rollout-race")
	f.Fuzz(func(t *testing.T, s string) {
		d := *base
		d.Run.Workflow, d.Run.Branch, d.Window.Branch = s, s, s
		d.TriggerClass = s
		d.Failure.Job.Name = s
		d.Failure.Step.Name = s
		d.Failure.Lines = []analysis.Line{{N: 3, Text: s, Role: analysis.RoleCause}}
		c := *base.Chain
		c.Signal, c.Cadence = s, s
		c.Mechanism.Summary = "`" + s + "` and " + s
		c.Producer.File, c.Producer.Symbol = s, s
		c.Evidence = []causal.Evidence{
			{ID: s, Kind: causal.EvidenceLog, RunID: d.Run.ID, JobID: d.Failure.Job.ID, Line: 2, Text: s, Note: s},
			{ID: "E2", Kind: causal.EvidenceFile, File: s, Line: 1, Text: s},
		}
		c.Mechanism.Evidence = []string{s}
		d.Chain = &c
		p := *base.Patch
		p.Title, p.Rationale, p.Diff = s, s, "--- a\n+++ b\n+"+s+"\n"
		d.Patch = &p
		im := *base.Impact
		im.Summary, im.Observability, im.CheckedNotAffected = s, []string{s}, []string{s}
		d.Impact = &im
		out, err := Comment(&d, Options{ConfigWarnings: []string{s}, Stale: true, CurrentHead: s, DashboardURL: s, BotLogin: s})
		if err != nil {
			t.Fatalf("Comment: %v", err)
		}
		if len(out) >= MaxChars {
			t.Fatalf("comment of %d bytes", len(out))
		}
		m, ok := ParseMarker(out)
		if !ok || m != MarkerFor(KindAssessment, &d, Options{}) || (s != "" && len(s) <= maxMarkerValue && m.Class != s) {
			t.Fatalf("marker %+v (ok %v) does not carry the class %q", m, ok, s)
		}
		for _, problem := range checkMarkdown(out, safety{repo: d.Repository, dashboard: safeURL(s)}) {
			t.Errorf("%s", problem)
		}
	})
}

// FuzzInline checks that text, code and prose render any input as inert
// inline markdown: a paragraph of plain text and code spans only, with no
// mention, reference or URL left in the plain text.
func FuzzInline(f *testing.F) {
	for _, seed := range []string{"a `b` c", "``x`` `y`", "`` `a` ``", "\\`x`", "x``", "*a* _b_ [c](d) <e>", "@a #1 https://x www.y"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"text": text(s, 0), "code": code(s, 0), "prose": prose(s, 0)} {
			doc := "Start " + out + " end.\n"
			root := markdownParser.Parse(gtext.NewReader([]byte(doc)))
			para := root.FirstChild()
			if para == nil || para.NextSibling() != nil || para.Kind() != ast.KindParagraph {
				t.Fatalf("%s(%q) = %q is not one paragraph", name, s, out)
			}
			for c := para.FirstChild(); c != nil; c = c.NextSibling() {
				switch v := c.(type) {
				case *ast.CodeSpan:
				case *ast.Text:
					checkText(string(v.Segment.Value([]byte(doc))), func(format string, args ...any) {
						t.Fatalf("%s(%q) = %q: "+format, append([]any{name, s, out}, args...)...)
					})
				default:
					t.Fatalf("%s(%q) = %q holds a %s node", name, s, out, c.Kind())
				}
			}
		}
	})
}
