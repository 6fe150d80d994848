package webhook_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

const secret = "It's a Secret to Everybody"

// Facts of the simulator's testdata/tiny scenario, read in place.
const (
	tinyRepo   = "acme/widget"
	tinyRepoID = int64(1001)
	tinyInst   = int64(77)
	tinyFailed = int64(9005) // main, push, failure
	tinyPassed = int64(9004) // main, push, success
	tinyPR     = 12
)

func sign(body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// rig is a webhook endpoint on a real store behind the real server.
type rig struct {
	st  store.Store
	url string
	sim *githubtest.Server
}

func newRig(t *testing.T, b storetest.Backend, maxBody int64) *rig {
	t.Helper()
	st := b.Open(t)
	h, err := webhook.New(webhook.Options{Secret: secret, Store: st, MaxBody: maxBody})
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Options{Logger: zerolog.Nop(), Checker: st})
	srv.Method(http.MethodPost, "/webhooks/github", h)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	sim, err := githubtest.New(githubtest.Options{Scenarios: []string{filepath.Join("..", "githubtest", "testdata", "tiny")}})
	if err != nil {
		t.Fatal(err)
	}
	return &rig{st: st, url: hs.URL + "/webhooks/github", sim: sim}
}

// post sends a delivery; sig "" signs the body, "-" sends no signature.
func (r *rig) post(t *testing.T, event, guid string, body []byte, sig, contentType string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set(webhook.HeaderEvent, event)
	req.Header.Set(webhook.HeaderDelivery, guid)
	switch sig {
	case "":
		req.Header.Set(webhook.HeaderSignature, sign(body))
	case "-":
	default:
		req.Header.Set(webhook.HeaderSignature, sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(text))
}

func (r *rig) jobs(t *testing.T) int64 {
	t.Helper()
	st, err := r.st.QueueStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, c := range st.Jobs {
		n += c
	}
	return n
}

func (r *rig) event(t *testing.T, build func(*githubtest.Server) (githubtest.Event, error)) []byte {
	t.Helper()
	ev, err := build(r.sim)
	if err != nil {
		t.Fatal(err)
	}
	return ev.Payload
}

func runEvent(id int64) func(*githubtest.Server) (githubtest.Event, error) {
	return func(s *githubtest.Server) (githubtest.Event, error) { return s.WorkflowRunEvent(tinyRepo, id) }
}

// TestRejections sends deliveries that must be refused or ignored: none of
// them stores a delivery or a job.
func TestRejections(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, 64<<10)
			failed := r.event(t, runEvent(tinyFailed))
			huge := bytes.Repeat([]byte("x"), 65<<10)
			tests := []struct {
				name, event, sig, ctype string
				body                    []byte
				want                    int
			}{
				{"bad signature", "workflow_run", "sha256=" + strings.Repeat("0", 64), "application/json", failed, 401},
				{"signature of another body", "workflow_run", sign([]byte("{}")), "application/json", failed, 401},
				{"missing signature", "workflow_run", "-", "application/json", failed, 401},
				{"legacy sha1 only", "workflow_run", "sha1=abc", "application/json", failed, 401},
				{"oversized", "workflow_run", "", "application/json", huge, 413},
				{"malformed JSON", "workflow_run", "", "application/json", []byte(`{"action":`), 400},
				{"JSON with trailing data", "workflow_run", "", "application/json", []byte(`{} {}`), 400},
				{"deeply nested JSON", "workflow_run", "", "application/json", []byte(strings.Repeat("[", 20000) + strings.Repeat("]", 20000)), 400},
				{"unknown event", "star", "", "application/json", []byte(`{"action":"created"}`), 202},
				{"successful run", "workflow_run", "", "application/json", r.event(t, runEvent(tinyPassed)), 202},
			}
			for i, tc := range tests {
				status, text := r.post(t, tc.event, "guid-reject-"+string(rune('a'+i)), tc.body, tc.sig, tc.ctype)
				if status != tc.want {
					t.Errorf("%s: status %d (%s), want %d", tc.name, status, text, tc.want)
				}
				if _, err := r.st.GetDelivery(context.Background(), "guid-reject-"+string(rune('a'+i))); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("%s: a delivery was stored (%v)", tc.name, err)
				}
			}
			if n := r.jobs(t); n != 0 {
				t.Fatalf("%d jobs queued by rejected deliveries", n)
			}
		})
	}
}

// TestOversizedStream sends a body without Content-Length above the bound.
func TestOversizedStream(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], 1<<10)
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write(bytes.Repeat([]byte(" "), 4<<10))
		_ = pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPost, r.url, pr)
	req.Header.Set(webhook.HeaderEvent, "workflow_run")
	req.Header.Set(webhook.HeaderDelivery, "guid-stream")
	req.Header.Set(webhook.HeaderSignature, sign(nil))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
}

