package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/jackc/pgx/v5"

	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/server/githubtest"
)

// replica is one `polylane serve` process of the two-replica test.
type replica struct {
	name string
	cmd  *exec.Cmd
	logs *lockedBuffer
	url  string

	mu       sync.Mutex
	clientID string // the River client that works its jobs
	exited   chan struct{}
}

// startReplica starts serve in its own process (the test binary acting as
// polylane) and waits until it listens, is ready and its queue client has
// started. It may run on another goroutine than the test's, so it returns
// its error.
func startReplica(t *testing.T, name string, env map[string]string) (*replica, error) {
	r := &replica{name: name, cmd: polylaneCmd(env, "serve"), logs: &lockedBuffer{}, exited: make(chan struct{})}
	stderr, err := r.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := r.cmd.Start(); err != nil {
		return nil, err
	}
	listening := make(chan string, 1)
	go r.readLogs(stderr, listening)
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		if t.Failed() {
			t.Logf("logs of %s:\n%s", r.name, r.logs)
		}
	})
	select {
	case addr := <-listening:
		r.url = "http://" + addr
	case <-r.exited:
		return nil, fmt.Errorf("%s exited before listening:\n%s", name, r.logs)
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("%s did not listen within 60 s:\n%s", name, r.logs)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(r.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && r.id() != "" {
				return r, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s not ready within 30 s:\n%s", name, r.logs)
		}
	}
}

