package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/dashboard"
	"github.com/polylane/polylane/store"
)

// getJSON fetches an API path into v.
func (e *env) getJSON(path string, v any) {
	e.t.Helper()
	code, body := e.get("/api/v1" + path)
	if code != http.StatusOK {
		e.t.Fatalf("GET /api/v1%s: %d %.300s", path, code, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		e.t.Fatalf("GET /api/v1%s: %v", path, err)
	}
}

func TestRepositoryChartHasTheWindowsDaysAndClasses(t *testing.T) {
	e := newEnv(t, false)
	e.signIn()
	repo := e.repo(0)
	for _, days := range []int{30, 7, 90} {
		var data dashboard.RepositoryData
		e.getJSON(fmt.Sprintf("%s?days=%d", repoPath(repo), days), &data)
		if data.Window.Days != days || len(data.Workflows) != 2 {
			t.Fatalf("days=%d: window %+v, %d workflows", days, data.Window, len(data.Workflows))
		}
		_, html := e.get(fmt.Sprintf("%s?days=%d", repoPath(repo), days))
		for _, wf := range data.Workflows {
			if len(wf.Days) != days {
				t.Errorf("workflow %s: %d days, want %d", wf.Name, len(wf.Days), days)
			}
			want := e.seeded.ClassesBetween(repo.ID, wf.ID, data.Window.From, data.Window.To)
			got := 0
			for _, l := range wf.Legend {
				if l.ClassID != "" {
					got++
				}
			}
			if got != want {
				t.Errorf("workflow %s over %d days: %d classes in the legend, want %d", wf.Name, days, got, want)
			}
			tag := fmt.Sprintf(`id="cadence-%d" role="img"`, wf.ID)
			attrs := fmt.Sprintf(`data-days="%d" data-classes="%d"`, days, want)
			i := strings.Index(html, tag)
			if i < 0 || !strings.Contains(html[i:i+400], attrs) {
				t.Errorf("workflow %s: chart with %s not in the page", wf.Name, attrs)
			}
		}
	}
	if code, _ := e.get(repoPath(repo) + "?days=1000"); code != http.StatusBadRequest {
		t.Errorf("days=1000: %d, want 400", code)
	}
}

func TestRepositoryChartCountsMatchTheRuns(t *testing.T) {
	e := newEnv(t, false)
	e.signIn()
	repo := e.repo(0)
	var data dashboard.RepositoryData
	e.getJSON(repoPath(repo)+"?days=90", &data)
	failed := map[string]int{}
	for _, list := range e.seeded.Failures[repo.ID] {
		for _, f := range list {
			failed[f.Day.Format("2006-01-02")]++
		}
	}
	got := map[string]int{}
	runs := 0
	for _, wf := range data.Workflows {
		for _, d := range wf.Days {
			sum := 0
			for _, c := range d.Classes {
				sum += c.Runs
			}
			if sum != d.Failed || d.Unclassified != 0 {
				t.Fatalf("%s %s: classes add to %d, failed %d", wf.Name, d.Day, sum, d.Failed)
			}
			got[d.Day] += d.Failed
			runs += d.Runs
		}
	}
	for day, n := range failed {
		if got[day] != n {
			t.Errorf("%s: %d failed runs charted, %d generated", day, got[day], n)
		}
	}
	if runs != 240 {
		t.Errorf("%d runs charted over 90 days, want all 240", runs)
	}
	if len(data.Classes) == 0 || len(data.Diagnoses) != 10 || data.Classes[0].Trend == "" {
		t.Fatalf("classes %d, diagnoses %d", len(data.Classes), len(data.Diagnoses))
	}
}

func TestClassPageShowsTheFixEffectAndEscapesLogText(t *testing.T) {
	e := newEnv(t, false)
	e.signIn()
	repo := e.repo(0)
	var data dashboard.ClassData
	e.getJSON(repoPath(repo)+"/classes/"+e.seeded.FixedClass, &data)
	if data.Effect == nil || data.Class.Fix == nil || data.Class.Fix.State != "merged" {
		t.Fatalf("fixed class: effect %+v, fix %+v", data.Effect, data.Class.Fix)
	}
	if data.Effect.Before.WithClass == 0 || data.Effect.Before.Rate <= 0 || data.Effect.After.WithClass != 0 || data.Effect.After.Finished == 0 {
		t.Fatalf("rates before and after the fix: %+v", data.Effect)
	}
	if len(data.Timeline) != 90 || data.Chain == nil || !strings.HasPrefix(data.Flowchart, "flowchart TD") || len(data.Samples) == 0 {
		t.Fatalf("class page: %d days, chain %v, flowchart %.40q, %d samples", len(data.Timeline), data.Chain != nil, data.Flowchart, len(data.Samples))
	}
	if s := data.Samples[0]; !strings.Contains(s.LogURL, fmt.Sprintf("/actions/runs/%d/job/%d#step:", s.RunID, s.JobID)) {
		t.Fatalf("sample log link %q", s.LogURL)
	}

	// The second class of the first repository has markup in its cause lines.
	hostile := strings.Replace(e.seeded.FixedClass, "c1", "c2", 1)
	code, html := e.get(repoPath(repo) + "/classes/" + hostile)
	if code != http.StatusOK {
		t.Fatalf("hostile class page: %d", code)
	}
	if strings.Contains(html, "<script>alert") || strings.Contains(html, "<b>bold") || !strings.Contains(html, "&lt;script&gt;alert(") {
		t.Fatal("cause lines with markup are not escaped on the class page")
	}
}

func TestOccurrencesAndDiagnosesPageWithCursors(t *testing.T) {
	e := newEnv(t, false)
	e.signIn()
	repo := e.repo(0)
	var seen []int64
	next := repoPath(repo) + "/diagnoses"
	for pages := 0; next != "" && pages < 10; pages++ {
		var page dashboard.DiagnosesData
		e.getJSON(next, &page)
		for _, d := range page.Diagnoses {
			seen = append(seen, d.ID)
		}
		next = page.Next
	}
	if want := e.seeded.Diagnoses[repo.ID]; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("diagnoses through the cursor: %v, want %v", seen, want)
	}
	class := strings.Replace(e.seeded.FixedClass, "c1", "c2", 1)
	next = repoPath(repo) + "/classes/" + class
	total := 0
	var last time.Time
	for pages := 0; next != ""; pages++ {
		var page dashboard.ClassData
		e.getJSON(next, &page)
		for _, s := range page.Samples {
			if !last.IsZero() && s.OccurredAt.After(last) {
				t.Fatalf("samples out of order: %v after %v", s.OccurredAt, last)
			}
			last = s.OccurredAt
		}
		total += len(page.Samples)
		next = page.NextPage
		if pages > 20 {
			t.Fatal("the cursor does not end")
		}
	}
	if total == 0 || total != countClass(e, repo.ID, class) {
		t.Fatalf("samples of %s through the cursor: %d, want %d", class, total, countClass(e, repo.ID, class))
	}
	if code, _ := e.get(repoPath(repo) + "/diagnoses?cursor=notacursor"); code != http.StatusBadRequest {
		t.Fatalf("bad cursor: %d, want 400", code)
	}
}

