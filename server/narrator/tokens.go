package narrator

import (
	"regexp"
	"strings"
)

// Token shapes that generated text may only use when the diagnosis holds
// them. The same scanners read the diagnosis and the generated text.
var (
	urlPattern      = regexp.MustCompile(`(?i)\b(?:https?|ftp|ssh|git|wss?|file)://[^\s<>()\[\]{}"'\x60]+`)
	pairPattern     = regexp.MustCompile(`([\w./~+-]*[\w.~+-]):(\d{1,7})\b`)
	hexPattern      = regexp.MustCompile(`\b[0-9a-fA-F]{7,64}\b`)
	ipPattern       = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}\b`)
	evidencePattern = regexp.MustCompile(`\bE\d{1,4}\b`)
	mentionPattern  = regexp.MustCompile(`(?:^|[^\w@./+-])@([A-Za-z0-9][A-Za-z0-9-]{0,38}(?:/[A-Za-z0-9._-]+)?)`)
	pathToken       = regexp.MustCompile(`[\w./~+-]+`)
	fileShape       = regexp.MustCompile(`^[\w.+~-]*[A-Za-z0-9_~-]\.[A-Za-z][A-Za-z0-9]{0,9}$`)
	numberRun       = regexp.MustCompile(`\d[\d.,]*\d|\d`)
)

// wellKnownFiles are file names without an extension that name harness
// files.
var wellKnownFiles = map[string]bool{
	"Makefile": true, "makefile": true, "GNUmakefile": true, "Dockerfile": true, "Containerfile": true,
	"Taskfile": true, "Justfile": true, "justfile": true, "Jenkinsfile": true, "Earthfile": true,
	"Gemfile": true, "Rakefile": true, "Procfile": true, "Vagrantfile": true, "Pipfile": true, "Brewfile": true,
}

// slashWords are ordinary words joined by a slash, which are not paths.
var slashWords = map[string]bool{
	"and/or": true, "either/or": true, "read/write": true, "input/output": true, "on/off": true,
	"yes/no": true, "true/false": true, "pass/fail": true, "client/server": true, "stdin/stdout": true,
	"stdout/stderr": true, "tcp/ip": true, "i/o": true, "n/a": true, "w/o": true, "start/stop": true,
	"success/failure": true, "before/after": true, "he/she": true, "his/her": true,
}

// abbreviations look like file names but are not.
var abbreviations = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "a.k.a": true, "cf": true}

// trimURL drops the punctuation that ends a sentence after a URL.
// A URL that a quote clipped ends in "…"; what is left of it is checked as
// the beginning of a URL of the diagnosis.
func trimURL(u string) string { return strings.TrimRight(u, ".,;:!?…") }

// pathTokens returns the tokens of s that look like file paths, host names
// or dotted identifiers: they hold a "/" between names, end in ".ext", or
// are a well-known harness file name. URLs are not included.
func pathTokens(s string) []string {
	var out []string
	for _, loc := range pathToken.FindAllStringIndex(s, -1) {
		if loc[0] >= 3 && s[loc[0]-3:loc[0]] == "://" || loc[1]+3 <= len(s) && s[loc[1]:loc[1]+3] == "://" {
			continue
		}
		if tok, ok := pathLike(s[loc[0]:loc[1]]); ok {
			out = append(out, tok)
		}
	}
	return out
}

// pathLike trims a token and reports whether it looks like a path.
func pathLike(tok string) (string, bool) {
	tok = strings.TrimRight(tok, ".,-")
	tok = strings.TrimLeft(tok, "-")
	if tok == "" || abbreviations[strings.ToLower(tok)] {
		return "", false
	}
	if wellKnownFiles[tok] {
		return tok, true
	}
	if strings.Contains(tok, "/") {
		if slashWords[strings.ToLower(tok)] || !hasLetters(tok) || numericSlash(tok) {
			return "", false
		}
		parts := strings.FieldsFunc(tok, func(r rune) bool { return r == '/' })
		if len(parts) == 0 {
			return "", false
		}
		return tok, true
	}
	if fileShape.MatchString(tok) {
		return tok, true
	}
	return "", false
}

// numericSlash reports whether every part between slashes starts with a
// digit, as in "6x/10s" or "3/5".
func numericSlash(tok string) bool {
	for _, p := range strings.Split(tok, "/") {
		if p != "" && (p[0] < '0' || p[0] > '9') {
			return false
		}
	}
	return true
}

func hasLetters(s string) bool {
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return true
		}
	}
	return false
}

// numberSpan is one number found in text: its canonical text and span.
type numberSpan struct {
	text       string
	start, end int
}

// findNumbers returns the numbers of s: digit runs that do not continue a
// word (so "E2E", "v1" and "sha256" hold none), with "1,234" read as one
// number and "1.5" as a decimal. Dotted runs of more than two parts
// ("1.2.3") count as separate numbers.
func findNumbers(s string) []numberSpan {
	var out []numberSpan
	for _, loc := range numberRun.FindAllStringIndex(s, -1) {
		if loc[0] > 0 && isWordByte(s[loc[0]-1]) {
			continue
		}
		run := s[loc[0]:loc[1]]
		if loc[1] < len(s) && isWordByte(s[loc[1]]) && ordinalAt(s, loc[1]) {
			continue
		}
		for _, part := range splitNumber(run) {
			out = append(out, numberSpan{text: part, start: loc[0], end: loc[1]})
		}
	}
	return out
}

// scanNumbers returns the numbers of s as text.
func scanNumbers(s string) []string {
	var out []string
	for _, n := range findNumbers(s) {
		out = append(out, n.text)
	}
	return out
}

// splitNumber splits a run of digits, dots and commas into numbers.
func splitNumber(run string) []string {
	if thousands.MatchString(run) {
		return []string{run}
	}
	var out []string
	for _, p := range strings.Split(run, ",") {
		dots := strings.Count(p, ".")
		switch {
		case p == "":
		case dots <= 1:
			out = append(out, strings.Trim(p, "."))
		default:
			for _, q := range strings.Split(p, ".") {
				if q != "" {
					out = append(out, q)
				}
			}
		}
	}
	return out
}

var thousands = regexp.MustCompile(`^\d{1,3}(?:,\d{3})+(?:\.\d+)?$`)

// ordinalAt reports whether the letters at i make an ordinal suffix
// ("1st", "2nd", "3rd", "4th") that ends the word.
func ordinalAt(s string, i int) bool {
	if i+2 > len(s) {
		return false
	}
	suf := strings.ToLower(s[i : i+2])
	if suf != "st" && suf != "nd" && suf != "rd" && suf != "th" {
		return false
	}
	return i+2 == len(s) || !isWordByte(s[i+2])
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// numberWords are spelled-out numbers a wording may use for a count. "one"
// and "zero" are left out: they are mostly pronouns and articles.
var numberWords = map[string]string{
	"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
	"nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
	"fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19",
	"twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
	"eighty": "80", "ninety": "90", "hundred": "100",
}

// wordPattern matches a run of letters.
var wordPattern = regexp.MustCompile(`[A-Za-z]+`)

// spelledNumbers returns the spelled-out numbers of s, as digits.
func spelledNumbers(s string) []string {
	var out []string
	for _, w := range wordPattern.FindAllString(s, -1) {
		if n, ok := numberWords[strings.ToLower(w)]; ok {
			out = append(out, n)
		}
	}
	return out
}
