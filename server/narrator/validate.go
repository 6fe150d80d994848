package narrator

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/polylane/polylane/causal/diagnosis"
)

// ErrRejected is the error a Rejection matches with errors.Is.
var ErrRejected = errors.New("narrator output rejected")

// Rejection says why generated text was not used. It matches ErrRejected.
type Rejection struct {
	// Reasons name each problem found, such as `path "src/x.go" is not in
	// the diagnosis`. Quoted tokens are redacted and clipped.
	Reasons []string
}

// Error lists the reasons.
func (r *Rejection) Error() string {
	return "narrator output rejected: " + strings.Join(r.Reasons, "; ")
}

// Is makes errors.Is(err, ErrRejected) true for a Rejection.
func (r *Rejection) Is(target error) bool { return target == ErrRejected }

// Length limits of generated text, in bytes.
const (
	maxSummary = 1500
	maxWhyFix  = 3000
	maxAnswer  = 3000
)

// checker accumulates the reasons to reject one text.
type checker struct {
	g       *grounds
	reasons []string
	cited   []string
}

// fail records a reason, quoting tok safely.
func (c *checker) fail(format string, tok string) {
	if len(c.reasons) >= 20 {
		return
	}
	c.reasons = append(c.reasons, fmt.Sprintf(format, quoteToken(tok)))
}

// quoteToken redacts and clips a token for a rejection reason.
func quoteToken(s string) string {
	s = Redact(s)
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:59]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// err returns the Rejection, or nil when nothing was found.
func (c *checker) err() error {
	if len(c.reasons) == 0 {
		return nil
	}
	return &Rejection{Reasons: c.reasons}
}

// structure patterns: markdown and HTML a narrated text must not contain.
var (
	headingLine = regexp.MustCompile(`(?m)^[ \t]{0,3}#{1,6}(?:[ \t]|$)`)
	setextLine  = regexp.MustCompile(`(?m)^[ \t]{0,3}(?:=+|-{2,}|\*{3,}|_{3,})[ \t]*$`)
	// htmlTag matches what CommonMark would take as raw HTML: an open or
	// closing tag (a name followed by a space, "/" or ">"), a comment, a
	// processing instruction or a declaration. "<pip._vendor" stays text.
	htmlTag       = regexp.MustCompile(`<(?:[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|/[A-Za-z][A-Za-z0-9-]*\s*>|!|\?)`)
	htmlEntity    = regexp.MustCompile(`&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]{1,31});`)
	imageSyntax   = regexp.MustCompile(`!\[`)
	inlineLink    = regexp.MustCompile(`\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?(?:\s+["'(][^)]*)?\)`)
	referenceDef  = regexp.MustCompile(`(?m)^[ \t]{0,3}\[[^\]\n]+\]:`)
	referenceUse  = regexp.MustCompile(`\]\[[^\]\n]*\]`)
	fenceLine     = regexp.MustCompile("(?m)^[ \\t]*(?:```|~~~)")
	quoteLine     = regexp.MustCompile(`(?m)^[ \t]{0,3}>`)
	tableLine     = regexp.MustCompile(`(?m)^[ \t]*\|.*\|[ \t]*$`)
	listLine      = regexp.MustCompile(`(?m)^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\S`)
	footnote      = regexp.MustCompile(`\[\^[^\]]*\]`)
	indentedBlock = regexp.MustCompile(`(?m)^(?: {4}|\t)\S`)
)

