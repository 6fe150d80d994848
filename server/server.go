package server

import (
	"cmp"
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

// Defaults of the connection timeouts. Nothing Polylane serves streams:
// GitHub sends a delivery (at most 25 MB) at once and expects the answer
// within 10 s, and every page and API answer is built before it is
// written. A request whose headers or body stop arriving, unauthenticated
// since its signature cannot be checked before its body is read, holds its
// connection for DefaultReadTimeout at most.
const (
	// DefaultReadTimeout bounds reading a whole request, headers and body:
	// 25 MB in 30 s is under 1 MB/s.
	DefaultReadTimeout = 30 * time.Second
	// DefaultReadHeaderTimeout bounds reading a request's headers (the
	// read timeout when that is shorter).
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultWriteTimeout bounds a request from the end of its headers to
	// the end of its answer: reading the body, handling it (a delivery's
	// commit waits 10 s at most) and writing the answer.
	DefaultWriteTimeout = 60 * time.Second
	// DefaultIdleTimeout closes a kept-alive connection that brings no new
	// request.
	DefaultIdleTimeout = 60 * time.Second
)

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
	// ReadTimeout, WriteTimeout and IdleTimeout bound each connection as
	// net/http's do (0: the Default of each). WriteTimeout should exceed
	// ReadTimeout: it runs from the end of the headers, body included.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MetricsListener, when set, is where /metrics is served, alone; the
	// main listener then has no /metrics. Without it /metrics is served
	// with everything else, to anyone who can reach the webhook.
	MetricsListener net.Listener
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
	opts.ReadTimeout = cmp.Or(opts.ReadTimeout, DefaultReadTimeout)
	opts.WriteTimeout = cmp.Or(opts.WriteTimeout, DefaultWriteTimeout)
	opts.IdleTimeout = cmp.Or(opts.IdleTimeout, DefaultIdleTimeout)
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
	if opts.MetricsListener == nil {
		s.router.Method(http.MethodGet, "/metrics", s.metrics.Handler())
	}
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
	srv := s.httpServer(s.router)
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	if ml := s.opts.MetricsListener; ml != nil {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", s.metrics.Handler())
		msrv := s.httpServer(mux)
		go func() {
			if err := msrv.Serve(ml); !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("metrics listener: %w", err)
			}
		}()
		defer msrv.Close()
		log.Info().Str("addr", ml.Addr().String()).Msg("metrics listening")
	}
	log.Info().Str("addr", ln.Addr().String()).Msg("listening")
	select {
	case err := <-errc:
		_ = srv.Close()
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

// httpServer is an http.Server for h with the connection timeouts.
func (s *Server) httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(DefaultReadHeaderTimeout, s.opts.ReadTimeout),
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
	}
}
