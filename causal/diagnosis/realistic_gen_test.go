package diagnosis

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The realistic scenarios under testdata/scenarios/rs-* are rendered from
// their specs, testdata/specs/<name>.txtar (realistic_spec_test.go);
// TestGeneratedScenariosMatchTheirGenerators checks them and UPDATE=1
// writes them. Each describes one invented repository (its workflow,
// harness files and product files), a history of runs and the failures that
// happen in it, and renders the directory as
// GitHub serves it: runs.json newest first with GitHub's fields, jobs files
// with step timings, raw job logs (BOM, 7-digit timestamps, groups, cyan
// script echo, ANSI colour, post steps, orphan clean-up). Volatile parts
// (times, ports, ids, pod suffixes, durations) vary run to run from a seeded
// generator, so the output is deterministic.
//
// A history is one code per run, oldest first; the last main run is the
// trigger:
//
//	.  main push, success          A-Z  main push failing with that failure
//	x  main push, cancelled        r    main re-run: attempt 1 failed, attempt 2 green
//	d  workflow_dispatch on main, failing with the trigger's failure
//	p  pull request, success       q    pull request failing with prFail
type rsScenario struct {
	name     string
	repo     string // owner/name
	repoID   int64
	workflow string
	path     string
	wfID     int64
	jobName  string
	matrix   []string
	runner   rsRunner
	services []rsService
	jobEnv   []string
	steps    []rsStep
	files    map[string]string
	history  string
	failures map[byte]rsFailure
	// prBranches are the head branches of pull-request runs.
	prBranches []string
	prFail     byte
	rerunFail  byte
	// triggerAttempt is the run_attempt of the trigger (0 means 1).
	triggerAttempt int
	authors        []string
	messages       []string
	start          time.Time
	expect         rsExpect
}

// rsRunner is where the job runs.
type rsRunner struct {
	labels  []string
	names   []string // self-hosted runner names; empty for hosted runners
	windows bool
}

// rsService is a job service container.
type rsService struct {
	name, image string
	health      bool
	port        string
}

// rsStep is one workflow step as the runner logs it.
type rsStep struct {
	name   string
	uses   string
	with   []string
	run    []string
	env    []string
	shell  string
	post   bool
	secs   [2]int
	out    func(c *rsCtx) []string
	always bool // if: always() or if: failure(): runs after a failure too
}

// rsFailure is one way a run fails: the step, the output before the runner's
// error line, and the exit code (0: the output carries its own ##[error]).
type rsFailure struct {
	step string
	exit int
	secs [2]int
	out  func(c *rsCtx) []string
}

// rsExpect is the expert's reading of a scenario: which failure codes form
// one class, and the facts of expect.json that the data does not fix.
type rsExpect struct {
	classes      map[byte]string
	verdict      string
	mechanism    string
	mechanismAny []string
	cause        string
	// engineCause is a cause-line fact written as engine_cause_line_contains
	// and checked by TestRealisticEngineCauseLines (the generic test does
	// not read it); use it for a second line the engine must return.
	engineCause   string
	producer      *rsAnchor
	patch         bool
	patchFiles    []string
	patchFilesAny []string
	ciOnly        *bool
	pattern       string
	// affected is written as affected_contains.
	affected string
}

// rsAnchor locates the producer: the lines of file from the first line
// containing from to the first later line containing to.
type rsAnchor struct{ file, from, to string }

// rsRun is one rendered run.
type rsRun struct {
	index   int
	code    byte
	id      int64
	number  int
	attempt int
	branch  string
	event   string
	concl   string
	sha     string
	created time.Time
	started time.Time
	updated time.Time
	title   string
	author  string
	pr      int
}

// writeFiles writes files (slash-separated paths) under dir.
func writeFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// rng returns the scenario's seeded generator.
func (s *rsScenario) rng(salt string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(s.name + "/" + salt))
	return rand.New(rand.NewPCG(h.Sum64(), 0x9e3779b97f4a7c15))
}

