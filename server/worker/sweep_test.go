package worker

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polylane/polylane/server/githubtest"
)

// sweepSettle bounds how long a flow may take to converge after a fault.
const sweepSettle = time.Minute

// sweepCall is one GitHub API call of a flow's clean trace.
type sweepCall struct {
	Index  int // the simulator's API index, counted from the flow's start
	Method string
	Path   string
	Write  bool
	Phase  string // the job kind that made it
}

func (c sweepCall) key() string { return c.Phase + " " + c.Method + " " + c.Path }

// sweepFaults are the faults injected at every call; faultLost only at
// writes, where the write is applied and its answer dropped. A permission
// refusal (githubtest.FaultNoPermission) is permanent: the flow cannot
// reach its clean end, so its cases check the invariants only (nothing
// duplicated, every delivery ended with a reason).
var sweepFaults = []githubtest.FaultKind{githubtest.FaultTimeout, githubtest.FaultTooManyRequests,
	githubtest.FaultSecondaryLimit, faultSecondaryBare, githubtest.FaultServerError, githubtest.FaultReset,
	githubtest.FaultConflict, githubtest.FaultNoPermission}

const faultLost = githubtest.FaultResponseLost

// faultSecondaryBare is a secondary rate limit (403) without Retry-After.
const faultSecondaryBare githubtest.FaultKind = "403-secondary-no-retry-after"

// sweepFault is the simulator's fault for a kind, at the call match picks.
func sweepFault(k githubtest.FaultKind, at int, match func(githubtest.Call) bool) githubtest.Fault {
	f := githubtest.Fault{Kind: k, At: at, RetryAfter: sweepRetryAfter, Match: match}
	if k == faultSecondaryBare {
		f.Kind, f.NoRetryAfter = githubtest.FaultSecondaryLimit, true
	}
	return f
}

// faultName is a fault's name in subtest names and the report.
func faultName(k githubtest.FaultKind) string {
	switch k {
	case githubtest.FaultServerError:
		return "502"
	case githubtest.FaultResponseLost:
		return "lost-response"
	}
	return string(k)
}

// sweepCase is one injected fault at one call of one flow.
type sweepCase struct {
	flow  sweepFlow
	stage int       // the stage the case starts from
	call  sweepCall // Index counts from the stage's start
	shown int       // the call's index in the whole flow, for the name
	fault githubtest.FaultKind
}

// name is the subtest name, which reproduces the case with -run.
func (c sweepCase) name() string {
	return fmt.Sprintf("%s/phase=%s/call=%02d/%s %s/fault=%s",
		c.flow.name, c.call.Phase, c.shown, c.call.Method, c.call.Path, faultName(c.fault))
}

// sweepSettings reads RELIABILITY_RUNS (default 1: `make test` runs every
// case once; RELIABILITY_FAULTS, a comma-separated list of fault names,
// narrows the cases to those faults), RELIABILITY_SEED (default 1), which
// orders the cases and
// picks when each restarts its worker, and RELIABILITY_PARALLEL, the cases
// run at once (default 8: a case mostly waits for a timeout, a
// Retry-After or a retry).
func sweepSettings(t *testing.T) (runs int, seed uint64, lanes int) {
	runs, seed, lanes = 1, 1, 8
	for _, v := range []struct {
		name string
		dst  *int
	}{{"RELIABILITY_RUNS", &runs}, {"RELIABILITY_PARALLEL", &lanes}} {
		if s := os.Getenv(v.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				t.Fatalf("%s=%q is not a positive number", v.name, s)
			}
			*v.dst = n
		}
	}
	if v := os.Getenv("RELIABILITY_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("RELIABILITY_SEED=%q is not a number", v)
		}
		seed = n
	}
	return runs, seed, lanes
}

// sampleCases keeps every case when RELIABILITY_RUNS is set (make
// test-reliability) and otherwise every second one, starting at the seed's
// parity, so that `make test` stays within CI's time on two cores with the
// race detector; `make test-reliability` runs them all.
func sampleCases(cases []sweepCase, seed uint64) []sweepCase {
	if os.Getenv("RELIABILITY_RUNS") != "" {
		return cases
	}
	var out []sweepCase
	for i, c := range cases {
		if uint64(i)%2 == seed%2 {
			out = append(out, c)
		}
	}
	return out
}

