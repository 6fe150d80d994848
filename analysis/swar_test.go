package analysis

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestWordAtATimeMatchesBytes compares the eight-byte paths of lowerASCII
// and hasControl with a byte loop over every byte value in every position.
func TestWordAtATimeMatchesBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 20000; n++ {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
			if r.IntN(4) > 0 {
				b[i] = byte(32 + r.IntN(95)) // mostly printable, as logs are
			}
		}
		want := bytes.Clone(b)
		ctrl := false
		for i, c := range want {
			if c >= 'A' && c <= 'Z' {
				want[i] = c + 32
			}
			if (c < ' ' && c != '\t') || c == 0x7f {
				ctrl = true
			}
		}
		if got := lowerASCII(nil, b); !bytes.Equal(got, want) {
			t.Fatalf("lowerASCII(%q) = %q, want %q", b, got, want)
		}
		if got := hasControl(b); got != ctrl {
			t.Fatalf("hasControl(%q) = %v, want %v", b, got, ctrl)
		}
	}
	for c := 0; c < 256; c++ {
		b := bytes.Repeat([]byte{byte(c)}, 9)
		want := c >= 'A' && c <= 'Z'
		if got := lowerASCII(nil, b); (got[0] != byte(c)) != want || got[8] != got[0] {
			t.Fatalf("byte %#x lowered to %#x", c, got[0])
		}
	}
}
