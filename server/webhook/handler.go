package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/jobs"
	"github.com/polylane/polylane/store"
)

// DefaultMaxBody is a little above GitHub's 25 MB payload cap.
const DefaultMaxBody = 26 << 20

// DefaultMaxInFlight is the default of Options.MaxInFlight: above the 200
// concurrent deliveries the benchmarks send, low enough that requests
// holding their connections (until the server's read timeout) cannot pile
// up without bound.
const DefaultMaxInFlight = 256

// Headers GitHub sends with a delivery.
const (
	HeaderEvent     = "X-GitHub-Event"
	HeaderDelivery  = "X-GitHub-Delivery"
	HeaderSignature = "X-Hub-Signature-256"
)

// Store is what the handler needs from the store: the accounts it keeps
// current and the delivery it records with its job in one transaction.
type Store interface {
	store.Accounts
	RecordDelivery(ctx context.Context, d store.Delivery, args river.JobArgs, opts *river.InsertOpts) (duplicate bool, err error)
	RecordDeliveries(ctx context.Context, batch []store.DeliveryJob) (duplicates []bool, err error)
	DeliveryRecorded(ctx context.Context, guid string, bodyHash []byte) (bool, error)
	ListFixPullRequests(ctx context.Context, repositoryID int64) ([]store.FixPullRequest, error)
}

// Options configure a Handler.
type Options struct {
	// Secret is the webhook secret; New refuses an empty one.
	Secret string
	Store  Store
	// FailingConclusions are the workflow_run conclusions that start a
	// diagnosis (nil: DefaultFailingConclusions).
	FailingConclusions []string
	// MaxBody bounds a delivery's body (0: DefaultMaxBody); larger ones get
	// 413 before they are read to the end.
	MaxBody int64
	// Now is the clock of ReceivedAt (nil: time.Now).
	Now func() time.Time
	// Committers is the number of transactions that record deliveries at
	// once; deliveries that arrive meanwhile share the next one (group
	// commit). 0 means 1, right for SQLite's single writer; PostgreSQL
	// gains from a few.
	Committers int
	// GatherWindow bounds how long a transaction about to start waits for
	// deliveries that other requests are still reading and verifying, so
	// that a burst is recorded in a few transactions instead of a run of
	// one-delivery ones (0: DefaultGatherWindow; negative: never wait).
	// With no other request in flight a transaction starts at once.
	GatherWindow time.Duration
	// Handles are the logins people mention to give Polylane a command,
	// without "@" (nil: "polylane"); the app's slug belongs here when it is
	// not "polylane".
	Handles []string
	// NewPermissions is called with an installation's id after its
	// new_permissions_accepted delivery is recorded, so that the process
	// drops the installation's cached token: a token keeps the permissions
	// it was minted with until it expires (nil: nothing).
	NewPermissions func(installationID int64)
	// MaxInFlight bounds the deliveries being read, verified or recorded at
	// once (0: DefaultMaxInFlight); past it a request is answered 503 at
	// once, before its body is read. Each may hold up to MaxBody in memory.
	MaxInFlight int
}

// DefaultGatherWindow is the default of Options.GatherWindow.
const DefaultGatherWindow = time.Millisecond

// DefaultFailingConclusions start a diagnosis unless configured otherwise.
var DefaultFailingConclusions = jobs.DefaultFailingConclusions

// AllFailingConclusions are every conclusion of a workflow run that is not
// a success. A server whose repositories choose their conclusions in
// .github/polylane.yml accepts all of them, and the worker drops those a
// repository does not count.
var AllFailingConclusions = []string{"failure", "timed_out", "cancelled", "startup_failure", "action_required"}

