package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// TestHostileDeliveries sends deliveries an attacker (or a confused proxy)
// could send, with the default body bound: bodies above GitHub's 25 MB,
// nesting deep enough to exhaust a recursive parser, wrong content types,
// signatures that do not cover what arrives, and signed bodies sent under
// another event name. None may crash the server, store a delivery it
// should not, or queue a job.
func TestHostileDeliveries(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], 0)
	failed := r.event(t, runEvent(tinyFailed))
	comment := r.event(t, func(s *githubtest.Server) (githubtest.Event, error) {
		id, err := s.AddIssueComment(tinyRepo, tinyPR, "octocat", "@polylane fix")
		if err != nil {
			return githubtest.Event{}, err
		}
		return s.IssueCommentEvent("created", tinyRepo, id, "")
	})
	deepArray := strings.Repeat("[", 8<<20) + strings.Repeat("]", 8<<20)
	deepMember := `{"action":"completed","workflow_run":{"id":1,"x":` + strings.Repeat(`{"a":`, 1<<20) + "1" + strings.Repeat("}", 1<<20) + "}}"
	form := []byte("payload=" + url.QueryEscape(string(failed)))
	tests := []struct {
		name, event, sig, ctype string
		body                    []byte
		want                    int
		stored                  bool
	}{
		{"30 MB body", "workflow_run", "", "application/json", bytes.Repeat([]byte(" "), 30<<20), 413, false},
		{"8M nested arrays", "workflow_run", "", "application/json", []byte(deepArray), 400, false},
		{"1M nested objects in a skipped member", "workflow_run", "", "application/json", []byte(deepMember), 400, false},
		{"signature in upper-case hex of another body", "workflow_run", strings.ToUpper(sign([]byte("x"))), "application/json", failed, 401, false},
		{"signature with a space", "workflow_run", "sha256= " + sign(failed)[7:], "application/json", failed, 401, false},
		{"empty signature", "workflow_run", "sha256=", "application/json", failed, 401, false},
		{"form body signed as its JSON", "workflow_run", sign(failed), "application/x-www-form-urlencoded", form, 401, false},
		{"form without payload", "workflow_run", "", "application/x-www-form-urlencoded", []byte("x=1"), 400, false},
		{"multipart body", "workflow_run", "", "multipart/form-data; boundary=x", []byte("--x\r\n\r\n{}\r\n--x--"), 400, false},
		{"XML body", "workflow_run", "", "application/xml", []byte("<a/>"), 400, false},
		// The event name is not signed: a captured body resent under
		// another name must not start that event's work.
		{"signed comment sent as a workflow_run", "workflow_run", "", "application/json", comment, 202, false},
		{"signed workflow_run sent as a comment", "issue_comment", "", "application/json", failed, 400, false},
		{"signed comment sent as a pull_request", "pull_request", "", "application/json", comment, 202, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			guid := "guid-hostile-" + string(rune('a'+i))
			start := time.Now()
			status, text := r.post(t, tc.event, guid, tc.body, tc.sig, tc.ctype)
			if status != tc.want {
				t.Errorf("status %d (%.200s), want %d", status, text, tc.want)
			}
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("answered in %s", took)
			}
			_, err := r.st.GetDelivery(context.Background(), guid)
			if stored := err == nil; stored != tc.stored || err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Errorf("delivery stored %v (%v), want %v", stored, err, tc.stored)
			}
			if n := r.jobs(t); n != 0 {
				t.Fatalf("%d jobs queued", n)
			}
		})
	}
}

// TestOversizedStreamIsNotBuffered streams 100 MB without Content-Length:
// the handler answers 413 once it has read the bound (26 MB), without
// reading (or keeping) the rest. The stream is well past the bound because
// the client counts what it handed to the kernel, and loopback socket
// buffers hold several megabytes the server never reads: with a 30 MB
// stream that margin failed about one run in thirty.
func TestOversizedStreamIsNotBuffered(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], 0)
	const streamed = 100 << 20
	sent := &countingReader{r: io.LimitReader(zeroReader{}, streamed)}
	req, err := http.NewRequest(http.MethodPost, r.url, sent)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = -1
	req.Header.Set(webhook.HeaderEvent, "workflow_run")
	req.Header.Set(webhook.HeaderDelivery, "guid-stream-30mb")
	req.Header.Set(webhook.HeaderSignature, sign(nil))
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d, want 413", resp.StatusCode)
		}
	}
	// The server may cut the upload short (err != nil); either way it must
	// not have taken all of it.
	if n := sent.n(); n >= streamed {
		t.Errorf("the server read the whole %d-byte stream", n)
	}
	if _, err := r.st.GetDelivery(context.Background(), "guid-stream-30mb"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an oversized delivery was stored: %v", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// countingReader counts the bytes the client sent.
type countingReader struct {
	r    io.Reader
	read atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read.Add(int64(n))
	return n, err
}

func (c *countingReader) n() int64 { return c.read.Load() }

// TestPayloadWithoutOwner: a workflow_run delivery of an installation the
// store has not seen, whose repository object has no owner, is recorded
// with the owner read from full_name; one whose repository cannot name an
// owner at all is refused with 400, not 500 (GitHub would deliver it
// again and again, with the same result).
func TestPayloadWithoutOwner(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], 0)
	run := `{"action":"completed","workflow_run":{"id":1,"conclusion":"failure","head_branch":"main","run_attempt":1},` +
		`"repository":{"id":31,"full_name":%q,"default_branch":"main"},"installation":{"id":%d}}`
	status, text := r.post(t, "workflow_run", "guid-no-owner", []byte(fmt.Sprintf(run, "acme/tools", 901)), "", "application/json")
	if status != http.StatusAccepted {
		t.Fatalf("delivery without repository.owner: %d %s", status, text)
	}
	inst, err := r.st.GetInstallation(context.Background(), 901)
	if err != nil || inst.AccountLogin != "acme" {
		t.Fatalf("installation recorded from full_name: %+v %v", inst, err)
	}
	if n := r.jobs(t); n != 1 {
		t.Fatalf("%d jobs, want 1", n)
	}
	status, text = r.post(t, "workflow_run", "guid-no-name", []byte(fmt.Sprintf(run, "", 902)), "", "application/json")
	if status != http.StatusBadRequest {
		t.Fatalf("delivery whose repository has no name: %d %s, want 400", status, text)
	}
	if _, err := r.st.GetDelivery(context.Background(), "guid-no-name"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("refused delivery stored: %v", err)
	}
}
