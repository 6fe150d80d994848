package redact

import (
	"regexp"
	"strings"
)

// Prefix starts every redacted form; Marker completes it.
const Prefix = "[redacted: "

// Marker is what replaces a secret of the given kind: "[redacted: kind]".
func Marker(kind string) string { return Prefix + kind + "]" }

// mask is what GitHub prints in place of a registered secret.
const mask = "***"

// Secret says that a secret of a kind was removed from a numbered line
// (1-based; 0 when the line is not known). It never holds the secret.
type Secret struct {
	Kind string `json:"kind"`
	Line int    `json:"line,omitempty"`
}

// pattern is one row of the table. The match of re is replaced by the
// marker, except the named groups "keep" (kept before it) and "tail" (kept
// after it); what lies between them is the secret.
type pattern struct {
	// kind names the secret; nil kindOf uses it.
	kind string
	// kindOf names the secret from the group "key" (a key name or flag),
	// when the kind depends on it.
	kindOf func(key string) string
	// needles are lower-case literals one of which the text must hold for
	// re to be tried; pre, when set, is a finer check run after them.
	needles []string
	pre     func(s string) bool
	re      *regexp.Regexp
	// accept, when set, says whether a candidate secret is one; a
	// candidate it refuses is left as it is.
	accept func(secret string) bool
	// prose, when set, says whether a match is a sentence rather than an
	// assignment (key, value and the text after it); it is left as it is.
	prose func(key, value, after string) bool
}

// String returns s with every secret the table recognises replaced by its
// marker.
func String(s string) string {
	out, _ := Line(s)
	return out
}

// Line returns s with every secret the table recognises replaced by its
// marker, and the kinds it replaced, each once, in table order.
func Line(s string) (string, []string) {
	var kinds []string
	// A replacement only removes text and adds markers, which no row
	// matches: the candidates found on the input stay valid.
	cand := candidates(s)
	for i := range table {
		p := &table[i]
		if cand&(1<<i) == 0 || p.pre != nil && !p.pre(s) {
			continue
		}
		out, found := p.apply(s)
		s = out
		for _, k := range found {
			kinds = addKind(kinds, k)
		}
	}
	return s, kinds
}

// Contains reports whether s holds a secret the table recognises.
func Contains(s string) bool {
	_, kinds := Line(s)
	return len(kinds) > 0
}

func addKind(kinds []string, k string) []string {
	for _, have := range kinds {
		if have == k {
			return kinds
		}
	}
	return append(kinds, k)
}

// apply replaces the pattern's matches in s and returns the kinds replaced.
func (p *pattern) apply(s string) (string, []string) {
	ms := p.re.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s, nil
	}
	keep, tail, key := p.re.SubexpIndex("keep"), p.re.SubexpIndex("tail"), p.re.SubexpIndex("key")
	var b strings.Builder
	var kinds []string
	last := 0
	for _, m := range ms {
		start, end := m[0], m[1]
		if keep >= 0 && m[2*keep] >= 0 {
			start = m[2*keep+1]
		}
		if tail >= 0 && m[2*tail] >= 0 {
			end = m[2*tail]
		}
		secret := s[start:end]
		if !p.secret(secret) {
			continue
		}
		if p.prose != nil && key >= 0 && m[2*key] >= 0 && p.prose(s[m[2*key]:m[2*key+1]], secret, s[end:]) {
			continue
		}
		kind := p.kind
		if p.kindOf != nil && key >= 0 && m[2*key] >= 0 {
			kind = p.kindOf(s[m[2*key]:m[2*key+1]])
		}
		b.WriteString(s[last:start])
		b.WriteString(Marker(kind))
		kinds = addKind(kinds, kind)
		last = end
	}
	if kinds == nil {
		return s, nil
	}
	b.WriteString(s[last:])
	return b.String(), kinds
}

// secret reports whether a candidate is a secret to redact: not empty, not
// one of GitHub's masks (alone or quoted), not a marker already, and
// accepted by the pattern.
func (p *pattern) secret(c string) bool {
	if strings.TrimSpace(c) == "" || masked(c) || strings.Contains(c, Prefix) {
		return false
	}
	return p.accept == nil || p.accept(c)
}

// masked reports whether c is nothing but GitHub's "***" masks, with
// quotes, blanks and separators around them: what remains without the masks
// holds no letter or digit. "abc***def" is not masked.
func masked(c string) bool {
	if !strings.Contains(c, mask) {
		return false
	}
	rest := strings.ReplaceAll(c, mask, "")
	for i := 0; i < len(rest); i++ {
		if isAlnum(rest[i]) {
			return false
		}
	}
	return true
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// AddSecret appends s to list unless list already holds it.
func AddSecret(list []Secret, s Secret) []Secret {
	for _, have := range list {
		if have == s {
			return list
		}
	}
	return append(list, s)
}
