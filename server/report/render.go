package report

import (
	"errors"
	"fmt"
	"strings"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/causal/diagnosis"
)

// limits bound what one rendering includes. Renderings are tried from the
// most to the least generous until the text fits under MaxChars.
type limits struct {
	diff     bool // include the diff block
	evidence int  // evidence entries in the causal chain
	text     int  // runes of one piece of untrusted text
	list     int  // entries of every other list
	label    int  // runes of a Mermaid label
}

// levels degrade in the order the brief sets: the diff first, then the
// evidence, then long lines, then everything else.
var levels = []limits{
	{diff: true, evidence: 60, text: 1200, list: 25, label: 80},
	{diff: false, evidence: 60, text: 1200, list: 25, label: 80},
	{diff: false, evidence: 12, text: 1200, list: 25, label: 80},
	{diff: false, evidence: 12, text: 240, list: 12, label: 60},
	{diff: false, evidence: 4, text: 100, list: 5, label: 40},
}

// maxDiff is the largest diff shown inline, in bytes, at the first level.
const maxDiff = 24000

// cuts records what a rendering left out, for the visible note.
type cuts struct {
	diff      string // why the diff is not shown, empty when it is
	evidence  int    // evidence entries left out
	entries   int    // entries of other lists left out
	clipped   bool   // some untrusted text was shortened
	clipLimit int
}

// renderer renders one diagnosis at one level of limits.
type renderer struct {
	d    *diagnosis.Diagnosis
	opts Options
	kind string
	lim  limits
	ln   linker
	cls  *history.Class
	cut  cuts
}

// section renders one part of a document into b.
type section func(r *renderer, b *strings.Builder)

// render renders the sections under the marker of kind, degrading until
// the text fits.
func render(d *diagnosis.Diagnosis, opts Options, kind string, parts []section) (string, error) {
	return renderAt(d, opts, kind, parts, levels)
}

// renderAt is render with its own levels of limits, most generous first.
func renderAt(d *diagnosis.Diagnosis, opts Options, kind string, parts []section, levels []limits) (string, error) {
	if d == nil {
		return "", errors.New("no diagnosis to render")
	}
	// a document stored before the pipeline redacted log lines is
	// redacted here; nothing a log printed is posted as it was
	d = d.Redacted()
	opts.NarratedSummary, opts.NarratedWhyFix = redact.String(opts.NarratedSummary), redact.String(opts.NarratedWhyFix)
	for _, lim := range levels {
		r := newRenderer(d, opts, kind, lim)
		var body strings.Builder
		for _, part := range parts {
			part(r, &body)
		}
		out := r.assemble(body.String())
		if len(out) < MaxChars {
			return out, nil
		}
	}
	r := newRenderer(d, opts, kind, levels[len(levels)-1])
	out := r.assemble(r.minimal())
	if len(out) >= MaxChars {
		return "", fmt.Errorf("render %s for run %d: %d bytes even in the shortest form", kind, d.Run.ID, len(out))
	}
	return out, nil
}

func newRenderer(d *diagnosis.Diagnosis, opts Options, kind string, lim limits) *renderer {
	r := &renderer{d: d, opts: opts, kind: kind, lim: lim, ln: newLinker(d.Repository, d.Run.HeadSHA)}
	r.cls = d.TriggerCluster()
	return r
}

// marker is the hidden first line of the document.
func (r *renderer) marker() Marker {
	return MarkerFor(r.kind, r.d, r.opts)
}