// TestReliabilitySweep discovers the GitHub calls of each flow from clean
// runs, then, for every call index, injects a timeout, a 429 with
// Retry-After, a secondary rate limit (403) with and without Retry-After, a
// 502, a connection reset, a 409, a permission refusal (403 "Resource not
// accessible by integration") and, at writes, a committed write whose
// answer is lost. The worker's retries
// run, and at a moment the seed picks after the fault the worker is
// stopped (its running job cancelled) and a fresh one started from the
// persisted state. Then the flow must reach the clean run's end state and
// the invariants of checkInvariants must hold.
func TestReliabilitySweep(t *testing.T) {
	if testing.Short() {
		t.Skip("the reliability sweep is not short")
	}
	runs, seed, lanes := sweepSettings(t)
	base := newSweepBase(t)
	snaps := makeSnapshots(t, base)
	var cases []sweepCase
	for _, f := range sweepFlows() {
		cases = append(cases, flowCases(t, base, snaps, f)...)
	}
	cases = sampleCases(cases, seed)
	tally := &sweepTally{start: time.Now(), runs: runs, seed: seed}
	type job struct {
		c     sweepCase
		name  string
		delay time.Duration
	}
	queue := make(chan job)
	var wg sync.WaitGroup
	for range lanes {
		wg.Go(func() {
			for j := range queue {
				t.Run(j.name, func(t *testing.T) {
					start := time.Now()
					failed := 0
					defer func() { tally.add(j.c, !t.Failed(), failed, time.Since(start)) }()
					failed = runCase(t, base, snaps, j.c, j.delay)
				})
			}
		})
	}
	for run := 1; run <= runs; run++ {
		rng := rand.New(rand.NewPCG(seed, uint64(run)))
		order := append([]sweepCase(nil), cases...)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, c := range order {
			name := c.name()
			if runs > 1 {
				name = fmt.Sprintf("run=%d/%s", run, name)
			}
			queue <- job{c: c, name: name, delay: time.Duration(rng.IntN(1500)) * time.Millisecond}
		}
	}
	close(queue)
	wg.Wait()
	tally.report(t, lanes)
}

// flowCases discovers each stage's calls and lists a case per fault and call of the stage's phases.
func flowCases(t *testing.T, base *sweepBase, snaps map[string]sweepSnapshot, f sweepFlow) []sweepCase {
	t.Helper()
	var full []sweepCall
	var out []sweepCase
	for i, st := range f.stages {
		// A case checks that its fault hit exactly the call it names, so a
		// trace that changed between runs fails the case, not silently
		// another call.
		trace := discover(t, base, snaps, f, i)
		offset := 0
		if i == 0 {
			full = trace
			t.Logf("%s: %d API calls (%d writes)\n%s", f.name, len(trace), writesIn(trace), traceText(trace))
		} else {
			offset = len(full) - len(trace)
			if offset < 0 || !sameTrace(full[offset:], trace) {
				t.Fatalf("%s stage %d does not replay the end of the flow:\n%s\n---\n%s", f.name, i, traceText(full), traceText(trace))
			}
		}
		for _, call := range trace {
			if st.phases != nil && !st.phases[call.Phase] {
				continue
			}
			faults := sweepFaults
			if call.Write {
				faults = append(append([]githubtest.FaultKind(nil), sweepFaults...), faultLost)
			}
			for _, k := range faults {
				if only := os.Getenv("RELIABILITY_FAULTS"); only != "" && !slices.Contains(strings.Split(only, ","), faultName(k)) {
					continue // a developer's run of some faults only
				}
				out = append(out, sweepCase{flow: f, stage: i, call: call, shown: call.Index + offset, fault: k})
			}
		}
	}
	return out
}

// openStage brings a fresh app to the start of a flow's stage: the
// snapshot's store, the worker running, the stage's setup done.
func openStage(t testing.TB, base *sweepBase, snaps map[string]sweepSnapshot, f sweepFlow, stage int) (*sweepApp, *flowState) {
	t.Helper()
	st := f.stages[stage]
	s := &flowState{}
	db := ""
	if st.snapshot != "" {
		snap, ok := snaps[st.snapshot]
		if !ok {
			t.Fatalf("no snapshot %q", st.snapshot)
		}
		db = snap.db
		*s = snap.state
		s.accepted = append([]string(nil), snap.state.accepted...)
	}
	a := newSweepApp(t, base, db)
	a.startWorker(t, true)
	if st.setup != nil {
		st.setup(t, a, s)
	}
	a.sim.ResetRecording()
	a.tr.reset()
	return a, s
}

// discover runs a stage of a flow without faults, checks the flow's end
// state and returns the stage's API calls with the phase of each.
func discover(t *testing.T, base *sweepBase, snaps map[string]sweepSnapshot, f sweepFlow, stage int) []sweepCall {
	t.Helper()
	a, s := openStage(t, base, snaps, f, stage)
	f.stages[stage].start(t, a, s)
	a.settle(t, sweepSettle)
	f.expect(t, a, s)
	if failed := a.checkInvariants(t, s); failed != 0 {
		t.Errorf("%s: %d job attempts failed without a fault", f.name, failed)
	}
	if t.Failed() {
		t.Fatalf("%s: the clean run fails; logs:\n%s", f.name, a.logs)
	}
	var out []sweepCall
	for _, c := range a.sim.APICalls() {
		out = append(out, sweepCall{Index: c.APIIndex, Method: c.Method, Path: c.Path, Write: c.Write, Phase: a.tr.phaseOf(c.APIIndex)})
	}
	a.stopWorker(t)
	return out
}

