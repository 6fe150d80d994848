package report

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WordJoiner is the invisible character placed after "@", "#", "://" and
// "www" in untrusted text, so that GitHub neither notifies people, nor links
// issue references, nor turns URLs into links.
const WordJoiner = "\u2060"

// maxInput bounds the bytes of one untrusted string that are looked at;
// no rendering shows more than a small part of it.
const maxInput = 1 << 16

// clean makes untrusted text one line: control and format characters
// (newlines, escape sequences, bidirectional overrides, zero-width
// characters) become spaces, invalid UTF-8 becomes U+FFFD, and runs of
// spaces collapse to one.
func clean(s string) string {
	c, _ := cleanN(s, 0)
	return c
}

// cleanN is clean that stops once it has more than n runes (n > 0) and
// reports whether it stopped early.
func cleanN(s string, n int) (string, bool) {
	stopped := len(s) > maxInput
	if stopped {
		s = s[:maxInput]
	}
	var b strings.Builder
	b.Grow(min(len(s), 4*n+16))
	space, count := false, 0
	for i, r := range s {
		if n > 0 && count > n {
			stopped = true
			break
		}
		if r == utf8.RuneError && !validAt(s, i) {
			r = unicode.ReplacementChar
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
				count++
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
		count++
	}
	return strings.TrimSpace(b.String()), stopped
}

// line cleans untrusted text and clips it to n runes (n <= 0: no limit),
// reporting whether anything was cut.
func line(s string, n int) (string, bool) {
	c, stopped := cleanN(s, n)
	if n > 0 && (stopped || utf8.RuneCountInString(c) > n) {
		return clip(c, n), utf8.RuneCountInString(c) > n
	}
	return c, false
}

// validAt reports whether the rune at byte i of s is a real U+FFFD rather
// than an invalid byte.
func validAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 3
}

// clip shortens s to at most n runes, marking the cut with an ellipsis.
// n <= 0 means no limit.
func clip(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// clipTail keeps the last n runes of s (the end of a log line usually holds
// the error), marking the cut with a leading ellipsis.
func clipTail(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	r := []rune(s)
	tail := r[len(r)-n+1:]
	// Start at a word when one begins close to the cut.
	for i := 0; i < len(tail) && i < 24; i++ {
		if tail[i] == ' ' && i+1 < len(tail) {
			tail = tail[i+1:]
			break
		}
	}
	return "…" + strings.TrimLeft(string(tail), " ")
}

// blockLead matches text that would open a block at the start of a line
// or list item: a bullet, a setext or thematic-break run, or an ordered
// list number; the last character of the match gets a backslash.
var blockLead = regexp.MustCompile(`^\s*(?:[-+=]|[0-9]{1,9}[.)])`)

// mdEscaped lists the ASCII characters that text escapes with a backslash:
// everything that can open inline markdown structure (emphasis, code,
// links and images through "["), HTML, entities, math or a table cell.
const mdEscaped = "\\`*_[]<>|~&$#"

// text renders untrusted text as inert markdown: one line, at most n runes,
// every structural character escaped, and mentions, issue references and
// URLs broken with an invisible word joiner.
func text(s string, n int) string {
	t, _ := line(s, n)
	return escapeText(t)
}

// escapeText escapes one line of untrusted text (see text) as it is. A
// leading list, heading or quote marker is escaped too, so that the text
// cannot open a block where it starts a list item or a line.
func escapeText(s string) string {
	if blockLead.MatchString(s) {
		i := blockLead.FindStringIndex(s)[1] - 1
		return s[:i] + "\\" + EscapeInline(s[i:], "")
	}
	return EscapeInline(s, "")
}

// EscapeInline makes one line of untrusted text inert inside a markdown
// paragraph, as it is: every ASCII character that can open inline
// structure (emphasis, code, links, HTML, entities, math, table cells) and
// every character of also gets a backslash, and mentions, issue references
// and URLs are broken with an invisible word joiner after "@", "#", "://"
// and "www". A marker that opens a block at the start of a line is left to
// the caller.
func EscapeInline(s, also string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	rs := []rune(s)
	for i, r := range rs {
		if (r < utf8.RuneSelf && strings.ContainsRune(mdEscaped, r)) || (also != "" && strings.ContainsRune(also, r)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		switch {
		case r == '@' || r == '#':
			b.WriteString(WordJoiner)
		case r == ':' && i+2 < len(rs) && rs[i+1] == '/' && rs[i+2] == '/':
			b.WriteString(WordJoiner)
		case (r == 'w' || r == 'W') && i+1 < len(rs) && rs[i+1] == '.' && i >= 2 &&
			strings.EqualFold(string(rs[i-2:i+1]), "www"):
			b.WriteString(WordJoiner)
		}
	}
	return b.String()
}

// code renders untrusted text as an inline code span: one line, at most n
// runes, fenced with more backticks than any run inside it. GitHub does not
// interpret markdown, HTML, mentions, references or URLs in code spans.
func code(s string, n int) string {
	t, _ := line(s, n)
	return codeSpan(t)
}

// codeSpan renders one clean line as a code span.
func codeSpan(s string) string {
	if s == "" {
		return "(empty)"
	}
	fence := strings.Repeat("`", backtickRun(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// backtickRun is the length of the longest run of backticks in s.
func backtickRun(s string) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// prose renders text that Polylane wrote but that quotes untrusted input
// (commands, log excerpts): backtick-delimited parts become code spans and
// the rest is escaped as text. With an odd number of backticks the pairing
// is unknown, and the whole is escaped as text. Either way every part is
// inert.
func prose(s string, n int) string {
	t, _ := line(s, n)
	return proseLine(t)
}

// proseLine renders one clean line of prose (see prose).
func proseLine(s string) string {
	if strings.Count(s, "`")%2 != 0 {
		return escapeText(s)
	}
	parts := strings.Split(s, "`")
	var b strings.Builder
	var pending strings.Builder // text since the last code span
	lastCode := false
	flush := func() {
		t := strings.Join(strings.Fields(pending.String()), " ")
		if strings.HasPrefix(pending.String(), " ") && b.Len() > 0 {
			t = " " + t
		}
		if strings.HasSuffix(pending.String(), " ") && t != "" && t != " " {
			t += " "
		}
		if t != "" {
			b.WriteString(escapeText(t))
			lastCode = false
		}
		pending.Reset()
	}
	for i, p := range parts {
		switch {
		case i%2 == 0:
			pending.WriteString(p)
		case p != "": // an empty code part is dropped
			flush()
			if lastCode {
				// Two code spans side by side would parse as one.
				b.WriteByte(' ')
			}
			b.WriteString(codeSpan(p))
			lastCode = true
		}
	}
	flush()
	return b.String()
}

// fenced renders untrusted multi-line text as a fenced code block with the
// given info string, fenced with more backticks than any run inside it.
// Control characters other than newline and tab are replaced.
func fenced(info, body string) string {
	body = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(body, "\uFFFD"))
	fence := strings.Repeat("`", max(3, backtickRun(body)+1))
	body = strings.TrimRight(body, "\n")
	return fence + info + "\n" + body + "\n" + fence + "\n"
}

// plain makes untrusted text safe for places that GitHub shows as plain
// text (a pull-request title): one line, at most n runes.
func plain(s string, n int) string {
	t, _ := line(s, n)
	return t
}
