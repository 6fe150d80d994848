package narrator

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
)

// Options are per-request choices of the caller.
type Options struct {
	// InstallationID is the GitHub App installation whose daily budget the
	// request spends.
	InstallationID int64
	// IncludeLogs sends log lines to the model. It is false unless the
	// repository opted in (llm.include_logs in .github/polylane.yml);
	// without it, log evidence is listed without its text, and cause
	// lines, signatures and quotes of log text are left out.
	IncludeLogs bool
}

// Bounds of the data sent to the model.
const (
	maxFactText  = 600  // runes of one quoted text
	maxSummaries = 1500 // runes of one Polylane-written paragraph
	maxEvidence  = 40
	maxClasses   = 10
	maxQuestion  = 1500
)

// logOmitted replaces log text that is not sent.
const logOmitted = "(log text omitted: the repository has not opted in to sending logs)"

// factSheet is the diagnosis as the model sees it: the facts it may word,
// with secrets redacted and, without the opt-in, no log text.
type factSheet struct {
	Repository   string         `json:"repository"`
	Workflow     string         `json:"workflow"`
	WorkflowPath string         `json:"workflow_path,omitempty"`
	Branch       string         `json:"branch"`
	Run          map[string]any `json:"run"`
	FailingJob   string         `json:"failing_job"`
	FailingStep  map[string]any `json:"failing_step"`
	ExitCode     *int           `json:"exit_code,omitempty"`
	CauseLines   []string       `json:"cause_lines,omitempty"`
	LogText      string         `json:"log_text,omitempty"`
	Window       map[string]any `json:"window"`
	TriggerClass map[string]any `json:"trigger_class,omitempty"`
	OtherClasses []any          `json:"other_classes,omitempty"`
	FailureRate  map[string]any `json:"failure_rate,omitempty"`
	Verdict      map[string]any `json:"verdict"`
	Cadence      string         `json:"cadence,omitempty"`
	Chain        map[string]any `json:"chain,omitempty"`
	Evidence     []any          `json:"evidence,omitempty"`
	Patch        map[string]any `json:"patch"`
	Impact       map[string]any `json:"impact,omitempty"`
	// Polylane's own wording of the two paragraphs, for the model to
	// improve on.
	DeterministicSummary string `json:"deterministic_summary,omitempty"`
	DeterministicWhyFix  string `json:"deterministic_why_this_fix,omitempty"`
	Question             string `json:"question,omitempty"`
}

// sheet builds what the model sees of d.
type sheet struct {
	d    *diagnosis.Diagnosis
	opts Options
	logs []string // log texts, for leaving their quotes out
	repo []string // repository texts, whose quotes stay
}

// newFactSheet turns d into the data of a prompt.
func newFactSheet(d *diagnosis.Diagnosis, opts Options) factSheet {
	s := &sheet{d: d, opts: opts, logs: logTexts(d), repo: repoTexts(d)}
	f := factSheet{
		Repository: s.text(d.Repository), Workflow: s.text(d.Run.Workflow), WorkflowPath: s.text(d.Run.WorkflowPath),
		Branch: s.text(d.Run.Branch),
		Run: map[string]any{"id": d.Run.ID, "number": d.Run.Number, "attempt": d.Run.Attempt,
			"event": s.text(d.Run.Event), "head_sha": s.text(d.Run.HeadSHA), "url": s.text(d.Run.HTMLURL)},
		FailingJob:  s.text(d.Failure.Job.Name),
		FailingStep: map[string]any{"number": d.Failure.Step.Number, "name": s.text(d.Failure.Step.Name)},
		ExitCode:    d.Failure.ExitCode,
		Window: map[string]any{"branch": s.text(d.Window.Branch), "runs": d.Window.Runs, "failed": d.Window.Failed,
			"from": d.Window.From.UTC().Format(dayLayout), "to": d.Window.To.UTC().Format(dayLayout)},
		Verdict:              map[string]any{"kind": d.Verdict.Kind, "confidence": d.Verdict.Confidence, "reason": s.written(d.Verdict.Reason)},
		Cadence:              s.written(d.Cadence),
		DeterministicSummary: s.written(d.Summary), DeterministicWhyFix: s.written(d.WhyThisFix),
	}
	if d.Verdict.FirstBadSHA != nil {
		f.Verdict["first_bad_sha"] = s.text(*d.Verdict.FirstBadSHA)
	}
	switch {
	case d.Failure.Unknown:
		f.LogText = "the failing job's log could not be read"
	case opts.IncludeLogs:
		for _, l := range d.Failure.Lines {
			f.CauseLines = append(f.CauseLines, s.text(l.Text))
		}
	default:
		f.LogText = logOmitted
	}
	s.classes(&f)
	if fr := d.FailureRate; fr.Runs > 0 {
		f.FailureRate = map[string]any{"failures": fr.Failures, "runs": fr.Runs, "rate": fr.Rate}
	}
	s.chain(&f)
	s.patch(&f)
	return f
}

