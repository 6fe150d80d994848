package history

// ngramBuckets is the number of hash buckets of an n-gram count vector.
const ngramBuckets = 64

// ngrams holds hashed 4-gram counts of a text (Kubernetes triage's prefilter).
type ngrams [ngramBuckets]uint16

// ngramCounts hashes every 4-byte window of s into one of 64 buckets
// (multiplicative hashing of the window read as a 32-bit word).
func ngramCounts(s string) ngrams {
	var g ngrams
	for i := 0; i+4 <= len(s); i++ {
		w := uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
		h := (w * 2654435761) >> 26
		if g[h] < 0xffff {
			g[h]++
		}
	}
	return g
}

// editLowerBound is a lower bound of the edit distance between the texts of
// two count vectors: one edit changes at most four 4-grams on each side, so at
// most 8 units of the L1 difference of the counts. Hash collisions only shrink
// the difference, so the bound holds.
func editLowerBound(a, b *ngrams) int {
	d := 0
	for i := range a {
		x, y := int(a[i]), int(b[i])
		if x > y {
			d += x - y
		} else {
			d += y - x
		}
	}
	return (d + 7) / 8
}

// boundedEditDistance returns the Levenshtein distance between a and b when it
// is at most limit, and limit+1 otherwise. It only fills the diagonal band of
// width 2*limit+1 and stops as soon as a whole row exceeds the limit, so the
// cost is O(limit * len) rather than O(len^2).
func boundedEditDistance(a, b string, limit int) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > limit {
		return limit + 1
	}
	over := limit + 1
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = min(j, over)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		cur[lo-1] = over
		if lo == 1 {
			cur[0] = min(i, over)
		}
		rowMin := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j-1]+cost, prev[j]+1, cur[j-1]+1, over)
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if hi < len(b) {
			cur[hi+1] = over
		}
		if rowMin > limit {
			return over
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], over)
}
