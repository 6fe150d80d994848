package redact

import "strings"

// needle is a lower-case literal and the row of the table it admits.
type needle struct {
	text string
	row  int
}

// byFirst lists the needles by their first byte, in both cases, so that
// one pass over a line finds the rows worth trying.
// The table has at most 64 rows (TestTableFitsCandidates).
var byFirst = func() (idx [256][]needle) {
	for row, p := range table {
		for _, n := range p.needles {
			c := n[0]
			idx[c] = append(idx[c], needle{n, row})
			if c >= 'a' && c <= 'z' {
				idx[c-'a'+'A'] = append(idx[c-'a'+'A'], needle{n, row})
			}
		}
	}
	return idx
}()

// pairs holds, one bit per pair of lower-case bytes, the first two bytes
// of every needle: most positions of a line are dismissed by one lookup.
var pairs = func() (set [1 << 16 / 64]uint64) {
	for _, p := range table {
		for _, n := range p.needles {
			k := uint16(n[0])<<8 | uint16(n[1])
			set[k/64] |= 1 << (k % 64)
		}
	}
	return set
}()

// candidates returns the rows of the table (bit i for row i) one of whose
// needles s holds, ignoring ASCII case. Needles are two bytes or longer.
func candidates(s string) uint64 {
	var rows uint64
	for i := 0; i+1 < len(s); i++ {
		k := uint16(fold(s[i]))<<8 | uint16(fold(s[i+1]))
		if pairs[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, n := range byFirst[s[i]] {
			if rows&(1<<n.row) == 0 && hasFoldPrefix(s[i:], n.text) {
				rows |= 1 << n.row
			}
		}
	}
	return rows
}

// fold lower-cases an ASCII letter.
func fold(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasFoldPrefix reports whether s starts with the lower-case lit, ignoring
// ASCII case.
func hasFoldPrefix(s, lit string) bool {
	if len(s) < len(lit) {
		return false
	}
	for i := 0; i < len(lit); i++ {
		if fold(s[i]) != lit[i] {
			return false
		}
	}
	return true
}

// indexFold returns the first index at or after from at which s holds the
// lower-case lit, ignoring ASCII case, or -1.
func indexFold(s, lit string, from int) int {
	for i := from; i+len(lit) <= len(s); i++ {
		if hasFoldPrefix(s[i:], lit) {
			return i
		}
	}
	return -1
}

// secretKeySuffixes end the key names whose value the key=value row
// redacts (the row's expression decides exactly).
var secretKeySuffixes = []string{"password", "passwd", "passphrase", "pwd", "secret", "key", "token", "pat", "credential", "credentials", "auth"}

// assignsSecretKey reports whether s assigns a value (":" or "=") to a key
// whose name ends like a secret's.
func assignsSecretKey(s string) bool {
	for j := 0; j < len(s); j++ {
		if s[j] != '=' && s[j] != ':' {
			continue
		}
		k := j
		for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
			k--
		}
		if k > 0 && (s[k-1] == '"' || s[k-1] == '\'') {
			k--
		}
		end := k
		for k > 0 && (isAlnum(s[k-1]) || s[k-1] == '_' || s[k-1] == '-' || s[k-1] == '.') {
			k--
		}
		name := s[k:end]
		for _, suf := range secretKeySuffixes {
			if len(name) >= len(suf) && hasFoldPrefix(name[len(name)-len(suf):], suf) {
				return true
			}
		}
	}
	return false
}

// urlWithUserinfo reports whether a URL in s has an "@" in its authority.
func urlWithUserinfo(s string) bool {
	for i := strings.Index(s, "://"); i >= 0; {
		for j := i + 3; j < len(s); j++ {
			c := s[j]
			if c == '@' {
				return true
			}
			if c == '/' || c == ' ' || c == '\t' || c == '"' || c == '\'' {
				break
			}
		}
		next := strings.Index(s[i+3:], "://")
		if next < 0 {
			break
		}
		i += 3 + next
	}
	return false
}

// credentialAfter reports whether one of the lower-case words is followed
// by blanks and then eight or more characters a credential is made of.
func credentialAfter(words ...string) func(string) bool {
	return func(s string) bool {
		for _, w := range words {
			for i := indexFold(s, w, 0); i >= 0; i = indexFold(s, w, i+1) {
				j := i + len(w)
				k := j
				for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
					k++
				}
				n := 0
				for k+n < len(s) && (isAlnum(s[k+n]) || strings.IndexByte("._~+/=-", s[k+n]) >= 0) {
					n++
				}
				if k > j && n >= 8 {
					return true
				}
			}
		}
		return false
	}
}

// assigns reports whether the lower-case word is followed, after an
// optional quote and blanks, by ":" or "=".
func assigns(word string) func(string) bool {
	return func(s string) bool {
		for i := indexFold(s, word, 0); i >= 0; i = indexFold(s, word, i+1) {
			k := i + len(word)
			if k < len(s) && (s[k] == '"' || s[k] == '\'') {
				k++
			}
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k < len(s) && (s[k] == ':' || s[k] == '=') {
				return true
			}
		}
		return false
	}
}

// flagWithValue reports whether one of the lower-case flag names follows
// "-" or "--" at the start of a word and is followed by a blank.
func flagWithValue(names ...string) func(string) bool {
	return func(s string) bool {
		for _, w := range names {
			for i := indexFold(s, w, 0); i >= 0; i = indexFold(s, w, i+1) {
				d := i
				for d > 0 && i-d < 2 && s[d-1] == '-' {
					d--
				}
				start := d < i && (d == 0 || s[d-1] == ' ' || s[d-1] == '\t')
				end := i + len(w)
				if start && end < len(s) && (s[end] == ' ' || s[end] == '\t') {
					return true
				}
			}
		}
		return false
	}
}
