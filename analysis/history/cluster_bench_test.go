package history

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkClusterDistinct clusters failures whose signatures are all
// different and unrelated, the worst case for the fuzzy merge: the bounds on
// candidates and precise checks keep the growth near linear.
//
//	go test ./analysis/history -run '^$' -bench ClusterDistinct -benchtime 1x -cpu 1
func BenchmarkClusterDistinct(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		occs := make([]Occurrence, n)
		for i := range occs {
			words := make([]byte, 0, 80)
			for len(words) < 70 {
				words = append(words, "abcdefghijklmnopqrstuvwxyz "[rng.IntN(27)])
			}
			occs[i] = occ(int64(i+1), stepTests, fmt.Sprintf("failure %s", words))
		}
		b.Run(fmt.Sprintf("failures=%d", n), func(b *testing.B) {
			for b.Loop() {
				if classes := Cluster(occs, nil); len(classes) < n/2 {
					b.Fatalf("%d classes for %d unrelated signatures", len(classes), n)
				}
			}
		})
	}
}