// readLogs copies serve's JSON log lines and picks out its address and the
// id of its queue client.
func (r *replica) readLogs(stderr io.Reader, listening chan<- string) {
	defer close(r.exited)
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		r.logs.Write(append(sc.Bytes(), '\n'))
		var line struct {
			Message  string `json:"message"`
			Addr     string `json:"addr"`
			ClientID string `json:"client_id"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch line.Message {
		case "listening":
			listening <- line.Addr
		case "River client started":
			r.mu.Lock()
			r.clientID = line.ClientID
			r.mu.Unlock()
		}
	}
}

func (r *replica) id() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.clientID
}

// waitUntil polls cond until it holds or the bound passes, and returns how
// long it took.
func waitUntil(t testing.TB, bound time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > bound {
			t.Fatalf("%s: not within %s", what, bound)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}

// replicaRig is the simulator, the scenario and the database the two
// replicas share.
type replicaRig struct {
	sim  *githubtest.Server
	sc   *scenario.Scenario
	repo string
	db   *pgx.Conn
	all  []string // every GUID delivered
}

// deliverToBoth sends one signed delivery of run's current attempt to both
// replicas at once with the same GUID, as a retried delivery can arrive
// twice: exactly one of them may record it (202), the other sees the
// duplicate (200).
func (g *replicaRig) deliverToBoth(t *testing.T, runID int64, a, b *replica) string {
	t.Helper()
	ev, err := g.sim.WorkflowRunEvent(g.repo, runID)
	if err != nil {
		t.Fatal(err)
	}
	guid := fmt.Sprintf("replica-%d-%d", runID, len(g.all))
	statuses := make([]int, 2)
	var wg sync.WaitGroup
	for i, r := range []*replica{a, b} {
		wg.Go(func() {
			d, err := g.sim.Redeliver(context.Background(), githubtest.Delivery{GUID: guid, Event: ev.Name, URL: r.url + WebhookPath, Payload: ev.Payload})
			if err != nil {
				t.Errorf("deliver run %d to %s: %v", runID, r.name, err)
			}
			statuses[i] = d.Status
		})
	}
	wg.Wait()
	slices.Sort(statuses)
	if statuses[0] != http.StatusOK || statuses[1] != http.StatusAccepted {
		t.Fatalf("run %d delivered to both replicas answered %v, want one 202 and one 200", runID, statuses)
	}
	g.all = append(g.all, guid)
	return guid
}

// jobRow is one of River's jobs.
type jobRow struct {
	kind, state string
	attempt     int
	by          []string
	run         int64
	runAttempt  int
}

func (g *replicaRig) jobs(t *testing.T) []jobRow {
	t.Helper()
	rows, err := g.db.Query(context.Background(), `SELECT kind, state::text, attempt, coalesce(attempted_by, '{}'),
		coalesce((args->>'run_id')::bigint, 0), coalesce((args->>'attempt')::int, 0) FROM river_job WHERE kind <> 'polylane_probe'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []jobRow
	for rows.Next() {
		var j jobRow
		if err := rows.Scan(&j.kind, &j.state, &j.attempt, &j.by, &j.run, &j.runAttempt); err != nil {
			t.Fatal(err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// settled reports that no job waits or runs.
func (g *replicaRig) settled(t *testing.T) bool {
	for _, j := range g.jobs(t) {
		if j.state != "completed" && j.state != "discarded" && j.state != "cancelled" {
			return false
		}
	}
	return true
}

func (g *replicaRig) leader(t *testing.T) string {
	var id string
	err := g.db.QueryRow(context.Background(), `SELECT leader_id FROM river_leader WHERE expires_at > now()`).Scan(&id)
	if err != nil && err != pgx.ErrNoRows {
		t.Fatal(err)
	}
	return id
}

// failedRuns are the scenario's failed runs that have logs.
func failedRuns(sc *scenario.Scenario) []gha.Run {
	var out []gha.Run
	for _, r := range sc.Runs {
		if r.Conclusion == "failure" && r.Failed() {
			out = append(out, r)
		}
	}
	return out
}

// TestTwoReplicasShareTheQueue runs two serve processes on one PostgreSQL
// database against one simulator. Deliveries sent to both replicas (each
// GUID to both at once) are recorded once and diagnosed once, by either
// replica; publishing is never duplicated; then the replica that leads the
// queue is killed with SIGKILL while it works jobs, and the other finishes
// everything, the interrupted jobs included.
func TestTwoReplicasShareTheQueue(t *testing.T) {
	g, a, b := startReplicaRig(t)
	runs := failedRuns(g.sc)
	if len(runs) < 8 {
		t.Fatalf("the scenario has %d failed runs, want 8 or more", len(runs))
	}
	first, rest := runs[:len(runs)/2], runs[len(runs)/2:]

	start := time.Now()
	for i, r := range first {
		x, y := alternate(i, a, b)
		g.deliverToBoth(t, r.ID, x, y)
	}
	waitUntil(t, 30*time.Second, "first deliveries settled", func() bool { return g.settled(t) })
	t.Logf("%d runs delivered to both replicas, diagnosed and published in %s", len(first), time.Since(start).Round(time.Millisecond))
	checkOnce(t, g, first, a, b)
	checkPublishedOnce(t, g)

	// Second round: the other runs and a second attempt of the first ones,
	// then the leader dies while it works some of them.
	var second []int64
	for _, r := range rest {
		second = append(second, r.ID)
	}
	for _, r := range first {
		if _, err := g.sim.AddRunAttempt(g.repo, r.ID, "failure"); err != nil {
			t.Fatal(err)
		}
		second = append(second, r.ID)
	}
	for i, id := range second {
		x, y := alternate(i, a, b)
		g.deliverToBoth(t, id, x, y)
	}
	victim, survivor := killLeaderWhileWorking(t, g, a, b)
	took := waitUntil(t, 80*time.Second, "the survivor finishes every job", func() bool { return g.settled(t) })
	t.Logf("%s killed while working; %s finished everything %s later", victim.name, survivor.name, took.Round(time.Millisecond))
	checkAllDone(t, g, victim)
	checkPublishedOnce(t, g)
}

// alternate returns the two replicas, the first one changing with i.
func alternate(i int, a, b *replica) (*replica, *replica) {
	if i%2 == 1 {
		return b, a
	}
	return a, b
}

// startReplicaRig starts the simulator on karmada-rollout and two replicas
// on one PostgreSQL schema; both start at once and migrate it together.
func startReplicaRig(t *testing.T) (*replicaRig, *replica, *replica) {
	dir := sharedScenarioDir(t, "karmada-rollout")
	dbURL := postgresSchemaURL(t)
	ctx := context.Background()
	sim, err := githubtest.Start(githubtest.Options{Scenarios: []string{dir}, TreeAtRunHeads: true, RerunCreatesAttempt: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	sc, err := scenario.Load(dirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	db, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	env := map[string]string{
		"POLYLANE_DATABASE_URL": dbURL, "POLYLANE_WEBHOOK_SECRET": sim.WebhookSecret(),
		"POLYLANE_GITHUB_APP_ID": strconv.FormatInt(sim.AppID(), 10), "POLYLANE_GITHUB_PRIVATE_KEY": string(sim.PrivateKeyPEM()),
		"POLYLANE_GITHUB_API_URL": sim.APIURL(), "POLYLANE_ADDR": "127.0.0.1:0", "POLYLANE_QUEUE_WORKERS": "2",
		// Short bounds, so that the jobs of the killed replica are rescued
		// within the test. A diagnosis here takes one to three seconds, but
		// with the race detector on two cores, ten diagnoses that each
		// explain the other classes of their step (to merge one cause's
		// wordings) have taken more than 10 s: the bound leaves room.
		"POLYLANE_JOB_TIMEOUT": "25s", "POLYLANE_RESCUE_STUCK_JOBS_AFTER": "30s",
		"POLYLANE_SHUTDOWN_TIMEOUT": "5s",
	}
	var a, b *replica
	var errA, errB error
	var wg sync.WaitGroup
	wg.Go(func() { a, errA = startReplica(t, "replica A", env) })
	wg.Go(func() { b, errB = startReplica(t, "replica B", env) })
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatalf("start the replicas: %v; %v", errA, errB)
	}
	return &replicaRig{sim: sim, sc: sc, repo: sc.Repository.FullName, db: db}, a, b
}
