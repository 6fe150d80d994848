package history

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis"
)

var t0 = time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)

// occ builds a synthetic occurrence of run id at hour id, failing step with
// one cause line; the signature is the line itself unless sig is given.
func occ(id int64, step, line string, sig ...string) Occurrence {
	s := line
	if len(sig) > 0 {
		s = sig[0]
	}
	return Occurrence{
		RunID: id, RunNumber: int(id), RunAttempt: 1, HeadSHA: fmt.Sprintf("sha%03d", id),
		CreatedAt: t0.Add(time.Duration(id) * time.Hour), JobID: id * 10, JobName: "e2e", JobBase: "e2e",
		Step: analysis.StepRef{Number: 7, Name: step}, Signature: s,
		Lines: []analysis.Line{{N: 100, Text: line, Role: analysis.RoleCause}},
	}
}

const (
	stepEnv   = "Provision environment"
	stepTests = "Run suites"
	resetLine = `from server for: "STDIN": Get "https://127.0.0.1:32443/api/v1/secrets/a": read tcp 127.0.0.1:40001->127.0.0.1:32443: read: connection reset by peer`
	resetLin2 = `from server for: "STDIN": Get "https://127.0.0.1:32443/api/v1/secrets/b": read tcp 127.0.0.1:51999->127.0.0.1:32443: read: connection reset by peer`
	eofLine   = `Unable to connect to the server: unexpected EOF`
	eofLine2  = `error validating data: failed to download openapi: Get "https://127.0.0.1:32443/openapi/v2?timeout=32s": EOF`
	otherNet  = `dial tcp 127.0.0.1:5432: connect: connection refused`
	assertion = `--- FAIL: suite/quota-enforcement (12.00s)`
	assertio2 = `--- FAIL: suite/workload-placement (131.00s)`
)

func classOf(classes []Class, run int64, step string) *Class {
	for i := range classes {
		if classes[i].Step == step && slices.Contains(classes[i].Runs, run) {
			return &classes[i]
		}
	}
	return nil
}

func TestClusterMergesVariantsOfOneCause(t *testing.T) {
	occs := []Occurrence{
		occ(1, stepEnv, resetLine), occ(5, stepEnv, eofLine), occ(9, stepEnv, resetLin2),
		occ(12, stepEnv, eofLine2), occ(20, stepEnv, resetLine),
		occ(3, stepEnv, assertion),   // an assertion failure in the same step stays apart
		occ(4, stepTests, resetLine), // same text in another step never merges
		occ(6, stepEnv, otherNet),    // the network, but another endpoint
		occ(7, stepTests, assertion), occ(8, stepTests, assertio2),
	}
	classes := Cluster(occs, nil)
	env := classOf(classes, 20, stepEnv)
	if env == nil {
		t.Fatal("no class holds run 20")
	}
	if want := []int64{20, 12, 9, 5, 1}; !slices.Equal(env.Runs, want) {
		t.Errorf("reset/EOF class runs = %v, want %v (newest first)", env.Runs, want)
	}
	if env.Count != len(env.Runs) || env.Family != FamilyNetwork || env.FirstSHA != "sha001" {
		t.Errorf("class = %+v, want count %d, family network, first sha sha001", env, len(env.Runs))
	}
	if !env.FirstSeen.Equal(t0.Add(time.Hour)) || !env.LastSeen.Equal(t0.Add(20*time.Hour)) {
		t.Errorf("first/last seen = %v/%v", env.FirstSeen, env.LastSeen)
	}
	for _, run := range []int64{3, 6} {
		if c := classOf(classes, run, stepEnv); c == nil || c.ID == env.ID || c.Count != 1 {
			t.Errorf("run %d: class %+v, want its own one-run class", run, c)
		}
	}
	if c := classOf(classes, 4, stepTests); c == nil || c.ID == env.ID {
		t.Errorf("run 4 merged across steps: %+v", c)
	}
	if a, b := classOf(classes, 7, stepTests), classOf(classes, 8, stepTests); a == nil || b == nil || a.ID == b.ID {
		t.Errorf("two different failing tests merged: %+v %+v", a, b)
	}
	if got := len(classes); got != 6 {
		t.Errorf("%d classes, want 6: %+v", got, classes)
	}
	ids := map[string]bool{}
	for _, c := range classes {
		if ids[c.ID] {
			t.Errorf("duplicate id %s", c.ID)
		}
		ids[c.ID] = true
	}
}

