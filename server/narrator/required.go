package narrator

import (
	"path"
	"strconv"
	"strings"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
)

// checkRequired rejects a wording that drops a fact the deterministic text
// states, or names another mechanism category.
func (c *checker) checkRequired(d *diagnosis.Diagnosis, w Wording) {
	if d == nil {
		return
	}
	summary, both := normText(w.Summary), normText(w.Summary+"\n"+w.WhyFix)
	if step := normText(d.Failure.Step.Name); step != "" && !strings.Contains(summary, step) {
		c.fail("the summary does not name the failing step %s", d.Failure.Step.Name)
	}
	if cls := d.TriggerCluster(); cls != nil && d.Window.Runs > 0 {
		nums := numberSet(w.Summary)
		for _, n := range []int{cls.Count, d.Window.Runs} {
			if !nums[strconv.Itoa(n)] {
				c.fail("the summary does not give the class count and window size (%s)", strconv.Itoa(n))
			}
		}
	}
	if ch := d.Chain; ch != nil && ch.Mechanism.Category.Known() {
		if !saysMechanism(both, ch.Mechanism.Category) {
			c.fail("the wording does not say the mechanism %s", string(ch.Mechanism.Category))
		}
		for _, cat := range causal.Categories() {
			lit := string(cat)
			if cat.Literal() && cat != ch.Mechanism.Category && strings.Contains(both, lit) && !c.g.contains(lit) {
				c.fail("the wording names another mechanism %s", lit)
			}
		}
	}
	if p := d.Patch; p != nil {
		for i, f := range p.Files {
			if i == 3 {
				break
			}
			if !strings.Contains(both, normText(f.Path)) && !strings.Contains(both, normText(path.Base(f.Path))) {
				c.fail("the wording does not name the patched file %s", f.Path)
			}
		}
	}
	if d.Verdict.Kind == history.Regression && d.Verdict.FirstBadSHA != nil && len(*d.Verdict.FirstBadSHA) >= 7 {
		if short := strings.ToLower((*d.Verdict.FirstBadSHA)[:7]); !strings.Contains(both, short) {
			c.fail("the wording does not name the first bad commit %s", short)
		}
	}
}

// saysMechanism reports whether normalised text names the category or one
// of its plain-language words.
func saysMechanism(text string, category causal.Category) bool {
	name := string(category)
	if strings.Contains(text, name) || strings.Contains(text, strings.ReplaceAll(name, "-", " ")) {
		return true
	}
	for _, w := range category.Words() {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// numberSet returns the canonical numbers of s, digits and spelled out.
func numberSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, n := range append(scanNumbers(s), spelledNumbers(s)...) {
		if c, ok := canonNumber(n); ok {
			set[c] = true
		}
	}
	return set
}

// normText lower-cases text, turns quotes, backticks and runs of white
// space into single spaces, so that a name is found however it is quoted.
func normText(s string) string {
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		switch r {
		case '`', '"', '\'', '“', '”', '‘', '’', '«', '»', '*', '_':
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