// checkStructure rejects markdown structure, HTML and invisible characters.
// Lists are allowed when lists is set.
func (c *checker) checkStructure(s string, lists bool) {
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			c.fail("invisible or control character %s", fmt.Sprintf("U+%04X", r))
			return
		}
	}
	checks := []struct {
		re   *regexp.Regexp
		what string
	}{
		{headingLine, "heading"}, {setextLine, "heading or rule"}, {htmlTag, "raw HTML"},
		{htmlEntity, "HTML entity"}, {imageSyntax, "image"}, {referenceDef, "link reference definition"},
		{referenceUse, "reference link"}, {fenceLine, "code block"}, {quoteLine, "block quote"},
		{tableLine, "table"}, {footnote, "footnote"}, {indentedBlock, "indented code block"},
	}
	if !lists {
		checks = append(checks, struct {
			re   *regexp.Regexp
			what string
		}{listLine, "list"})
	}
	for _, k := range checks {
		if m := k.re.FindString(s); m != "" {
			c.fail(k.what+" %s is not allowed", strings.TrimSpace(m))
		}
	}
	for _, m := range inlineLink.FindAllStringSubmatch(s, -1) {
		if !strings.HasPrefix(strings.ToLower(m[2]), "https://") || !c.g.canLink(m[2]) {
			c.fail("link to %s is not a URL Polylane built for the diagnosis", m[2])
		}
	}
}

// blank replaces the byte spans of every match of re in s with spaces, so
// that later checks do not read them again, calling fn on each match's
// submatches first.
func blank(s string, re *regexp.Regexp, fn func(m []string)) string {
	locs := re.FindAllStringSubmatchIndex(s, -1)
	if locs == nil {
		return s
	}
	b := []byte(s)
	for _, loc := range locs {
		m := make([]string, len(loc)/2)
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = s[loc[2*i]:loc[2*i+1]]
			}
		}
		fn(m)
		for i := loc[0]; i < loc[1]; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

// checkTokens rejects every URL, mention, file:line, endpoint, commit,
// evidence id, path and number the diagnosis does not hold, and records
// the evidence ids cited.
func (c *checker) checkTokens(s string) {
	g := c.g
	s = blank(s, urlPattern, func(m []string) {
		if !g.hasURL(m[0]) && !g.canLink(m[0]) {
			c.fail("URL %s is not in the diagnosis", trimURL(m[0]))
		}
	})
	s = blank(s, mentionPattern, func(m []string) {
		if !g.contains("@" + m[1]) {
			c.fail("mention %s is not in the diagnosis", "@"+m[1])
		}
	})
	s = blank(s, pairPattern, func(m []string) { c.checkPair(m[0], m[1], m[2]) })
	s = blank(s, ipPattern, func(m []string) {
		if !g.contains(m[0]) {
			c.fail("address %s is not in the diagnosis", m[0])
		}
	})
	s = blank(s, evidencePattern, func(m []string) {
		id := strings.ToUpper(m[0])
		if !g.evidence[id] {
			c.fail("evidence id %s is not in the diagnosis", id)
			return
		}
		c.cite(id)
	})
	s = blank(s, hexPattern, func(m []string) { c.checkHex(m[0]) })
	for _, p := range pathTokens(s) {
		if !g.hasPath(p) && !g.contains(p) {
			c.fail("path %s is not in the diagnosis", p)
		}
	}
	for _, n := range scanNumbers(s) {
		if !g.hasNumber(n) {
			c.fail("number %s is not in the diagnosis", n)
		}
	}
	for _, n := range spelledNumbers(s) {
		if !g.hasNumber(n) {
			c.fail("number %s (spelled out) is not in the diagnosis", n)
		}
	}
}

// checkPair checks "x:n": a file and line, or a host and port.
func (c *checker) checkPair(whole, left, num string) {
	g := c.g
	if g.hasPair(left, num) || g.contains(whole) {
		return
	}
	_, pathy := pathLike(left)
	switch {
	case pathy:
		c.fail("file:line %s is not in the diagnosis", whole)
	case hasLetters(left) || strings.Contains(left, "."):
		c.fail("endpoint %s is not in the diagnosis", whole)
	default:
		// Times of day and ratios such as 10:30: each number on its own.
		for _, n := range []string{left, num} {
			if !g.hasNumber(n) {
				c.fail("number %s is not in the diagnosis", n)
			}
		}
	}
}

