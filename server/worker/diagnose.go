package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/store"
)

// diagnose works a diagnose job: it brings the history cache up to date,
// runs the pure pipeline, stores the diagnosis with its occurrences and
// classes, and enqueues publishing in the transaction that stores it. Every
// step reads before it writes, so a job interrupted anywhere converges when
// it runs again.
func (w *Worker) diagnose(ctx context.Context, a jobs.DiagnoseArgs) error {
	log := zerolog.Ctx(ctx)
	d, err := w.st.GetDelivery(ctx, a.DeliveryGUID)
	if isNotFound(err) {
		return fail("delivery %s is not stored", a.DeliveryGUID)
	}
	if err != nil {
		return err
	}
	p, err := parseRunPayload(d.Payload)
	if err != nil {
		return permanent{err}
	}
	if d.State == store.DeliveryQueued {
		if err := w.st.SetDeliveryState(ctx, d.GUID, store.DeliveryProcessing, ""); err != nil {
			return err
		}
	}
	gh, err := w.gh.Repo(a.InstallationID, p.Repository.FullName)
	if err != nil {
		return permanent{err}
	}
	log.UpdateContext(func(c zerolog.Context) zerolog.Context { return c.Str(server.LogKeyRepo, p.Repository.FullName) })
	ctx, counter := ghclient.WithCounter(ctx)
	set, err := w.settingsOf(ctx, gh, a.RepositoryID, p.Repository.DefaultBranch)
	if err != nil {
		return err
	}
	if reason := set.skipReason(p, w.serverConclusions()); reason != "" {
		if p.ownFixBranch() { // a fix's own CI counts, diagnosed or not
			log.Info().Str("reason", reason).Msg("run of a fix branch not diagnosed: recorded as its verification")
			return w.st.Enqueue(ctx, store.Job{Args: jobs.VerifyArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID,
				RepositoryID: a.RepositoryID, RunID: a.RunID, Attempt: a.Attempt}})
		}
		log.Info().Str("reason", reason).Msg("run not diagnosed")
		return w.st.SetDeliveryState(ctx, d.GUID, store.DeliveryIgnored, reason)
	}
	window := w.opts.WindowSize
	if set.Window > 0 {
		window = set.Window
	}
	out, err := w.runPipeline(ctx, gh, a, p, window, p.Run.HeadSHA)
	calls := counter.Calls()
	w.opts.GitHubMetrics.ObserveDiagnosis(calls)
	log.Info().Int64("github_api_calls", calls.API).Int64("github_token_calls", calls.Token).
		Int64("github_blob_calls", calls.Blob).Bool("ok", err == nil).Msg("diagnosis GitHub calls")
	if err != nil {
		return err
	}
	id, err := w.save(ctx, a, p, out)
	if err != nil {
		return err
	}
	w.pruneCache(ctx)
	log.Info().Int64("diagnosis_id", id).Str("verdict", out.Diagnosis.Verdict.Kind).
		Str("class", out.Diagnosis.TriggerClass).Bool("patch", out.Diagnosis.Patch != nil).Msg("diagnosed")
	return w.st.SetDeliveryState(ctx, d.GUID, store.DeliveryDone, "")
}

