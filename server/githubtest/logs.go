package githubtest

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
)

// blobTicket is a signed, expiring job-log download URL.
type blobTicket struct {
	log     logRef
	expires time.Time
}

// handleJobLogs answers 302 to a short-lived blob URL on this server, as
// GitHub does; 404 for an unknown job or one without a log, 410 when the
// log has expired.
func (s *Server) handleJobLogs(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := lookupJob(w, r)
	if j == nil {
		return
	}
	repo := repoOf(r)
	if repo.expired[j.ID] {
		writeError(w, http.StatusGone, "Gone")
		return
	}
	p, ok := repo.logs[j.ID]
	if !ok {
		notFound(w)
		return
	}
	ticket := mustRandom(32)
	expires := s.now().Add(s.opts.LogURLTTL)
	s.blobs[ticket] = &blobTicket{log: p, expires: expires}
	loc := fmt.Sprintf("http://%s/_blob/joblogs/%s?sv=2021-12-02&spr=http&se=%s&sr=b&sp=r&sig=%s",
		r.Host, ticket, url.QueryEscape(expires.UTC().Format(time.RFC3339)), mustRandom(43))
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusFound)
}

// azureError writes an Azure Blob Storage error body.
func azureError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("x-ms-error-code", code)
	w.WriteHeader(status)
	fmt.Fprintf(w, "\ufeff<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>%s</Code><Message>%s\nRequestId:%s\nTime:%s</Message></Error>",
		code, message, mustRandom(32), time.Now().UTC().Format("2006-01-02T15:04:05.0000000Z"))
}

// handleLogBlob serves a job log from the simulated blob storage. Like
// Azure Blob Storage behind GitHub's log URLs it rejects any Authorization
// header: a client that forwards its GitHub token gets 403.
func (s *Server) handleLogBlob(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "" {
		azureError(w, http.StatusForbidden, "AuthenticationFailed",
			"Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly including the signature.")
		return
	}
	s.mu.Lock()
	t := s.blobs[chi.URLParam(r, "ticket")]
	now := s.now()
	s.mu.Unlock()
	if t == nil {
		azureError(w, http.StatusNotFound, "BlobNotFound", "The specified blob does not exist.")
		return
	}
	if !now.Before(t.expires) {
		azureError(w, http.StatusForbidden, "AuthenticationFailed",
			"Server failed to authenticate the request. Signature not valid in the specified time frame: Start ["+
				"] - Expiry ["+t.expires.UTC().Format(http.TimeFormat)+"] - Current ["+now.UTC().Format(http.TimeFormat)+"]")
		return
	}
	data, err := fs.ReadFile(t.log.fsys, t.log.name)
	if err != nil {
		azureError(w, http.StatusNotFound, "BlobNotFound", "The specified blob does not exist.")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Header().Set("x-ms-blob-type", "BlockBlob")
	_, _ = w.Write(data)
}
