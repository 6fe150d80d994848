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
	// left and right require a non-letter before and after the word.
	left, right bool
	// inName lets the word count inside a name token such as "-Werror".
	inName bool
}

// vocabulary is the error vocabulary used as the per-line prefilter. Weights
// say how strongly a word speaks of a failure; the ordered rules refine them.
var vocabulary = []keyword{
	{"error", 3, false, false, false},
	{"fail", 3, false, false, false},
	{"fatal", 3, false, false, false},
	{"panic", 3, false, false, false},
	{"exception", 3, false, false, false},
	{"traceback", 3, false, false, false},
	{"abort", 2, false, false, false},
	{"segmentation fault", 4, false, false, false},
	{"core dumped", 3, false, false, false},
	{"killed", 2, true, true, false},
	{"timed out", 3, false, false, false},
	{"timeout", 2, false, false, false},
	{"took >", 3, false, false, false},
	{"took more than", 3, false, false, false},
	{"took longer than", 3, false, false, false},
	{"time limit", 3, false, false, false},
	{"deadline exceeded", 3, false, false, false},
	{"denied", 3, false, false, false},
	{"refused", 3, false, false, false},
	{"reset by peer", 3, false, false, false},
	{"econn", 3, true, false, false},
	{"etimedout", 3, true, false, false},
	{"enotfound", 3, true, false, false},
	{"eai_again", 3, true, false, false},
	{"not found", 2, false, false, false},
	{"no such ", 3, false, false, false},
	{"cannot", 2, false, false, false},
	{"can't", 2, false, false, false},
	{"could not", 2, false, false, false},
	{"couldn't", 2, false, false, false},
	{"unable to", 2, false, false, false},
	{"undefined", 2, false, false, false},
	{"unresolved", 2, false, false, false},
	{"invalid", 1, false, false, false},
	{"unexpected", 2, false, false, false},
	{"missing", 1, true, true, false},
	{"mismatch", 1, false, false, false},
	{"expected", 1, false, false, false},
	{"assert", 2, false, false, false},
	{"violation", 1, false, false, false},
	{"rate limit", 3, false, false, false},
	{"too many requests", 3, false, false, false},
	{"toomanyrequests", 3, false, false, false},
	{"unauthorized", 2, false, false, false},
	{"forbidden", 2, false, false, false},
	{"out of memory", 3, false, false, false},
	{"outofmemory", 3, false, false, false}, // java.lang.OutOfMemoryError
	{"heap space", 3, false, false, false},  // "Java heap space", "JVM heap space is exhausted"
	{"oom", 2, true, true, false},
	{"no space left", 3, false, false, false},
	{"exceeded", 2, false, false, false},
	{"unreachable", 2, false, false, false},
	{"crash", 2, false, false, false},
	{"refusing", 2, false, false, false},
	{"not ok", 2, true, true, false},
	{"permission", 1, false, false, false},
	{"illegal", 2, false, false, false},
	{"does not exist", 2, false, false, false},
	{"doesn't exist", 2, false, false, false},
	{"not supported", 1, false, false, false},
	{"incompatible", 1, false, false, false},
	{"conflict", 1, false, false, false},
	{"cancel", 1, false, false, false},
	{"sigint", 2, false, false, false},
	{"sigterm", 2, false, false, false},
	{"sigkill", 2, false, false, false},
	{"sigsegv", 3, false, false, false},
	{"sigabrt", 3, false, false, false},
	{"exit code", 1, false, false, true},
	{"exit status", 1, false, false, true},
	{"exited with", 1, false, false, true},
	{"werror", 3, false, true, true},
	{"treated as error", 3, false, false, true},
	{"non-zero", 1, false, false, false},
	{"problem", 1, true, true, false},
	{"broken", 1, true, true, false},
	{"\u2717", 3, false, false, false},  // ✗
	{"\u2716", 3, false, false, false},  // ✖
	{"\u2715", 3, false, false, false},  // ✕
	{"\u2718", 3, false, false, false},  // ✘ (Playwright's failed test)
	{"\u274c", 3, false, false, false},  // ❌
	{"\u00d7 ", 2, false, false, false}, // ×
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
				if (k.left && i > 0 && isLetter(lc[i-1])) || (k.right && i+len(k.text) < len(lc) && isLetter(lc[i+len(k.text)])) {
					continue
				}
				if !k.inName && inNameToken(lc, i, len(k.text)) {
					continue
				}
				found[w] |= 1 << j
				score += int(k.weight)
			}
		}
	}
	return score, found
}

// kwID returns the vocabulary index of a word; it panics for unknown words
// (a programming error caught by every test run).
func kwID(text string) int {
	for i, k := range vocabulary {
		if k.text == text {
			return i
		}
	}
	panic("analysis: no vocabulary word " + text)
}

// Vocabulary indices looked up on hot paths.
var (
	kwWerror     = kwID("werror")
	kwTreated    = kwID("treated as error")
	kwExitCode   = kwID("exit code")
	kwExitStatus = kwID("exit status")
	kwExitedWith = kwID("exited with")
	kwFail       = kwID("fail")
)

// has reports whether the vocabulary word with index i was found.
func (s kwSet) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// inNameToken reports whether the word at lc[i:i+n] sits inside a path, a
// URL or a file name ("src/Error.hs", "libgpg-error", "Error.swift"), where it
// names something rather than reports a failure.
func inNameToken(lc []byte, i, n int) bool {
	ts := i
	for ts > 0 && lc[ts-1] != ' ' && lc[ts-1] != '\t' {
		ts--
	}
	te := i + n
	for te < len(lc) && lc[te] != ' ' && lc[te] != '\t' {
		te++
	}
	tok := lc[ts:te]
	if bytes.IndexByte(tok, '/') >= 0 || bytes.IndexByte(tok, '\\') >= 0 {
		return true
	}
	if i > ts && (lc[i-1] == '-' || lc[i-1] == '_') || i+n < te && lc[i+n] == '_' {
		return true // "libgpg-error", "on_error", "error_page"
	}
	for k := i + n; k+1 < te; k++ {
		if lc[k] == '.' && isLetter(lc[k+1]) {
			return true
		}
		if !isLetter(lc[k]) {
			break
		}
	}
	return false
}
