package analysis

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// maxSignatureBytes bounds the length of a signature.
const maxSignatureBytes = 300

// Normalize masks the volatile parts of a log line so that the same failure
// reads the same in every run: timestamps (<ts>), durations (<dur>), ephemeral
// ports (<port>), public IP addresses (<ip>), hex ids and addresses (<hex>),
// UUIDs (<uuid>), long numbers (<n>), pod-name suffixes (<pod>), temp paths
// (<tmp>) and the line numbers of stack frames. It keeps what identifies the
// failure: loopback and private endpoints such as 127.0.0.1:32443, tool and
// test names, error kinds, exit codes, compiler positions. Leading and
// trailing blanks are trimmed; inner spacing is kept as printed.
func Normalize(text string) string {
	text = strings.TrimSpace(text)
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		c := text[i]
		if boundary(text, i) {
			if rep, n := maskAt(text, i); n > 0 {
				b.WriteString(rep)
				i += n
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// boundary reports whether a token may start at s[i].
func boundary(s string, i int) bool {
	return i == 0 || !isAlnum(s[i-1])
}

func isAlnum(c byte) bool { return isDigit(c) || isLetter(c) }

func isHex(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

// maskAt tries every mask at s[i:] and returns the replacement and the number
// of bytes it covers, or n == 0.
func maskAt(s string, i int) (string, int) {
	rest := s[i:]
	if n := tempPathLen(rest); n > 0 {
		return "<tmp>", n
	}
	if n := uuidLen(rest); n > 0 {
		return "<uuid>", n
	}
	if n := timestampLen(rest); n > 0 {
		return "<ts>", n
	}
	if n := wordDateLen(rest); n > 0 {
		return "<ts>", n
	}
	if rep, n := ipLen(s, i); n > 0 {
		return rep, n
	}
	if strings.HasPrefix(rest, "0x") || strings.HasPrefix(rest, "0X") {
		j := 2
		for j < len(rest) && isHex(rest[j]) {
			j++
		}
		if j > 3 && (j == len(rest) || !isAlnum(rest[j])) {
			return "<hex>", j
		}
	}
	if n := durationLen(rest); n > 0 {
		return "<dur>", n
	}
	if rep, n := numberLike(s, i); n > 0 {
		return rep, n
	}
	if rep, n := podName(rest); n > 0 {
		return rep, n
	}
	return "", 0
}

// tokenEnd returns the length of the alphanumeric token at s.
func tokenEnd(s string) int {
	j := 0
	for j < len(s) && isAlnum(s[j]) {
		j++
	}
	return j
}

// numberLike masks hex ids, long numbers, ephemeral ports and the line
// numbers of stack frames.
func numberLike(s string, i int) (string, int) {
	rest := s[i:]
	n := tokenEnd(rest)
	if n == 0 {
		return "", 0
	}
	tok := rest[:n]
	digitsOnly, hexOnly, hasDigit, hasLetter := true, true, false, false
	for k := 0; k < n; k++ {
		c := tok[k]
		if isDigit(c) {
			hasDigit = true
		} else {
			digitsOnly = false
			hasLetter = true
			if !isHex(c) {
				hexOnly = false
			}
		}
	}
	switch {
	case hexOnly && hasDigit && hasLetter && n >= 7:
		return "<hex>", n
	case !digitsOnly:
		return "", 0
	case i > 0 && s[i-1] == ':' && ephemeralPort(s, i, tok):
		return "<port>", n
	case stackLineNumber(s, i, n):
		return "<n>", n
	case n >= 6:
		return "<n>", n
	}
	return "", 0
}

// ephemeralPort reports whether the digits after a colon are a client-side
// port: the source of "a:port->b:port", or any port in the dynamic range.
func ephemeralPort(s string, i int, tok string) bool {
	if strings.HasPrefix(s[i+len(tok):], "->") {
		return true
	}
	if len(tok) != 5 {
		return false
	}
	v := 0
	for k := 0; k < len(tok); k++ {
		v = v*10 + int(tok[k]-'0')
	}
	return v >= 32768
}

// stackLineNumber reports whether the number at s[i:i+n] is the line of a
// stack frame: "(Foo.java:123)", "(file.js:12:5)", `", line 123`, "x.go:12 +0x".
func stackLineNumber(s string, i, n int) bool {
	if i >= 6 && strings.HasSuffix(s[:i], ", line ") {
		return true
	}
	if i == 0 || s[i-1] != ':' {
		return false
	}
	after := s[i+n:]
	if strings.HasPrefix(after, " +0x") {
		return true
	}
	open := strings.LastIndexByte(s[:i], '(')
	if open < 0 || strings.IndexByte(s[open:i], ' ') >= 0 || strings.IndexByte(s[open:i], ')') >= 0 {
		return false
	}
	for len(after) > 0 && (after[0] == ':' || isDigit(after[0])) {
		after = after[1:]
	}
	return strings.HasPrefix(after, ")")
}

// uuidLen matches 8-4-4-4-12 hex digits.
func uuidLen(s string) int {
	if len(s) < 36 {
		return 0
	}
	for k := 0; k < 36; k++ {
		switch k {
		case 8, 13, 18, 23:
			if s[k] != '-' {
				return 0
			}
		default:
			if !isHex(s[k]) {
				return 0
			}
		}
	}
	if len(s) > 36 && isAlnum(s[36]) {
		return 0
	}
	return 36
}

// durationUnits are the units a measured duration may carry.
var durationUnits = []string{"seconds", "second", "secs", "sec", "minutes", "minute", "mins", "min", "ms", "µs", "us", "ns", "s", "m", "h"}

// durationLen matches measured durations: a decimal number with a time unit
// ("0.52s", "310.03 seconds"), a decimal with 3 or more fractional digits, or
// a compound Go duration ("1m30.5s", "2h3m"). Whole numbers with a unit
// ("30min", "2000ms") are configured limits and are kept.
func durationLen(s string) int {
	j := 0
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j == 0 {
		return 0
	}
	frac := 0
	if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		k := j + 1
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		frac = k - j - 1
		j = k
	}
	if u := unitLen(s[j:]); u > 0 {
		end := j + u
		// compound durations: 1m30s, 2h3m4.5s
		for {
			k := end
			for k < len(s) && (isDigit(s[k]) || s[k] == '.') {
				k++
			}
			if k == end {
				break
			}
			if v := unitLen(s[k:]); v > 0 && (k+v == len(s) || !isLetter(s[k+v])) {
				end = k + v
				frac = 1
				continue
			}
			break
		}
		if frac > 0 {
			return end
		}
		return 0
	}
	if frac >= 3 && (j == len(s) || (!isAlnum(s[j]) && s[j] != '.')) {
		return j
	}
	return 0
}

// unitLen returns the length of a duration unit at the start of s, followed
// by a non-letter.
func unitLen(s string) int {
	for _, u := range durationUnits {
		if strings.HasPrefix(s, u) && (len(s) == len(u) || !isLetter(s[len(u)])) {
			return len(u)
		}
	}
	return 0
}

// ipLen masks public IPv4 addresses and ephemeral ports after any address.
// Loopback and private addresses identify a harness endpoint and are kept.
func ipLen(s string, i int) (string, int) {
	rest := s[i:]
	var oct [4]int
	j := 0
	for k := 0; k < 4; k++ {
		start := j
		v := 0
		for j < len(rest) && isDigit(rest[j]) && j-start < 3 {
			v = v*10 + int(rest[j]-'0')
			j++
		}
		if j == start || v > 255 {
			return "", 0
		}
		oct[k] = v
		if k < 3 {
			if j >= len(rest) || rest[j] != '.' {
				return "", 0
			}
			j++
		}
	}
	if j < len(rest) && (isAlnum(rest[j]) || rest[j] == '.' && j+1 < len(rest) && isDigit(rest[j+1])) {
		return "", 0
	}
	private := oct[0] == 127 || oct[0] == 10 || (oct[0] == 172 && oct[1] >= 16 && oct[1] < 32) || (oct[0] == 192 && oct[1] == 168) || oct[0] == 0
	addr := rest[:j]
	if !private {
		addr = "<ip>"
	}
	return addr, j
}

// tempPathLen matches a path under a temporary directory.
func tempPathLen(s string) int {
	if !(strings.HasPrefix(s, "/tmp/") || strings.HasPrefix(s, "/var/folders/") || strings.HasPrefix(s, "/private/var/") ||
		strings.HasPrefix(s, "/home/runner/work/_temp/") || strings.HasPrefix(s, "/__w/_temp/") || strings.HasPrefix(s, "/tmp.")) {
		if len(s) < 3 || !(isLetter(s[0]) && s[1] == ':' && s[2] == '\\') || !strings.Contains(pathToken(s), "\\Temp\\") {
			return 0
		}
	}
	return len(pathToken(s))
}

// pathToken returns the path at the start of s, up to a blank, a quote or a
// closing bracket.
func pathToken(s string) string {
	j := 0
	for j < len(s) {
		switch s[j] {
		case ' ', '\t', '"', '\'', ')', ']', '}', ',', ';', '`':
			return s[:j]
		case ':':
			if j+1 == len(s) || s[j+1] == ' ' {
				return s[:j]
			}
		}
		j++
	}
	return s
}

// podName masks the random suffixes of Kubernetes pod names:
// "web-7d9c8f6b5d-x2x7q" -> "web-<pod>", "job-x2x7q" -> "job-<pod>".
func podName(s string) (string, int) {
	j := 0
	for j < len(s) && (isAlnum(s[j]) || s[j] == '-') && s[j] < 0x80 {
		j++
	}
	if j < len(s) && s[j] == '.' && j+1 < len(s) && isAlnum(s[j+1]) {
		return "", 0 // a host or file name
	}
	tok := s[:j]
	parts := strings.Split(tok, "-")
	if len(parts) < 2 {
		return "", 0
	}
	last := parts[len(parts)-1]
	if len(last) != 5 || !podAlphabet(last) {
		return "", 0
	}
	cut := len(parts) - 1
	if cut >= 2 {
		h := parts[cut-1]
		if len(h) >= 8 && len(h) <= 10 && podAlphabet(h) {
			cut--
		}
	}
	if !strings.ContainsAny(last, "0123456789") && cut == len(parts)-1 {
		return "", 0
	}
	return strings.Join(parts[:cut], "-") + "-<pod>", j
}

// podAlphabet reports whether s uses only Kubernetes' random-name alphabet.
func podAlphabet(s string) bool {
	for k := 0; k < len(s); k++ {
		if !strings.ContainsRune("bcdfghjklmnpqrstvwxz2456789", rune(s[k])) {
			return false
		}
	}
	return true
}

// SignatureID returns a short stable id of a signature: the first 8 bytes of
// its SHA-256, in hex.
func SignatureID(sig string) string {
	h := sha256.Sum256([]byte(sig))
	return hex.EncodeToString(h[:8])
}

// truncateUTF8 cuts s to at most n bytes on a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
