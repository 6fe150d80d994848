package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/postgres"
)

func dirFS(dir string) fs.FS { return os.DirFS(dir) }

// openRigStore opens the shared database as a store (no queue) to read
// deliveries and diagnoses.
func openRigStore(t *testing.T, g *replicaRig) store.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), postgres.Options{URL: g.db.Config().ConnString()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// checkOnce asserts the first round: one diagnose job per run, worked
// once (attempt 1) and completed, jobs worked by both replicas, every
// delivery done and every diagnosis stored.
func checkOnce(t *testing.T, g *replicaRig, runs []gha.Run, a, b *replica) {
	t.Helper()
	perRun := map[int64]int{}
	workers := map[string]bool{}
	for _, j := range g.jobs(t) {
		for _, id := range j.by {
			workers[id] = true
		}
		if j.kind != jobs.KindDiagnose {
			continue
		}
		perRun[j.run]++
		if j.state != "completed" || j.attempt != 1 {
			t.Errorf("diagnosis of run %d: %s after %d attempts, want completed after 1", j.run, j.state, j.attempt)
		}
	}
	for _, r := range runs {
		if perRun[r.ID] != 1 {
			t.Errorf("run %d has %d diagnose jobs, want 1", r.ID, perRun[r.ID])
		}
	}
	if !workers[a.id()] || !workers[b.id()] {
		t.Errorf("jobs were worked by %v; want both replicas (%s, %s)", keys(workers), a.id(), b.id())
	}
	checkDeliveriesAndDiagnoses(t, g, runs, 1)
}

// checkDeliveriesAndDiagnoses asserts that every delivery sent so far is
// done and that each run has its diagnosis for attempts 1..upTo.
func checkDeliveriesAndDiagnoses(t *testing.T, g *replicaRig, runs []gha.Run, upTo int) {
	t.Helper()
	st := openRigStore(t, g)
	ctx := context.Background()
	for _, guid := range g.all {
		d, err := st.GetDelivery(ctx, guid)
		if err != nil || d.State != store.DeliveryDone {
			t.Errorf("delivery %s: %v, state %q %s", guid, err, d.State, d.Error)
		}
	}
	for _, r := range runs {
		for attempt := 1; attempt <= upTo; attempt++ {
			key := store.RunKey{RepositoryID: g.sc.Repository.ID, RunID: r.ID, Attempt: attempt}
			if _, err := st.GetDiagnosis(ctx, key); err != nil {
				t.Errorf("diagnosis of run %d attempt %d: %v", r.ID, attempt, err)
			}
		}
	}
}

// checkPublishedOnce asserts that nothing was published twice: one open
// fix pull request per branch, and per pull request (or commit) at most one
// of Polylane's comments of each kind and class.
func checkPublishedOnce(t *testing.T, g *replicaRig) {
	t.Helper()
	bot := g.sim.AppSlug() + "[bot]"
	heads := map[string]int{}
	texts := map[string]int{}
	fixPRs, comments := 0, 0
	for _, p := range g.sim.PullRequests(g.repo) {
		if p.User == bot {
			heads[p.Head]++
			fixPRs++
		}
		for _, c := range g.sim.Comments(g.repo, p.Number) {
			if c.User == bot {
				comments++
				texts[threadKey(fmt.Sprintf("#%d", p.Number), c.Body)]++
			}
		}
	}
	for _, c := range g.sim.CommitComments(g.repo) {
		if c.User == bot {
			comments++
			texts[threadKey(c.SHA, c.Body)]++
		}
	}
	for head, n := range heads {
		if n > 1 {
			t.Errorf("%d fix pull requests from %s", n, head)
		}
	}
	for k, n := range texts {
		if n > 1 {
			t.Errorf("%d comments for %s", n, k)
		}
	}
	if fixPRs == 0 || comments == 0 {
		t.Errorf("nothing published: %d fix pull requests, %d comments", fixPRs, comments)
	}
}

// threadKey names what one published text stands for: its target, its
// marker's kind and, but for the sticky assessment, its class.
func threadKey(target, body string) string {
	m, ok := report.ParseMarker(body)
	if !ok {
		return target + " unmarked"
	}
	if m.Kind == report.KindAssessment {
		return target + " " + m.Kind
	}
	return target + " " + m.Kind + " " + m.Class
}

// killLeaderWhileWorking waits until the replica that leads the queue (its
// leader runs the rescue of stuck jobs, so the other takes over at once)
// works a job, and kills it with SIGKILL.
func killLeaderWhileWorking(t *testing.T, g *replicaRig, a, b *replica) (victim, survivor *replica) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		leader := g.leader(t)
		for _, r := range []*replica{a, b} {
			if r.id() != leader {
				continue
			}
			for _, j := range g.jobs(t) {
				if j.state == "running" && len(j.by) > 0 && j.by[len(j.by)-1] == leader {
					if err := r.cmd.Process.Kill(); err != nil {
						t.Fatal(err)
					}
					<-r.exited
					if r == a {
						return a, b
					}
					return b, a
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the leading replica worked no job while jobs were queued")
	return nil, nil
}

// checkAllDone asserts the end state after the kill: every job completed,
// a job the victim had started finished by the survivor, every delivery
// done, every diagnosis of both attempts stored.
func checkAllDone(t *testing.T, g *replicaRig, victim *replica) {
	t.Helper()
	rescued := 0
	for _, j := range g.jobs(t) {
		if j.state != "completed" {
			t.Errorf("%s job of run %d attempt %d ended %s", j.kind, j.run, j.runAttempt, j.state)
		}
		if len(j.by) > 1 && slices.Contains(j.by[:len(j.by)-1], victim.id()) && j.by[len(j.by)-1] != victim.id() {
			rescued++
		}
	}
	if rescued == 0 {
		t.Errorf("no job the killed replica had started was finished by the other")
	}
	runs := failedRuns(g.sc)
	half := runs[:len(runs)/2]
	checkDeliveriesAndDiagnoses(t, g, half, 2)
	checkDeliveriesAndDiagnoses(t, g, runs[len(runs)/2:], 1)
	t.Logf("%d jobs of the killed replica were finished by the other", rescued)
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