func sameTrace(x, y []sweepCall) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i].key() != y[i].key() {
			return false
		}
	}
	return true
}

func traceText(tr []sweepCall) string {
	var b strings.Builder
	for _, c := range tr {
		fmt.Fprintf(&b, "%3d %s\n", c.Index, c.key())
	}
	return b.String()
}

func writesIn(tr []sweepCall) int {
	n := 0
	for _, c := range tr {
		if c.Write {
			n++
		}
	}
	return n
}

// runCase replays a flow from the case's stage with the fault, restarts the
// worker restartDelay after the fault fired, waits for the queue to settle
// and checks the end state and the invariants; it returns the number of
// failed job attempts.
func runCase(t *testing.T, base *sweepBase, snaps map[string]sweepSnapshot, c sweepCase, restartDelay time.Duration) int {
	a, s := openStage(t, base, snaps, c.flow, c.stage)
	fired := make(chan struct{})
	var once sync.Once
	target := c.call
	h := a.sim.InjectFault(sweepFault(c.fault, target.Index, func(call githubtest.Call) bool {
		if call.APIIndex != target.Index || call.Method != target.Method || call.Path != target.Path {
			return false
		}
		once.Do(func() { close(fired) })
		return true
	}))
	c.flow.stages[c.stage].start(t, a, s)
	select {
	case <-fired:
	case <-time.After(sweepSettle):
		t.Fatalf("the fault did not fire: call %d is no longer %s %s", target.Index, target.Method, target.Path)
	}
	time.Sleep(restartDelay)
	a.stopWorker(t)
	a.startWorker(t, true)
	a.settle(t, sweepSettle)
	if h.Hits() != 1 {
		t.Fatalf("the fault fired %d times", h.Hits())
	}
	if c.fault != githubtest.FaultNoPermission {
		c.flow.expect(t, a, s)
	}
	failed := a.checkInvariants(t, s)
	if t.Failed() {
		t.Logf("restarted %s after the fault; logs:\n%s", restartDelay, a.logs)
	}
	return failed
}

// sweepTally counts the cases run and passed.
type sweepTally struct {
	mu       sync.Mutex
	start    time.Time
	runs     int
	seed     uint64
	total    int
	passed   int
	byFault  map[string][2]int
	byPhase  map[string][2]int
	failedAt int // job attempts that failed, over all cases
	slowest  time.Duration
}

func (s *sweepTally) add(c sweepCase, ok bool, failed int, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byFault == nil {
		s.byFault, s.byPhase = map[string][2]int{}, map[string][2]int{}
	}
	bump := func(m map[string][2]int, k string) {
		v := m[k]
		v[0]++
		if ok {
			v[1]++
		}
		m[k] = v
	}
	s.total++
	if ok {
		s.passed++
	}
	bump(s.byFault, faultName(c.fault))
	bump(s.byPhase, c.flow.name+"/"+c.call.Phase)
	s.failedAt += failed
	s.slowest = max(s.slowest, took)
}

// report logs the counts and, with RELIABILITY_REPORT set, appends them to
// that file.
func (s *sweepTally) report(t *testing.T, lanes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "reliability sweep (%s %s/%s, %d CPUs, race detector %s): runs %d, seed %d, %d cases at once\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), map[bool]string{true: "on", false: "off"}[raceDetector], s.runs, s.seed, lanes)
	fmt.Fprintf(&b, "  %d/%d cases passed in %s (slowest case %s); %d job attempts failed and were retried\n",
		s.passed, s.total, time.Since(s.start).Round(time.Second), s.slowest.Round(time.Millisecond), s.failedAt)
	for _, m := range []struct {
		title string
		rows  map[string][2]int
	}{{"by fault", s.byFault}, {"by flow/phase", s.byPhase}} {
		keys := make([]string, 0, len(m.rows))
		for k := range m.rows {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "  %s:\n", m.title)
		for _, k := range keys {
			fmt.Fprintf(&b, "    %-28s %4d run, %4d passed\n", k, m.rows[k][0], m.rows[k][1])
		}
	}
	t.Log(b.String())
	if path := os.Getenv("RELIABILITY_REPORT"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprint(f, b.String())
			f.Close()
		}
	}
}
