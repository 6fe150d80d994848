package analysis

import (
	"bytes"

	"github.com/polylane/polylane/analysis/internal/ruletrace"
)

// phraseSet answers containsAny for a fixed list of phrases in one pass over
// the line instead of one pass per phrase: the phrases are indexed by their
// first two bytes, and at each position of the line only the phrases that
// start with its two bytes are compared. For the long lists (the generic
// wrapper phrases are sixty) the per-phrase scans were a quarter of the
// analysis time on real logs.
//
// The answer, and which phrase the rule trace records, are containsAny's:
// of the phrases that occur, the first in list order that the trace allows.
type phraseSet struct {
	phrases []string
	// bucket maps a phrase's first two bytes to 1 + its index in starts.
	bucket *[1 << 16]uint8
	// bigrams has a bit for each key of bucket in use, a cache-sized
	// filter in front of it.
	bigrams *[1 << 10]uint64
	// trigrams and twos are lexicon's second filter: a hash of the first
	// three bytes of the longer phrases, the first two of the two-byte ones.
	trigrams, twos *[1 << 10]uint64
	starts         [][]uint8
	// short are the indices of phrases of one byte, found with IndexByte.
	short []uint8
}

// newPhraseSet indexes at most 256 phrases, none empty.
func newPhraseSet(phrases ...string) *phraseSet {
	if len(phrases) > 256 {
		panic("phraseSet: more than 256 phrases")
	}
	p := &phraseSet{phrases: phrases, bucket: new([1 << 16]uint8), bigrams: new([1 << 10]uint64),
		trigrams: new([1 << 10]uint64), twos: new([1 << 10]uint64)}
	for i, s := range phrases {
		switch len(s) {
		case 0:
			panic("phraseSet: empty phrase")
		case 1:
			p.short = append(p.short, uint8(i))
			continue
		}
		k := uint16(s[0])<<8 | uint16(s[1])
		if p.bucket[k] == 0 {
			if len(p.starts) == 255 {
				panic("phraseSet: more than 255 distinct phrase starts")
			}
			p.starts = append(p.starts, nil)
			p.bucket[k] = uint8(len(p.starts))
			p.bigrams[k>>6] |= 1 << (k & 63)
		}
		if len(s) == 2 {
			p.twos[k>>6] |= 1 << (k & 63)
		} else {
			t := trigramKey(s[0], s[1], s[2])
			p.trigrams[t>>6] |= 1 << (t & 63)
		}
		p.starts[p.bucket[k]-1] = append(p.starts[p.bucket[k]-1], uint8(i))
	}
	return p
}

// any reports whether b contains one of the phrases that the rule trace
// allows.
func (p *phraseSet) any(b []byte) bool {
	var seen [4]uint64
	found, traced := false, ruletrace.On()
	for i := 0; i+1 < len(b); i++ {
		key := uint16(b[i])<<8 | uint16(b[i+1])
		if p.bigrams[key>>6]&(1<<(key&63)) == 0 {
			continue
		}
		if p.twos[key>>6]&(1<<(key&63)) == 0 {
			if i+2 >= len(b) {
				continue
			}
			if t := trigramKey(b[i], b[i+1], b[i+2]); p.trigrams[t>>6]&(1<<(t&63)) == 0 {
				continue
			}
		}
		k := p.bucket[key]
		for _, j := range p.starts[k-1] {
			s := p.phrases[j]
			if len(b)-i >= len(s) && string(b[i:i+len(s)]) == s {
				if !traced {
					return true
				}
				seen[j>>6] |= 1 << (j & 63)
				found = true
			}
		}
	}
	for _, j := range p.short {
		if bytes.IndexByte(b, p.phrases[j][0]) >= 0 {
			seen[j>>6] |= 1 << (j & 63)
			found = true
		}
	}
	if !found {
		return false
	}
	for j, s := range p.phrases {
		if seen[j>>6]&(1<<(j&63)) != 0 && ruletrace.Allow(s) {
			return true
		}
	}
	return false
}

// The phrase lists that every line is tested against.
var (
	genericSet    = newPhraseSet(genericPhrases...)
	adviceSet     = newPhraseSet(advicePhrases...)
	definitiveSet = newPhraseSet(definitive...)
	softenerSet   = newPhraseSet(softeners...)
	retrySet      = newPhraseSet(retryWords...)
	resolutionSet = newPhraseSet(resolutionPhrases...)
	connectionSet = newPhraseSet(connectionPhrases...)
	// testFailureMarks (lower case) and testFailureWords (as printed) are
	// the marks test runners put on a failed test's line.
	testFailureMarks = newPhraseSet("<<< failure!", "<<< error!", " ... fail", " ... error", "[fail]", " failed on line", "[failed]", " fail: ", " - failed", ": failed.")
	testFailureWords = newPhraseSet(" FAILED", " FAIL ", " FAIL:", "FAILED CONSISTENTLY")
	// errorStatementPhrases state an error in a tool's voice.
	// The logfmt and JSON level fields of structured loggers (logrus,
	// zap, slog: `level=error msg="…"`) are the tool's own severity.
	errorStatementPhrases = newPhraseSet(": error", ": fatal", " error:", "error -", " err!", "failed to ", ": failed", "not found", "does not exist", "doesn't exist", "unable to", "could not", "cannot ", "no such",
		"level=error ", "level=fatal ", `"level":"error"`, `"level":"fatal"`,
		// `python -m x` without x installed: "…/bin/python: No module named x"
		": no module named ")
	// assertionWords mark an assertion's values.
	assertionWords = newPhraseSet("expected", "actual", "got:", "but was", "assert", "==", "!=")
)
