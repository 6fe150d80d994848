package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/causal/patch"
)

// defaultLabel is the label length of Flowchart, in runes.
const defaultLabel = 80

// Flowchart renders the causal chain of a diagnosis as Mermaid source in
// the subset ValidateFlowchart accepts: producer and harness events, the
// mechanism, the cause line, the failed step and the failed run, with the
// fix as a dotted edge. The dashboard shows the same chart.
func Flowchart(d *diagnosis.Diagnosis) string {
	if d == nil {
		return "flowchart TD\n  run[\"no diagnosis\"]\n"
	}
	return newRenderer(d.Redacted(), Options{}, KindAssessment, limits{label: defaultLabel}).flowchart()
}

// chart collects nodes and edges in order.
type chart struct {
	nodes []string
	edges []string
	label int
}

func (c *chart) node(id, label string) {
	c.nodes = append(c.nodes, fmt.Sprintf("  %s[\"%s\"]", id, mermaidLabel(label, c.label)))
}

func (c *chart) edge(from, to string, dotted bool) {
	arrow := "-->"
	if dotted {
		arrow = "-.->"
	}
	c.edges = append(c.edges, fmt.Sprintf("  %s %s %s", from, arrow, to))
}

func (c *chart) String() string {
	return "flowchart TD\n" + strings.Join(c.nodes, "\n") + "\n" + strings.Join(c.edges, "\n") + "\n"
}

// flowchart builds the chart for this rendering's label limit.
func (r *renderer) flowchart() string {
	d := r.d
	c := &chart{label: r.lim.label}
	prev := r.chartCause(c)
	step := d.Failure.Step.Name
	if step == "" {
		step = "unnamed step"
	}
	exit := ""
	if d.Failure.ExitCode != nil {
		exit = fmt.Sprintf(" (exit code %d)", *d.Failure.ExitCode)
	}
	c.node("step", "Step fails: "+step+exit)
	c.node("run", fmt.Sprintf("Run #%d of %s fails", d.Run.Number, r.workflow()))
	c.edge(prev, "step", false)
	c.edge("step", "run", false)
	if d.Patch != nil && d.Chain != nil {
		c.node("fix", "Fix: "+d.Patch.Title)
		target := "mechanism"
		if slices.ContainsFunc(d.Patch.Files, func(f patch.FileChange) bool { return f.Path == d.Chain.Producer.File }) {
			target = "producer"
		}
		c.edge("fix", target, true)
	}
	return c.String()
}

// chartCause adds the nodes before the failed step (the producer, the
// harness events, the mechanism and the cause line) and returns the last.
func (r *renderer) chartCause(c *chart) string {
	d := r.d
	cause := "the log line that states the cause is not known"
	if l, ok := r.causeLine(); ok && !d.Failure.Unknown {
		cause = fmt.Sprintf("log line %d: %s", l.N, clipTail(clean(l.Text), c.label-16))
	}
	switch {
	case r.regression():
		sha := "an unknown commit"
		if s := d.Verdict.FirstBadSHA; s != nil && *s != "" {
			sha = "commit " + (*s)[:min(7, len(*s))]
		}
		c.node("commit", "Change at "+sha)
		c.node("signal", cause)
		c.edge("commit", "signal", false)
		return "signal"
	case d.Chain == nil:
		c.node("signal", cause)
		return "signal"
	}
	ch := d.Chain
	prev := ""
	if ch.Producer.File != "" {
		label := fmt.Sprintf("%s (%s:%d)", ch.Producer.Symbol, ch.Producer.File, ch.Producer.Line)
		c.node("producer", strings.TrimSpace(label))
		prev = "producer"
	}
	prev = r.chartEvents(c, prev)
	c.node("mechanism", mechanismLabel(ch))
	if prev != "" {
		c.edge(prev, "mechanism", false)
	}
	c.node("signal", cause)
	c.edge("mechanism", "signal", false)
	return "signal"
}

func mechanismLabel(ch *causal.Chain) string {
	if !known(ch) {
		return "Mechanism unknown"
	}
	return string(ch.Mechanism.Category) + ": " + ch.Mechanism.Category.Plain()
}

// chartEvents adds the harness events the mechanism cites, in log order:
// the first two, a count of the ones between, and the last.
func (r *renderer) chartEvents(c *chart, prev string) string {
	evs := r.harnessEvents()
	shown := evs
	hidden := 0
	if len(evs) > 3 {
		shown = []causal.Evidence{evs[0], evs[1], evs[len(evs)-1]}
		hidden = len(evs) - 3
	}
	for i, e := range shown {
		if i == 2 && hidden > 0 {
			c.node("events", fmt.Sprintf("%d more harness events", hidden))
			c.edge(prev, "events", false)
			prev = "events"
		}
		id := fmt.Sprintf("event%d", i+1)
		label := e.Note
		if label == "" {
			label = e.Text
		}
		c.node(id, fmt.Sprintf("line %d: %s", e.Line, label))
		if prev != "" {
			c.edge(prev, id, false)
		}
		prev = id
	}
	return prev
}

// harnessEvents are the log lines of the trigger run that the mechanism
// cites, other than the cause lines, in log order.
func (r *renderer) harnessEvents() []causal.Evidence {
	ch := r.d.Chain
	causes := map[int]bool{}
	for _, l := range r.d.Failure.Lines {
		causes[l.N] = true
	}
	cited := make(map[string]bool, len(ch.Mechanism.Evidence))
	for _, id := range ch.Mechanism.Evidence {
		cited[id] = true
	}
	var evs []causal.Evidence
	for _, e := range ch.Evidence {
		if e.Kind != causal.EvidenceLog || causes[e.Line] || !cited[e.ID] {
			continue
		}
		if (e.RunID != 0 && e.RunID != r.d.Run.ID) || (e.JobID != 0 && e.JobID != r.d.Failure.Job.ID) {
			continue
		}
		evs = append(evs, e)
	}
	slices.SortStableFunc(evs, func(a, b causal.Evidence) int { return a.Line - b.Line })
	return evs
}

// mermaidLabel makes untrusted text safe inside a quoted Mermaid label:
// one line, at most n runes, and every character with a meaning to Mermaid
// or to the markdown fence written as a Mermaid entity code.
func mermaidLabel(s string, n int) string {
	s, _ = line(s, n)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString("#quot;")
		case '&':
			b.WriteString("#amp;")
		case '<':
			b.WriteString("#lt;")
		case '>':
			b.WriteString("#gt;")
		case '#', '`', '[', ']', '(', ')', '{', '}', '|', ';', '%', '\\', '*', '_', '~':
			fmt.Fprintf(&b, "#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "empty"
	}
	return b.String()
}