// checkHex checks a hex run: a commit or id when it mixes digits and
// letters, otherwise a number or a word.
func (c *checker) checkHex(h string) {
	letters, digits := false, false
	for _, r := range h {
		if r >= '0' && r <= '9' {
			digits = true
		} else {
			letters = true
		}
	}
	switch {
	case letters && digits:
		if !c.g.hasHex(h) {
			c.fail("commit or id %s is not in the diagnosis", h)
		}
	case digits:
		if !c.g.hasNumber(h) && !c.g.hasHex(h) {
			c.fail("number %s is not in the diagnosis", h)
		}
	}
}

// cite records a cited evidence id once.
func (c *checker) cite(id string) {
	for _, x := range c.cited {
		if x == id {
			return
		}
	}
	c.cited = append(c.cited, id)
}

// checkSecrets rejects text that holds something shaped like a secret.
func (c *checker) checkSecrets(s string) {
	if Redact(s) != s {
		c.fail("text holds a secret-like string %s", "")
	}
}

// ValidateWording checks a narrated summary and "why this fix" paragraph
// against the diagnosis they word. It rejects text that mentions a file,
// line, run or job id, number, commit, URL, endpoint, @mention or evidence
// id the diagnosis does not hold; that drops a required fact (the failing
// step, the class count and window size, the mechanism, the patched files,
// the first bad commit of a regression); that names a mechanism category
// other than the diagnosis's; or that holds markdown structure, HTML, lists
// or invisible characters. A nil error means the wording may be shown. The
// function is pure.
func ValidateWording(d *diagnosis.Diagnosis, w Wording) error {
	return validateWording(newGrounds(d), d, w)
}

// validateWording is ValidateWording with the diagnosis's grounds.
func validateWording(g *grounds, d *diagnosis.Diagnosis, w Wording) error {
	c := &checker{g: g}
	for _, p := range []struct {
		name, text string
		max        int
	}{{"summary", w.Summary, maxSummary}, {"why-this-fix paragraph", w.WhyFix, maxWhyFix}} {
		switch {
		case strings.TrimSpace(p.text) == "":
			c.reasons = append(c.reasons, "the "+p.name+" is empty")
			continue
		case len(p.text) > p.max:
			c.reasons = append(c.reasons, fmt.Sprintf("the %s is longer than %d bytes", p.name, p.max))
			continue
		}
		c.checkStructure(p.text, false)
		c.checkSecrets(p.text)
		c.checkTokens(p.text)
	}
	if len(c.reasons) == 0 {
		c.checkRequired(d, w)
	}
	return c.err()
}

// notKnown is the phrase an answer uses when the evidence does not say.
const notKnown = "not known from the evidence"

// ValidateAnswer checks a narrated follow-up answer against the diagnosis:
// the same grounding and structure rules as ValidateWording (bullet lists
// are allowed), every evidence id it cites must exist, and it must cite at
// least one or say that the answer is not known from the evidence. It
// returns the evidence ids cited, in order of first use.
func ValidateAnswer(d *diagnosis.Diagnosis, text string) ([]string, error) {
	return validateAnswer(newGrounds(d), text)
}

// validateAnswer is ValidateAnswer with the diagnosis's grounds.
func validateAnswer(g *grounds, text string) ([]string, error) {
	c := checkAnswerText(g, text)
	if len(c.reasons) == 0 && len(c.cited) == 0 && !strings.Contains(strings.ToLower(text), notKnown) {
		c.reasons = append(c.reasons, `the answer cites no evidence id and does not say "`+notKnown+`"`)
	}
	return c.cited, c.err()
}

// checkAnswerText applies the grounding and structure rules to an answer.
func checkAnswerText(g *grounds, text string) *checker {
	c := &checker{g: g}
	switch {
	case strings.TrimSpace(text) == "":
		c.reasons = append(c.reasons, "the answer is empty")
	case len(text) > maxAnswer:
		c.reasons = append(c.reasons, fmt.Sprintf("the answer is longer than %d bytes", maxAnswer))
	default:
		c.checkStructure(text, true)
		c.checkSecrets(text)
		c.checkTokens(text)
	}
	return c
}
