package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"

	"github.com/rs/zerolog"
)

// Log field keys shared by every package that logs for the server, so that
// one delivery, installation, repository, run or job can be followed through
// the logs.
const (
	LogKeyRequestID      = "request_id"
	LogKeyDeliveryID     = "delivery_id"
	LogKeyInstallationID = "installation_id"
	LogKeyRepo           = "repo"
	LogKeyRunID          = "run_id"
	LogKeyJobID          = "job_id"
)

// RequestIDHeader carries the request id in requests and responses.
const RequestIDHeader = "X-Request-Id"

type requestIDKey struct{}

// Logger returns the logger of a request or job context (a disabled logger
// when there is none).
func Logger(ctx context.Context) *zerolog.Logger { return zerolog.Ctx(ctx) }

// RequestID returns the request id of a request context ("" when none).
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// validRequestID accepts a client's request id only if it is short and plain.
func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		ok := r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// requestContext gives each request an id (the client's X-Request-Id when it
// is plain, a random one otherwise), echoes it in the response, and puts a
// logger carrying it in the request context.
func requestContext(base zerolog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get(RequestIDHeader)
			if !validRequestID(id) {
				id = newRequestID()
			}
			w.Header().Set(RequestIDHeader, id)
			l := base.With().Str(LogKeyRequestID, id).Logger()
			ctx := context.WithValue(l.WithContext(r.Context()), requestIDKey{}, id)
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}
