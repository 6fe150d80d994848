package worker

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/analysis/scenario/scenariotest"
	"github.com/polylane/polylane/server/dashboard"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// secretScenario is a pull-request failure whose Composer step prints the
// job's installation token (a new one in each run) in a clone URL on its
// cause line, and a personal access token in a header.
var secretScenario = filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "secret-in-log")

// scenarioSecrets returns the random parts of the tokens the scenario's
// logs print, which markdown escaping leaves whole.
func scenarioSecrets(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, tok := range scenariotest.PrintedTokens(t, secretScenario) {
		out = append(out, tok[4:])
	}
	return out
}

// leaks returns the secrets that text holds.
func leaks(text string, secrets []string) []string {
	var out []string
	for _, s := range secrets {
		if strings.Contains(text, s) {
			out = append(out, s[:6]+"…")
		}
	}
	return out
}

// TestSecretInLogNeverRepublishedInComment diagnoses and publishes the
// pull-request failure through the GitHub simulator: the sticky comment
// shows the redacted form, says once that the log printed a GitHub token
// to rotate, and holds no token; neither do the stored diagnosis, the
// stored occurrences and classes, nor the dashboard's pages and API.
func TestSecretInLogNeverRepublishedInComment(t *testing.T) {
	secrets := scenarioSecrets(t)
	r := newRig(t, storetest.Backends()[0], secretScenario)
	run, number := r.prFailure(t)
	r.diagnoseAndPublish(t, run.ID)

	comments := r.botComments(number)
	if len(comments) != 1 {
		t.Fatalf("%d comments, want 1", len(comments))
	}
	body := comments[0].Body
	if l := leaks(body, secrets); len(l) > 0 {
		t.Errorf("the comment holds tokens %v:\n%.3000s", l, body)
	}
	if !strings.Contains(body, redact.Marker("GitHub token")) || strings.Count(body, "rotate it") != 1 {
		t.Errorf("the comment does not show the redacted token and one note to rotate it:\n%.3000s", body)
	}
	rec, doc := r.storedDiagnosis(t, run.ID, run.RunAttempt)
	if l := leaks(string(rec.Document), secrets); len(l) > 0 {
		t.Errorf("the stored diagnosis holds tokens %v", l)
	}
	if len(doc.RedactedSecrets) == 0 || doc.RedactedSecrets[0].Kind != "GitHub token" {
		t.Errorf("redacted_secrets = %+v", doc.RedactedSecrets)
	}
	r.checkStoreClean(t, secrets)
	r.checkDashboardClean(t, rec.ID, secrets)
}

// TestSecretInStoredDiagnosisNeverRepublished: a diagnosis and a class
// stored before log lines were redacted (the document and signature hold
// the token) are shown redacted by the dashboard and posted redacted when
// the comment is published again.
func TestSecretInStoredDiagnosisNeverRepublished(t *testing.T) {
	secrets := scenarioSecrets(t)
	r := newRig(t, storetest.Backends()[0], secretScenario)
	run, number := r.prFailure(t)
	a := r.diagnoseAndPublish(t, run.ID)
	rec, doc := r.storedDiagnosis(t, run.ID, run.RunAttempt)
	token := "ghs_" + secrets[0]
	// undo the redaction, as a store written by an older Polylane holds it
	rec.Document = json.RawMessage(strings.ReplaceAll(string(rec.Document), redact.Marker("GitHub token"), token))
	rec.Document = json.RawMessage(strings.Replace(string(rec.Document), `"redacted_secrets"`, `"redacted_secrets_old"`, 1))
	if !strings.Contains(string(rec.Document), token) {
		t.Fatal("the stored document shows no redacted token to undo: the test proves nothing")
	}
	ctx := testCtx(t)
	if _, err := r.st.PutDiagnosis(ctx, rec); err != nil {
		t.Fatal(err)
	}
	class, err := r.st.GetClass(ctx, r.sc.Repository.ID, doc.TriggerClass)
	if err != nil {
		t.Fatal(err)
	}
	class.Signature = strings.ReplaceAll(class.Signature, redact.Marker("GitHub token"), token)
	if err := r.st.UpsertClass(ctx, class); err != nil {
		t.Fatal(err)
	}
	stored, err := r.st.GetDiagnosis(ctx, rec.Key())
	if err != nil {
		t.Fatal(err)
	}
	r.checkDashboardClean(t, stored.ID, secrets)

	if err := r.w.publish(ctx, jobs.PublishArgs(a)); err != nil {
		t.Fatal(err)
	}
	for _, c := range r.botComments(number) {
		if l := leaks(c.Body, secrets); len(l) > 0 {
			t.Errorf("the comment published from the old document holds tokens %v", l)
		}
		if !strings.Contains(c.Body, "rotate it") {
			t.Errorf("the comment published from the old document has no note to rotate the token:\n%.2000s", c.Body)
		}
	}
}

// checkStoreClean checks the stored occurrences and classes.
func (r *rig) checkStoreClean(t *testing.T, secrets []string) {
	t.Helper()
	ctx := testCtx(t)
	occs, err := r.st.ListOccurrences(ctx, store.OccurrenceQuery{RepositoryID: r.sc.Repository.ID})
	if err != nil {
		t.Fatal(err)
	}
	classes, err := r.st.ListClasses(ctx, store.ClassQuery{RepositoryID: r.sc.Repository.ID, IncludeMuted: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(occs) == 0 || len(classes) == 0 {
		t.Fatalf("%d occurrences and %d classes stored", len(occs), len(classes))
	}
	data, err := json.Marshal(map[string]any{"occurrences": occs, "classes": classes})
	if err != nil {
		t.Fatal(err)
	}
	if l := leaks(string(data), secrets); len(l) > 0 {
		t.Errorf("stored occurrences or classes hold tokens %v", l)
	}
}

// checkDashboardClean reads the repository's pages, its class and the
// diagnosis, HTML and JSON, from a public dashboard over the rig's store.
func (r *rig) checkDashboardClean(t *testing.T, diagnosisID int64, secrets []string) {
	t.Helper()
	d, err := dashboard.New(dashboard.Options{Store: r.st, Public: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d.Routes())
	t.Cleanup(srv.Close)
	classes, err := r.st.ListClasses(testCtx(t), store.ClassQuery{RepositoryID: r.sc.Repository.ID, IncludeMuted: true})
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"/", "/repos/" + r.repo, "/repos/" + r.repo + "/diagnoses", fmt.Sprintf("/repos/%s/diagnoses/%d", r.repo, diagnosisID)}
	for _, c := range classes {
		paths = append(paths, "/repos/"+r.repo+"/classes/"+c.ID)
	}
	shown := false
	for _, p := range paths {
		for _, prefix := range []string{"", "/api/v1"} {
			if prefix != "" && p == "/" {
				p = "/overview"
			}
			resp, err := http.Get(srv.URL + prefix + p)
			if err != nil {
				t.Fatal(err)
			}
			page, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s%s = %d", prefix, p, resp.StatusCode)
				continue
			}
			if l := leaks(string(page), secrets); len(l) > 0 {
				t.Errorf("GET %s%s shows tokens %v", prefix, p, l)
			}
			shown = shown || strings.Contains(string(page), "redacted: GitHub token")
		}
	}
	if !shown {
		t.Error("no dashboard page shows the redacted cause: the test proves nothing")
	}
}