// countClass counts the generated failures of a class.
func countClass(e *env, repoID int64, class string) int {
	n := 0
	for _, list := range e.seeded.Failures[repoID] {
		for _, f := range list {
			if f.ClassID == class {
				n++
			}
		}
	}
	return n
}

func TestDiagnosisPageRendersTheAssessment(t *testing.T) {
	e := newEnv(t, false)
	e.signIn()
	repo := e.repo(0)
	id := e.seeded.Diagnoses[repo.ID][0]
	path := fmt.Sprintf("%s/diagnoses/%d", repoPath(repo), id)
	code, html := e.get(path)
	if code != http.StatusOK {
		t.Fatalf("diagnosis page: %d", code)
	}
	for _, want := range []string{`<pre class="mermaid">flowchart TD`, `/static/vendor/mermaid/mermaid.min.js`, `<article class="assessment">`} {
		if !strings.Contains(html, want) {
			t.Errorf("diagnosis page lacks %q", want)
		}
	}
	if regexp.MustCompile(`(?i)<script>alert|javascript:`).MatchString(html) {
		t.Error("diagnosis page carries live markup from the document")
	}
	var data dashboard.DiagnosisData
	e.getJSON(path, &data)
	if data.Diagnosis.ID != id || !strings.Contains(data.Markdown, "```mermaid") || len(data.Document) == 0 || data.Problem != "" {
		t.Fatalf("diagnosis API: id %d, problem %q, markdown %.80q", data.Diagnosis.ID, data.Problem, data.Markdown)
	}
}

func TestStaticAssets(t *testing.T) {
	e := newEnv(t, true)
	req, _ := http.NewRequest(http.MethodGet, e.url+"/static/vendor/mermaid/mermaid.min.js", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("mermaid.min.js: %d %v", resp.StatusCode, resp.Header)
	}
	if code, _ := e.get("/static/../go.mod"); code != http.StatusNotFound {
		t.Fatalf("path outside the assets: %d", code)
	}
	code, body := e.get("/static/vendor/mermaid/LICENSE")
	if code != http.StatusOK || !strings.Contains(body, "MIT") {
		t.Fatalf("mermaid licence: %d", code)
	}
}

