package causal

import (
	"net"
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal/catalogue"
	"github.com/polylane/polylane/causal/harness"
)

// finding is what a rule's harness predicate found.
type finding struct {
	// Gate is the readiness gate that passed during a rollout.
	Gate *harness.Node
	// Changes are the harness commands that changed workloads; Trigger the
	// last of them.
	Changes []*harness.Node
	Trigger *harness.Node
	// ChangeEvents are the log lines showing the changes.
	ChangeEvents []event
	// Install is the command that started what was used too early.
	Install *harness.Node
	Service *harness.Service
}

var endpointPatterns = []*regexp.Regexp{
	regexp.MustCompile(`->\s*\[?([0-9a-fA-F.:]+?)\]?:(\d+)`),
	regexp.MustCompile(`https?://([^/\s"'\]\)]+)`),
	regexp.MustCompile(`dial tcp \[?([^\s\]]+?)\]?:(\d+)`),
	regexp.MustCompile(`(?i)(?:connect to|to the server|ECONNREFUSED|ECONNRESET|connecting to|host) \[?([\w.-]+?)\]?:(\d+)`),
	regexp.MustCompile(`host='([^']+)'`),
	regexp.MustCompile(`(?i)(?:lookup|resolve host:?|resolving) '?([\w.-]+\.[a-z]{2,})`),
	regexp.MustCompile(`\((\d+\.\d+\.\d+\.\d+)\), port (\d+)`),
	regexp.MustCompile(`\b(localhost|127\.0\.0\.1|0\.0\.0\.0)(?::(\d+))?\b`),
}

// findEndpoint returns the remote end the failure texts name and whether it
// is local (the runner, a container network or the test cluster).
func (x *explainer) findEndpoint() (string, bool) {
	texts := append([]failText{{Line: x.cause, Primary: true}}, x.texts...)
	for _, t := range texts {
		for _, re := range endpointPatterns {
			m := re.FindStringSubmatch(t.Line.Text)
			if m == nil {
				continue
			}
			host := m[1]
			ep := host
			if len(m) > 2 && m[2] != "" {
				ep = net.JoinHostPort(host, m[2])
			}
			return ep, isLocalHost(hostOnly(host))
		}
	}
	return "", false
}

// endpointOf reads the endpoint a command addresses from its text.
func endpointOf(text string) (string, bool) {
	for _, re := range endpointPatterns[1:3] {
		if m := re.FindStringSubmatch(text); m != nil && !strings.ContainsAny(m[1], "{}$") {
			ep := m[1]
			if len(m) > 2 && m[2] != "" {
				ep = net.JoinHostPort(m[1], m[2])
			}
			return ep, isLocalHost(hostOnly(m[1]))
		}
	}
	return "", false
}

func hostOnly(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return strings.Trim(h, "[]")
}

// isLocalHost reports whether a host is on the runner, in a private network
// (containers, Kind nodes) or a cluster-internal name.
func isLocalHost(h string) bool {
	h = strings.ToLower(h)
	switch {
	case h == "localhost" || h == "0.0.0.0" || h == "::1" || h == "host.docker.internal":
		return true
	case strings.HasSuffix(h, ".svc") || strings.Contains(h, ".svc.") || strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal"):
		return true
	case !strings.Contains(h, ".") && !strings.Contains(h, ":"):
		return true // a compose or service-container name
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified()
	}
	return false
}

// match tries the specific rules in order over the cause lines, then over
// all failure texts, then the generic wrapper rules the same way, and keeps
// the first that holds: a specific cause next to the cause line beats "a
// test failed".
func (x *explainer) match() {
	x.testsFailedAt = x.wrapperOnCause()
	x.passing = passingTestBlocks(x.log)
	for _, generic := range []bool{false, true} {
		for pass := 0; pass < 2; pass++ {
			for _, r := range rules {
				if r.Generic != generic {
					continue
				}
				if t, ok := x.ruleHolds(r, pass); ok {
					x.rule, x.matched = r, t
					return
				}
			}
		}
	}
	x.family = nil
}

func (x *explainer) ruleHolds(r *rule, pass int) (failText, bool) {
	if x.leftOut(r.Cases) {
		return failText{}, false
	}
	t, ok := x.causeMatch(r, pass)
	if !ok || x.excluded(r) || !x.eventsHold(r) || !x.endpointHolds(r) || !x.verdictHolds(r) {
		return failText{}, false
	}
	if r.Harness != nil {
		f, ok := r.Harness(x)
		if !ok {
			return failText{}, false
		}
		x.find = f
	}
	return t, true
}