// assemble puts the marker, the visible notes and the body together.
func (r *renderer) assemble(body string) string {
	var b strings.Builder
	b.WriteString(r.marker().String())
	b.WriteString("\n")
	r.staleNote(&b)
	r.configNote(&b)
	r.cutNote(&b)
	r.secretNote(&b)
	b.WriteString(body)
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// staleNote says that the pull request moved past the assessed commit.
func (r *renderer) staleNote(b *strings.Builder) {
	if !r.opts.Stale {
		return
	}
	b.WriteString("> [!WARNING]\n> **Out of date.** This assessment is for commit ")
	b.WriteString(r.shortSHA(r.d.Run.HeadSHA))
	if commitSHA.MatchString(r.opts.CurrentHead) {
		b.WriteString("; the pull request is now at ")
		b.WriteString(r.shortSHA(r.opts.CurrentHead))
	} else {
		b.WriteString("; the pull request has moved on since")
	}
	b.WriteString(". It will be replaced after the next run of the workflow.\n\n")
}

// configNote shows the problems found in the repository's configuration.
func (r *renderer) configNote(b *strings.Builder) {
	if len(r.opts.ConfigWarnings) == 0 {
		return
	}
	b.WriteString("> [!CAUTION]\n> **`.github/polylane.yml` has problems.** Polylane used its defaults where the file could not be read:\n")
	ws := r.opts.ConfigWarnings
	for i, w := range ws {
		if i == r.lim.list {
			fmt.Fprintf(b, "> - … and %d more\n", len(ws)-i)
			break
		}
		b.WriteString("> - " + r.t(w) + "\n")
	}
	b.WriteString("\n")
}

// cutNote says what the rendering left out to stay under the size limit.
func (r *renderer) cutNote(b *strings.Builder) {
	var parts []string
	if r.cut.diff != "" {
		parts = append(parts, r.cut.diff)
	}
	if r.cut.evidence > 0 {
		parts = append(parts, fmt.Sprintf("%d evidence %s of the causal chain are left out", r.cut.evidence, plural(r.cut.evidence, "entry", "entries")))
	}
	if r.cut.entries > 0 {
		parts = append(parts, fmt.Sprintf("%d list %s are left out", r.cut.entries, plural(r.cut.entries, "entry", "entries")))
	}
	if r.cut.clipped {
		parts = append(parts, fmt.Sprintf("quoted lines longer than %d characters are cut short (marked …)", r.cut.clipLimit))
	}
	if len(parts) == 0 {
		return
	}
	b.WriteString("> [!NOTE]\n> **Shortened.** To stay within GitHub's size limit for comments, ")
	b.WriteString(strings.Join(parts, "; "))
	b.WriteString(".")
	if u := safeURL(r.opts.DashboardURL); u != "" {
		b.WriteString(" The full diagnosis is on the " + link("dashboard", u) + ".")
	}
	b.WriteString("\n\n")
}

// t escapes untrusted text at the level's length limit; empty text is
// shown as "(empty)" so that no list item or heading is left blank.
func (r *renderer) t(s string) string { return orEmpty(escapeText(r.line(s))) }

// c renders untrusted text as a code span at the level's length limit.
func (r *renderer) c(s string) string { return codeSpan(r.line(s)) }

// p renders prose that quotes untrusted text at the level's length limit.
func (r *renderer) p(s string) string { return orEmpty(proseLine(r.line(s))) }

func orEmpty(s string) string {
	if s == "" {
		return "(empty)"
	}
	return s
}

// line cleans s and clips it to the level's text limit, recording a cut.
func (r *renderer) line(s string) string {
	t, cut := line(s, r.lim.text)
	if cut {
		r.cut.clipped = true
		r.cut.clipLimit = r.lim.text
	}
	return t
}

// shortSHA renders the first 7 characters of a commit as a code span.
func (r *renderer) shortSHA(sha string) string {
	if commitSHA.MatchString(sha) && len(sha) > 7 {
		return "`" + sha[:7] + "`"
	}
	return r.c(sha)
}

// each renders at most the level's list limit of n entries and records
// the rest as left out; it returns how many were left out.
func (r *renderer) each(n int, fn func(i int)) int {
	for i := 0; i < n && i < r.lim.list; i++ {
		fn(i)
	}
	if left := n - r.lim.list; left > 0 {
		r.cut.entries += left
		return left
	}
	return 0
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