// TestMutedClassesSayWhoMutedThem: a class muted with the command, one
// muted in .github/polylane.yml and one muted both ways carry the badge,
// say who muted them and why (escaped), in the page and the API.
func TestMutedClassesSayWhoMutedThem(t *testing.T) {
	e := newEnv(t, false)
	e.signIn()
	repo := e.repo(0)
	ctx := t.Context()
	byCommand := e.seeded.FixedClass
	inConfig := strings.Replace(byCommand, "c1", "c2", 1)
	if err := e.st.MuteClass(ctx, repo.ID, byCommand, true, "tracked in #12"); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetConfigMutes(ctx, repo.ID, map[string]string{inConfig: "<b>noisy</b> mirror", byCommand: ""}); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		by   []string
		note string
	}{
		byCommand: {[]string{"command", "configuration"}, "@polylane mute: tracked in #12"},
		inConfig:  {[]string{"configuration"}, ".github/polylane.yml: <b>noisy</b> mirror"},
	}
	var data dashboard.RepositoryData
	e.getJSON(repoPath(repo), &data)
	seen := 0
	for _, c := range data.Classes {
		w, ok := want[c.ID]
		if !ok {
			if c.Muted {
				t.Errorf("class %s is muted", c.ID)
			}
			continue
		}
		seen++
		if !c.Muted || strings.Join(c.MutedBy, ",") != strings.Join(w.by, ",") || c.MuteNote != w.note {
			t.Errorf("class %s: muted %v by %v, note %q; want by %v, note %q", c.ID, c.Muted, c.MutedBy, c.MuteNote, w.by, w.note)
		}
	}
	if seen != 2 {
		t.Fatalf("%d of the 2 muted classes in the repository's table", seen)
	}
	_, html := e.get(repoPath(repo))
	if !strings.Contains(html, `title="muted in .github/polylane.yml (.github/polylane.yml: &lt;b&gt;noisy&lt;/b&gt; mirror)"`) ||
		strings.Contains(html, "<b>noisy") {
		t.Error("the repository page does not say, escaped, that the configuration muted the class")
	}
	_, html = e.get(repoPath(repo) + "/classes/" + byCommand)
	if !strings.Contains(html, "muted with @polylane mute and in .github/polylane.yml (@polylane mute: tracked in #12)") {
		t.Error("the class page does not say who muted the class")
	}
}

