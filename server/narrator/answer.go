package narrator

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
)

// topic is one part of a diagnosis a question can be about, with the
// words that ask for it.
type topic struct {
	name  string
	words []string
}

// topics are answered in this order.
var topics = []topic{
	{"failure", []string{"fail", "failed", "fails", "failing", "failure", "error", "errors", "step", "log", "logs", "exit", "job", "output", "message"}},
	{"mechanism", []string{"why", "cause", "caused", "causes", "reason", "mechanism", "how", "happen", "happened", "happens", "root"}},
	{"producer", []string{"producer", "produced", "produces", "file", "task", "target", "script", "code", "harness"}},
	{"retry", []string{"retry", "retried", "retries", "retrying", "today", "rerun", "again"}},
	{"cadence", []string{"often", "frequency", "frequently", "many", "times", "cadence", "rate", "intermittent", "recur", "recurs", "count", "runs"}},
	{"verdict", []string{"verdict", "flaky", "flake", "regression", "broken", "started", "start", "commit", "introduced", "sha", "new"}},
	{"blast", []string{"blast", "else", "other", "callers", "caller", "affect", "affects", "radius", "uses"}},
	{"fix", []string{"fix", "fixes", "patch", "change", "changes", "solve", "solution", "proposed", "propose", "pr"}},
	{"impact", []string{"deploy", "deployed", "deployment", "production", "prod", "impact", "safe", "image", "release", "artifact", "ci-only"}},
}

// stopWords carry no meaning for matching.
var stopWords = map[string]bool{
	"the": true, "a": true, "an": true, "is": true, "are": true, "was": true, "were": true, "be": true, "been": true,
	"it": true, "its": true, "this": true, "that": true, "these": true, "those": true, "of": true, "in": true,
	"on": true, "at": true, "to": true, "for": true, "from": true, "by": true, "with": true, "and": true, "or": true,
	"not": true, "no": true, "do": true, "does": true, "did": true, "can": true, "could": true, "would": true,
	"should": true, "will": true, "you": true, "your": true, "we": true, "our": true, "i": true, "me": true,
	"my": true, "there": true, "here": true, "when": true, "who": true, "whom": true, "whose": true, "about": true,
	"into": true, "than": true, "then": true, "so": true, "if": true, "but": true, "any": true, "all": true,
	"some": true, "polylane": true, "please": true, "tell": true, "explain": true, "know": true, "does't": true,
	"dont": true, "doesnt": true, "just": true, "only": true, "also": true, "have": true, "has": true, "had": true,
}

// askWords ask a question without saying what about.
var askWords = map[string]bool{"what": true, "whats": true, "which": true, "where": true, "why": true, "how": true, "when": true}

// contentWord reports whether w says what a question is about: not a
// question word and not a topic word.
func contentWord(w string) bool {
	if askWords[w] || len(w) < 4 {
		return false
	}
	for _, t := range topics {
		if slices.Contains(t.words, w) {
			return false
		}
	}
	return true
}

