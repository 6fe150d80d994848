package impact

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// rule decides whether a change reaches one deploy edge. weight says how
// much a negative reason is worth telling: 0 when the rule did not look at
// the file, 1 for a general reason, 2 for one about this very file.
type rule interface {
	reach(c Change) (hit bool, reason string, weight int)
}

// deployEdge is an Edge with the rules that decide what reaches it.
type deployEdge struct {
	Edge
	rules []rule
}

// reach applies the rules in order: the first hit wins; otherwise the first
// relevant negative reason, or a generic one.
func (e *deployEdge) reach(c Change) (bool, string) {
	why, best := "", 0
	for _, r := range e.rules {
		hit, reason, weight := r.reach(c)
		if hit {
			return true, reason
		}
		if weight > best {
			why, best = reason, weight
		}
	}
	if why == "" {
		why = fmt.Sprintf("%s is not among the files that build or publish it", c.Path)
	}
	return false, why
}

// pathRule matches one file.
type pathRule struct {
	path string
	why  string
}

func (r pathRule) reach(c Change) (bool, string, int) {
	if c.Path == r.path {
		return true, fmt.Sprintf("%s %s", c.Path, r.why), 2
	}
	return false, "", 0
}

// dirRule matches every file under a directory.
type dirRule struct {
	dir string
	why string
}

func (r dirRule) reach(c Change) (bool, string, int) {
	if _, ok := within(r.dir, c.Path); ok {
		return true, fmt.Sprintf("%s %s", c.Path, r.why), 2
	}
	return false, "", 0
}

// dockerRule adapts a dockerBuild.
type dockerRule struct{ b *dockerBuild }

func (r dockerRule) reach(c Change) (bool, string, int) {
	hit, why := r.b.reach(c)
	return hit, why, 1
}

// jobSpan is the line range of one job in a workflow file.
type jobSpan struct {
	id       string
	from, to int
}

// jobRule matches changes to the workflow that publishes: anywhere in a
// publishing job, or outside every job (triggers, env, permissions).
type jobRule struct {
	file    string
	name    string
	publish map[string]bool
	spans   []jobSpan
}

func (r jobRule) reach(c Change) (bool, string, int) {
	if c.Path != r.file {
		return false, "", 0
	}
	var others []string
	for _, l := range c.Lines {
		span := r.spanOf(l)
		switch {
		case span == nil:
			return true, fmt.Sprintf("%s changes workflow-level settings of %s, which publishes", c.Path, r.name), 2
		case r.publish[span.id]:
			return true, fmt.Sprintf("%s changes job %s of %s, the job that publishes", c.Path, span.id, r.name), 2
		default:
			others = appendOnce(others, span.id)
		}
	}
	if len(c.Lines) == 0 {
		return true, fmt.Sprintf("%s is the workflow that publishes (%s)", c.Path, r.name), 2
	}
	return false, fmt.Sprintf("%s changes only job %s, which does not publish; %s publishes from job %s",
		c.Path, strings.Join(others, ", "), r.name, strings.Join(sortedKeys(r.publish), ", ")), 2
}

// spanOf returns the job whose lines hold l.
func (r jobRule) spanOf(l int) *jobSpan {
	for i := range r.spans {
		if l >= r.spans[i].from && l <= r.spans[i].to {
			return &r.spans[i]
		}
	}
	return nil
}

// treeRule matches harness files executed by the publishing job: the tasks,
// targets and scripts its run: steps reach.
type treeRule struct {
	repo  *harness.Repo
	trees []*harness.Node
	job   string
	wf    string
}

func (r treeRule) reach(c Change) (bool, string, int) {
	for _, t := range r.trees {
		if t != nil && treeTouches(r.repo, t, c) {
			return true, fmt.Sprintf("%s runs in the publishing job %s of %s", c.Path, r.job, r.wf), 2
		}
	}
	return false, "", 0
}

// goSourceRule matches Go source that is compiled into release binaries.
type goSourceRule struct{}

func (goSourceRule) reach(c Change) (bool, string, int) {
	base := path.Base(c.Path)
	if (strings.HasSuffix(base, ".go") && !strings.HasSuffix(base, "_test.go") && !testPath(c.Path)) ||
		base == "go.mod" || base == "go.sum" {
		return true, fmt.Sprintf("%s is Go source compiled into the published binaries", c.Path), 2
	}
	return false, "", 0
}

// sourceRule matches product source, which a release is built from.
type sourceRule struct{}

func (sourceRule) reach(c Change) (bool, string, int) {
	if productSource(c.Path) {
		return true, fmt.Sprintf("%s is product source the release is built from", c.Path), 2
	}
	return false, "", 0
}

// appendOnce appends s unless present.
func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// sortedKeys returns the keys of a set in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