// classes adds the trigger's class and the window's other classes.
func (s *sheet) classes(f *factSheet) {
	trigger := s.d.TriggerCluster()
	for i := range s.d.Clusters {
		c := &s.d.Clusters[i]
		m := map[string]any{"step": s.text(c.Step), "count": c.Count}
		if s.opts.IncludeLogs {
			m["signature"] = s.text(c.Signature)
		}
		if c == trigger {
			m["id"] = s.text(c.ID)
			m["pattern"] = c.Pattern
			m["first_seen"] = c.FirstSeen.UTC().Format(dayLayout)
			m["last_seen"] = c.LastSeen.UTC().Format(dayLayout)
			if c.Family != "" {
				m["family"] = s.text(c.Family)
			}
			if len(c.Endpoints) > 0 {
				m["endpoints"] = s.texts(c.Endpoints, maxClasses)
			}
			f.TriggerClass = m
			continue
		}
		if len(f.OtherClasses) < maxClasses {
			f.OtherClasses = append(f.OtherClasses, m)
		}
	}
}

// chain adds the causal chain and its evidence.
func (s *sheet) chain(f *factSheet) {
	c := s.d.Chain
	if c == nil {
		return
	}
	f.Chain = map[string]any{
		"signal": s.written(c.Signal),
		"mechanism": map[string]any{"category": c.Mechanism.Category, "in_plain_words": plainMechanism(c.Mechanism.Category),
			"summary": s.written(c.Mechanism.Summary), "evidence": c.Mechanism.Evidence},
		"surfacing_site":    map[string]any{"file": s.text(c.SurfacingSite.File), "line": c.SurfacingSite.Line, "step": s.text(c.SurfacingSite.Step)},
		"producer":          map[string]any{"file": s.text(c.Producer.File), "line": c.Producer.Line, "symbol": s.text(c.Producer.Symbol), "ambiguous": c.Producer.Ambiguous},
		"failed_unit_today": map[string]any{"retried": c.FailedUnitToday.Retried, "summary": s.written(c.FailedUnitToday.Summary)},
		"blast_radius":      s.written(c.BlastRadius.Summary),
	}
	for i, e := range c.Evidence {
		if i == maxEvidence {
			break
		}
		m := map[string]any{"id": e.ID, "kind": e.Kind, "note": s.written(e.Note)}
		if e.File != "" {
			m["file"] = s.text(e.File)
		}
		if e.Line > 0 {
			m["line"] = e.Line
		}
		if e.RunID > 0 {
			m["run_id"] = e.RunID
		}
		switch {
		case e.Kind == causal.EvidenceLog && !s.opts.IncludeLogs:
			m["text"] = logOmitted
		case e.Kind == causal.EvidenceLog:
			m["text"] = s.text(e.Text)
		default:
			m["text"] = s.written(e.Text)
		}
		f.Evidence = append(f.Evidence, m)
	}
}

// patch adds the proposed patch (without its diff) and its impact.
func (s *sheet) patch(f *factSheet) {
	p := s.d.Patch
	if p == nil {
		f.Patch = map[string]any{"proposed": false}
		return
	}
	var files []any
	for _, fc := range p.Files {
		files = append(files, map[string]any{"path": s.text(fc.Path), "added": fc.Added, "removed": fc.Removed})
	}
	f.Patch = map[string]any{"proposed": true, "title": s.written(p.Title), "files": files, "rationale": s.written(p.Rationale)}
	if im := s.d.Impact; im != nil {
		f.Impact = map[string]any{"ci_only": im.CIOnly, "summary": s.written(im.Summary), "affected": s.texts(im.Affected, maxClasses)}
	}
}

