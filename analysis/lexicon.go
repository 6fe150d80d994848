package analysis

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/polylane/polylane/analysis/internal/ruletrace"
)

// kwSet is a bit set of word indices of the lexicon.
type kwSet [2]uint64

// maxWords is how many words a kwSet can hold.
const maxWords = len(kwSet{}) * 64

// has reports whether the word with index i was found.
func (s kwSet) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// add puts the word with index i into the set.
func (s *kwSet) add(i int) { s[i/64] |= 1 << (i % 64) }

// lexicon is the vocabulary as the per-line matcher reads it: the words of
// every family in one slice (a word's index is its bit in a kwSet), indexed
// by their first two bytes.
type lexicon struct {
	words []word
	// traceKeys name the words for ruletrace: "word: " and the word, apart
	// from the phrases of the shape rules.
	traceKeys []string
	// first marks the bytes that can start a word, a cheap filter in front
	// of the index.
	first [256]bool
	// index maps the first two bytes of a word to 1 + an index into sets.
	index *[1 << 16]uint8
	// bigrams has a bit for each key of index in use: 8 KB that stay in
	// the cache, in front of the 64 KB index.
	bigrams [1 << 10]uint64
	// trigrams has a bit for a hash of each word's first three bytes,
	// and short one for the first two bytes of words of two: common
	// bigrams ("er", "in", "co") pass the first filter, few of their
	// trigrams pass the second.
	trigrams [1 << 10]uint64
	short    [1 << 10]uint64
	sets     []kwSet
	// infra holds the words of infra and severe families, severe those of
	// severe families.
	infra, severe kwSet
}

// lex is the lexicon of the vocabulary, built once when the package is
// initialised.
var lex = buildLexicon(vocabulary)

// buildLexicon builds the matcher's tables from the families. It panics when
// checkVocabulary rejects them: a mistake in the table is a programming error
// that every test run catches.
func buildLexicon(fams []wordFamily) lexicon {
	if err := checkVocabulary(fams); err != nil {
		panic("analysis: error vocabulary: " + err.Error())
	}
	lx := lexicon{index: new([1 << 16]uint8)}
	for _, f := range fams {
		for _, w := range f.words {
			i := len(lx.words)
			lx.words = append(lx.words, w)
			lx.traceKeys = append(lx.traceKeys, "word: "+w.text)
			lx.first[w.text[0]] = true
			key := uint16(w.text[0])<<8 | uint16(w.text[1])
			if lx.index[key] == 0 {
				lx.sets = append(lx.sets, kwSet{})
				lx.index[key] = uint8(len(lx.sets))
				lx.bigrams[key>>6] |= 1 << (key & 63)
			}
			if len(w.text) == 2 {
				lx.short[key>>6] |= 1 << (key & 63)
			} else {
				t := trigramKey(w.text[0], w.text[1], w.text[2])
				lx.trigrams[t>>6] |= 1 << (t & 63)
			}
			lx.sets[lx.index[key]-1].add(i)
			switch f.meaning {
			case severeWords:
				lx.severe.add(i)
				lx.infra.add(i)
			case infraWords:
				lx.infra.add(i)
			}
		}
	}
	return lx
}

// checkVocabulary reports every mistake in a vocabulary table: a family without
// a name, words or known meaning, a duplicate family name, and any word that
// checkWord rejects or that two entries share. The matcher's bit sets bound
// the number of words.
func checkVocabulary(fams []wordFamily) error {
	var errs []error
	names := map[string]bool{}
	owner := map[string]string{} // word text -> family name
	n := 0
	for _, f := range fams {
		switch {
		case f.name == "":
			errs = append(errs, errors.New("a family has no name"))
		case names[f.name]:
			errs = append(errs, fmt.Errorf("family %q is declared twice", f.name))
		}
		names[f.name] = true
		if len(f.words) == 0 {
			errs = append(errs, fmt.Errorf("family %q has no words", f.name))
		}
		if f.meaning > severeWords {
			errs = append(errs, fmt.Errorf("family %q has unknown meaning %d", f.name, f.meaning))
		}
		for _, w := range f.words {
			n++
			if err := checkWord(w); err != nil {
				errs = append(errs, fmt.Errorf("family %q: %w", f.name, err))
				continue
			}
			if other, ok := owner[w.text]; ok {
				errs = append(errs, fmt.Errorf("family %q: word %q is already in family %q", f.name, w.text, other))
				continue
			}
			owner[w.text] = f.name
		}
	}
	if n > maxWords {
		errs = append(errs, fmt.Errorf("%d words, more than the %d the matcher holds", n, maxWords))
	}
	return errors.Join(errs...)
}