// runPipeline gathers the inputs of the pure pipeline and runs it; the
// causal stage reads the repository's files at treeSHA (the run's head,
// or for the fix of a fork's pull request the default branch's head).
func (w *Worker) runPipeline(ctx context.Context, gh *ghclient.Repo, a jobs.DiagnoseArgs, p *runPayload, window int, treeSHA string) (*diagnosis.Outcome, error) {
	trigger := p.Run
	trigger.RunAttempt = a.Attempt
	runs, err := w.runHistory(ctx, gh, a.RepositoryID, p.Workflow.ID, trigger, window)
	if err != nil {
		return nil, err
	}
	runs = withTrigger(runs, trigger)
	attempts := map[int64]int{}
	for _, r := range history.LatestAttempts(runs) {
		attempts[r.ID] = r.RunAttempt
	}
	src, cleanup, err := w.newSource(ctx, gh, a.RepositoryID, attempts)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	tracked := &trackedSource{src: src}
	tree, err := w.commitTree(ctx, gh, a.RepositoryID, treeSHA)
	if err != nil && !errors.Is(err, ghclient.ErrNotFound) {
		return nil, err
	}
	fsys := newTreeFS(tree, w.opts.MaxBlobs, func(sha string) ([]byte, error) { return w.blob(ctx, gh, a.RepositoryID, sha) }).
		completeWith(listTree(ctx, gh))
	known, previous, err := w.cached(ctx, a.RepositoryID, p.Workflow.ID)
	if err != nil {
		return nil, err
	}
	compare := &trackedCompare{fn: w.compare(ctx, gh, a.RepositoryID)}
	out, err := diagnosis.Diagnose(diagnosis.Input{
		Repository: diagnosis.Repository{ID: p.Repository.ID, FullName: p.Repository.FullName,
			DefaultBranch: p.Repository.DefaultBranch, HTMLURL: p.Repository.HTMLURL},
		Workflow:     diagnosis.Workflow{ID: p.Workflow.ID, Name: p.Workflow.Name, Path: p.Workflow.Path},
		TriggerRunID: trigger.ID,
		Runs:         runs,
		Source:       tracked,
		Tree:         fsys,
		Known:        known,
		Previous:     previous,
		WindowSize:   window,
		Baseline:     w.baselines.of(a.RepositoryID, diagnosis.SourceBaseline(tracked)),
		Compare:      compare.compare,
	})
	switch {
	case tracked.Err() != nil:
		return nil, tracked.Err() // GitHub or the store failed: try again
	case compare.err != nil:
		return nil, compare.err
	case fsys.Err() != nil:
		return nil, fsys.Err()
	case err != nil:
		return nil, permanent{fmt.Errorf("diagnose run %d: %w", trigger.ID, err)}
	}
	return out, nil
}

// withTrigger puts the delivery's run (its attempt) among the runs.
func withTrigger(runs []gha.Run, trigger gha.Run) []gha.Run {
	for i, r := range runs {
		if r.ID == trigger.ID && r.RunAttempt == trigger.RunAttempt {
			runs[i] = trigger
			return runs
		}
	}
	return append(runs, trigger)
}

// trackedSource keeps the first error of its source that is not a missing
// object: the pipeline turns those into failures of its own, and the worker
// must retry them rather than give up.
type trackedSource struct {
	src history.Source
	mu  sync.Mutex
	err error
}

func (t *trackedSource) keep(err error) error {
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.mu.Lock()
		if t.err == nil {
			t.err = err
		}
		t.mu.Unlock()
	}
	return err
}

// Err returns the first failure kept.
func (t *trackedSource) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Jobs implements history.Source.
func (t *trackedSource) Jobs(runID int64) ([]gha.Job, error) {
	jobs, err := t.src.Jobs(runID)
	return jobs, t.keep(err)
}

// OpenLog implements history.Source.
func (t *trackedSource) OpenLog(jobID int64) (io.ReadCloser, error) {
	rc, err := t.src.OpenLog(jobID)
	return rc, t.keep(err)
}

// cached returns the occurrences and classes stored by earlier diagnoses of
// the workflow, with the occurrences pull-request diagnoses compared with.
func (w *Worker) cached(ctx context.Context, repoID, workflowID int64) ([]history.Occurrence, []history.Class, error) {
	occs, err := w.st.ListOccurrences(ctx, store.OccurrenceQuery{RepositoryID: repoID, WorkflowID: workflowID, Limit: 5000})
	if err != nil {
		return nil, nil, err
	}
	var known []history.Occurrence
	stored := map[[2]int64]bool{}
	for _, o := range occs {
		var h history.Occurrence
		if len(o.Detail) > 0 && json.Unmarshal(o.Detail, &h) == nil && h.RunID == o.RunID {
			known = append(known, h)
			stored[[2]int64{h.RunID, int64(h.RunAttempt)}] = true
		}
	}
	elsewhere, err := w.elsewhere(ctx, repoID, workflowID)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range elsewhere {
		if !stored[[2]int64{o.RunID, int64(o.RunAttempt)}] {
			known = append(known, o)
		}
	}
	classes, err := w.st.ListClasses(ctx, store.ClassQuery{RepositoryID: repoID, WorkflowID: workflowID, IncludeMuted: true, Limit: 5000})
	if err != nil {
		return nil, nil, err
	}
	var previous []history.Class
	for _, c := range classes {
		var h history.Class
		if len(c.Detail) > 0 && json.Unmarshal(c.Detail, &h) == nil && h.ID == c.ID {
			previous = append(previous, h)
		}
	}
	return known, previous, nil
}