// TestAcceptAndDeduplicate records a failing run with one job, answers a
// redelivery 200 without a second job, and a new delivery of the same
// attempt (another body) with no second job either.
func TestAcceptAndDeduplicate(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, 0)
			body := r.event(t, runEvent(tinyFailed))
			if status, text := r.post(t, "workflow_run", "guid-1", body, "", "application/json"); status != 202 {
				t.Fatalf("failing run: %d %s", status, text)
			}
			d, err := r.st.GetDelivery(context.Background(), "guid-1")
			if err != nil || d.State != store.DeliveryQueued || d.RepositoryID != tinyRepoID || d.InstallationID != tinyInst || !bytes.Equal(d.Payload, body) {
				t.Fatalf("stored delivery: %v %+v", err, d.State)
			}
			repo, err := r.st.GetRepository(context.Background(), tinyRepoID)
			if err != nil || repo.FullName != tinyRepo || repo.DefaultBranch != "main" {
				t.Fatalf("repository registered from the delivery: %v %+v", err, repo)
			}
			if status, _ := r.post(t, "workflow_run", "guid-1", body, "", "application/json"); status != 200 {
				t.Fatalf("redelivery answered %d, want 200", status)
			}
			// Another delivery of the same attempt (its body differs, as
			// GitHub's would): recorded, with no second job.
			var other map[string]any
			if err := json.Unmarshal(body, &other); err != nil {
				t.Fatal(err)
			}
			other["workflow_run"].(map[string]any)["updated_at"] = "2030-01-01T00:00:00Z"
			otherBody, _ := json.Marshal(other)
			if status, _ := r.post(t, "workflow_run", "guid-2", otherBody, "", "application/json"); status != 202 {
				t.Fatalf("second delivery of the attempt answered %d", status)
			}
			if n := r.jobs(t); n != 1 {
				t.Fatalf("%d jobs, want 1", n)
			}
			d2, err := r.st.GetDelivery(context.Background(), "guid-2")
			if err != nil || d2.State != store.DeliveryIgnored || d2.Error == "" {
				t.Fatalf("second delivery of the attempt: %v %+v", err, d2)
			}
			// A form-encoded delivery of another run is accepted too.
			form := []byte("payload=" + url.QueryEscape(string(r.event(t, runEvent(9002)))))
			if status, text := r.post(t, "workflow_run", "guid-3", form, "", "application/x-www-form-urlencoded"); status != 202 {
				t.Fatalf("form-encoded delivery: %d %s", status, text)
			}
			if n := r.jobs(t); n != 2 {
				t.Fatalf("%d jobs after a second run, want 2", n)
			}
		})
	}
}