func (x *explainer) causeMatch(r *rule, pass int) (failText, bool) {
	texts := x.texts
	if r.Generic && pass > 0 {
		texts = append(texts[:len(texts):len(texts)], x.headers...)
	}
	for i, t := range texts {
		if (pass == 0 && !t.Primary && !r.Wide) || x.notEvidence(r, t) {
			continue
		}
		for _, re := range r.Cause {
			if re.MatchString(t.Line.Text) {
				x.family = x.familyFor(r, i, true)
				return t, true
			}
		}
		if f := x.familyFor(r, i, false); f != nil {
			x.family = f
			return t, true
		}
	}
	return failText{}, false
}

// notEvidence reports whether a failure text cannot support a specific
// rule: a line that only quotes what a test expected or got is the test's
// subject, not the job's mechanism; a line printed inside a test that
// passed is not why the job failed; and once the failing tool reported a
// test or build failure, a context line printed after that report (a dump,
// a cleanup, a later time limit) is a consequence, unless the rule's
// mechanism makes tests fail.
func (x *explainer) notEvidence(r *rule, t failText) bool {
	if r.Generic {
		return false
	}
	if assertionShape.MatchString(t.Line.Text) {
		return true
	}
	if t.Primary || r.ExplainsTests {
		return false
	}
	if x.passing.holds(t.Line.N) {
		return true
	}
	return x.testsFailedAt > 0 && t.Line.N > x.testsFailedAt
}

// lineRanges are ranges of log lines, first and last included.
type lineRanges [][2]int

func (rs lineRanges) holds(n int) bool {
	for _, r := range rs {
		if n >= r[0] && n <= r[1] {
			return true
		}
	}
	return false
}

// goTestRun and goTestPass bound the output of one Go test.
var (
	goTestRun  = regexp.MustCompile(`^\s*=== (?:RUN|CONT)\s+(\S+)`)
	goTestPass = regexp.MustCompile(`^\s*--- PASS: (\S+) \(`)
)

// passingTestBlocks returns the line ranges of tests that passed, as go
// test prints them (=== RUN name … --- PASS: name).
func passingTestBlocks(sl *stepLog) lineRanges {
	if sl == nil {
		return nil
	}
	open := map[string]int{}
	var out lineRanges
	for _, l := range sl.Lines {
		if m := goTestRun.FindStringSubmatch(l.Text); m != nil {
			if _, ok := open[m[1]]; !ok {
				open[m[1]] = l.N
			}
		} else if m := goTestPass.FindStringSubmatch(l.Text); m != nil {
			if start, ok := open[m[1]]; ok {
				out = append(out, [2]int{start, l.N})
				delete(open, m[1])
			}
		}
	}
	return out
}

// assertionShape matches a line that reports what a test expected or got:
// its words are the test's subject.
var assertionShape = regexp.MustCompile(`(?i)(\b(want|wanted|got|expected|actual|received)\b\s*[:=]|\bexpected (error|message|output) ["']|,\s*(want|wanted|expected)\s+["'\d]|\bassert(ion)?\w*\b.*\b(==|!=|equal)|Expected:|Received:|to equal|to be\b)`)

// wrapperOnCause returns the first log line of a cause line on which a
// generic wrapper rule (a test or build failure) holds, 0 when none: the
// failing tool said what failed there.
func (x *explainer) wrapperOnCause() int {
	first := 0
	for _, r := range rules {
		if !r.Generic || len(r.Cause) == 0 {
			continue
		}
		for _, t := range x.texts {
			if !t.Primary || t.Line.N <= 0 || (first > 0 && t.Line.N >= first) {
				continue
			}
			for _, re := range r.Cause {
				if re.MatchString(t.Line.Text) {
					first = t.Line.N
					break
				}
			}
		}
	}
	return x.pastTAPDiagnostics(first)
}

// tapNotOK is a failed test's line in TAP output (bats, prove, node:test);
// tapDiagnostic is one of the "# " comment lines that follow it.
var (
	tapNotOK      = regexp.MustCompile(`^not ok \d+\b`)
	tapDiagnostic = regexp.MustCompile(`^#( |$)`)
)