// TestRepositoryPageListsUnfinishedDeliveries shows a delivery that ended
// failed (here: a job whose process died on each attempt) with its reason
// on the repository page and in the API; a repository without one has no
// such section.
func TestRepositoryPageListsUnfinishedDeliveries(t *testing.T) {
	e := newEnv(t, false)
	e.signIn()
	repo, other := e.repo(0), e.repo(1)
	ctx := context.Background()
	reason := "diagnose failed: the process working on it stopped 2 times before it finished"
	if _, err := e.st.RecordDelivery(ctx, store.Delivery{GUID: "crash-1", Event: "workflow_run", Action: "completed",
		RepositoryID: repo.ID, ReceivedAt: time.Now(), Payload: []byte("{}")}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetDeliveryState(ctx, "crash-1", store.DeliveryFailed, reason); err != nil {
		t.Fatal(err)
	}
	var data dashboard.RepositoryData
	e.getJSON(repoPath(repo), &data)
	if len(data.Unfinished) != 1 || data.Unfinished[0].Reason != reason || data.Unfinished[0].GUID != "crash-1" {
		t.Errorf("unfinished deliveries %+v", data.Unfinished)
	}
	if _, html := e.get(repoPath(repo)); !strings.Contains(html, "Deliveries Polylane could not finish") || !strings.Contains(html, "stopped 2 times") {
		t.Error("the repository page does not show the unfinished delivery")
	}
	if _, html := e.get(repoPath(other)); strings.Contains(html, "could not finish") {
		t.Error("another repository's page shows the unfinished delivery")
	}
}

// TestDiagnosisPageShowsThePullRequestClassification stores the diagnosis of
// a pull-request run whose base branch is broken: its page says so at the
// top, and the API carries the block.
func TestDiagnosisPageShowsThePullRequestClassification(t *testing.T) {
	e := newEnv(t, false)
	e.signIn()
	repo := e.repo(0)
	out, _, err := diagnosis.DiagnoseScenario(os.DirFS(filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "pr-broken-base")), diagnosis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(out.Diagnosis)
	if err != nil {
		t.Fatal(err)
	}
	r := out.Diagnosis.Run
	err = e.st.UpsertRun(context.Background(), store.WorkflowRun{RepositoryID: repo.ID, RunID: r.ID, Attempt: 1,
		WorkflowID: e.seeded.Workflows[repo.ID][0], WorkflowPath: r.WorkflowPath, WorkflowName: r.Workflow, RunNumber: r.Number,
		HeadSHA: r.HeadSHA, Branch: r.Branch, Event: r.Event, Status: "completed", Conclusion: "failure", CreatedAt: out.Diagnosis.Window.To})
	if err != nil {
		t.Fatal(err)
	}
	// filed under a class of the repository, whose page then lists the
	// pull requests the diagnosis names
	seeded, err := e.st.GetDiagnosisByID(context.Background(), e.seeded.Diagnoses[repo.ID][0])
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.st.PutDiagnosis(context.Background(), store.Diagnosis{RepositoryID: repo.ID, RunID: r.ID, Attempt: 1,
		Document: doc, Verdict: out.Diagnosis.Verdict.Kind, ClassID: seeded.ClassID, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("%s/diagnoses/%d", repoPath(repo), id)
	code, html := e.get(path)
	if code != http.StatusOK {
		t.Fatalf("diagnosis page: %d", code)
	}
	for _, want := range []string{`pull request #31: <span class="badge pr-broken-base"`, `Not caused by this pull request:`} {
		if !strings.Contains(html, want) {
			t.Errorf("diagnosis page lacks %q", want)
		}
	}
	var data dashboard.DiagnosisData
	e.getJSON(path, &data)
	if data.PullRequest == nil || data.PullRequest.Classification != diagnosis.PRBrokenBase {
		t.Errorf("diagnosis API pull_request = %+v", data.PullRequest)
	}
	var class dashboard.ClassData
	e.getJSON(repoPath(repo)+"/classes/"+seeded.ClassID, &class)
	var numbers []int
	for _, p := range class.PullRequests {
		numbers = append(numbers, p.Number)
	}
	if !slices.Equal(numbers, []int{31, 11, 12}) || class.PullRequests[0].Classification != diagnosis.PRBrokenBase {
		t.Errorf("class pull requests = %+v, want #31 (broken-base), #11, #12", class.PullRequests)
	}
	if code, html := e.get(repoPath(repo) + "/classes/" + seeded.ClassID); code != http.StatusOK || !strings.Contains(html, "Pull requests it hit") {
		t.Errorf("class page: %d, lists no pull requests", code)
	}
}

// TestClassPageShowsTheFixVerification: the class page of a class with an
// open fix pull request shows each recorded run of its branch, the green
// runs at the current head with the chance statement at the class's rate,
// and a refutation; cause lines are escaped.
func TestClassPageShowsTheFixVerification(t *testing.T) {
	e := newEnv(t, false)
	e.signIn()
	repo := e.repo(0)
	class := strings.Replace(e.seeded.FixedClass, "c1", "c2", 1)
	ctx := context.Background()
	c, err := e.st.GetClass(ctx, repo.ID, class)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.st.UpsertFixPullRequest(ctx, store.FixPullRequest{RepositoryID: repo.ID, ClassID: class, Number: 90,
		Branch: "polylane/fix-" + class, State: store.FixOpen, HeadSHA: "aaaaaaaaaaaa", CreatedAt: c.LastSeen}))
	put := func(id int64, conclusion, cause string, inClass bool) {
		t.Helper()
		_, err := e.st.PutFixVerificationRun(ctx, store.FixVerificationRun{RepositoryID: repo.ID, ClassID: class, RunID: id, Attempt: 1,
			WorkflowID: c.WorkflowID, WorkflowName: "E2E", HeadSHA: "aaaaaaaaaaaa", Conclusion: conclusion, Cause: cause,
			InClass: inClass, FailedJob: map[bool]string{true: "e2e"}[cause != ""], CompletedAt: c.LastSeen.Add(time.Duration(id) * time.Minute)})
		must(err)
	}
	put(1, "success", "", false)
	put(2, "success", "", false)
	var data dashboard.ClassData
	e.getJSON(repoPath(repo)+"/classes/"+class, &data)
	v := data.Verification
	if v == nil || v.Number != 90 || v.Green != 2 || v.Refuted || len(v.Runs) != 2 || v.Rate <= 0 {
		t.Fatalf("verification %+v", v)
	}
	if want := math.Pow(1-v.Rate, 2); math.Abs(v.Chance-want) > 1e-9 || !strings.Contains(v.Statement, "2 green runs of E2E on the fix branch") {
		t.Fatalf("chance %v (want %v), statement %q", v.Chance, want, v.Statement)
	}
	put(3, "failure", "<script>alert(1)</script> timed out", true)
	code, html := e.get(repoPath(repo) + "/classes/" + class)
	if code != http.StatusOK || !strings.Contains(html, "Verification of the fix") || !strings.Contains(html, "refuted") {
		t.Fatalf("class page %d without the refuted verification", code)
	}
	if strings.Contains(html, "<script>alert(1)") || !strings.Contains(html, "&lt;script&gt;alert(1)") {
		t.Fatal("a cause line on the fix branch is not escaped")
	}
}
