package causal

import (
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// emission is the harness command that printed the cause line.
type emission struct {
	Node *harness.Node
	// Anchor is the last trace hit before the cause, when there is one.
	Anchor *hit
	// MakeErr is the make error line naming the failed recipe, if seen.
	MakeErr *hit
	// Ambiguous is set when several commands fit equally; Candidates lists them.
	Ambiguous  bool
	Candidates []*harness.Node
	// How says how the command was found, in words.
	How string
}

// locateEmitter finds the command that printed the cause line, from the
// trace of echoes before it and the programs the cause line names.
//
// seen is the recent log text before the cause; it breaks ties between
// commands that fit equally (the one whose file arguments the log shows).
func locateEmitter(t *tracer, hits []hit, p *pin, causeN int, cause, seen string) emission {
	var e emission
	tools := append(leadingTools(cause), toolsFor(cause)...)
	hosts := hostsIn(cause)
	verbs := verbsFor(cause)
	if h := t.ownMessage(hits, causeN); h != nil && (p == nil || !p.Exact) {
		// The harness printed the cause line itself: a script's own report
		// of its failure ("Error: could not determine latest version.").
		e.Node, e.Candidates, e.How = h.Node, []*harness.Node{h.Node}, "the harness's own echo prints the cause line"
		return e
	}
	for i := range hits {
		h := &hits[i]
		switch {
		case h.Kind == echoMakeE && h.Line.N >= causeN && e.MakeErr == nil:
			e.MakeErr = h
		case h.Line.N < causeN && h.Kind != echoMakeE:
			e.Anchor = h
		}
	}
	scope := e.scope(t)
	pinnedScope := false
	if p != nil && (e.scopeRoot() == nil || !isAncestor(p.Node, e.scopeRoot())) {
		// The log names a node at least as deep as the echoes point at.
		if p.Node.Kind == harness.NodeCommand && (p.Exact || emitterScore(p.Node, nil) > 0) {
			e.Node, e.Candidates, e.How = p.Node, []*harness.Node{p.Node}, p.How
			return e
		}
		if d := pinScope(p.Node); len(d) > 0 {
			scope, e.How, pinnedScope = d, p.How, true
		}
	}
	if w := replayedWriter(t, scope); w != nil {
		e.Node, e.Candidates = w, []*harness.Node{w}
		e.How = "the log prints a file that an earlier command wrote its output to"
		return e
	}
	if best, cands := choose(scope, tools, hosts, verbs, e.Anchor != nil || e.MakeErr != nil || pinnedScope); best != nil {
		e.Node, e.Candidates = best, cands
		e.Ambiguous = len(cands) > 1
		if len(tools) == 0 || toolMatches(best, tools) || e.Anchor == nil || pinnedScope {
			return e
		}
		// The unit the log points at runs nothing the cause line names: a
		// silent task or script ran after it. Look further on.
		if wider, wc := choose(t.following(e.Anchor.Node), tools, hosts, verbs, true); wider != nil && toolMatches(wider, tools) {
			e.Node, e.Candidates, e.Ambiguous = wider, wc, false
			e.How = "the log echoes the harness code that ran just before"
		}
		return e
	}
	best, cands := choose(commandNodes(t.flat), tools, hosts, verbs, false)
	if len(cands) > 1 {
		// A file the cause line itself names ("error when creating
		// "deploy/issuer.yaml"") decides first, then the log before it.
		cands = breakTie(breakTie(cands, cause), seen)
		best = cands[0]
	}
	e.Node, e.Candidates = best, cands
	e.Ambiguous = len(cands) > 1
	e.How = "the cause line names the program"
	if best == nil {
		e.How = ""
	}
	return e
}

// pinScope returns the commands under a node the log names. A Compose
// service's prefix marks what its container printed: its command, not the
// RUN instructions that built its image.
func pinScope(n *harness.Node) []*harness.Node {
	if n.Kind != harness.NodeService {
		return descendants(n)
	}
	var out []*harness.Node
	for _, c := range n.Children {
		if c.Kind == harness.NodeCommand {
			out = append(out, descendants(c)...)
		}
	}
	return out
}

// scopeRoot is the node the trace hits point at: the failed recipe line
// make names, else the last echoed harness code.
func (e *emission) scopeRoot() *harness.Node {
	switch {
	case e.MakeErr != nil:
		return e.MakeErr.Node
	case e.Anchor != nil:
		return e.Anchor.Node
	}
	return nil
}

// scope returns the commands the log points at (the failed recipe line, the
// code after the last echo) and says how in e.How; nil without either.
func (e *emission) scope(t *tracer) []*harness.Node {
	switch {
	case e.MakeErr != nil:
		e.How = "make names the failed recipe line"
		if e.Anchor != nil && isAncestor(e.MakeErr.Node, e.Anchor.Node) {
			// The recipe runs a script whose echoes show how far it got.
			if narrowed := t.after(e.Anchor.Node); len(narrowed) > 0 {
				e.How = "make names the failed recipe line and the log echoes the code that ran inside it"
				return narrowed
			}
		}
		return descendants(e.MakeErr.Node)
	case e.Anchor != nil:
		e.How = "the log echoes the harness code that was running"
		return t.after(e.Anchor.Node)
	}
	return nil
}

// after returns the command nodes from n onwards within n's unit: n's own
// subtree when it is a task command or recipe, else the following commands
// of the same script, task command or recipe (and what they call).
func (t *tracer) after(n *harness.Node) []*harness.Node {
	if n.Kind != harness.NodeCommand {
		return descendants(n)
	}
	unit := n.Nearest(unitKinds...)
	if unit == nil {
		return []*harness.Node{n}
	}
	start := t.index[n]
	var out []*harness.Node
	for _, x := range descendants(unit) {
		if t.index[x] >= start {
			out = append(out, x)
		}
	}
	return out
}

// following returns the command nodes from n onwards in execution order.
func (t *tracer) following(n *harness.Node) []*harness.Node {
	start, ok := t.index[n]
	if !ok {
		return nil
	}
	var out []*harness.Node
	for _, x := range t.flat[start:] {
		if x.Kind == harness.NodeCommand {
			out = append(out, x)
		}
	}
	return out
}

// filePrinters are programs that print a file the harness saved earlier.
var filePrinters = map[string]bool{"cat": true, "tail": true, "head": true, "less": true, "more": true}

// replayedWriter handles a log that replays saved output: when the first
// thing the scope runs after the echo is `cat FILE` (or tail, head) and an
// earlier command redirected its output to FILE, the lines that follow were
// written by that earlier command, which is the emitter.
func replayedWriter(t *tracer, scope []*harness.Node) *harness.Node {
	for _, n := range scope {
		if n.Kind != harness.NodeCommand || n.Cmd == nil {
			continue
		}
		tool := n.Tool()
		if !filePrinters[tool] {
			if tool != "" && !quiet[tool] && !harnessCall(n) {
				return nil // a real command runs first
			}
			continue
		}
		for _, a := range n.EffectiveArgs()[1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if w := writerOf(t, n, normalizeEcho(a)); w != nil {
				return w
			}
		}
	}
	return nil
}

// writerOf returns the last command before n whose output goes to file.
func writerOf(t *tracer, n *harness.Node, file string) *harness.Node {
	if file == "" {
		return nil
	}
	for i := t.index[n] - 1; i >= 0; i-- {
		x := t.flat[i]
		if x.Kind != harness.NodeCommand || x.Cmd == nil {
			continue
		}
		for _, o := range x.Cmd.Outputs {
			if normalizeEcho(o) == file {
				return x
			}
		}
	}
	return nil
}

// breakTie keeps, of equally fitting commands, those with a file argument
// that the log before the cause shows ("Collecting x (from -r
// requirements/dev.txt ...)"); all of them when none or every one does.
func breakTie(cands []*harness.Node, seen string) []*harness.Node {
	if seen == "" {
		return cands
	}
	var out []*harness.Node
	for _, c := range cands {
		for _, a := range c.EffectiveArgs()[1:] {
			if len(a) >= 4 && !strings.HasPrefix(a, "-") && strings.ContainsAny(a, "/.") &&
				!strings.ContainsAny(a, "$`{}*") && strings.Contains(seen, a) {
				out = append(out, c)
				break
			}
		}
	}
	if len(out) == 0 {
		return cands
	}
	return out
}

// isAncestor reports whether a is n or one of n's ancestors.
func isAncestor(a, n *harness.Node) bool {
	for x := n; x != nil; x = x.Parent {
		if x == a {
			return true
		}
	}
	return false
}

// toolMatches reports whether a command runs one of tools.
func toolMatches(n *harness.Node, tools []string) bool {
	tool := n.Tool()
	for _, t := range tools {
		if t == tool {
			return true
		}
	}
	return false
}

// descendants returns the command nodes under n (n included), in order.
func descendants(n *harness.Node) []*harness.Node {
	var out []*harness.Node
	n.Walk(func(x *harness.Node) bool {
		if x.Kind == harness.NodeCommand {
			out = append(out, x)
		}
		return true
	})
	return out
}

func commandNodes(flat []*harness.Node) []*harness.Node {
	var out []*harness.Node
	for _, n := range flat {
		if n.Kind == harness.NodeCommand {
			out = append(out, n)
		}
	}
	return out
}

// choose scores the commands of a scope against the programs the cause line
// names. With ordered set, the first best command wins (a failing command
// stops the unit); otherwise ties are reported as candidates.
func choose(scope []*harness.Node, tools, hosts []string, verbs map[string]bool, ordered bool) (*harness.Node, []*harness.Node) {
	var best *harness.Node
	var cands []*harness.Node
	bestScore := 0
	for _, n := range scope {
		s := emitterScore(n, tools)
		if s <= 0 {
			continue
		}
		if verbs != nil && verbs[subcommand(n)] {
			s += 6
		}
		for _, h := range hosts {
			if strings.Contains(n.Text, h) {
				s += 4
				break
			}
		}
		switch {
		case s > bestScore:
			best, bestScore, cands = n, s, []*harness.Node{n}
		case s == bestScore && !ordered:
			cands = append(cands, n)
		}
	}
	return best, cands
}

var (
	urlHost  = regexp.MustCompile(`https?://([A-Za-z0-9.-]+\.[A-Za-z]{2,})`)
	nameHost = regexp.MustCompile(`(?i)\bhost(?: address)?:? '?([a-z0-9-]+(?:\.[a-z0-9-]+)+)`)
	pipHost  = regexp.MustCompile(`host='([^']+)'`)
	apiLimit = regexp.MustCompile(`API rate limit exceeded|secondary rate limit`)
)

// hostsIn returns the hosts a cause text names, for matching commands that
// address them.
func hostsIn(cause string) []string {
	var out []string
	for _, m := range urlHost.FindAllStringSubmatch(cause, 8) {
		out = append(out, m[1])
	}
	for _, m := range nameHost.FindAllStringSubmatch(cause, 4) {
		out = append(out, m[1])
	}
	for _, m := range pipHost.FindAllStringSubmatch(cause, 4) {
		out = append(out, m[1])
	}
	if apiLimit.MatchString(cause) {
		out = append(out, "api.github.com")
	}
	return out
}

var leadingTool = regexp.MustCompile(`(?m)^([a-z][a-z0-9._-]{1,30}):\s`)

// leadingTools returns the programs that prefix cause lines with their name
// ("psql: error: ...", "curl: (56) ...").
func leadingTools(cause string) []string {
	var out []string
	for _, m := range leadingTool.FindAllStringSubmatch(cause, 4) {
		switch m[1] {
		case "error", "fatal", "warning", "info", "debug", "note", "hint", "caused by", "task", "make", "http", "https":
			continue
		}
		out = append(out, m[1])
	}
	return out
}

// verbHint maps a cause pattern to the subcommands that print it.
type verbHint struct {
	re    *regexp.Regexp
	verbs map[string]bool
}

var verbHints = []verbHint{
	{regexp.MustCompile(`no matching resources found|timed out waiting for the condition on|condition met`), map[string]bool{"wait": true}},
	{regexp.MustCompile(`error when retrieving current configuration|error when creating|error when applying|error validating|resource mapping not found|no matches for kind`), map[string]bool{"apply": true, "create": true, "replace": true}},
	{regexp.MustCompile(`(INSTALLATION|UPGRADE) FAILED|cannot re-use a name`), map[string]bool{"install": true, "upgrade": true}},
	{regexp.MustCompile(`failed to create cluster`), map[string]bool{"create": true}},
	{regexp.MustCompile(`Error acquiring the state lock`), map[string]bool{"plan": true, "apply": true, "destroy": true, "import": true, "refresh": true, "state": true}},
	{regexp.MustCompile(`No names found, cannot describe|No tags can describe`), map[string]bool{"describe": true}},
	{regexp.MustCompile(`pull rate limit|toomanyrequests|manifest unknown|pull access denied`), map[string]bool{"pull": true, "run": true, "build": true, "create": true}},
}

// verbsFor returns the subcommands a cause text points to, nil for none:
// those its first line (the cause line) names, else those of the context
// lines after it ("condition met" printed before an apply's error is the
// wait's output, not the failing command's).
func verbsFor(cause string) map[string]bool {
	first, _, _ := strings.Cut(cause, "\n")
	for _, text := range []string{first, cause} {
		for _, h := range verbHints {
			if h.re.MatchString(text) {
				return h.verbs
			}
		}
	}
	return nil
}

// strongNet are words that mark a command that downloads.
var strongNet = map[string]bool{"download": true, "install": true, "fetch": true, "pull": true, "clone": true, "ci": true, "sync": true, "restore": true}

// fetches reports whether one of a command's first words says it downloads.
func fetches(n *harness.Node) bool {
	seen := 0
	args := n.EffectiveArgs()
	if len(args) < 2 {
		return false
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if strongNet[a] {
			return true
		}
		if seen++; seen >= 3 {
			break
		}
	}
	return false
}

// emitterScore rates how well a command fits as the emitter of a cause line
// that names tools.
func emitterScore(n *harness.Node, tools []string) int {
	tool := n.Tool()
	if tool == "" || quiet[tool] || harnessCall(n) {
		return 0
	}
	score := 1
	for i, t := range tools {
		if t == tool || (len(t) > 2 && t[:2] == "./" && t[2:] == tool) {
			score += 20 - i
			break
		}
	}
	if opaque(n) {
		// it runs harness code the model could not read, which may be
		// what printed the line.
		score += 10
	}
	if networkVerbs[subcommand(n)] {
		score += 3
	}
	if fetches(n) {
		score += 2
	}
	if offline(n) {
		score -= 5
	}
	if score < 1 {
		score = 1
	}
	return score
}

// ownMessage returns the hit of an echo or printf of the harness that
// printed the cause line, when its literal text makes up at least half of
// the line: `echo "Error: $1"` matches too many lines to be the one.
func (t *tracer) ownMessage(hits []hit, causeN int) *hit {
	for i := range hits {
		h := &hits[i]
		if h.Kind != echoPrint || h.Line.N != causeN {
			continue
		}
		if m := t.matcherOf(h.Node); m != nil && 2*m.literal >= len(strings.ReplaceAll(normalizeEcho(h.Line.Text), " ", "")) {
			return h
		}
	}
	return nil
}
