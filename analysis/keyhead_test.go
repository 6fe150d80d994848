package analysis

import (
	"math/rand/v2"
	"testing"
)

// TestKeyHeadIsTheFirstHashedByte checks the filter in front of the restate
// hash: lines whose keys are equal have equal heads, so the filter never
// hides a restated failure. Lines are drawn from pieces that the key
// normalises (numbers, hex ids, long tokens, blanks) and compared by the key.
func TestKeyHeadIsTheFirstHashedByte(t *testing.T) {
	pieces := []string{"12", "7", "deadbeef1", "cafe", "abc123", "Z9xyzqwertyuiopasdfghj", "a1b2c3d4e5f6a7b8c9d0", "test", "Foo", " ", "\t", "  ", "x.go:12", ":", "-", "✗", "ok"}
	r := rand.New(rand.NewPCG(1, 2))
	heads := map[uint64]uint16{}
	for i := 0; i < 200000; i++ {
		var b []byte
		for n := 1 + r.IntN(4); n > 0; n-- {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		k, h := baselineKey(b), keyHead(b)
		if prev, ok := heads[k]; ok && prev != h {
			t.Fatalf("%q: head %#04x, another line with the same key had %#04x", b, h, prev)
		}
		heads[k] = h
	}
	if keyHead([]byte("12 tests failed")) != keyHead([]byte("7 tests failed")) {
		t.Fatal("numbers must share a head")
	}
}
