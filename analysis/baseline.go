package analysis

// Baseline is the set of normalised lines of passing logs of one job. It is
// bounded: once full it stops growing, and lookups stay exact for what it holds.
type Baseline struct {
	seen map[uint64]struct{}
	max  int
}
