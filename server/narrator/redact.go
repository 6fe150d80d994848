package narrator

import (
	"math"
	"regexp"
	"strings"
)

// Redacted replaces a secret in text sent to the model.
const Redacted = "[REDACTED]"

// secretPatterns match secrets by their shape. Each replaces the whole match
// except the named group "keep", which is kept in front of Redacted.
var secretPatterns = []*regexp.Regexp{
	// PEM private key blocks, also when the END line was cut off.
	regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?s:.*?)(-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)`),
	// GitHub tokens: personal, OAuth, user-to-server, server-to-server,
	// refresh, fine-grained.
	githubToken,
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,255}\b`),
	// AWS access key ids and secret keys given by name.
	regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b`),
	regexp.MustCompile(`(?i)(?P<keep>aws_?secret_?access_?key["']?\s*[=:]\s*["']?)[A-Za-z0-9/+=]{20,80}`),
	// Slack, npm, PyPI, Google, Stripe, OpenAI-style keys and JWTs.
	regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`),
	regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`),
	regexp.MustCompile(`\bpypi-[A-Za-z0-9_-]{50,}`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`),
	regexp.MustCompile(`\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}\b`),
	regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
	// Authorization headers and bearer or basic credentials.
	regexp.MustCompile(`(?i)(?P<keep>\b(?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}`),
	regexp.MustCompile(`(?i)(?P<keep>\bauthorization["']?\s*[:=]\s*["']?)[^\s"']{4,}(?:\s+[^\s"']{8,})?`),
	// URLs with credentials: keep the scheme, drop user and password.
	regexp.MustCompile(`(?i)(?P<keep>\b[a-z][a-z0-9+.-]{1,20}://)[^/\s:@'"]*(?::[^/\s@'"]*)?@`),
	// key=value and key: value where the key names a secret.
	regexp.MustCompile(`(?i)(?P<keep>\b[a-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?)["']?\s*[=:]\s*)(?:"[^"\n]*"|'[^'\n]*'|[^\s"',;]+)`),
}

// githubToken matches GitHub's personal, OAuth, user-to-server,
// server-to-server and refresh tokens.
var githubToken = regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,255}\b`)

// mask is what GitHub prints in place of a registered secret; it is kept
// as it is, since it is not a secret.
const mask = "***"

// Redact removes secrets and tokens from text before it is sent to a model:
// GitHub tokens, AWS keys, bearer and basic credentials, private key blocks,
// credentials in URLs, values of keys that name a secret, other well-known
// token shapes and long high-entropy strings. GitHub's "***" masks are kept.
// Commit SHAs and digests (40 or 64 hex digits) and UUIDs are not secrets and
// are kept.
func Redact(s string) string {
	for _, re := range secretPatterns {
		s = redactPattern(re, s)
	}
	return redactEntropy(s)
}

// redactPattern replaces every match of re in s with Redacted, keeping the
// group "keep" in front of it, and leaving matches that hold a "***" mask.
func redactPattern(re *regexp.Regexp, s string) string {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	keep := re.SubexpIndex("keep")
	var b strings.Builder
	last := 0
	for _, m := range ms {
		start := m[0]
		if keep >= 0 && m[2*keep] >= 0 {
			start = m[2*keep+1]
		}
		if strings.Contains(s[start:m[1]], mask) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(Redacted)
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// tokenChars matches the runs of characters secrets are made of.
var tokenChars = regexp.MustCompile(`[A-Za-z0-9+/=_.-]{20,}`)

// uuidShape matches a UUID, which identifies rather than authenticates.
var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// redactEntropy replaces long strings that look random.
func redactEntropy(s string) string {
	return tokenChars.ReplaceAllStringFunc(s, func(m string) string {
		if looksSecret(m) {
			return Redacted
		}
		return m
	})
}

// base64Shape matches a token made of base64 characters only.
var base64Shape = regexp.MustCompile(`^[A-Za-z0-9+/]+=*$`)

// looksSecret reports whether a token looks like a random credential rather
// than a word, a path, an identifier or a digest: the whole token when it
// is base64 of 32 characters or more, or one of its parts between "-",
// "_", ".", "/" and "=" of 20 or more, mixes letters and digits, switches
// between them far more often than words and identifiers do, and has a
// high Shannon entropy. Commit SHAs and digests (40 or 64 hex digits) and
// UUIDs are not secrets.
func looksSecret(tok string) bool {
	if uuidShape.MatchString(tok) {
		return false
	}
	if len(tok) >= 32 && base64Shape.MatchString(tok) && randomLooking(strings.TrimRight(tok, "="), 3.9) {
		return true
	}
	for _, part := range strings.FieldsFunc(tok, func(r rune) bool { return strings.ContainsRune("-_./=+", r) }) {
		if len(part) >= 20 && randomLooking(part, 3.5) {
			return true
		}
	}
	return false
}

// randomLooking reports whether s mixes letters and digits, switches
// between a letter and a digit in at least 15% of adjacent pairs of its
// letters and digits, and has at least the given Shannon entropy in bits
// per byte.
func randomLooking(s string, bits float64) bool {
	if isHex(s) && (len(s) == 40 || len(s) == 64) {
		return false
	}
	var letters, digits, switches, n int
	prevDigit, first := false, true
	for i := 0; i < len(s); i++ {
		b := s[i]
		isDigit := b >= '0' && b <= '9'
		isLetter := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
		if !isDigit && !isLetter {
			continue
		}
		n++
		if isDigit {
			digits++
		} else {
			letters++
		}
		if !first && isDigit != prevDigit {
			switches++
		}
		prevDigit, first = isDigit, false
	}
	if letters == 0 || digits == 0 || n < 2 {
		return false
	}
	return float64(switches) >= 0.15*float64(n-1) && entropy(s) >= bits
}

// isHex reports whether s is made of hexadecimal digits only.
func isHex(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return s != ""
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h := 0.0
	for _, c := range counts {
		if c == 0 {
			continue
		}
		p := float64(c) / float64(len(s))
		h -= p * math.Log2(p)
	}
	return h
}
