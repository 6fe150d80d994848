package dashboardtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/polylane/polylane/store"
)

// Options say what to generate. Zero fields take the defaults in brackets.
type Options struct {
	Installations int       // installations [1]; the repositories are dealt out in turn
	Repos         int       // repositories [2]
	Workflows     int       // workflows per repository [2]
	Classes       int       // failure classes per workflow [3]
	RunsPerRepo   int       // run attempts per repository [300]
	Days          int       // days the runs spread over [60]
	End           time.Time // time of the newest run [now, to the minute]
	FailureRate   float64   // share of failed runs [0.2]
	Diagnoses     int       // diagnosed failed runs per repository, newest first, besides one per class [10]
	Workers       int       // repositories written at once [1]
	Seed          uint64    // [1]
}

// First ids and names of generated records.
const (
	FirstInstallationID = 1001
	FirstRepositoryID   = 5001
)

// Owners names the accounts of the installations, in order.
var Owners = []string{"acme", "globex", "initech", "umbrella", "hooli"}

// Seeded says what was generated, for the tests' expectations.
type Seeded struct {
	Installations []store.Installation
	Repos         []store.Repository
	Runs          int
	// Failures lists each generated failed run's day and class, by
	// repository and workflow id.
	Failures map[int64]map[int64][]Failure
	// Workflows lists the workflow ids of each repository.
	Workflows map[int64][]int64
	// Diagnoses lists the diagnosis ids of each repository, newest first.
	Diagnoses map[int64][]int64
	// FixedClass is the class of the first repository whose fix pull request
	// (number 7) was merged at FixMergedAt; it stops occurring after that.
	FixedClass  string
	FixMergedAt time.Time
}

// Failure is one generated failed run.
type Failure struct {
	Day     time.Time
	ClassID string
}

// ClassesBetween counts the distinct classes of a workflow's failed runs
// on days in [from, to).
func (s *Seeded) ClassesBetween(repoID, workflowID int64, from, to time.Time) int {
	seen := map[string]bool{}
	for _, f := range s.Failures[repoID][workflowID] {
		if !f.Day.Before(from) && f.Day.Before(to) {
			seen[f.ClassID] = true
		}
	}
	return len(seen)
}

func (o *Options) defaults() {
	set := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	set(&o.Installations, 1)
	set(&o.Repos, 2)
	set(&o.Workflows, 2)
	set(&o.Classes, 3)
	set(&o.RunsPerRepo, 300)
	set(&o.Days, 60)
	set(&o.Diagnoses, 10)
	set(&o.Workers, 1)
	if o.End.IsZero() {
		o.End = time.Now().UTC().Truncate(time.Minute)
	}
	if o.FailureRate <= 0 {
		o.FailureRate = 0.2
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	o.Installations = min(o.Installations, len(Owners))
}

// Seed generates history into st, which must be migrated.
func Seed(ctx context.Context, st store.Store, opts Options) (*Seeded, error) {
	opts.defaults()
	out := &Seeded{Failures: map[int64]map[int64][]Failure{}, Workflows: map[int64][]int64{}, Diagnoses: map[int64][]int64{}}
	for i := range opts.Installations {
		in := store.Installation{ID: FirstInstallationID + int64(i), AccountLogin: Owners[i], AccountType: "Organization"}
		if err := st.UpsertInstallation(ctx, in); err != nil {
			return nil, fmt.Errorf("seed installation: %w", err)
		}
		out.Installations = append(out.Installations, in)
	}
	for i := range opts.Repos {
		in := out.Installations[i%len(out.Installations)]
		r := store.Repository{ID: FirstRepositoryID + int64(i), InstallationID: in.ID,
			FullName: fmt.Sprintf("%s/service-%02d", in.AccountLogin, i+1), DefaultBranch: "main", Private: i%4 == 2}
		if err := st.UpsertRepository(ctx, r); err != nil {
			return nil, fmt.Errorf("seed repository: %w", err)
		}
		out.Repos = append(out.Repos, r)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan int)
	errs := make(chan error, len(out.Repos))
	for range opts.Workers {
		wg.Go(func() {
			for i := range work {
				g := newRepoGen(opts, out.Repos[i], i)
				if err := g.write(ctx, st); err != nil {
					errs <- err
					continue
				}
				mu.Lock()
				g.report(out)
				mu.Unlock()
			}
		})
	}
	for i := range out.Repos {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return out, errors.Join(all...)
}

// classSpec is a generated failure class.
type classSpec struct {
	id, step, signature, cause, mechanism string
	stepNumber                            int
	weight                                int
	workflow                              store.WorkflowSummary
}

// steps, signatures and causes generated classes draw from.
var (
	stepNames  = []string{"Run e2e tests", "Provision Kind cluster", "go test ./...", "npm ci", "docker build", "Lint"}
	signatures = []string{
		"Error from server (InternalError): failed calling webhook <*>: connection refused",
		"FAIL: TestReconcile<N> (timeout after <N>s)",
		"npm ERR! network request to <URL> failed, reason: ETIMEDOUT",
		"error: failed to solve: rpc error: code = Unknown desc = <*>: no space left on device",
		"listen tcp :<N>: bind: address already in use",
	}
	mechanisms = []string{"rollout-race", "timeout", "transient-network", "resource-exhaustion", "port-conflict"}
)

// repoGen generates one repository's history.
type repoGen struct {
	opts      Options
	repo      store.Repository
	index     int
	rng       *rand.Rand
	workflows []store.WorkflowSummary
	classes   map[int64][]classSpec
	runs      []store.WorkflowRun // newest first
	occ       map[store.RunKey]classSpec
	fixClass  string
	fixAt     time.Time
	diagIDs   []int64
}

func newRepoGen(opts Options, repo store.Repository, index int) *repoGen {
	g := &repoGen{opts: opts, repo: repo, index: index, rng: rand.New(rand.NewPCG(opts.Seed, uint64(repo.ID))),
		classes: map[int64][]classSpec{}, occ: map[store.RunKey]classSpec{}}
	names := []string{"CI", "E2E Tests", "Nightly", "Release", "Docs"}
	for w := range opts.Workflows {
		name := names[w%len(names)]
		if w >= len(names) {
			name = fmt.Sprintf("%s %d", name, w/len(names)+1)
		}
		wf := store.WorkflowSummary{RepositoryID: repo.ID, WorkflowID: repo.ID*100 + int64(w+1), Name: name,
			Path: fmt.Sprintf(".github/workflows/workflow-%d.yml", w+1)}
		g.workflows = append(g.workflows, wf)
		for c := range opts.Classes {
			k := (w + c + index) % len(signatures)
			spec := classSpec{id: fmt.Sprintf("r%dw%dc%d", repo.ID, w+1, c+1), step: stepNames[(w+c)%len(stepNames)],
				signature: signatures[k], mechanism: mechanisms[k], stepNumber: 3 + c, weight: opts.Classes - c, workflow: wf,
				cause: "error: " + signatures[k]}
			if c == 1 && index == 0 {
				spec.cause = Hostile
			}
			g.classes[wf.WorkflowID] = append(g.classes[wf.WorkflowID], spec)
		}
	}
	if index == 0 {
		g.fixClass = g.classes[g.workflows[0].WorkflowID][0].id
		g.fixAt = opts.End.Add(-time.Duration(opts.Days) * 24 * time.Hour / 2).Truncate(time.Hour)
	}
	return g
}