func (s *rsScenario) sha(i int, salt string) string {
	sum := sha1.Sum([]byte(fmt.Sprintf("%s/%s/%d", s.name, salt, i)))
	return hex.EncodeToString(sum[:])
}

func (s *rsScenario) owner() string { o, _, _ := strings.Cut(s.repo, "/"); return o }
func (s *rsScenario) short() string { _, n, _ := strings.Cut(s.repo, "/"); return n }

// render returns every file of the scenario directory.
func (s *rsScenario) render() map[string][]byte {
	files := map[string][]byte{}
	runs := s.plan()
	var entries []any
	var trigger rsRun
	for _, r := range runs {
		entries = append([]any{s.runEntry(r)}, entries...)
		if r.event != "pull_request" {
			trigger = r
		}
		s.renderJobs(r, files)
	}
	files["runs.json"] = compactJSON(map[string]any{"total_count": len(entries), "workflow_runs": entries})
	files["scenario.json"] = mustJSON(map[string]any{
		"schema": "polylane.scenario/v1",
		"repository": map[string]any{"id": s.repoID, "name": s.short(), "full_name": s.repo,
			"owner": map[string]any{"login": s.owner()}, "default_branch": "main",
			"html_url": "https://github.com/" + s.repo, "private": false},
		"installation_id": 40000000 + s.repoID%1000000,
		"workflow":        map[string]any{"id": s.wfID, "name": s.workflow, "path": s.path},
		"trigger_run_id":  trigger.id,
	})
	for path, body := range s.files {
		files["repo/"+path] = []byte(body)
	}
	files["expect.json"] = mustJSON(s.expectJSON(runs, trigger))
	return files
}

// plan lays out the runs of the history with ids, times and commits.
func (s *rsScenario) plan() []rsRun {
	rng := s.rng("plan")
	at := s.start
	id := int64(11_000_000_000) + s.repoID%1_000_000*1000
	number := 400 + int(s.repoID%900)
	var out []rsRun
	pr := 100 + int(s.repoID%400)
	for i := 0; i < len(s.history); i++ {
		code := s.history[i]
		at = at.Add(time.Duration(20+rng.IntN(14*60)) * time.Minute)
		id += int64(3_000_000 + rng.IntN(40_000_000))
		number++
		r := rsRun{index: i, code: code, id: id, number: number, attempt: 1, branch: "main", event: "push",
			concl: "failure", sha: s.sha(i, "commit"), created: at, author: s.authors[rng.IntN(len(s.authors))]}
		r.title = s.messages[rng.IntN(len(s.messages))]
		switch code {
		case '.':
			r.concl = "success"
		case 'x':
			r.concl = "cancelled"
		case 'r':
			r.concl, r.attempt = "success", 2
		case 'd':
			r.event = "workflow_dispatch"
		case 'p', 'q':
			r.event = "pull_request"
			r.branch = s.prBranches[rng.IntN(len(s.prBranches))]
			pr += 1 + rng.IntN(3)
			r.pr = pr
			if code == 'p' {
				r.concl = "success"
			}
		default:
			if r.title == "" {
				r.title = "change"
			}
		}
		if r.event == "push" && code != 'r' {
			r.title = fmt.Sprintf("%s (#%d)", r.title, pr-rng.IntN(4))
		}
		r.started = at.Add(time.Duration(2+rng.IntN(20)) * time.Second)
		r.updated = r.started.Add(time.Duration(3+rng.IntN(9)) * time.Minute)
		if code == 'r' {
			r.started = r.updated.Add(time.Duration(5+rng.IntN(50)) * time.Minute)
			r.updated = r.started.Add(time.Duration(3+rng.IntN(9)) * time.Minute)
		}
		out = append(out, r)
	}
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].event != "pull_request" {
			out[i].attempt = max(1, s.triggerAttempt)
			break
		}
	}
	return out
}