// TestInstallationEvents keeps installations and repositories current and
// stops diagnosing removed repositories and suspended installations.
func TestInstallationEvents(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], 0)
	ctx := context.Background()
	send := func(guid string, build func(*githubtest.Server) (githubtest.Event, error)) int {
		ev, err := build(r.sim)
		if err != nil {
			t.Fatal(err)
		}
		status, text := r.post(t, ev.Name, guid, ev.Payload, "", "application/json")
		if status >= 300 {
			t.Fatalf("%s: %d %s", guid, status, text)
		}
		return status
	}
	if got := send("ping", func(s *githubtest.Server) (githubtest.Event, error) { return s.PingEvent() }); got != 200 {
		t.Fatalf("ping answered %d", got)
	}
	send("inst-created", func(s *githubtest.Server) (githubtest.Event, error) { return s.InstallationEvent("created", tinyInst) })
	repo, err := r.st.GetRepository(ctx, tinyRepoID)
	if err != nil || repo.Removed || repo.InstallationID != tinyInst {
		t.Fatalf("after installation created: %v %+v", err, repo)
	}
	send("repos-removed", func(s *githubtest.Server) (githubtest.Event, error) {
		return s.InstallationRepositoriesEvent("removed", tinyInst, tinyRepo)
	})
	if repo, _ = r.st.GetRepository(ctx, tinyRepoID); !repo.Removed {
		t.Fatal("repository not marked removed")
	}
	send("removed-run", runEvent(tinyFailed))
	if n := r.jobs(t); n != 0 {
		t.Fatalf("a removed repository's failure queued %d jobs", n)
	}
	send("repos-added", func(s *githubtest.Server) (githubtest.Event, error) {
		return s.InstallationRepositoriesEvent("added", tinyInst, tinyRepo)
	})
	send("inst-suspend", func(s *githubtest.Server) (githubtest.Event, error) { return s.InstallationEvent("suspend", tinyInst) })
	send("suspended-run", runEvent(tinyFailed))
	if n := r.jobs(t); n != 0 {
		t.Fatalf("a suspended installation's failure queued %d jobs", n)
	}
	send("inst-unsuspend", func(s *githubtest.Server) (githubtest.Event, error) {
		return s.InstallationEvent("unsuspend", tinyInst)
	})
	send("accepted-run", runEvent(tinyFailed))
	if n := r.jobs(t); n != 1 {
		t.Fatalf("after unsuspend: %d jobs, want 1", n)
	}
	send("inst-deleted", func(s *githubtest.Server) (githubtest.Event, error) { return s.InstallationEvent("deleted", tinyInst) })
	in, err := r.st.GetInstallation(ctx, tinyInst)
	if repo, _ = r.st.GetRepository(ctx, tinyRepoID); err != nil || !in.Deleted || !repo.Removed {
		t.Fatalf("after installation deleted: %v %+v %+v", err, in, repo)
	}
	// A command on a repository of a deleted installation starts nothing.
	cid, err := r.sim.AddIssueComment(tinyRepo, tinyPR, "octocat", "@polylane help")
	if err != nil {
		t.Fatal(err)
	}
	send("comment", func(s *githubtest.Server) (githubtest.Event, error) {
		return s.IssueCommentEvent("created", tinyRepo, cid, "")
	})
	if _, err := r.st.GetDelivery(ctx, "comment"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("issue_comment delivery of a removed repository was stored: %v", err)
	}
	if n := r.jobs(t); n != 1 {
		t.Fatalf("%d jobs at the end, want 1", n)
	}
}

func TestNewRefusesEmptySecret(t *testing.T) {
	if _, err := webhook.New(webhook.Options{Store: storetest.OpenSQLite(t)}); err == nil {
		t.Fatal("New accepted an empty secret")
	}
}

// TestSignatureVector checks GitHub's documented HMAC test vector.
func TestSignatureVector(t *testing.T) {
	if got := sign([]byte("Hello, World!")); got != "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17" {
		t.Fatalf("signature = %s", got)
	}
}

// TestConcurrentDeliveries sends every delivery twice at once, as a
// redelivery racing the original would be: group commit answers one of
// each pair 202 and the other 200, and queues one job per run.
func TestConcurrentDeliveries(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, 0)
			var template map[string]any
			if err := json.Unmarshal(r.event(t, runEvent(tinyFailed)), &template); err != nil {
				t.Fatal(err)
			}
			const runs = 40
			bodies := make([][]byte, runs)
			for i := range bodies {
				template["workflow_run"].(map[string]any)["id"] = 500_000 + i
				bodies[i], _ = json.Marshal(template)
			}
			statuses := make([]int, 2*runs)
			var wg sync.WaitGroup
			for i := range 2 * runs {
				wg.Go(func() {
					statuses[i], _ = r.post(t, "workflow_run", fmt.Sprintf("race-%d", i/2), bodies[i/2], "", "application/json")
				})
			}
			wg.Wait()
			for i := 0; i < 2*runs; i += 2 {
				pair := []int{statuses[i], statuses[i+1]}
				slices.Sort(pair)
				if pair[0] != 200 || pair[1] != 202 {
					t.Fatalf("delivery race-%d answered %v, want one 200 and one 202", i/2, pair)
				}
			}
			if n := r.jobs(t); n != runs {
				t.Fatalf("%d jobs, want %d", n, runs)
			}
		})
	}
}

// TestNewPermissionsAccepted: the new_permissions_accepted delivery tells
// the process to drop the installation's cached token, once.
func TestNewPermissionsAccepted(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], 0)
	var got []int64
	r.url = serveHook(t, r.st, webhook.Options{Secret: secret, Store: r.st, NewPermissions: func(id int64) { got = append(got, id) }})
	for _, action := range []string{"created", "new_permissions_accepted", "new_permissions_accepted"} {
		ev, err := r.sim.InstallationEvent(action, tinyInst)
		if err != nil {
			t.Fatal(err)
		}
		guid := "perm-" + action
		if status, text := r.post(t, ev.Name, guid, ev.Payload, "", "application/json"); status >= 300 {
			t.Fatalf("%s: %d %s", action, status, text)
		}
	}
	if len(got) != 1 || got[0] != tinyInst {
		t.Fatalf("cached tokens dropped for %v, want [%d] (the redelivery is a duplicate)", got, tinyInst)
	}
}