// checkWord rejects a word the matcher could not find or would misread.
func checkWord(w word) error {
	switch {
	case w.text == "":
		return errors.New("a word has empty text")
	case len(w.text) < 2:
		return fmt.Errorf("word %q is shorter than two bytes (the matcher keys on two)", w.text)
	case !bytes.Equal(lowerASCII(nil, []byte(w.text)), []byte(w.text)):
		return fmt.Errorf("word %q is not lower case (lines are matched lower-cased)", w.text)
	case w.weight < minWeight || w.weight > maxWeight:
		return fmt.Errorf("word %q has weight %d, outside %d to %d", w.text, w.weight, minWeight, maxWeight)
	case w.bound&^wholeWord != 0:
		return fmt.Errorf("word %q has unknown bound %d", w.text, w.bound)
	}
	return nil
}

// id returns the index of a word; it panics for unknown words (a programming
// error caught by every test run).
func (lx *lexicon) id(text string) int {
	for i, w := range lx.words {
		if w.text == text {
			return i
		}
	}
	panic("analysis: no vocabulary word " + text)
}

// Word indices looked up on hot paths.
var (
	kwWerror     = lex.id("werror")
	kwTreated    = lex.id("treated as error")
	kwExitCode   = lex.id("exit code")
	kwExitStatus = lex.id("exit status")
	kwExitedWith = lex.id("exited with")
	kwFail       = lex.id("fail")
)

// isInfra reports whether a line names a network, resource, permission or
// missing-file failure.
func isInfra(found kwSet) bool { return found[0]&lex.infra[0] != 0 || found[1]&lex.infra[1] != 0 }

// severe reports whether a line names a killed process or an exhausted
// resource, which makes a wrapper line worth reading.
func severe(found kwSet) bool { return found[0]&lex.severe[0] != 0 || found[1]&lex.severe[1] != 0 }

// lowerASCII appends b lower-cased (ASCII letters only) to dst.
func lowerASCII(dst, b []byte) []byte {
	n := len(dst)
	dst = append(dst, b...)
	out := dst[n:]
	i := 0
	// eight bytes at a time: a byte is an upper-case letter when it is
	// ASCII, at least 'A' and not above 'Z'; adding 0x20 is setting bit 5
	for ; i+8 <= len(out); i += 8 {
		x := binary.LittleEndian.Uint64(out[i:])
		low := x & 0x7f7f7f7f7f7f7f7f
		geA := low + 0x3f3f3f3f3f3f3f3f // bit 7 set when the byte >= 'A' (0x41)
		gtZ := low + 0x2525252525252525 // bit 7 set when the byte > 'Z' (0x5a)
		upper := ^x & (geA &^ gtZ) & 0x8080808080808080
		if upper != 0 {
			binary.LittleEndian.PutUint64(out[i:], x|upper>>2)
		}
	}
	for ; i < len(out); i++ {
		if c := out[i]; c >= 'A' && c <= 'Z' {
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
		if !lex.first[c] {
			continue
		}
		key := uint16(c)<<8 | uint16(lc[i+1])
		if lex.bigrams[key>>6]&(1<<(key&63)) == 0 {
			continue
		}
		if lex.short[key>>6]&(1<<(key&63)) == 0 {
			if i+2 >= len(lc) {
				continue
			}
			if t := trigramKey(c, lc[i+1], lc[i+2]); lex.trigrams[t>>6]&(1<<(t&63)) == 0 {
				continue
			}
		}
		si := lex.index[key]
		set := lex.sets[si-1]
		for w := 0; w < 2; w++ {
			rest := set[w]
			for rest != 0 {
				j := bits.TrailingZeros64(rest)
				rest &= rest - 1
				if found[w]&(1<<j) != 0 {
					continue
				}
				k := &lex.words[w*64+j]
				if !bytes.HasPrefix(lc[i:], []byte(k.text)) {
					continue
				}
				if (k.bound&wordStart != 0 && i > 0 && isLetter(lc[i-1])) || (k.bound&wordEnd != 0 && i+len(k.text) < len(lc) && isLetter(lc[i+len(k.text)])) {
					continue
				}
				if !k.inName && inNameToken(lc, i, len(k.text)) {
					continue
				}
				if !ruletrace.Allow(lex.traceKeys[w*64+j]) {
					continue
				}
				found[w] |= 1 << j
				score += int(k.weight)
			}
		}
	}
	return score, found
}

// trigramKey hashes three bytes to 16 bits for the trigram filter.
func trigramKey(a, b, c byte) uint16 {
	return uint16((uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9e3779b1 >> 16)
}

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