// failureOf returns the failure a run shows, if any.
func (s *rsScenario) failureOf(r rsRun) (rsFailure, byte, bool) {
	code := r.code
	switch code {
	case '.', 'p', 'x', 'r':
		return rsFailure{}, 0, false
	case 'q':
		code = s.prFail
	case 'd':
		code = s.history[len(strings.TrimRight(s.history, "pq"))-1]
	}
	f, ok := s.failures[code]
	return f, code, ok
}

// runEntry renders one runs.json entry with GitHub's fields.
func (s *rsScenario) runEntry(r rsRun) map[string]any {
	api := "https://api.github.com/repos/" + s.repo
	runURL := fmt.Sprintf("%s/actions/runs/%d", api, r.id)
	repo := map[string]any{"id": s.repoID, "node_id": nodeID("R_kgDO", s.repoID), "name": s.short(), "full_name": s.repo,
		"private": false, "owner": map[string]any{"login": s.owner(), "id": 3_000_000 + s.repoID%100000}, "html_url": "https://github.com/" + s.repo}
	actor := map[string]any{"login": r.author, "id": 1_000_000 + len(r.author)*7919, "type": "User"}
	e := map[string]any{
		"id": r.id, "name": s.workflow, "node_id": nodeID("WFR_kwLO", r.id), "head_branch": r.branch, "head_sha": r.sha,
		"path": s.path, "display_title": r.title, "run_number": r.number, "event": r.event, "status": "completed",
		"conclusion": r.concl, "workflow_id": s.wfID, "check_suite_id": r.id*2 + 7, "check_suite_node_id": nodeID("CS_kwDO", r.id*2+7),
		"url": runURL, "html_url": fmt.Sprintf("https://github.com/%s/actions/runs/%d", s.repo, r.id),
		"pull_requests": []any{}, "created_at": iso(r.created), "updated_at": iso(r.updated), "actor": actor,
		"run_attempt": r.attempt, "referenced_workflows": []any{}, "run_started_at": iso(r.started), "triggering_actor": actor,
		"jobs_url": runURL + "/jobs", "logs_url": runURL + "/logs", "previous_attempt_url": nil,
		"head_commit": map[string]any{"id": r.sha, "tree_id": s.sha(r.index, "tree"), "message": r.title,
			"timestamp": iso(r.created.Add(-40 * time.Second)),
			"author":    map[string]any{"name": r.author, "email": r.author + "@users.noreply.github.com"},
			"committer": map[string]any{"name": "GitHub", "email": "noreply@github.com"}},
		"repository": repo, "head_repository": repo,
	}
	if r.attempt > 1 {
		e["previous_attempt_url"] = fmt.Sprintf("%s/attempts/%d", runURL, r.attempt-1)
	}
	if r.pr > 0 {
		ref := map[string]any{"id": s.repoID, "url": api, "name": s.short()}
		e["pull_requests"] = []any{map[string]any{"url": fmt.Sprintf("%s/pulls/%d", api, r.pr), "id": 2_100_000_000 + int64(r.pr)*37,
			"number": r.pr, "head": map[string]any{"ref": r.branch, "sha": r.sha, "repo": ref},
			"base": map[string]any{"ref": "main", "sha": s.sha(r.index, "base"), "repo": ref}}}
	}
	return e
}

