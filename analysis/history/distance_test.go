package history

import (
	"math/rand/v2"
	"testing"
)

func naiveEditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j-1]+cost, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

func TestBoundedEditDistanceMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randString := func() string {
		n := rng.IntN(30)
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcde"[rng.IntN(5)]
		}
		return string(b)
	}
	for range 3000 {
		a, b := randString(), randString()
		limit := rng.IntN(12)
		want := min(naiveEditDistance(a, b), limit+1)
		if got := boundedEditDistance(a, b, limit); got != want {
			t.Fatalf("boundedEditDistance(%q, %q, %d) = %d, want %d", a, b, limit, got, want)
		}
	}
}

func TestEditLowerBoundNeverExceedsDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		a := make([]byte, 10+rng.IntN(60))
		for i := range a {
			a[i] = "abcdefgh "[rng.IntN(9)]
		}
		b := append([]byte(nil), a...)
		for range rng.IntN(10) {
			b[rng.IntN(len(b))] = "xyz"[rng.IntN(3)]
		}
		ga, gb := ngramCounts(string(a)), ngramCounts(string(b))
		if lb, d := editLowerBound(&ga, &gb), naiveEditDistance(string(a), string(b)); lb > d {
			t.Fatalf("lower bound %d > distance %d for %q / %q", lb, d, a, b)
		}
	}
}

func TestEditDistanceCases(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 0, 0},
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 2, 3},
		{"abc", "abcdef", 2, 3},
		{"same text", "same text", 1, 0},
	}
	for _, tt := range tests {
		if got := boundedEditDistance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("boundedEditDistance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}
