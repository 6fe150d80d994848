package analysis

import (
	"bytes"
	"math/bits"
)

// keyword is one entry of the error vocabulary, matched case-insensitively
// (ASCII) anywhere in a line.
type keyword struct {
	text   string // lower case
	weight int8
	// word requires a non-letter on both sides.
	word bool
}

// vocabulary is the error vocabulary used as the per-line prefilter. Weights
// say how strongly a word speaks of a failure; the ordered rules refine them.
var vocabulary = []keyword{
	{"error", 3, false},
	{"fail", 3, false},
	{"fatal", 3, false},
	{"panic", 3, false},
	{"exception", 3, false},
	{"traceback", 3, false},
	{"abort", 2, false},
	{"segmentation fault", 4, false},
	{"core dumped", 3, false},
	{"killed", 2, true},
	{"timed out", 3, false},
	{"timeout", 2, false},
	{"deadline exceeded", 3, false},
	{"denied", 3, false},
	{"refused", 3, false},
	{"reset by peer", 3, false},
	{"econn", 3, false},
	{"etimedout", 3, false},
	{"enotfound", 3, false},
	{"eai_again", 3, false},
	{"not found", 2, false},
	{"no such ", 3, false},
	{"cannot", 2, false},
	{"can't", 2, false},
	{"could not", 2, false},
	{"couldn't", 2, false},
	{"unable to", 2, false},
	{"undefined", 2, false},
	{"unresolved", 2, false},
	{"invalid", 1, false},
	{"unexpected", 2, false},
	{"missing", 1, true},
	{"mismatch", 1, false},
	{"expected", 1, false},
	{"assert", 2, false},
	{"violation", 1, false},
	{"rate limit", 3, false},
	{"too many requests", 3, false},
	{"toomanyrequests", 3, false},
	{"unauthorized", 2, false},
	{"forbidden", 2, false},
	{"out of memory", 3, false},
	{"oom", 2, true},
	{"no space left", 3, false},
	{"exceeded", 2, false},
	{"unreachable", 2, false},
	{"crash", 2, false},
	{"refusing", 2, false},
	{"not ok", 2, true},
	{"permission", 1, false},
	{"illegal", 2, false},
	{"does not exist", 2, false},
	{"doesn't exist", 2, false},
	{"not supported", 1, false},
	{"incompatible", 1, false},
	{"conflict", 1, false},
	{"cancel", 1, false},
	{"sigint", 2, false},
	{"sigterm", 2, false},
	{"sigkill", 2, false},
	{"sigsegv", 3, false},
	{"sigabrt", 3, false},
	{"exit code", 1, false},
	{"exit status", 1, false},
	{"exited with", 1, false},
	{"non-zero", 1, false},
	{"problem", 1, true},
	{"broken", 1, true},
	{"\u2717", 3, false},  // ✗
	{"\u2716", 3, false},  // ✖
	{"\u2715", 3, false},  // ✕
	{"\u274c", 3, false},  // ❌
	{"\u00d7 ", 2, false}, // ×
}

// kwSet is a bit set of vocabulary indices (the vocabulary has fewer than 128
// entries).
type kwSet [2]uint64

// kwIndex maps the first two bytes of a keyword to 1 + an index into kwSets.
var kwIndex, kwSets = buildKWTable()

func buildKWTable() (*[1 << 16]uint8, []kwSet) {
	idx := new([1 << 16]uint8)
	sets := []kwSet{}
	for i, k := range vocabulary {
		key := uint16(k.text[0])<<8 | uint16(k.text[1])
		if idx[key] == 0 {
			sets = append(sets, kwSet{})
			idx[key] = uint8(len(sets))
		}
		sets[idx[key]-1][i/64] |= 1 << (i % 64)
	}
	return idx, sets
}

// kwFirst marks the bytes that can start a keyword, a cheap filter in front
// of the table lookup.
var kwFirst = func() (t [256]bool) {
	for _, k := range vocabulary {
		t[k.text[0]] = true
	}
	return t
}()

// lowerASCII appends b lower-cased (ASCII letters only) to dst.
func lowerASCII(dst, b []byte) []byte {
	n := len(dst)
	dst = append(dst, b...)
	out := dst[n:]
	for i, c := range out {
		if c >= 'A' && c <= 'Z' {
			out[i] = c + 32
		}
	}
	return dst
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// vocabScore sums the weights of the vocabulary words found in the lower-cased
// line lc (each word counted once) and returns a bit set of the words found.
func vocabScore(lc []byte) (score int, found kwSet) {
	for i := 0; i+1 < len(lc); i++ {
		c := lc[i]
		if !kwFirst[c] {
			continue
		}
		si := kwIndex[uint16(c)<<8|uint16(lc[i+1])]
		if si == 0 {
			continue
		}
		set := kwSets[si-1]
		for w := 0; w < 2; w++ {
			rest := set[w]
			for rest != 0 {
				j := bits.TrailingZeros64(rest)
				rest &= rest - 1
				idx := w*64 + j
				if found[w]&(1<<j) != 0 {
					continue
				}
				k := &vocabulary[idx]
				if !bytes.HasPrefix(lc[i:], []byte(k.text)) {
					continue
				}
				if k.word && ((i > 0 && isLetter(lc[i-1])) || (i+len(k.text) < len(lc) && isLetter(lc[i+len(k.text)]))) {
					continue
				}
				found[w] |= 1 << j
				score += int(k.weight)
			}
		}
	}
	return score, found
}

// has reports whether the vocabulary word with the given text was found.
func (s kwSet) has(text string) bool {
	for i, k := range vocabulary {
		if k.text == text {
			return s[i/64]&(1<<(i%64)) != 0
		}
	}
	return false
}
