package redact

import (
	"math"
	"regexp"
	"strings"
)

// randomKind names what Strict removes beyond the table.
const randomKind = "random-looking string"

// Strict redacts like String and also replaces long strings that look
// random (see looksSecret), for text sent to a third party such as a model.
// Commit SHAs and digests (40 or 64 hex digits) and UUIDs are kept.
func Strict(s string) string {
	return tokenChars.ReplaceAllStringFunc(String(s), func(m string) string {
		if looksSecret(m) {
			return Marker(randomKind)
		}
		return m
	})
}

// tokenChars matches the runs of characters secrets are made of.
var tokenChars = regexp.MustCompile(`[A-Za-z0-9+/=_.-]{20,}`)

// uuidShape matches a UUID, which identifies rather than authenticates.
var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

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
