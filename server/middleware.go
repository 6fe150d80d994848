package server

import (
	"errors"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/rs/zerolog"
)

// routeUnmatched labels requests that matched no route, so that scanners
// cannot blow up the metrics' cardinality.
const routeUnmatched = "unmatched"

// quietRoutes are probed constantly; their access logs go to debug level.
var quietRoutes = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// observe logs each request once it is answered and counts it in the metrics
// by route pattern, method and status.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		took := time.Since(start)
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK
		}
		route := routeUnmatched
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" && status != http.StatusNotFound {
			route = rc.RoutePattern()
		}
		s.metrics.observeRequest(route, r.Method, status, took)
		level := zerolog.InfoLevel
		switch {
		case status >= 500:
			level = zerolog.ErrorLevel
		case quietRoutes[route]:
			level = zerolog.DebugLevel
		}
		Logger(r.Context()).WithLevel(level).
			Str("method", r.Method).
			Str("route", route).
			Str("path", r.URL.Path).
			Int("status", status).
			Int("bytes", ww.BytesWritten()).
			Dur("took", took).
			Msg("http request")
	})
}

// recoverPanics turns a handler's panic into a 500 and an error log with the
// stack, and keeps the server running.
func recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(v) // net/http's signal to abort the response silently
			}
			Logger(r.Context()).Error().
				Interface("panic", v).
				Bytes("stack", debug.Stack()).
				Msg("handler panicked")
			if r.Header.Get("Connection") != "Upgrade" {
				http.Error(w, "internal server error", http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