// maxElsewhere bounds the occurrences kept of the runs pull-request
// diagnoses compared with.
const maxElsewhere = 500

func elsewhereKey(repoID, workflowID int64) string {
	return fmt.Sprintf("elsewhere:%d:%d", repoID, workflowID)
}

// elsewhere reads the occurrences of runs outside a pull request's window
// that earlier pull-request diagnoses analysed. They are kept in the cache,
// not with the window's occurrences: they belong to no stored class.
func (w *Worker) elsewhere(ctx context.Context, repoID, workflowID int64) ([]history.Occurrence, error) {
	entry, err := w.st.GetCacheEntry(ctx, elsewhereKey(repoID, workflowID))
	switch {
	case isNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	var occs []history.Occurrence
	if json.Unmarshal(entry.Body, &occs) != nil {
		return nil, nil // unreadable: read the runs again
	}
	return occs, nil
}

// saveElsewhere adds a pull-request diagnosis' occurrences of runs outside
// its window to the cache, the newest maxElsewhere kept.
func (w *Worker) saveElsewhere(ctx context.Context, repoID, workflowID int64, out *diagnosis.Outcome) error {
	if len(out.Elsewhere) == 0 {
		return nil
	}
	have, err := w.elsewhere(ctx, repoID, workflowID)
	if err != nil {
		return err
	}
	key := func(o history.Occurrence) string { return fmt.Sprintf("%d/%d/%d", o.RunID, o.RunAttempt, o.JobID) }
	seen := map[string]bool{}
	var all []history.Occurrence
	for _, o := range append(slices.Clone(out.Elsewhere), have...) {
		if !seen[key(o)] {
			seen[key(o)] = true
			all = append(all, o)
		}
	}
	slices.SortStableFunc(all, func(a, b history.Occurrence) int { return b.CreatedAt.Compare(a.CreatedAt) })
	all = all[:min(len(all), maxElsewhere)]
	body, err := json.Marshal(all)
	if err != nil {
		return fmt.Errorf("encode occurrences: %w", err)
	}
	return w.st.PutCacheEntry(ctx, store.CacheEntry{Key: elsewhereKey(repoID, workflowID), Body: body})
}

// save stores the occurrences the diagnosis computed, its classes, and the
// diagnosis itself with its publish job (one transaction for those two).
func (w *Worker) save(ctx context.Context, a jobs.DiagnoseArgs, p *runPayload, out *diagnosis.Outcome) (int64, error) {
	if err := w.saveOccurrences(ctx, a.RepositoryID, p.Workflow.ID, out); err != nil {
		return 0, err
	}
	if err := w.saveElsewhere(ctx, a.RepositoryID, p.Workflow.ID, out); err != nil {
		return 0, err
	}
	if err := w.saveClasses(ctx, a.RepositoryID, p, out); err != nil {
		return 0, err
	}
	doc, err := json.Marshal(out.Diagnosis)
	if err != nil {
		return 0, fmt.Errorf("encode diagnosis: %w", err)
	}
	rec := store.Diagnosis{RepositoryID: a.RepositoryID, RunID: a.RunID, Attempt: a.Attempt, Document: doc,
		Verdict: out.Diagnosis.Verdict.Kind, ClassID: out.Diagnosis.TriggerClass}
	var next []store.Job
	if w.opts.Publish {
		next = append(next, store.Job{Args: jobs.PublishArgs(a)})
	}
	return w.st.PutDiagnosis(ctx, rec, next...)
}

// saveOccurrences stores the occurrences of the window with their class,
// skipping the runs whose stored occurrences are the same.
func (w *Worker) saveOccurrences(ctx context.Context, repoID, workflowID int64, out *diagnosis.Outcome) error {
	stored, err := w.st.ListOccurrences(ctx, store.OccurrenceQuery{RepositoryID: repoID, WorkflowID: workflowID, Limit: 5000})
	if err != nil {
		return err
	}
	have := map[store.RunKey][]store.Occurrence{}
	for _, o := range stored {
		k := store.RunKey{RepositoryID: repoID, RunID: o.RunID, Attempt: o.Attempt}
		have[k] = append(have[k], o)
	}
	classOf := map[string]string{} // "run/job/step" -> class id
	for _, c := range out.Classes {
		for _, run := range c.Runs {
			classOf[fmt.Sprintf("%d/%s/%s", run, c.Job, c.Step)] = c.ID
		}
	}
	byRun := map[store.RunKey][]store.Occurrence{}
	var order []store.RunKey
	seen := map[string]bool{}
	for _, o := range out.Occurrences {
		key := store.RunKey{RepositoryID: repoID, RunID: o.RunID, Attempt: max(o.RunAttempt, 1)}
		id := fmt.Sprintf("%d/%d/%d/%d", o.RunID, o.RunAttempt, o.JobID, o.Step.Number)
		if seen[id] {
			continue
		}
		seen[id] = true
		rec, err := occurrenceRecord(repoID, o, classOf[fmt.Sprintf("%d/%s/%s", o.RunID, o.JobBase, o.Step.Name)])
		if err != nil {
			return err
		}
		if _, ok := byRun[key]; !ok {
			order = append(order, key)
		}
		byRun[key] = append(byRun[key], rec)
	}
	for _, key := range order {
		if sameOccurrences(have[key], byRun[key]) {
			continue
		}
		if err := w.st.PutOccurrences(ctx, key, byRun[key]); err != nil {
			return err
		}
	}
	return nil
}

// sameOccurrences reports stored occurrences equal to new ones (the same
// documents in the same classes), in any order.
func sameOccurrences(stored, fresh []store.Occurrence) bool {
	if len(stored) != len(fresh) {
		return false
	}
	key := func(o store.Occurrence) string { return o.ClassID + "\x00" + string(o.Detail) }
	count := map[string]int{}
	for _, o := range stored {
		count[key(o)]++
	}
	for _, o := range fresh {
		if count[key(o)] == 0 {
			return false
		}
		count[key(o)]--
	}
	return true
}

func occurrenceRecord(repoID int64, o history.Occurrence, classID string) (store.Occurrence, error) {
	detail, err := json.Marshal(o)
	if err != nil {
		return store.Occurrence{}, fmt.Errorf("encode occurrence of run %d: %w", o.RunID, err)
	}
	lines, err := json.Marshal(o.Lines)
	if err != nil {
		return store.Occurrence{}, fmt.Errorf("encode cause lines of run %d: %w", o.RunID, err)
	}
	if o.Lines == nil {
		lines = []byte("[]")
	}
	return store.Occurrence{RepositoryID: repoID, RunID: o.RunID, Attempt: max(o.RunAttempt, 1), JobID: o.JobID,
		JobName: o.JobName, StepNumber: o.Step.Number, StepName: o.Step.Name, Signature: o.Signature,
		SignatureID: o.SignatureID, CauseLines: lines, ExitCode: o.ExitCode, Unknown: o.Unknown || o.Cancelled,
		ClassID: classID, OccurredAt: o.CreatedAt, Detail: detail}, nil
}

// saveClasses stores the classes of the window, the trigger's with the
// verdict.
func (w *Worker) saveClasses(ctx context.Context, repoID int64, p *runPayload, out *diagnosis.Outcome) error {
	for i, c := range out.Classes {
		detail, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("encode class %s: %w", c.ID, err)
		}
		rec := store.FailureClass{RepositoryID: repoID, ID: c.ID, WorkflowID: p.Workflow.ID, WorkflowPath: p.Workflow.Path,
			Step: c.Step, Signature: c.Signature, FirstSeen: c.FirstSeen, LastSeen: c.LastSeen, Count: c.Count,
			Pattern: c.Pattern, Detail: detail}
		if i == 0 && c.ID == out.Diagnosis.TriggerClass {
			rec.Verdict = out.Diagnosis.Verdict.Kind
		} else if old, err := w.st.GetClass(ctx, repoID, c.ID); err == nil {
			rec.Verdict = old.Verdict
		}
		if rec.LastSeen.IsZero() {
			continue
		}
		if err := w.st.UpsertClass(ctx, rec); err != nil {
			return err
		}
	}
	return nil
}

// serverConclusions are the conclusions diagnosed where the repository's
// configuration does not choose.
func (w *Worker) serverConclusions() []string {
	if w.opts.FailingConclusions == nil {
		return jobs.DefaultFailingConclusions
	}
	return w.opts.FailingConclusions
}