// Delivery is a verified delivery as an EventFunc sees it.
type Delivery struct {
	GUID           string
	Event          string
	Action         string
	InstallationID int64 // 0 when the payload has none
	RepositoryID   int64 // 0 when the payload has none
	Payload        []byte
	// BodyHash is the verified HMAC-SHA256 of the body as it arrived: the
	// signature covers the body only, so this, not GUID, tells a captured
	// delivery resent under a new X-GitHub-Delivery.
	BodyHash   []byte
	ReceivedAt time.Time

	env     envelope // the payload's fields the built-in events read, parsed once
	arrival *arrival // the request's place among those the group commit expects
}

// Outcome is what an EventFunc decided about a delivery.
type Outcome struct {
	// Record stores the delivery, deduplicated on its GUID.
	Record bool
	// Job, when set, is enqueued in the transaction that records the
	// delivery (Record is implied).
	Job  river.JobArgs
	Opts *river.InsertOpts
	// State is the recorded delivery's state (default: queued with a job,
	// done without).
	State string
	// Status is the HTTP answer (default 202 Accepted) and Reason its text.
	Status int
	Reason string
}

// EventFunc handles one event kind. It must make no GitHub call and do no
// analysis: the answer is due within GitHub's 10 seconds, and slow work
// belongs to the job it returns.
type EventFunc func(ctx context.Context, d *Delivery) (Outcome, error)

// Handler serves POST /webhooks/github: it bounds the body, checks the
// signature in constant time, parses the envelope and dispatches on the
// event name through a table that later features extend with Handle.
type Handler struct {
	opts       Options
	secret     []byte
	conclusion map[string]bool
	events     map[string]EventFunc
	group      *groupCommit
	installed  installedCache
	fixes      fixCache
	inFlight   atomic.Int64
}

