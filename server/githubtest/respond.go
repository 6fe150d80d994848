package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Documentation URLs used in error bodies, as GitHub sends them.
const (
	docsBase         = "https://docs.github.com/rest"
	docsSecondary    = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	docsPrimary      = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-rate-limits"
	maxPerPage       = 100
	defaultPerPage   = 30
	timestampLayout  = "2006-01-02T15:04:05Z"
	jsonContentType  = "application/json; charset=utf-8"
	rawMediaType     = "application/vnd.github.raw"
	objectMediaType  = "application/vnd.github.object"
	maxRequestBody   = 32 << 20
	maxCommentLength = 65536
)

// writeJSON writes v as a JSON response with the given status. A
// json.RawMessage or []byte value is written as is.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var body []byte
	switch b := v.(type) {
	case json.RawMessage:
		body = b
	case []byte:
		body = b
	default:
		var err error
		body, err = json.Marshal(v)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "encode response: "+err.Error())
			return
		}
	}
	w.Header().Set("Content-Type", jsonContentType)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError writes GitHub's error body: a message and a documentation URL.
func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]any{
		"message":           message,
		"documentation_url": docsBase,
		"status":            strconv.Itoa(status),
	})
}

// notFound answers 404 the way GitHub does for anything absent or hidden.
func notFound(w http.ResponseWriter) { writeError(w, http.StatusNotFound, "Not Found") }

// validationError is one entry of a 422 body's "errors" list.
type validationError struct {
	Resource string `json:"resource,omitempty"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

// writeValidation answers 422 "Validation Failed" with the given errors, or
// with message alone when errs is empty.
func writeValidation(w http.ResponseWriter, message string, errs ...validationError) {
	body := map[string]any{"message": message, "documentation_url": docsBase, "status": "422"}
	if len(errs) > 0 {
		body["errors"] = errs
	}
	writeJSON(w, http.StatusUnprocessableEntity, body)
}

// decodeBody decodes a JSON request body into v, answering 400 and
// returning false when it is not valid JSON.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

// page is the page window a list request asks for.
type page struct {
	perPage int
	page    int
}

// pageOf reads per_page (default 30, at most 100) and page (default 1).
func pageOf(r *http.Request) page {
	q := r.URL.Query()
	p := page{perPage: defaultPerPage, page: 1}
	if n, err := strconv.Atoi(q.Get("per_page")); err == nil && n > 0 {
		p.perPage = min(n, maxPerPage)
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 {
		p.page = n
	}
	return p
}

// bounds returns the slice bounds of the page within total items.
func (p page) bounds(total int) (lo, hi int) {
	lo = min((p.page-1)*p.perPage, total)
	hi = min(lo+p.perPage, total)
	return lo, hi
}

// setLink writes the Link header for a list of total items, with URLs that
// keep every query parameter of the request and replace only page.
func setLink(w http.ResponseWriter, r *http.Request, p page, total int) {
	last := max(1, (total+p.perPage-1)/p.perPage)
	var links []string
	add := func(n int, rel string) {
		u := requestURL(r)
		q := u.Query()
		q.Set("page", strconv.Itoa(n))
		q.Set("per_page", strconv.Itoa(p.perPage))
		u.RawQuery = q.Encode()
		links = append(links, fmt.Sprintf("<%s>; rel=%q", u.String(), rel))
	}
	if p.page > 1 {
		add(min(p.page-1, last), "prev")
	}
	if p.page < last {
		add(p.page+1, "next")
		add(last, "last")
	}
	if p.page > 1 {
		add(1, "first")
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
}

// requestURL is the absolute URL the client used, including the /api/v3
// prefix when it was present.
func requestURL(r *http.Request) *url.URL {
	u := *r.URL
	u.Scheme = "http"
	u.Host = r.Host
	if p, ok := r.Context().Value(ctxPrefix).(string); ok {
		u.Path = p + r.URL.Path
		u.RawPath = ""
		if r.URL.RawPath != "" {
			u.RawPath = p + r.URL.RawPath
		}
	}
	return &u
}

// joinRaw concatenates JSON values into a JSON array without re-encoding
// them, so stored scenario objects are served byte for byte.
func joinRaw(items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// listEnvelope renders {"total_count": n, "<key>": [items]} keeping items raw.
func listEnvelope(key string, total int, items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"total_count":%d,%q:`, total, key)
	b.Write(joinRaw(items))
	b.WriteByte('}')
	return b.Bytes()
}

// ts formats a time the way GitHub's REST API does.
func ts(t time.Time) string { return t.UTC().Format(timestampLayout) }

// tsOrNil is ts, or nil for a zero time (JSON null).
func tsOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ts(t)
}

// wantsMedia reports whether the Accept header asks for the given GitHub
// media type (with or without the "v3." version infix).
func wantsMedia(r *http.Request, media string) bool {
	accept := strings.ToLower(r.Header.Get("Accept"))
	alt := strings.Replace(media, "github.", "github.v3.", 1)
	return strings.Contains(accept, media) || strings.Contains(accept, alt)
}

// answeredMedia is the media type GitHub names in Content-Type for a
// request of media: the one asked for, with "v3." when the Accept header
// had it (a recorded answer to "application/vnd.github.v3.raw" says
// "application/vnd.github.v3.raw", octokit/fixtures get-content).
func answeredMedia(r *http.Request, media string) string {
	alt := strings.Replace(media, "github.", "github.v3.", 1)
	if strings.Contains(strings.ToLower(r.Header.Get("Accept")), alt) {
		return alt
	}
	return media
}