// pastTAPDiagnostics moves a TAP "not ok" line to the end of the diagnostic
// block that follows it. TAP puts what a failed test printed after its
// status line, as "# " comments (testanything.org/tap-version-13-specification.html,
// "Diagnostics"; bats-core prints a failed test's output there), so those
// lines are the test's own failure, not what came after it.
func (x *explainer) pastTAPDiagnostics(first int) int {
	if first <= 0 || x.log == nil {
		return first
	}
	for i, l := range x.log.Lines {
		if l.N != first {
			continue
		}
		if !tapNotOK.MatchString(l.Text) {
			return first
		}
		end := first
		for _, d := range x.log.Lines[i+1:] {
			if !tapDiagnostic.MatchString(d.Text) {
				break
			}
			end = d.N
		}
		return end
	}
	return first
}

// familyFor returns the first catalogued family that text i shows and that
// feeds rule r: a family naming r, or, for a category's catalogue rule, one
// of its category naming no rule. With any set (the rule matched by its own
// pattern), a family of r's category is enough: it is cited, not relied on.
func (x *explainer) familyFor(r *rule, i int, any bool) *catalogue.Family {
	if !r.Catalogued && !any {
		return nil
	}
	for _, f := range x.familiesOf(i) {
		switch {
		case f.Rule == r.ID && r.Catalogued,
			r.fallback && f.Rule == "" && f.Category == string(r.Category),
			any && f.Category == string(r.Category):
			return f
		}
	}
	return nil
}

// familiesOf returns the catalogued families that failure text i shows,
// where their Requires and Not conditions hold over all failure texts.
func (x *facts) familiesOf(i int) []*catalogue.Family {
	if x.families == nil {
		x.families = map[int][]*catalogue.Family{}
		cat := x.in.Catalogue
		if cat == nil {
			cat = catalogue.Default
		}
		all := make([]string, len(x.texts))
		for j, t := range x.texts {
			all[j] = t.Line.Text
		}
		for _, f := range cat.Families() {
			if !f.MatchLines(all) {
				continue
			}
			for j, text := range all {
				if f.MatchLine(text) {
					x.families[j] = append(x.families[j], f)
				}
			}
		}
	}
	return x.families[i]
}

func (x *explainer) excluded(r *rule) bool {
	for _, t := range x.texts {
		for _, re := range r.Not {
			if re.MatchString(t.Line.Text) {
				return true
			}
		}
	}
	return false
}

func (x *explainer) eventsHold(r *rule) bool {
	for _, group := range r.Events {
		if len(ofKind(x.evs, group...)) == 0 {
			return false
		}
	}
	return true
}

func (x *explainer) verdictHolds(r *rule) bool {
	if len(r.Verdicts) == 0 {
		return true
	}
	for _, v := range r.Verdicts {
		if v == x.in.Verdict.Kind {
			return true
		}
	}
	return false
}

// endpointHolds checks a rule's endpoint condition. Without a named
// endpoint, the emitter decides: cluster clients count as local, package
// managers and downloaders as remote.
func (x *explainer) endpointHolds(r *rule) bool {
	switch r.Endpoint {
	case endpointLocal:
		if x.endpoint != "" {
			return x.local
		}
		return clusterClient(x.em.Node) || x.namedService() != nil
	case endpointRemote:
		if x.endpoint != "" {
			return !x.local
		}
		return !clusterClient(x.em.Node) && x.namedService() == nil
	}
	return true
}

// namedService returns the job's service container that the failure texts
// name by its service name or image ("Connection: mysql", "redis"), for
// failures that give no host:port. A client talking to a service container
// talks to something local.
func (x *explainer) namedService() *harness.Service {
	if x.job == nil {
		return nil
	}
	for _, s := range x.job.Services {
		names := []string{strings.ToLower(s.Name)}
		img := strings.ToLower(s.Image.Text)
		if i := strings.LastIndexByte(img, '/'); i >= 0 {
			img = img[i+1:]
		}
		if img, _, _ = strings.Cut(img, ":"); img != "" {
			names = append(names, img)
		}
		for _, t := range x.texts {
			text := strings.ToLower(t.Line.Text)
			for _, name := range names {
				if len(name) >= 3 && containsWord(text, name) {
					return s
				}
			}
		}
	}
	return nil
}

// containsWord reports whether w occurs in s between non-word characters.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		k := i + j
		end := k + len(w)
		if (k == 0 || !wordByte(s[k-1])) && (end == len(s) || !wordByte(s[end])) {
			return true
		}
		i = k + 1
	}
}

func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func clusterClient(n *harness.Node) bool {
	switch n.Tool() {
	case "kubectl", "oc", "karmadactl", "helm", "kustomize", "clusterctl", "kind":
		return true
	}
	return false
}
