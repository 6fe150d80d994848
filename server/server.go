package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/rs/zerolog"
)

// DefaultShutdownTimeout bounds a graceful shutdown when Options leave it zero.
const DefaultShutdownTimeout = 20 * time.Second

// Options configure a Server.
type Options struct {
	// Addr is the listen address of ListenAndServe, such as ":8080".
	Addr string
	// Logger is the base logger; each request gets a child with its
	// request_id in the request context (see Logger).
	Logger zerolog.Logger
	// Checker answers /readyz and feeds the queue metrics; nil makes /readyz
	// report 503.
	Checker Checker
	// Metrics collects the Prometheus metrics (nil: NewMetrics("")).
	Metrics *Metrics
	// ShutdownTimeout bounds the graceful shutdown: in-flight requests, then
	// every OnShutdown function, share it (0: DefaultShutdownTimeout).
	ShutdownTimeout time.Duration
	// OnShutdown runs, in order, after the HTTP server has stopped, with the
	// remaining shutdown deadline (stopping the queue's workers, for example).
	OnShutdown []func(ctx context.Context) error
}

// Server is Polylane's HTTP server: a chi router with the standard middleware
// and the health and metrics endpoints. Later packages add their routes with
// Mount and Method before the server starts.
type Server struct {
	opts     Options
	router   chi.Router
	metrics  *Metrics
	draining atomic.Bool
}

// New builds the server and its router.
func New(opts Options) *Server {
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics("")
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	s := &Server{opts: opts, metrics: opts.Metrics, router: chi.NewRouter()}
	if opts.Checker != nil {
		s.metrics.watchQueue(opts.Checker)
	}
	s.router.Use(requestContext(opts.Logger), s.observe, recoverPanics)
	s.router.NotFound(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "not found", http.StatusNotFound)
	})
	s.router.Get("/healthz", s.healthz)
	s.router.Get("/readyz", s.readyz)
	s.router.Method(http.MethodGet, "/metrics", s.metrics.Handler())
	return s
}

// Mount attaches a handler (typically a chi sub-router) under a pattern such
// as "/api/v1" or "/"; the route patterns it matches label the metrics.
func (s *Server) Mount(pattern string, h http.Handler) { s.router.Mount(pattern, h) }

// Method routes one method and pattern, such as ("POST", "/webhooks/github").
func (s *Server) Method(method, pattern string, h http.Handler) { s.router.Method(method, pattern, h) }

// Handler returns the server's root handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.router }

// Metrics returns the server's metrics, which the queue's workers report to.
func (s *Server) Metrics() *Metrics { return s.metrics }

// ListenAndServe listens on Options.Addr and serves until ctx is done, then
// shuts down gracefully (see Serve).
func (s *Server) ListenAndServe(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.opts.Addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves HTTP on ln until ctx is done. Then it stops accepting
// connections, fails /readyz, lets in-flight requests finish and runs the
// OnShutdown functions, all within ShutdownTimeout. Problems met while
// shutting down are logged, not returned: the process was asked to stop and
// stops. The error is about serving (a broken listener).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	log := s.opts.Logger
	srv := &http.Server{
		Handler:           s.router,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info().Str("addr", ln.Addr().String()).Msg("listening")
	select {
	case err := <-errc:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	start := time.Now()
	s.draining.Store(true)
	log.Info().Dur("deadline", s.opts.ShutdownTimeout).Msg("shutting down")
	dctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(dctx); err != nil {
		log.Warn().Err(err).Msg("in-flight requests did not finish before the deadline; closing them")
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn().Err(err).Msg("http server stopped with an error")
	}
	for _, stop := range s.opts.OnShutdown {
		if err := stop(dctx); err != nil {
			log.Warn().Err(err).Msg("shutdown step did not finish cleanly")
		}
	}
	log.Info().Dur("took", time.Since(start)).Msg("stopped")
	return nil
}
