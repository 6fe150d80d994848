package accuracy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/polylane/polylane/analysis/internal/ruletrace"
)

// folds runs the report's two passes over the development logs.
//
// The development pass scores every log with every rule and records, per
// log, the hand-written phrases of the rules that matched it (ruletrace).
//
// The cross-validated pass scores each log again with only what its
// training folds support. No weight, threshold or vocabulary entry of the
// engine is learnt from data (they are constants in the code), so the one
// thing fitted to the logs is the set of phrases: a phrase that matches only
// logs of the test fold was written after that fold, and is switched off
// while the fold is scored. Folds: LogChunks by repository in 5 folds, the
// PyTorch fixtures one by one, CiDiff by project. The training folds of a
// test fold are every other development log of every data set.
type folds struct {
	cv      bool
	hits    map[string][]string        // log -> phrases matched (development pass)
	fold    map[string]string          // log -> its fold, "set/fold"
	support map[string]map[string]bool // phrase -> folds holding a log it matched
}

func newFolds() *folds {
	return &folds{hits: map[string][]string{}, fold: map[string]string{}}
}

// run scores one log: analyse runs every Analyze call that scores it.
func (f *folds) run(log, fold string, analyse func()) {
	var off map[string]bool
	if f.cv {
		off = map[string]bool{}
		for p, in := range f.support {
			if len(in) == 1 && in[fold] {
				off[p] = true
			}
		}
	}
	tr := ruletrace.New(off)
	remove := ruletrace.Install(tr)
	analyse()
	remove()
	if !f.cv {
		f.hits[log] = tr.Take()
		f.fold[log] = fold
	}
}

// crossValidate ends the development pass: later runs score each log with
// the phrases its training folds support.
func (f *folds) crossValidate() {
	f.support = map[string]map[string]bool{}
	for log, ps := range f.hits {
		for _, p := range ps {
			if f.support[p] == nil {
				f.support[p] = map[string]bool{}
			}
			f.support[p][f.fold[log]] = true
		}
	}
	f.cv = true
}

// oneLog returns the phrases that matched exactly one development log, and
// the number of phrases that matched any.
func (f *folds) oneLog() (one []string, fired int) {
	count := map[string]int{}
	for _, ps := range f.hits {
		for _, p := range ps {
			count[p]++
		}
	}
	for p, n := range count {
		if n == 1 {
			one = append(one, p)
		}
	}
	sort.Strings(one)
	return one, len(count)
}

// oneFold returns the number of phrases all of whose logs lie in one fold:
// those the cross-validated pass switches off somewhere.
func (f *folds) oneFold() int {
	n := 0
	for _, in := range f.support {
		if len(in) == 1 {
			n++
		}
	}
	return n
}

func (f *folds) rulesRow() row {
	one, fired := f.oneLog()
	quoted := make([]string, len(one))
	for i, p := range one {
		quoted[i] = fmt.Sprintf("%q", p)
	}
	got := fmt.Sprintf("%d of %d phrases that fire; %d fire in one fold only", len(one), fired, f.oneFold())
	if len(one) > 0 {
		got += ": " + strings.Join(quoted, ", ")
	}
	return row{set: fmt.Sprintf("all development logs (%d)", len(f.hits)), measure: "hand-written rule phrases that fire on exactly one log", got: got,
		reference: "a phrase written for one log is a symptom"}
}

// fiveFolds assigns repositories to 5 folds in name order, round robin.
func fiveFolds(repos []string) map[string]int {
	sorted := append([]string(nil), repos...)
	sort.Strings(sorted)
	out := map[string]int{}
	i := 0
	for _, r := range sorted {
		if _, ok := out[r]; ok {
			continue
		}
		out[r] = i % 5
		i++
	}
	return out
}

// ciDiffProject is the project of a CiDiff case: its name without the
// trailing build number ("google_auto_693" -> "google_auto").
func ciDiffProject(name string) string {
	if i := strings.LastIndexByte(name, '_'); i > 0 {
		return name[:i]
	}
	return name
}