// text prepares a quoted text: one line, bounded, invisible characters
// removed, secrets redacted.
func (s *sheet) text(v string) string { return Redact(clipRunes(oneLine(v), maxFactText)) }

// texts prepares at most n quoted texts.
func (s *sheet) texts(vs []string, n int) []string {
	var out []string
	for i, v := range vs {
		if i == n {
			break
		}
		out = append(out, s.text(v))
	}
	return out
}

// written prepares a paragraph Polylane wrote, which may quote log text:
// without the opt-in, those quotes are left out.
func (s *sheet) written(v string) string {
	v = clipRunes(oneLine(v), maxSummaries)
	if !s.opts.IncludeLogs {
		v = scrubLogQuotes(v, s.logs, s.repo)
	}
	return Redact(v)
}

// logTexts lists the log text a diagnosis holds: cause lines, log
// evidence, signatures and class members.
func logTexts(d *diagnosis.Diagnosis) []string {
	var out []string
	for _, l := range d.Failure.Lines {
		out = append(out, l.Text)
	}
	out = append(out, d.Failure.Signature)
	for _, c := range d.Clusters {
		out = append(out, c.Signature)
		out = append(out, c.Members...)
	}
	if d.Chain != nil {
		for _, e := range d.Chain.Evidence {
			if e.Kind == causal.EvidenceLog {
				out = append(out, e.Text)
			}
		}
	}
	kept := out[:0]
	for _, t := range out {
		if t = oneLine(t); len(t) >= 4 {
			kept = append(kept, t)
		}
	}
	return kept
}

// repoTexts lists the repository text a diagnosis holds: file evidence,
// step and job names, the producer's symbol.
func repoTexts(d *diagnosis.Diagnosis) []string {
	out := []string{d.Failure.Step.Name, d.Failure.Job.Name, d.Run.Workflow}
	if c := d.Chain; c != nil {
		out = append(out, c.Producer.Symbol, c.SurfacingSite.Step)
		for _, e := range c.Evidence {
			if e.Kind == causal.EvidenceFile {
				out = append(out, e.Text)
			}
		}
	}
	return out
}

// quoted matches a quotation in Polylane's prose: 'x' (opening after a
// space, a bracket or punctuation, so that an apostrophe does not open
// one), "x" or `x`. Group 1 is what precedes the quotation.
var quoted = regexp.MustCompile("(^|[\\s(\\[:,;=])(?:'[^'\\n]{3,}'|\"[^\"\\n]{3,}\"|`[^`\\n]{3,}`)")

// scrubLogQuotes replaces every quotation of log text of 8 bytes or more
// in v (unless the repository's text holds it too, as a command or a step
// name), and every log text of 16 bytes or more that v holds verbatim.
func scrubLogQuotes(v string, logs, repo []string) string {
	const omitted = "(log text omitted)"
	v = quoted.ReplaceAllStringFunc(v, func(m string) string {
		lead := quoted.FindStringSubmatch(m)[1]
		q := m[len(lead):]
		inner := strings.Trim(q[1:len(q)-1], "…. ")
		if len(inner) < 8 || containedIn(inner, repo) || !containedIn(inner, logs) {
			return m
		}
		return lead + omitted
	})
	for _, l := range logs {
		if len(l) >= 16 {
			v = strings.ReplaceAll(v, l, omitted)
		}
	}
	return v
}

// containedIn reports whether one of texts contains s.
func containedIn(s string, texts []string) bool {
	for _, t := range texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// plainMechanism says a mechanism category in plain words.
func plainMechanism(category causal.Category) string { return category.Clause() }

// oneLine replaces control and invisible format characters (newlines,
// bidirectional overrides, zero-width characters) with spaces and
// collapses runs of white space.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// clipRunes shortens s to at most n runes, marking the cut with "…". It
// cuts at the last space of the kept part when there is one in its last
// quarter, so that no path, number or identifier is cut in two.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	for i := len(r) - 1; i > len(r)*3/4; i-- {
		if r[i] == ' ' {
			r = r[:i]
			break
		}
	}
	return strings.TrimRight(string(r), " ") + "…"
}