// New builds the handler with the events Polylane handles: ping,
// workflow_run (a failure starts a diagnosis; a success on the default
// branch of a repository with an open fix pull request starts a lifecycle
// check), installation and installation_repositories, repository (the
// stored repository follows its visibility, name, owner and deletion),
// issue_comment (an "@polylane" command starts a mention job) and
// pull_request (a new head marks the assessment stale; a fix pull request's
// closing is recorded).
func New(opts Options) (*Handler, error) {
	if opts.Secret == "" {
		return nil, errors.New("webhook: an empty secret would accept forged deliveries")
	}
	if opts.Store == nil {
		return nil, errors.New("webhook: no store")
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.FailingConclusions == nil {
		opts.FailingConclusions = DefaultFailingConclusions
	}
	if len(opts.Handles) == 0 {
		opts.Handles = []string{"polylane"}
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	h := &Handler{opts: opts, secret: []byte(opts.Secret), conclusion: map[string]bool{}, events: map[string]EventFunc{},
		group: newGroupCommit(opts.Store, opts.Committers, opts.GatherWindow)}
	h.installed.now = opts.Now
	h.fixes.now = opts.Now
	for _, c := range opts.FailingConclusions {
		h.conclusion[strings.TrimSpace(c)] = true
	}
	h.Handle("ping", h.ping)
	h.Handle("workflow_run", h.workflowRun)
	h.Handle("installation", h.installation)
	h.Handle("installation_repositories", h.installationRepositories)
	h.Handle("issue_comment", h.issueComment)
	h.Handle("pull_request", h.pullRequest)
	h.Handle("repository", h.repository)
	return h, nil
}

// Handle sets the function of an event, replacing the one there.
func (h *Handler) Handle(event string, fn EventFunc) { h.events[event] = fn }

// answer writes a short plain-text answer.
func answer(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintln(w, text)
}

// ServeHTTP verifies, records and answers one delivery, or answers 503
// when MaxInFlight deliveries are in progress already.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer h.inFlight.Add(-1)
	if h.inFlight.Add(1) > int64(h.opts.MaxInFlight) {
		w.Header().Set("Retry-After", "1")
		answer(w, http.StatusServiceUnavailable, "too many deliveries in progress; send it again shortly")
		return
	}
	arrival := h.group.arrive()
	defer arrival.leave()
	body, status, msg := h.readBody(w, r)
	if status != 0 {
		answer(w, status, msg)
		return
	}
	mac := h.verifiedMAC(r.Header.Get(HeaderSignature), body)
	if mac == nil {
		answer(w, http.StatusUnauthorized, "missing or invalid X-Hub-Signature-256")
		return
	}
	d := &Delivery{GUID: r.Header.Get(HeaderDelivery), Event: r.Header.Get(HeaderEvent), BodyHash: mac,
		ReceivedAt: h.opts.Now(), arrival: arrival}
	log := server.Logger(r.Context()).With().Str(server.LogKeyDeliveryID, d.GUID).Str("event", d.Event).Logger()
	ctx := log.WithContext(r.Context())
	if d.GUID == "" || d.Event == "" || len(d.GUID) > 100 || len(d.Event) > 100 {
		answer(w, http.StatusBadRequest, "missing or oversized X-GitHub-Event or X-GitHub-Delivery")
		return
	}
	payload, err := jsonPayload(r.Header.Get("Content-Type"), body)
	if err != nil {
		answer(w, http.StatusBadRequest, err.Error())
		return
	}
	d.Payload = payload
	if err := parseEnvelope(d); err != nil {
		answer(w, http.StatusBadRequest, "malformed JSON payload")
		return
	}
	fn := h.events[d.Event]
	if fn == nil {
		answer(w, http.StatusAccepted, "event "+d.Event+" not handled")
		return
	}
	status, text, err := h.dispatch(ctx, fn, d)
	switch {
	case errors.Is(err, store.ErrInvalid):
		// The payload lacks what the event needs: sending it again cannot help.
		log.Warn().Err(err).Msg("delivery refused")
		answer(w, http.StatusBadRequest, "payload lacks fields the event needs")
		return
	case err != nil:
		log.Error().Err(err).Msg("delivery not recorded")
		answer(w, http.StatusInternalServerError, "delivery not recorded")
		return
	}
	answer(w, status, text)
}

// readBody reads the body within the bound; a non-zero status is the
// answer to give instead.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, int, string) {
	if r.ContentLength > h.opts.MaxBody {
		return nil, http.StatusRequestEntityTooLarge, "payload too large"
	}
	// Sized from Content-Length (already bounded), the body is read into
	// one allocation instead of a growing series.
	buf := bytes.NewBuffer(make([]byte, 0, max(r.ContentLength, 0)+bytes.MinRead))
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, h.opts.MaxBody))
	body := buf.Bytes()
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, http.StatusRequestEntityTooLarge, "payload too large"
	case err != nil:
		return nil, http.StatusBadRequest, "unreadable body"
	}
	return body, 0, ""
}

// verifiedMAC checks "sha256=<hex HMAC-SHA256 of the raw body>" in
// constant time and returns the MAC, or nil when it does not match. The
// MAC doubles as the body's hash (Delivery.BodyHash): it is computed
// anyway, and a body signed with another secret would not verify.
func (h *Handler) verifiedMAC(header string, body []byte) []byte {
	got, ok := strings.CutPrefix(header, "sha256=")
	if !ok || len(got) != sha256.Size*2 {
		return nil
	}
	sig, err := hex.DecodeString(got)
	if err != nil {
		return nil
	}
	mac := hmac.New(sha256.New, h.secret)
	mac.Write(body)
	sum := mac.Sum(nil)
	if !hmac.Equal(sig, sum) {
		return nil
	}
	return sum
}

// jsonPayload returns the JSON of a body: the body itself, or the payload
// field of a form-encoded body (repository hooks may send that).
func jsonPayload(contentType string, body []byte) ([]byte, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt != "application/x-www-form-urlencoded" {
		return body, nil
	}
	form, err := url.ParseQuery(string(body))
	if err != nil || form.Get("payload") == "" {
		return nil, errors.New("form-encoded delivery without a payload field")
	}
	return []byte(form.Get("payload")), nil
}