func TestClusterFuzzyTextMerge(t *testing.T) {
	occs := []Occurrence{
		occ(1, stepTests, "expected status Ready for pod web-7d9f8b6c5-abcde, got Pending after waiting"),
		occ(2, stepTests, "expected status Ready for pod web-5c4b3a2f1-fghij, got Pending after waiting"),
		occ(3, stepTests, "panic: runtime error: index out of range in handler"),
	}
	classes := Cluster(occs, nil)
	if len(classes) != 2 {
		t.Fatalf("%d classes, want 2: %+v", len(classes), classes)
	}
	if c := classOf(classes, 1, stepTests); c == nil || !slices.Equal(c.Runs, []int64{2, 1}) {
		t.Errorf("near-identical texts not merged: %+v", c)
	}
}

func TestClusterIDsStableWhenWindowSlides(t *testing.T) {
	first := []Occurrence{occ(1, stepEnv, resetLine), occ(5, stepEnv, eofLine), occ(7, stepTests, assertion)}
	prev := Cluster(first, nil)
	// The window slides: run 1 and 7 fall out, new runs arrive with another wording.
	second := []Occurrence{occ(5, stepEnv, eofLine), occ(30, stepEnv, eofLine2), occ(31, stepTests, assertion)}
	next := Cluster(second, prev)
	for _, pair := range []struct {
		oldRun, newRun int64
		step           string
	}{{5, 30, stepEnv}, {7, 31, stepTests}} {
		a, b := classOf(prev, pair.oldRun, pair.step), classOf(next, pair.newRun, pair.step)
		if a == nil || b == nil || a.ID != b.ID {
			t.Errorf("id changed for %s: %+v -> %+v", pair.step, a, b)
		}
	}
	// Without previous classes the ids are still deterministic.
	again := Cluster(second, nil)
	again2 := Cluster(second, nil)
	for i := range again {
		if again[i].ID != again2[i].ID {
			t.Errorf("ids not deterministic: %s vs %s", again[i].ID, again2[i].ID)
		}
	}
}

func TestClusterKeysOnJob(t *testing.T) {
	a, b := occ(1, "Install dependencies", resetLine), occ(2, "Install dependencies", resetLine)
	b.JobBase, b.JobName = "lint", "lint"
	c := occ(3, "Install dependencies", resetLine)
	c.JobName = "e2e (ubuntu, 20)" // a matrix sibling: same base name
	classes := Cluster([]Occurrence{a, b, c}, nil)
	if len(classes) != 2 {
		t.Fatalf("%d classes, want 2 (one per job): %+v", len(classes), classes)
	}
}

func TestClusterCountsRunOnce(t *testing.T) {
	a, b := occ(1, stepTests, assertion), occ(1, stepTests, assertion)
	a.JobID, b.JobID = 11, 12 // two matrix jobs of one run
	classes := Cluster([]Occurrence{a, b, occ(2, stepTests, assertion)}, nil)
	if len(classes) != 1 || classes[0].Count != 2 || !slices.Equal(classes[0].Runs, []int64{2, 1}) {
		t.Errorf("classes = %+v, want one class with runs [2 1]", classes)
	}
}

func TestSlugify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Provision Kind + Karmada environment", "provision-kind-karmada"},
		{"Install dependencies", "install-dependencies"},
		{"", ""},
		{"***", ""},
	}
	for _, tt := range tests {
		if got := slugify(tt.in, 24); got != tt.want {
			t.Errorf("slugify(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
