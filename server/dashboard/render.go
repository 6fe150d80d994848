package dashboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/web"
)

// Errors page builders return; the status mapping is in one place (status).
var (
	errNotFound   = errors.New("not found")
	errBadRequest = errors.New("bad request")
)

// status maps a page builder's error to an HTTP status and a public message.
func status(err error) (int, string) {
	switch {
	case errors.Is(err, errNotFound), errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "Not found: this page does not exist, or you cannot see it."
	case errors.Is(err, errBadRequest), errors.Is(err, store.ErrInvalid):
		return http.StatusBadRequest, "Bad request: " + publicReason(err)
	}
	return http.StatusInternalServerError, "Something went wrong on our side; the error is logged."
}

// publicReason is the part of a bad-request error meant for the user.
func publicReason(err error) string {
	var be badRequest
	if errors.As(err, &be) {
		return be.msg
	}
	return "the request is malformed."
}

// badRequest is an errBadRequest with a message for the user.
type badRequest struct{ msg string }

func (e badRequest) Error() string { return "bad request: " + e.msg }
func (e badRequest) Unwrap() error { return errBadRequest }

// crumb is one step of the breadcrumb trail.
type crumb struct {
	Name string
	URL  string
}

// pageMeta is what the layout needs besides the page's own data.
type pageMeta struct {
	Title  string
	Crumbs []crumb
	// Mermaid loads mermaid.js on the page.
	Mermaid bool
}

// pageView is the data every template executes with.
type pageView struct {
	Meta   pageMeta
	Viewer *viewer
	Data   any
}

// Login returns the signed-in user's login ("" in public mode).
func (p pageView) Login() string {
	if p.Viewer == nil {
		return ""
	}
	return p.Viewer.session.Login
}

// Public reports whether the dashboard serves public repositories only.
func (p pageView) Public() bool { return p.Viewer != nil && p.Viewer.public }

// CSRF returns the token forms must carry.
func (p pageView) CSRF() string {
	if p.Viewer == nil {
		return ""
	}
	return p.Viewer.csrf
}

// builder builds one page's data for the viewer.
type builder func(r *http.Request, v *viewer) (any, pageMeta, error)

// pageNames are the templates under web/templates, besides layout.html.
var pageNames = []string{"overview", "installation", "repository", "diagnoses", "class", "diagnosis", "login", "error"}

// parseTemplates parses the layout with each page into its own template.
func parseTemplates() (map[string]*template.Template, error) {
	files := web.Templates()
	base, err := template.New("layout.html").Funcs(templateFuncs).ParseFS(files, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return nil, fmt.Errorf("parse dashboard layout: %w", err)
	}
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := base.Clone()
		if err != nil {
			return nil, fmt.Errorf("clone dashboard layout: %w", err)
		}
		if _, err := t.ParseFS(files, "templates/"+name+".html"); err != nil {
			return nil, fmt.Errorf("parse dashboard page %s: %w", name, err)
		}
		out[name] = t
	}
	if _, err := fs.Stat(files, "templates/layout.html"); err != nil {
		return nil, fmt.Errorf("dashboard templates: %w", err)
	}
	return out, nil
}

// html serves a page builder as an HTML page.
func (d *Dashboard) html(name string, build builder) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := viewerOf(r.Context())
		data, meta, err := build(r, v)
		if err != nil {
			d.pageError(w, r, err)
			return
		}
		d.render(w, r, http.StatusOK, name, meta, data)
	}
}

// json serves a page builder as JSON.
func (d *Dashboard) json(build builder) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, _, err := build(r, viewerOf(r.Context()))
		if err != nil {
			code, msg := status(err)
			if code == http.StatusInternalServerError {
				server.Logger(r.Context()).Error().Err(err).Str("path", r.URL.Path).Msg("dashboard API failed")
			}
			writeJSONError(w, code, msg)
			return
		}
		writeJSON(w, http.StatusOK, data)
	}
}

// render executes a page template into a buffer, then writes it.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, code int, name string, meta pageMeta, data any) {
	t := d.pages[name]
	var buf bytes.Buffer
	if t == nil {
		server.Logger(r.Context()).Error().Str("template", name).Msg("no such dashboard template")
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	}
	if err := t.ExecuteTemplate(&buf, "layout.html", pageView{Meta: meta, Viewer: viewerOf(r.Context()), Data: data}); err != nil {
		server.Logger(r.Context()).Error().Err(err).Str("template", name).Msg("render dashboard page")
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// errorData is the error page's data.
type errorData struct {
	Status  int
	Message string
}

// pageError renders a builder's error as an HTML page.
func (d *Dashboard) pageError(w http.ResponseWriter, r *http.Request, err error) {
	code, msg := status(err)
	if code == http.StatusInternalServerError {
		server.Logger(r.Context()).Error().Err(err).Str("path", r.URL.Path).Msg("dashboard page failed")
	}
	d.render(w, r, code, "error", pageMeta{Title: http.StatusText(code)}, errorData{Status: code, Message: msg})
}

// fail answers an error with a message, as JSON for the API.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, api bool, code int, msg string) {
	if api {
		writeJSONError(w, code, msg)
		return
	}
	d.render(w, r, code, "error", pageMeta{Title: http.StatusText(code)}, errorData{Status: code, Message: msg})
}

// notFound answers unknown paths: JSON under /api/, a page elsewhere.
func (d *Dashboard) notFound(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeJSONError(w, http.StatusNotFound, "not found")
		return
	}
	d.pageError(w, r, errNotFound)
}

// writeJSON writes a value as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, "encode response")
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// writeJSONError writes {"error": msg} with a status.
func writeJSONError(w http.ResponseWriter, code int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// templateFuncs are the helpers templates use.
var templateFuncs = template.FuncMap{
	"when":    when,
	"day":     func(t time.Time) string { return t.UTC().Format("2006-01-02") },
	"pct":     pct,
	"short":   shortSHA,
	"plural":  plural,
	"inc":     func(i int) int { return i + 1 },
	"classID": shortClass,
}

// when renders a time as <time> in UTC; dashboard.js shows it in the
// viewer's time zone, and without JavaScript the UTC text stays.
func when(t time.Time) template.HTML {
	if t.IsZero() {
		return "—"
	}
	u := t.UTC()
	return template.HTML(fmt.Sprintf(`<time datetime="%s">%s</time>`, u.Format(time.RFC3339), u.Format("2006-01-02 15:04 UTC")))
}

// pct renders a rate in [0, 1] as a percentage.
func pct(rate float64) string {
	switch {
	case rate <= 0:
		return "0%"
	case rate < 0.001:
		return "<0.1%"
	case rate < 0.1:
		return fmt.Sprintf("%.1f%%", rate*100)
	}
	return fmt.Sprintf("%.0f%%", rate*100)
}

// shortSHA is the first 7 characters of a commit id.
func shortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// shortClass shortens a long class id for display.
func shortClass(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// plural picks the singular or plural word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
