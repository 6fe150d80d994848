package analysis

import "strings"

// Wildcard stands for a variable token in a mined template.
const Wildcard = "<*>"

// Default miner settings: one configuration for every kind of log.
const (
	DefaultSimilarity = 0.7  // share of equal tokens needed to join a template
	defaultPrefix     = 2    // leading tokens that route a message, as in Drain's depth 4
	defaultMaxGroups  = 4096 // templates kept per routing key
)

// Miner groups log messages into templates with a fixed-depth prefix tree in
// the manner of Drain: messages are routed by token count and leading
// tokens, then joined to the most similar template of their leaf when enough
// tokens agree; disagreeing positions become wildcards. Tokens holding
// digits are wildcards from the start. A Miner is not safe for concurrent use.
type Miner struct {
	sim       float64
	leaves    map[string][]*minedTemplate
	templates []*minedTemplate
}

type minedTemplate struct {
	id     int
	tokens []string
	count  int
}

// NewMiner returns a Miner with the default similarity threshold; sim <= 0
// keeps the default.
func NewMiner(sim float64) *Miner {
	if sim <= 0 {
		sim = DefaultSimilarity
	}
	return &Miner{sim: sim, leaves: make(map[string][]*minedTemplate)}
}

// Add mines one message and returns the id of its template (ids start at 0
// and are stable: a template only ever generalises).
func (m *Miner) Add(message string) int {
	toks := templateTokens(message)
	key := routeKey(toks)
	leaf := m.leaves[key]
	var best *minedTemplate
	bestSim, bestWild := -1.0, -1
	for _, t := range leaf {
		s, wild := similarity(t.tokens, toks)
		if s > bestSim || (s == bestSim && wild > bestWild) {
			best, bestSim, bestWild = t, s, wild
		}
	}
	if best != nil && bestSim >= m.sim {
		for i, tok := range toks {
			if best.tokens[i] != tok {
				best.tokens[i] = Wildcard
			}
		}
		best.count++
		return best.id
	}
	if len(leaf) >= defaultMaxGroups && best != nil {
		best.count++
		return best.id
	}
	t := &minedTemplate{id: len(m.templates), tokens: toks, count: 1}
	m.templates = append(m.templates, t)
	m.leaves[key] = append(leaf, t)
	return t.id
}

// Template returns the current template text of an id.
func (m *Miner) Template(id int) string {
	if id < 0 || id >= len(m.templates) {
		return ""
	}
	return strings.Join(m.templates[id].tokens, " ")
}

// Len returns the number of templates mined so far.
func (m *Miner) Len() int { return len(m.templates) }

// templateTokens splits a message on blanks after Normalize and turns tokens
// that hold digits into wildcards.
func templateTokens(message string) []string {
	toks := strings.Fields(Normalize(message))
	for i, t := range toks {
		if variableToken(t) {
			toks[i] = Wildcard
		}
	}
	return toks
}

// variableToken reports whether a token is a value rather than a word: it
// starts with a digit, holds a digit next to punctuation (1.2.3, a=1, x:80),
// or is a mask placeholder. Words with digits such as "SOCKS5" stay.
func variableToken(t string) bool {
	if strings.Contains(t, "<") && strings.Contains(t, ">") && len(t) > 2 {
		return true
	}
	s := strings.TrimLeft(t, "([{'\"#-+$")
	if s == "" {
		return false
	}
	if isDigit(s[0]) {
		return true
	}
	if !strings.ContainsAny(s, "0123456789") {
		return false
	}
	return strings.ContainsAny(s, ".:/=_-,@")
}

// routeKey is the leaf of the prefix tree: the token count and the leading
// tokens (a wildcard routes as itself).
func routeKey(toks []string) string {
	var b strings.Builder
	b.WriteString(itoa(len(toks)))
	for i := 0; i < defaultPrefix && i < len(toks); i++ {
		b.WriteByte(0)
		b.WriteString(toks[i])
	}
	return b.String()
}

// similarity returns the share of the message's word positions (values
// excluded) where the template has the same word, and the number of
// wildcards in the template. A message of values only matches a template
// whose words are all wildcards too.
func similarity(tmpl, toks []string) (float64, int) {
	same, words, wild := 0, 0, 0
	for i, t := range tmpl {
		if t == Wildcard {
			wild++
		}
		if toks[i] == Wildcard {
			continue
		}
		words++
		if t == toks[i] {
			same++
		}
	}
	if words == 0 {
		return 1, wild
	}
	return float64(same) / float64(words), wild
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
