package worker

import (
	"sync"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/gha"
	"github.com/polylane/polylane/causal/diagnosis"
)

// maxBaselineLines bounds the lines held by the baseline cache, summed over
// its entries (a line is one 64-bit key and its map slot).
const maxBaselineLines = 1 << 20

// baselineKey names one job of one passing run of one repository.
type baselineKey struct {
	repoID, runID int64
	job           string
}

// baselineCache keeps the baselines read from passing runs' logs across
// diagnoses, so that the failures of one commit and job cost one log
// download between them. A passing run without that job's log is kept as a
// nil baseline, so it is not asked for again either. Oldest entries go first
// once maxBaselineLines is reached. The zero value is ready to use.
type baselineCache struct {
	mu    sync.Mutex
	m     map[baselineKey]*analysis.Baseline
	order []baselineKey
	lines int
}

// of wraps read with the cache for one repository.
func (c *baselineCache) of(repoID int64, read diagnosis.BaselineFunc) diagnosis.BaselineFunc {
	return func(pass gha.Run, job string) (*analysis.Baseline, error) {
		k := baselineKey{repoID, pass.ID, job}
		c.mu.Lock()
		b, ok := c.m[k]
		c.mu.Unlock()
		if ok {
			return b, nil
		}
		b, err := read(pass, job)
		if err != nil {
			return nil, err // a failed read is tried again next time
		}
		c.put(k, b)
		return b, nil
	}
}

func (c *baselineCache) put(k baselineKey, b *analysis.Baseline) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[baselineKey]*analysis.Baseline{}
	}
	if _, ok := c.m[k]; ok {
		return
	}
	c.m[k] = b
	c.order = append(c.order, k)
	c.lines += b.Len()
	for c.lines > maxBaselineLines && len(c.order) > 1 {
		old := c.order[0]
		c.order = c.order[1:]
		c.lines -= c.m[old].Len()
		delete(c.m, old)
	}
}
