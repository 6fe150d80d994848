package githubtest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // GitHub still sends the legacy X-Hub-Signature
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Event is a webhook event ready to send: the X-GitHub-Event name and the
// JSON payload. The builders (WorkflowRunEvent, IssueCommentEvent, …) make
// them from the simulator's state; tests may also build their own.
type Event struct {
	Name    string
	Payload []byte
}

// Delivery is one webhook delivery the simulator sent.
type Delivery struct {
	// GUID is the X-GitHub-Delivery header; a redelivery repeats it.
	GUID  string
	Event string
	URL   string
	// Payload is the exact body sent (and signed).
	Payload []byte
	// Status is the receiver's answer, 0 when the request failed.
	Status   int
	Response []byte
	Duration time.Duration
}

// hookID is the id of the app's webhook.
func (s *Server) hookID() int64 { return 400_000_000 + s.app.ID }

// Deliver sends a signed delivery of ev to url (the app's webhook URL when
// url is empty) with GitHub's headers: X-GitHub-Event, a fresh
// X-GitHub-Delivery GUID, X-Hub-Signature-256 (and the legacy
// X-Hub-Signature), User-Agent GitHub-Hookshot/…, and the
// X-GitHub-Hook-Installation-Target-Type/-ID of an app hook. It returns the
// delivery even when the receiver answers an error status; err is set only
// when the request could not be made.
func (s *Server) Deliver(ctx context.Context, url string, ev Event) (Delivery, error) {
	guid, err := newGUID()
	if err != nil {
		return Delivery{}, err
	}
	return s.send(ctx, url, guid, ev)
}

// Redeliver sends a delivery again with the same GUID and payload, as
// GitHub's "Redeliver" does.
func (s *Server) Redeliver(ctx context.Context, d Delivery) (Delivery, error) {
	return s.send(ctx, d.URL, d.GUID, Event{Name: d.Event, Payload: d.Payload})
}

// Deliveries lists the deliveries sent so far.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Delivery(nil), s.deliveries...)
}

// Sign returns the X-Hub-Signature-256 value of a body under the app's
// webhook secret.
func (s *Server) Sign(body []byte) string {
	mac := hmac.New(sha256.New, []byte(s.WebhookSecret()))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

func (s *Server) send(ctx context.Context, url, guid string, ev Event) (Delivery, error) {
	s.mu.Lock()
	if url == "" {
		url = s.app.hookURL
	}
	secret := s.app.secret
	s.mu.Unlock()
	if url == "" {
		return Delivery{}, errors.New("deliver webhook: no URL and the app has no webhook URL")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(ev.Payload))
	if err != nil {
		return Delivery{}, fmt.Errorf("deliver %s webhook: %w", ev.Name, err)
	}
	legacy := hmac.New(sha1.New, []byte(secret))
	legacy.Write(ev.Payload)
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "GitHub-Hookshot/"+mustRandom(7))
	h.Set("X-GitHub-Event", ev.Name)
	h.Set("X-GitHub-Delivery", guid)
	h.Set("X-GitHub-Hook-ID", itoa(s.hookID()))
	h.Set("X-GitHub-Hook-Installation-Target-Type", "integration")
	h.Set("X-GitHub-Hook-Installation-Target-ID", itoa(s.app.ID))
	h.Set("X-Hub-Signature-256", s.Sign(ev.Payload))
	h.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(legacy.Sum(nil)))
	d := Delivery{GUID: guid, Event: ev.Name, URL: url, Payload: ev.Payload}
	start := time.Now()
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	d.Duration = time.Since(start)
	if err == nil {
		d.Status = resp.StatusCode
		d.Response, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		_ = resp.Body.Close()
	}
	s.mu.Lock()
	s.deliveries = append(s.deliveries, d)
	s.mu.Unlock()
	if err != nil {
		return d, fmt.Errorf("deliver %s webhook %s: %w", ev.Name, guid, err)
	}
	return d, nil
}

// newGUID returns a random UUID, the form of X-GitHub-Delivery.
func newGUID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("delivery id: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}
