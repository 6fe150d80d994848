package narrator

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/report"
)

// alsoEscaped lists the characters that narrated text escapes with a
// backslash besides report.EscapeInline's own: parentheses, "!" and braces,
// which the model's words may use to imitate links, images or templates.
const alsoEscaped = "()!{}"

var (
	listItem  = regexp.MustCompile(`^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+`)
	orderedAt = regexp.MustCompile(`^(\d{1,9})([.)])`)
)

// Markdown renders narrated or deterministic text as inert markdown for a
// GitHub comment. Text between paired backticks becomes a code span; lines
// starting with "-", "*", "+" or "1." become list items; blank lines
// separate paragraphs and other line breaks become spaces. Everything else
// is escaped: markdown and HTML characters get a backslash, "@mentions",
// "#references" and URLs are broken with an invisible word joiner, and
// invisible or control characters are dropped. A markdown link is kept as
// a link only when its URL is one Polylane built for the diagnosis (a run,
// the failing job, a commit or a cited file of the repository on GitHub),
// never a URL that only log or file text holds. The report package
// can insert the result as it is.
func Markdown(d *diagnosis.Diagnosis, text string) string {
	return markdown(newGrounds(d), text)
}

// markdown is Markdown with the diagnosis's grounds.
func markdown(g *grounds, text string) string {
	text = strings.ToValidUTF8(strings.ReplaceAll(text, "\r\n", "\n"), "\uFFFD")
	text = strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, text)
	var blocks []string
	for _, para := range strings.Split(text, "\n\n") {
		if b := renderBlock(g, para); b != "" {
			blocks = append(blocks, b)
		}
	}
	return strings.Join(blocks, "\n\n")
}

// renderBlock renders one paragraph: list items on lines of their own,
// other lines joined with spaces.
func renderBlock(g *grounds, para string) string {
	var out, run []string
	flush := func() {
		if len(run) > 0 {
			out = append(out, lineStart(inline(g, strings.Join(run, " "))))
			run = nil
		}
	}
	for _, line := range strings.Split(para, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if m := listItem.FindString(line); m != "" {
			flush()
			out = append(out, "- "+lineStart(inline(g, line[len(m):])))
			continue
		}
		run = append(run, line)
	}
	flush()
	return strings.Join(out, "\n")
}

// lineStart escapes what would open a block at the start of a line: list
// markers, setext underlines and ordered-list numbers.
func lineStart(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '-', '+', '=':
		return `\` + s
	}
	if m := orderedAt.FindStringSubmatchIndex(s); m != nil {
		return s[:m[4]] + `\` + s[m[4]:]
	}
	return s
}

// inline renders one line: code spans for paired backticks, grounded
// links as links, the rest escaped.
func inline(g *grounds, s string) string {
	s = strings.ReplaceAll(s, "**", "")
	if strings.Count(s, "`")%2 != 0 {
		s = strings.ReplaceAll(s, "`", "'")
	}
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		switch {
		case i%2 == 1 && strings.TrimSpace(part) != "":
			b.WriteString(codeSpan(part))
		case i%2 == 0:
			b.WriteString(links(g, part))
		}
	}
	return b.String()
}

// codeSpan renders text without backticks as a code span.
func codeSpan(s string) string {
	if strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = strings.TrimSpace(s)
	}
	return "`" + s + "`"
}

// links renders the links of s to URLs Polylane built as links and
// escapes the rest.
func links(g *grounds, s string) string {
	var b strings.Builder
	last := 0
	for _, m := range inlineLink.FindAllStringSubmatchIndex(s, -1) {
		u := s[m[4]:m[5]]
		if !strings.HasPrefix(strings.ToLower(u), "https://") || !g.canLink(u) || strings.ContainsAny(u, "()<> \"'") {
			continue
		}
		b.WriteString(escapeText(s[last:m[0]]))
		label := strings.TrimSpace(s[m[2]:m[3]])
		if label == "" {
			label = u
		}
		b.WriteString("[" + escapeText(label) + "](" + u + ")")
		last = m[1]
	}
	b.WriteString(escapeText(s[last:]))
	return b.String()
}

// escapeText makes text inert: structural characters get a backslash and
// mentions, references and URLs are broken with a word joiner.
func escapeText(s string) string { return report.EscapeInline(s, alsoEscaped) }
