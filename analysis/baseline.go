package analysis

import (
	"fmt"
	"io"
	"strings"
)

// DefaultBaselineLines bounds the number of distinct lines a Baseline keeps.
const DefaultBaselineLines = 1 << 19

// Baseline is the set of normalised lines of passing logs of one job. It is
// bounded: once full it stops growing. Lookups use a coarser key than
// Normalize (every digit run and hex id collapses), hashed to 64 bits.
type Baseline struct {
	keys map[uint64]struct{}
	max  int
}

// NewBaseline returns an empty baseline.
func NewBaseline() *Baseline {
	return &Baseline{keys: make(map[uint64]struct{}), max: DefaultBaselineLines}
}

// Add reads one passing log and adds its lines.
func (b *Baseline) Add(r io.Reader) error {
	sc := NewScanner(r, Options{})
	for sc.Scan() {
		if len(b.keys) >= b.max {
			continue
		}
		text := sc.bytes()
		if !hasVisible(text) {
			continue
		}
		b.keys[baselineKey(text)] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read baseline log: %w", err)
	}
	return nil
}

// Len returns the number of distinct lines held (0 for a nil baseline).
func (b *Baseline) Len() int {
	if b == nil {
		return 0
	}
	return len(b.keys)
}

// Contains reports whether a line (raw or cleaned) occurs in the baseline.
func (b *Baseline) Contains(line string) bool {
	if b == nil {
		return false
	}
	sc := NewScanner(strings.NewReader(line), Options{})
	if !sc.Scan() {
		return false
	}
	return b.hasLine(sc.bytes())
}

func (b *Baseline) hasLine(text []byte) bool {
	if b == nil || len(b.keys) == 0 {
		return false
	}
	_, ok := b.keys[baselineKey(text)]
	return ok
}

// baselineKey hashes a cleaned line with FNV-1a after collapsing blanks,
// digit runs and hex ids, without allocating.
func baselineKey(text []byte) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	walkKey(text, func(c byte) bool { h = (h ^ uint64(c)) * prime; return true })
	return h
}

// walkKey passes put the bytes baselineKey hashes, until put returns false:
// blanks collapsed to one space, digit runs and hex or long ids to '#'.
func walkKey(text []byte, put func(byte) bool) {
	space := false
	for i := 0; i < len(text); {
		c := text[i]
		if c == ' ' || c == '\t' {
			space = true
			i++
			continue
		}
		if space {
			if !put(' ') {
				return
			}
			space = false
		}
		if isAlnum(c) && (i == 0 || !isAlnum(text[i-1])) {
			j, hexOnly, digit := i, true, false
			for j < len(text) && isAlnum(text[j]) {
				if isDigit(text[j]) {
					digit = true
				} else if !isHex(text[j]) {
					hexOnly = false
				}
				j++
			}
			if digit && (hexOnly || j-i >= 20) {
				if !put('#') {
					return
				}
				i = j
				continue
			}
		}
		if isDigit(c) {
			if !put('#') {
				return
			}
			for i < len(text) && isDigit(text[i]) {
				i++
			}
			continue
		}
		if !put(c) {
			return
		}
		i++
	}
}

// keyHead is the first two bytes baselineKey hashes for text: a cheap
// filter in front of the hash, which reads the whole line.
func keyHead(text []byte) uint16 {
	var out [2]byte
	n := 0
	walkKey(text, func(c byte) bool { out[n] = c; n++; return n < len(out) })
	return uint16(out[0])<<8 | uint16(out[1])
}