// expectJSON computes expect.json: the window facts from the runs, the class
// facts from the expert's grouping of failure codes, the rest as written.
func (s *rsScenario) expectJSON(runs []rsRun, trigger rsRun) map[string]any {
	var window []rsRun
	for _, r := range runs {
		if r.event != "pull_request" {
			window = append(window, r)
		}
	}
	if len(window) > 100 {
		window = window[len(window)-100:]
	}
	tf, tcode, _ := s.failureOf(trigger)
	classOf := func(code byte) string { return cmpOr(s.expect.classes[code], string(code)) }
	failed, count := 0, 0
	firstBad := ""
	stepClasses := map[string]bool{}
	for _, r := range window {
		if r.concl != "success" {
			failed++
		}
		f, code, ok := s.failureOf(r)
		if !ok || r.concl == "success" {
			continue
		}
		if f.step == tf.step {
			stepClasses[classOf(code)] = true
		}
		if f.step == tf.step && classOf(code) == classOf(tcode) {
			count++
			if firstBad == "" {
				firstBad = r.sha
			}
		}
	}
	e := map[string]any{"trigger_step": tf.step, "window": map[string]int{"runs": len(window), "failed": failed},
		"trigger_cluster_count": count, "clusters_in_trigger_step": len(stepClasses), "verdict": s.expect.verdict,
		"first_bad_sha": nil, "pattern": s.expect.pattern, "patch_expected": s.expect.patch}
	if s.expect.verdict == "regression" {
		e["first_bad_sha"] = firstBad
	}
	if s.expect.mechanism != "" {
		e["mechanism"] = s.expect.mechanism
	}
	if len(s.expect.mechanismAny) > 0 {
		e["mechanism_any"] = s.expect.mechanismAny
	}
	if s.expect.cause != "" {
		e["cause_line_contains"] = s.expect.cause
	}
	if s.expect.engineCause != "" {
		e["engine_cause_line_contains"] = s.expect.engineCause
	}
	if a := s.expect.producer; a != nil {
		e["producer_file"] = a.file
		e["producer_line_range"] = s.anchorLines(*a)
	} else {
		e["producer_file"] = nil
	}
	if len(s.expect.patchFiles) > 0 {
		e["patch_files"] = s.expect.patchFiles
	}
	if len(s.expect.patchFilesAny) > 0 {
		e["patch_files_any"] = s.expect.patchFilesAny
	}
	if s.expect.ciOnly != nil {
		e["ci_only"] = *s.expect.ciOnly
	}
	if s.expect.affected != "" {
		e["affected_contains"] = s.expect.affected
	}
	return e
}

// anchorLines resolves an anchor to 1-based [first, last] lines.
func (s *rsScenario) anchorLines(a rsAnchor) []int {
	lines := strings.Split(s.files[a.file], "\n")
	first := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, a.from) })
	if first < 0 {
		panic(fmt.Sprintf("%s: anchor %q not in %s", s.name, a.from, a.file))
	}
	last := first
	if a.to != "" {
		k := slices.IndexFunc(lines[first:], func(l string) bool { return strings.Contains(l, a.to) })
		if k < 0 {
			panic(fmt.Sprintf("%s: anchor %q not in %s", s.name, a.to, a.file))
		}
		last = first + k
	}
	return []int{first + 1, last + 1}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func iso(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// nodeID renders a GitHub-style global node id.
func nodeID(prefix string, n int64) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	b.WriteString(prefix)
	for x := uint64(n)*2654435761 + 17; b.Len() < len(prefix)+12; x /= 61 {
		b.WriteByte(alphabet[x%61])
		if x < 61 {
			x += uint64(n) * 7
		}
	}
	return b.String()
}

func compactJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// TestRealisticEngineCauseLines checks the engine_cause_line_contains facts
// of the realistic scenarios: the line that states why the job failed must
// be among failure.lines. It is strict: a gap fails the test with the lines
// the engine chose.
func TestRealisticEngineCauseLines(t *testing.T) {
	for _, s := range rsScenarios(t) {
		if s.expect.engineCause == "" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			out, _, err := DiagnoseScenario(os.DirFS(filepath.Join("testdata", "scenarios", s.name)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range out.Diagnosis.Failure.Lines {
				if strings.Contains(l.Text, s.expect.engineCause) {
					return
				}
				got = append(got, l.Text)
			}
			t.Fatalf("analysis engine gap: no cause line contains %q; the engine chose %q", s.expect.engineCause, got)
		})
	}
}