// envelope holds the payload fields the built-in events read: those every
// delivery may carry, and those of a workflow run. The payload is parsed
// once (GitHub's payloads run to tens of kilobytes).
type envelope struct {
	Action       string `json:"action"`
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Repository  *repoPayload `json:"repository"`
	WorkflowRun *struct {
		ID         int64  `json:"id"`
		RunAttempt int    `json:"run_attempt"`
		Status     string `json:"status"`
		Conclusion string `json:"conclusion"`
		HeadBranch string `json:"head_branch"`
		WorkflowID int64  `json:"workflow_id"`
		Event      string `json:"event"`
		// HeadRepository tells a fork's run from the base repository's.
		HeadRepository *headRepository `json:"head_repository"`
	} `json:"workflow_run"`
}

// parseEnvelope reads the fields every delivery may carry; anything but one
// JSON object (trailing data included) is refused.
func parseEnvelope(d *Delivery) error {
	if err := decodeProjection(d.Payload, &d.env); err != nil {
		return err
	}
	d.Action = d.env.Action
	if d.env.Installation != nil {
		d.InstallationID = d.env.Installation.ID
	}
	if d.env.Repository != nil {
		d.RepositoryID = d.env.Repository.ID
	}
	return nil
}

// dispatch runs the event's function and records the delivery as it says.
func (h *Handler) dispatch(ctx context.Context, fn EventFunc, d *Delivery) (int, string, error) {
	out, err := fn(context.WithValue(ctx, deliveryKey{}, d), d)
	if err != nil {
		return 0, "", err
	}
	status := out.Status
	if status == 0 {
		status = http.StatusAccepted
	}
	if !out.Record && out.Job == nil {
		return status, out.Reason, nil
	}
	state := out.State
	if state == "" {
		state = store.DeliveryDone
		if out.Job != nil {
			state = store.DeliveryQueued
		}
	}
	// Packed here, on the request's goroutine: the goroutine that commits
	// the batch would otherwise pack every payload of it, one by one.
	rec := store.Delivery{GUID: d.GUID, Event: d.Event, Action: d.Action, InstallationID: d.InstallationID,
		RepositoryID: d.RepositoryID, ReceivedAt: d.ReceivedAt, Payload: d.Payload, Packed: store.PackPayload(d.Payload),
		BodyHash: d.BodyHash, State: state}
	duplicate, err := h.group.record(ctx, rec, out.Job, out.Opts, d.arrival)
	if err != nil {
		return 0, "", fmt.Errorf("record delivery: %w", err)
	}
	if duplicate {
		return http.StatusOK, duplicateReason, nil
	}
	return status, out.Reason, nil
}

// duplicateReason answers a delivery whose GUID or body is recorded.
const duplicateReason = "duplicate delivery: already recorded"

// deliveryKey carries the delivery being dispatched in its context, for
// the checks deep in an event's function that must know whether it is a
// replay (see replayed).
type deliveryKey struct{}

// replayed reports whether the context's delivery, or one with its body,
// is recorded already. An event function that changes records before its
// delivery is recorded (installations, repositories) asks first, so that a
// captured delivery resent under a new GUID, or redelivered, applies
// nothing; events whose only effect is the job recorded with the delivery
// need not ask, as the record itself refuses the duplicate.
func (h *Handler) replayed(ctx context.Context) (bool, error) {
	d, _ := ctx.Value(deliveryKey{}).(*Delivery)
	if d == nil {
		return false, nil
	}
	seen, err := h.opts.Store.DeliveryRecorded(ctx, d.GUID, d.BodyHash)
	if err != nil {
		return false, fmt.Errorf("look for an earlier delivery of the body: %w", err)
	}
	return seen, nil
}

// duplicate is the outcome of a replayed delivery: 200, nothing recorded.
func duplicate() Outcome { return Outcome{Status: http.StatusOK, Reason: duplicateReason} }

// ping answers GitHub's hook check.
func (h *Handler) ping(context.Context, *Delivery) (Outcome, error) {
	return Outcome{Record: true, Status: http.StatusOK, Reason: "pong"}, nil
}
