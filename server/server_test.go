package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/rs/zerolog"

	"github.com/polylane/polylane/store"
)

// fakeChecker is a Checker whose answers the test sets.
type fakeChecker struct {
	pingErr, migrateErr, statsErr error
	running                       bool
	jobs                          map[string]int64
}

func (f *fakeChecker) Ping(context.Context) error            { return f.pingErr }
func (f *fakeChecker) CheckMigrations(context.Context) error { return f.migrateErr }
func (f *fakeChecker) QueueStats(context.Context) (store.QueueStats, error) {
	return store.QueueStats{Running: f.running, Jobs: f.jobs}, f.statsErr
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTestServer(t *testing.T, c Checker) (*Server, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	s := New(Options{Logger: zerolog.New(logs).Level(zerolog.DebugLevel), Checker: c, Metrics: NewMetrics("test")})
	return s, logs
}

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

func TestReadyz(t *testing.T) {
	tests := []struct {
		name    string
		checker Checker
		status  int
		body    string
	}{
		{"ready", &fakeChecker{running: true}, 200, "ready"},
		{"no checker", nil, 503, "not ready: no database configured"},
		{"database down", &fakeChecker{pingErr: errors.New("dial tcp: refused\nsecond line"), running: true}, 503,
			"not ready: database unreachable: dial tcp: refused second line"},
		{"migrations", &fakeChecker{migrateErr: errors.New("schema migration 2 not applied"), running: true}, 503,
			"not ready: migrations not current: schema migration 2 not applied"},
		{"queue stopped", &fakeChecker{}, 503, "not ready: queue workers not running"},
		{"queue unreadable", &fakeChecker{statsErr: errors.New("no river_job"), running: true}, 503,
			"not ready: queue unreadable: no river_job"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestServer(t, tc.checker)
			rec := get(t, s.Handler(), "/readyz")
			if rec.Code != tc.status || strings.TrimSpace(rec.Body.String()) != tc.body {
				t.Fatalf("GET /readyz = %d %q, want %d %q", rec.Code, rec.Body.String(), tc.status, tc.body)
			}
		})
	}
}

func TestHealthzAndRequestID(t *testing.T) {
	s, logs := newTestServer(t, nil)
	rec := get(t, s.Handler(), "/healthz")
	if rec.Code != 200 || rec.Body.String() != "ok\n" {
		t.Fatalf("GET /healthz = %d %q", rec.Code, rec.Body.String())
	}
	if id := rec.Header().Get(RequestIDHeader); len(id) != 16 {
		t.Fatalf("generated request id %q", id)
	}
	tests := []struct {
		sent string
		kept bool
	}{
		{"abc-123_x.y", true},
		{"has space", false},
		{strings.Repeat("a", 65), false},
		{"<script>", false},
	}
	for _, tc := range tests {
		req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
		req.Header.Set(RequestIDHeader, tc.sent)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if got := rec.Header().Get(RequestIDHeader); (got == tc.sent) != tc.kept {
			t.Errorf("request id %q came back as %q (kept=%v)", tc.sent, got, tc.kept)
		}
	}
	if !strings.Contains(logs.String(), `"request_id":"abc-123_x.y"`) {
		t.Fatalf("access log lacks the request id: %s", logs.String())
	}
}

func TestMountedRoutesMetricsAndPanics(t *testing.T) {
	s, logs := newTestServer(t, &fakeChecker{running: true, jobs: map[string]int64{"available": 3, "retryable": 1, "completed": 9}})
	api := chi.NewRouter()
	api.Get("/things/{id}", func(w http.ResponseWriter, r *http.Request) {
		Logger(r.Context()).Info().Str(LogKeyRepo, "acme/widgets").Msg("thing served")
		io.WriteString(w, chi.URLParam(r, "id"))
	})
	api.Get("/boom", func(http.ResponseWriter, *http.Request) { panic("kaboom") })
	s.Mount("/api/v1", api)
	s.Method(http.MethodPost, "/webhooks/github", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	s.Metrics().JobDone("diagnose_run", JobSucceeded, 1500*time.Millisecond)

	if rec := get(t, s.Handler(), "/api/v1/things/42"); rec.Code != 200 || rec.Body.String() != "42" {
		t.Fatalf("mounted route: %d %q", rec.Code, rec.Body.String())
	}
	get(t, s.Handler(), "/api/v1/things/43")
	if rec := get(t, s.Handler(), "/api/v1/boom"); rec.Code != 500 {
		t.Fatalf("panicking handler answered %d, want 500", rec.Code)
	}
	get(t, s.Handler(), "/no/such/path")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/webhooks/github", nil))
	if rec.Code != 202 {
		t.Fatalf("POST /webhooks/github = %d", rec.Code)
	}

	m := get(t, s.Handler(), "/metrics")
	if m.Code != 200 {
		t.Fatalf("GET /metrics = %d", m.Code)
	}
	body := m.Body.String()
	for _, want := range []string{
		`polylane_http_requests_total{method="GET",route="/api/v1/things/{id}",status="200"} 2`,
		`polylane_http_requests_total{method="GET",route="/api/v1/boom",status="500"} 1`,
		`polylane_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`polylane_http_requests_total{method="POST",route="/webhooks/github",status="202"} 1`,
		`polylane_jobs_total{kind="diagnose_run",outcome="succeeded"} 1`,
		`polylane_queue_depth 4`,
		`polylane_queue_jobs{state="completed"} 9`,
		`polylane_queue_running 1`,
		`polylane_build_info{version="test"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	l := logs.String()
	for _, want := range []string{`"message":"handler panicked"`, `"panic":"kaboom"`, `"repo":"acme/widgets"`, `"route":"/api/v1/things/{id}"`} {
		if !strings.Contains(l, want) {
			t.Errorf("logs lack %s", want)
		}
	}
}

// TestGracefulShutdown cancels the server's context while a request is in
// flight: the request completes, new connections are refused, /readyz turned
// 503 meanwhile, and the OnShutdown steps run within the deadline.
func TestGracefulShutdown(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var stopped time.Time
	s := New(Options{
		Logger:          zerolog.Nop(),
		Checker:         &fakeChecker{running: true},
		ShutdownTimeout: 5 * time.Second,
		OnShutdown: []func(context.Context) error{func(ctx context.Context) error {
			if _, ok := ctx.Deadline(); !ok {
				t.Error("OnShutdown context has no deadline")
			}
			stopped = time.Now()
			return nil
		}},
	})
	s.Method(http.MethodGet, "/slow", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(started)
		<-release
		io.WriteString(w, "done")
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()

	type result struct {
		body string
		err  error
	}
	slow := make(chan result, 1)
	go func() {
		resp, err := http.Get(base + "/slow")
		if err != nil {
			slow <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		slow <- result{string(b), err}
	}()
	<-started
	cancel()
	deadline := time.Now().Add(2 * time.Second)
	for !s.draining.Load() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if rec := get(t, s.Handler(), "/readyz"); rec.Code != 503 || !strings.Contains(rec.Body.String(), "shutting down") {
		t.Errorf("/readyz while draining = %d %q", rec.Code, rec.Body.String())
	}
	close(release)
	if r := <-slow; r.err != nil || r.body != "done" {
		t.Fatalf("in-flight request: %q, %v", r.body, r.err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	if stopped.IsZero() {
		t.Fatal("OnShutdown did not run")
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Fatal("server still accepts connections after shutdown")
	}
}
