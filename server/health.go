package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/polylane/polylane/store"
)

// Checker is what readiness and the queue metrics need from the store.
type Checker interface {
	Ping(ctx context.Context) error
	CheckMigrations(ctx context.Context) error
	QueueStats(ctx context.Context) (store.QueueStats, error)
}

// readyTimeout bounds the checks of one /readyz request.
const readyTimeout = 3 * time.Second

// healthz answers 200 while the process is up.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintln(w, "ok")
}

// readyz answers 200 when the database answers, its migrations are current
// and the queue's workers run; otherwise 503 with the first reason in plain
// text.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if reason := s.notReady(r.Context()); reason != "" {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "not ready: "+reason)
		return
	}
	fmt.Fprintln(w, "ready")
}

// notReady returns why the server is not ready, or "".
func (s *Server) notReady(ctx context.Context) string {
	if s.draining.Load() {
		return "shutting down"
	}
	c := s.opts.Checker
	if c == nil {
		return "no database configured"
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if err := c.Ping(ctx); err != nil {
		return "database unreachable: " + oneLine(err)
	}
	if err := c.CheckMigrations(ctx); err != nil {
		return "migrations not current: " + oneLine(err)
	}
	st, err := c.QueueStats(ctx)
	if err != nil {
		return "queue unreadable: " + oneLine(err)
	}
	if !st.Running {
		return "queue workers not running"
	}
	return ""
}

// oneLine keeps a reason on one line and bounded.
func oneLine(err error) string {
	msg := []rune(err.Error())
	if len(msg) > 300 {
		msg = append(msg[:300], '…')
	}
	for i, r := range msg {
		if r == '\n' || r == '\r' {
			msg[i] = ' '
		}
	}
	return string(msg)
}
