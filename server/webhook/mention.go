package webhook

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/polylane/polylane/server/jobs"
)

// Bounds of mention parsing: a comment is hostile input.
const (
	// MaxCommands is the number of commands one comment may give; later
	// ones are ignored.
	MaxCommands = 5
	// MaxCommandArgs bounds the arguments of one command, in bytes.
	MaxCommandArgs = 1000
	// maxCommentScan bounds the bytes of a comment that are read.
	maxCommentScan = 65536
)

// Command is one "@polylane <name> [args]" line of a comment (jobs.Command).
type Command = jobs.Command

// ParseMentions returns the commands a comment gives to any of handles
// (logins without "@", such as "polylane"), in order, at most MaxCommands.
// A command is a line that starts (after at most three spaces) with
// "@handle" followed by a command word; "@handle" alone is a request for
// help. Lines inside fenced code blocks, indented code, block quotes and
// HTML comments are not commands, and neither is a mention in the middle of
// a sentence.
func ParseMentions(body string, handles []string) []Command {
	if len(body) > maxCommentScan {
		body = body[:maxCommentScan]
	}
	body = strings.ToValidUTF8(strings.ReplaceAll(body, "\r\n", "\n"), "\uFFFD")
	var out []Command
	var s scanState
	for _, line := range strings.Split(body, "\n") {
		if !s.prose(line) {
			continue
		}
		if c, ok := parseCommandLine(line, handles); ok {
			out = append(out, c)
			if len(out) == MaxCommands {
				break
			}
		}
	}
	return out
}

// scanState follows the markdown structure that hides a line from the
// command parser: fenced code and HTML comments.
type scanState struct {
	fence   string // the opening fence ("```", "~~~~", …) while inside one
	comment bool   // inside an HTML comment
}

// prose reports whether line is ordinary text that may hold a command, and
// advances the state past fences and comments.
func (s *scanState) prose(line string) bool {
	trimmed, indent := trimIndent(line)
	switch {
	case s.fence != "":
		if f := fenceOf(trimmed); indent < 4 && f != "" && f[0] == s.fence[0] && len(f) >= len(s.fence) &&
			strings.TrimSpace(trimmed[len(f):]) == "" {
			s.fence = ""
		}
		return false
	case s.comment:
		if strings.Contains(line, "-->") {
			s.comment = false
		}
		return false
	case indent >= 4:
		return false // indented code
	}
	if f := fenceOf(trimmed); f != "" {
		s.fence = f
		return false
	}
	if strings.HasPrefix(trimmed, "<!--") {
		s.comment = !strings.Contains(trimmed[4:], "-->")
		return false
	}
	return !strings.HasPrefix(trimmed, ">")
}

// trimIndent drops leading blanks and returns the indentation width (a tab
// counts as four).
func trimIndent(line string) (string, int) {
	width := 0
	for i, r := range line {
		switch r {
		case ' ':
			width++
		case '\t':
			width += 4 - width%4
		default:
			return line[i:], width
		}
	}
	return "", width
}

// fenceOf returns the code fence a line opens with (three or more
// backticks or tildes), or "".
func fenceOf(s string) string {
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 || (s[0] == '`' && strings.Contains(s[n:], "`")) {
		return ""
	}
	return s[:n]
}

// parseCommandLine reads "@handle command args" from a prose line.
func parseCommandLine(line string, handles []string) (Command, bool) {
	trimmed, _ := trimIndent(line)
	rest, ok := strings.CutPrefix(trimmed, "@")
	if !ok {
		return Command{}, false
	}
	matched := false
	for _, h := range handles {
		if h != "" && len(rest) >= len(h) && strings.EqualFold(rest[:len(h)], h) && wordEnds(rest[len(h):]) {
			rest, matched = rest[len(h):], true
			break
		}
	}
	if !matched {
		return Command{}, false
	}
	rest = strings.TrimLeft(rest, ":,")
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return Command{Name: "help"}, true
	}
	name := strings.ToLower(strings.TrimRight(fields[0], ".,:;!?"))
	if !commandWord(name) {
		return Command{Name: "?"}, true // not a word: answered with the usage
	}
	args := strings.TrimSpace(strings.TrimSpace(rest)[len(fields[0]):])
	return Command{Name: name, Args: clipArgs(strings.Join(strings.Fields(args), " "))}, true
}

// wordEnds reports whether the text after a handle ends the handle (so that
// "@polylane-dev" does not match "polylane").
func wordEnds(s string) bool {
	if s == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '[')
}

// commandWord reports a plausible command name: letters, digits and dashes,
// at most 32 bytes.
func commandWord(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// clipArgs bounds arguments to MaxCommandArgs bytes on a rune boundary.
func clipArgs(s string) string {
	if len(s) <= MaxCommandArgs {
		return s
	}
	cut := MaxCommandArgs
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