// questionWord matches the words of a question.
var questionWord = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9_.:/-]*`)

// questionWords returns the lower-cased meaningful words of a question.
func questionWords(q string) []string {
	var out []string
	for _, w := range questionWord.FindAllString(clipRunes(oneLine(q), maxQuestion), 200) {
		w = strings.ToLower(strings.TrimRight(w, ".:/-"))
		if w != "" && !stopWords[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// answerer builds a deterministic answer.
type answerer struct {
	d     *diagnosis.Diagnosis
	g     *grounds
	parts []string
	cited []string
}

// DeterministicAnswer answers a question from the diagnosis alone: it
// matches the question's words against the parts of the causal chain
// (failure, mechanism, producer, retries, cadence, verdict, blast radius,
// fix, impact) and against the evidence, answers from the parts and
// evidence that match, citing evidence ids, and says what is not known
// from the evidence. It never quotes the question. The result passes
// ValidateAnswer.
func DeterministicAnswer(d *diagnosis.Diagnosis, question string) Answer {
	if d == nil {
		return Answer{Text: "This is " + notKnown + ": there is no diagnosis for this pull request yet."}
	}
	a := &answerer{d: d, g: newGrounds(d)}
	words := questionWords(question)
	matched := map[string]bool{}
	for _, t := range topics {
		if hasAny(words, t.words) {
			matched[t.name] = true
		}
	}
	for _, t := range topics {
		if matched[t.name] {
			a.topic(t.name)
		}
	}
	a.evidence(words)
	if len(a.parts) == 0 {
		a.parts = append(a.parts, "This is "+notKnown+".")
		a.topic("mechanism")
		a.parts = append(a.parts, "The `explain` command shows the whole causal chain with every piece of evidence.")
	} else if a.unmatched(words) {
		a.parts = append(a.parts, "Anything else the question asks is "+notKnown+".")
	}
	text := strings.Join(a.parts, "\n\n")
	var cited []string
	for _, id := range evidencePattern.FindAllString(text, -1) {
		if a.g.evidence[id] && !slices.Contains(cited, id) {
			cited = append(cited, id)
		}
	}
	return Answer{Text: text, Cited: cited, Grounded: len(cited) > 0}
}

// hasAny reports whether words holds one of want.
func hasAny(words, want []string) bool {
	for _, w := range words {
		if slices.Contains(want, w) {
			return true
		}
	}
	return false
}

// unmatched reports whether the question has a meaningful word that
// neither a topic nor the diagnosis holds.
func (a *answerer) unmatched(words []string) bool {
	for _, w := range words {
		if contentWord(w) && !a.g.contains(w) {
			return true
		}
	}
	return false
}

// maxParts bounds the bytes of a deterministic answer's paragraphs.
const maxParts = maxAnswer - 200

// say adds a paragraph citing ids (those the diagnosis holds), unless the
// answer would grow too long.
func (a *answerer) say(text string, ids ...string) {
	var cites []string
	for _, id := range ids {
		if a.g.evidence[strings.ToUpper(id)] && !slices.Contains(cites, id) {
			cites = append(cites, id)
		}
		if len(cites) == 8 {
			break
		}
	}
	if len(cites) > 0 {
		text = strings.TrimRight(text, ". ") + " (" + strings.Join(cites, ", ") + ")."
	}
	a.add(text, cites)
}

// add adds a paragraph and records its citations, unless the answer would
// grow too long.
func (a *answerer) add(text string, cites []string) {
	size := len(text)
	for _, p := range a.parts {
		size += len(p) + 2
	}
	if size > maxParts {
		return
	}
	a.parts = append(a.parts, text)
	for _, id := range cites {
		if !slices.Contains(a.cited, id) {
			a.cited = append(a.cited, id)
		}
	}
}

// topic adds the answer of one topic.
func (a *answerer) topic(name string) {
	d, c := a.d, a.d.Chain
	switch name {
	case "failure":
		a.failure()
	case "mechanism":
		if c == nil || c.Mechanism.Category == "" || c.Mechanism.Category == causal.Unknown {
			a.say("The mechanism is " + notKnown + ": Polylane could not name it from the log and the harness.")
			return
		}
		a.say(fmt.Sprintf("The mechanism is %s: %s. %s", code(string(c.Mechanism.Category)), plainMechanism(c.Mechanism.Category), prose(c.Mechanism.Summary, 700)), c.Mechanism.Evidence...)
	case "producer":
		a.producer()
	case "retry":
		if c != nil && c.FailedUnitToday.Summary != "" {
			a.say("What happens to the failed unit today: "+prose(c.FailedUnitToday.Summary, 500), a.idsWhere(func(e causal.Evidence) bool { return strings.Contains(strings.ToLower(e.Note), "retr") })...)
		}
	case "cadence":
		a.cadence()
	case "verdict":
		a.verdict()
	case "blast":
		if c != nil && c.BlastRadius.Summary != "" {
			a.say("Blast radius: " + prose(c.BlastRadius.Summary, 500))
		}
	case "fix":
		a.fix()
	case "impact":
		if im := d.Impact; im != nil && im.Summary != "" {
			a.say("Production impact: " + prose(im.Summary, 700))
		} else if d.Patch == nil {
			a.say("No patch is proposed, so there is no production impact to assess.")
		}
	}
}

// failure says which step failed and quotes the cause line.
func (a *answerer) failure() {
	d := a.d
	s := fmt.Sprintf("Step %s of job %s failed in run %d", code(d.Failure.Step.Name), code(d.Failure.Job.Name), d.Run.ID)
	if d.Failure.Unknown || len(d.Failure.Lines) == 0 {
		a.say(s + "; the line that states the cause is " + notKnown + ", since the job's log could not be read.")
		return
	}
	l := d.Failure.Lines[0]
	ids := a.idsWhere(func(e causal.Evidence) bool {
		return e.Kind == causal.EvidenceLog && e.Line == l.N && (e.RunID == 0 || e.RunID == d.Run.ID)
	})
	a.say(fmt.Sprintf("%s; line %d of the job log states the cause: %s", s, l.N, code(l.Text)), ids...)
}

// producer says which harness code produced the failure.
func (a *answerer) producer() {
	c := a.d.Chain
	if c == nil || c.Producer.File == "" {
		a.say("The harness code that produced the failure is " + notKnown + ".")
		return
	}
	loc := c.Producer.File
	if c.Producer.Line > 0 {
		loc = fmt.Sprintf("%s:%d", c.Producer.File, c.Producer.Line)
	}
	s := "The failure was produced by " + code(loc)
	if c.Producer.Symbol != "" {
		s = "The failure was produced by " + code(c.Producer.Symbol) + " at " + code(loc)
	}
	if c.Producer.Ambiguous {
		s += ", one of several candidates"
	}
	a.say(s+".", a.idsWhere(func(e causal.Evidence) bool {
		return e.Kind == causal.EvidenceFile && e.File == c.Producer.File && e.Line == c.Producer.Line
	})...)
}

// cadence says how often the class failed.
func (a *answerer) cadence() {
	d := a.d
	var s []string
	if cls := d.TriggerCluster(); cls != nil && d.Window.Runs > 0 {
		s = append(s, fmt.Sprintf("This failure happened in %d of the last %d runs on %s (pattern: %s).", cls.Count, d.Window.Runs, code(d.Window.Branch), cls.Pattern))
	}
	if d.Cadence != "" {
		s = append(s, "Cadence: "+prose(d.Cadence, 300))
	}
	if len(s) == 0 {
		a.say("How often this failure happens is " + notKnown + ".")
		return
	}
	a.say(strings.Join(s, " "), a.idsWhere(func(e causal.Evidence) bool { return e.Kind == causal.EvidenceRuns })...)
}

// verdict says whether the failure is flaky, a regression or broken.
func (a *answerer) verdict() {
	v := a.d.Verdict
	if v.Kind == "" {
		return
	}
	s := fmt.Sprintf("Polylane's verdict is %s (confidence %.2f).", code(v.Kind), v.Confidence)
	if v.Reason != "" {
		s += " " + prose(v.Reason, 400)
	}
	if v.FirstBadSHA != nil && *v.FirstBadSHA != "" {
		s += " The first bad commit is " + code(*v.FirstBadSHA) + "."
	}
	a.say(s, a.idsWhere(func(e causal.Evidence) bool { return e.Kind == causal.EvidenceRuns })...)
}

// fix says what the patch changes and why, or that there is none.
func (a *answerer) fix() {
	p := a.d.Patch
	if p == nil {
		a.say("No harness patch is proposed for this failure.")
		return
	}
	var files []string
	for _, f := range p.Files {
		files = append(files, fmt.Sprintf("%s (+%d/-%d)", code(f.Path), f.Added, f.Removed))
	}
	s := "The proposed fix, " + phrase(p.Title, 200) + ", changes " + strings.Join(files, ", ") + "."
	if p.Rationale != "" {
		s += " " + prose(p.Rationale, 900)
	}
	var cites []string
	for _, id := range evidencePattern.FindAllString(s, -1) {
		if a.g.evidence[id] {
			cites = append(cites, id)
		}
	}
	a.add(s, cites)
}

// evidence quotes the evidence entries that share the most words with the
// question, at most three not cited yet.
func (a *answerer) evidence(words []string) {
	c := a.d.Chain
	if c == nil {
		return
	}
	type scored struct {
		e     causal.Evidence
		score int
	}
	var best []scored
	for _, e := range c.Evidence {
		hay := strings.ToLower(e.Text + " " + e.Note + " " + e.File)
		n := 0
		for _, w := range words {
			if contentWord(w) && strings.Contains(hay, w) {
				n++
			}
		}
		if n > 0 && !slices.Contains(a.cited, e.ID) {
			best = append(best, scored{e, n})
		}
	}
	slices.SortStableFunc(best, func(x, y scored) int { return y.score - x.score })
	for i, b := range best {
		if i == 3 {
			break
		}
		a.say(evidenceSentence(b.e), b.e.ID)
	}
}

// evidenceSentence describes one piece of evidence.
func evidenceSentence(e causal.Evidence) string {
	where := "Evidence"
	switch {
	case e.Kind == causal.EvidenceFile && e.Line > 0:
		where = "In " + code(fmt.Sprintf("%s:%d", e.File, e.Line))
	case e.Kind == causal.EvidenceFile:
		where = "In " + code(e.File)
	case e.Kind == causal.EvidenceLog && e.RunID > 0:
		where = fmt.Sprintf("Line %d of the log of run %d", e.Line, e.RunID)
	}
	s := where + ": " + code(e.Text)
	if e.Note != "" {
		s += " — " + prose(e.Note, 200)
	}
	return s
}

// idsWhere lists the ids of the evidence that satisfies keep.
func (a *answerer) idsWhere(keep func(causal.Evidence) bool) []string {
	var ids []string
	if a.d.Chain == nil {
		return nil
	}
	for _, e := range a.d.Chain.Evidence {
		if keep(e) {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// code quotes text as a code span of the answer: one line, bounded, its
// own backticks replaced.
func code(s string) string {
	s = clipRunes(oneLine(strings.ReplaceAll(s, "`", "'")), 300)
	if s == "" {
		return "(empty)"
	}
	return "`" + s + "`"
}

// prose bounds a sentence Polylane wrote, keeps its code spans paired and
// ends it with a full stop.
func prose(s string, n int) string {
	s = phrase(s, n)
	if s == "" || strings.HasSuffix(s, "…") {
		return s
	}
	return s + "."
}

// phrase bounds a phrase Polylane wrote, keeps its code spans paired and
// drops its final full stop.
func phrase(s string, n int) string {
	s = clipRunes(oneLine(s), n)
	if strings.Count(s, "`")%2 != 0 {
		s = strings.ReplaceAll(s, "`", "'")
	}
	return strings.TrimRight(s, ". ")
}
