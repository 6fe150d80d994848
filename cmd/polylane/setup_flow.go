package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// setupFlow is one run of the manifest flow: the local page, the state
// GitHub must send back, and the callback that finishes it once.
type setupFlow struct {
	f        *setupFlags
	local    string // http://127.0.0.1:PORT
	state    string
	manifest []byte // JSON
	client   *http.Client
	now      func() time.Time

	mu       sync.Mutex // one callback at a time
	finished bool
	done     chan setupResult // receives the one result
}

func newSetupFlow(f *setupFlags, local string) (*setupFlow, error) {
	state, err := randomState()
	if err != nil {
		return nil, err
	}
	m := newManifest(f.name, f.webhookURL, f.dashboardURL, local+"/callback", f.workflows)
	js, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode the app manifest: %w", err)
	}
	return &setupFlow{f: f, local: local, state: state, manifest: js, now: time.Now,
		client: &http.Client{Timeout: 30 * time.Second}, done: make(chan setupResult, 1)}, nil
}

func (s *setupFlow) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /callback", s.callback)
	return mux
}

var setupPage = template.Must(template.New("setup").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Polylane setup</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2.5rem auto;padding:0 1rem}
code{background:#f2f2f2;padding:0 .25em}button{font-size:1rem;padding:.5em 1em}</style></head>
<body><main>
<h1>{{.Title}}</h1>
{{if .Form}}
<p>This creates a private GitHub App named <strong>{{.Name}}</strong> owned by {{.Owner}} on <code>{{.Web}}</code>.
GitHub shows the app before it is created; confirm it there and you come back here.</p>
<p>Webhook: <code>{{.Hook}}</code><br>Events: {{range .Events}}<code>{{.}}</code> {{end}}
(GitHub sends <code>installation</code> and <code>installation_repositories</code> to every app)<br>
Permissions: {{range .Perms}}<code>{{.}}</code> {{end}}</p>
<form action="{{.Action}}" method="post">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Create the app on GitHub</button>
</form>
{{else}}
{{range .Lines}}<p>{{.}}</p>{{end}}
{{if .Link}}<p><a href="{{.Link}}">Install the app on your repositories</a></p>{{end}}
{{end}}
</main></body></html>
`))

// pageData fills setupPage.
type pageData struct {
	Title                  string
	Form                   bool
	Name, Owner, Web, Hook string
	Events, Perms          []string
	Action, Manifest       string
	Lines                  []string
	Link                   string
}

func (s *setupFlow) render(w http.ResponseWriter, status int, d pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_ = setupPage.Execute(w, d)
}

// page serves the form that posts the manifest to GitHub.
func (s *setupFlow) page(w http.ResponseWriter, _ *http.Request) {
	owner := "your user account"
	if s.f.org != "" {
		owner = "the organization " + s.f.org
	}
	perms := appPermissions(s.f.workflows)
	var list []string
	for _, k := range sortedKeys(perms) {
		list = append(list, k+": "+perms[k])
	}
	s.render(w, http.StatusOK, pageData{Title: "Create the Polylane GitHub App", Form: true, Name: s.f.name,
		Owner: owner, Web: s.f.endpoints.Web, Hook: s.f.webhookURL, Events: appEvents, Perms: list,
		Action: s.f.endpoints.newAppURL(s.f.org, s.state), Manifest: string(s.manifest)})
}

// callback receives GitHub's redirect: it checks the state, exchanges the
// code, writes the settings file and ends the flow. A wrong state is
// answered 400 and the flow goes on waiting.
func (s *setupFlow) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(s.state)) != 1 {
		s.render(w, http.StatusBadRequest, pageData{Title: "Wrong state", Lines: []string{
			"This answer does not belong to this run of polylane setup. Start again from " + s.local + "/."}})
		return
	}
	code := q.Get("code")
	if code == "" || len(code) > 200 {
		s.render(w, http.StatusBadRequest, pageData{Title: "No code", Lines: []string{"GitHub's answer carries no code."}})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		s.render(w, http.StatusGone, pageData{Title: "Already done", Lines: []string{"This setup has finished; see the terminal."}})
		return
	}
	s.finished = true
	app, err := s.exchange(r.Context(), code)
	if err == nil {
		err = s.write(app)
	}
	s.done <- setupResult{app: app, err: err}
	if err != nil {
		s.render(w, http.StatusBadGateway, pageData{Title: "Setup failed", Lines: []string{flatten(err.Error()),
			"Nothing was written. Delete the app on GitHub if it was created, then run polylane setup again."}})
		return
	}
	s.render(w, http.StatusOK, pageData{Title: "Polylane is registered", Link: s.f.endpoints.installURL(app.Slug), Lines: []string{
		fmt.Sprintf("GitHub App %q (id %d) created; its settings are in %s.", oneLineText(app.Name, 80), app.ID, s.f.out),
		"Install the app, then start Polylane with: polylane serve --config " + s.f.out,
		"You can close this page."}})
}

// exchange trades the code for the app's credentials.
func (s *setupFlow) exchange(ctx context.Context, code string) (appCredentials, error) {
	var app appCredentials
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.f.endpoints.conversionURL(code), nil)
	if err != nil {
		return app, fmt.Errorf("exchange the manifest code: %w", err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "polylane-setup/"+version)
	resp, err := s.client.Do(req)
	if err != nil {
		return app, fmt.Errorf("exchange the manifest code: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return app, fmt.Errorf("read GitHub's answer to the manifest code: %w", err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var e struct{ Message string }
		_ = json.Unmarshal(body, &e)
		return app, fmt.Errorf("GitHub answered %d to the manifest code: %s", resp.StatusCode, oneLineText(e.Message, 200))
	}
	if err := json.Unmarshal(body, &app); err != nil {
		return app, fmt.Errorf("GitHub's answer to the manifest code is not JSON: %w", err)
	}
	return app, app.check()
}

// write stores the settings file: created with mode 0600, refusing an
// existing file unless --force (which replaces it atomically).
func (s *setupFlow) write(app appCredentials) error {
	session, err := randomHex(32)
	if err != nil {
		return err
	}
	keyRef := ""
	if s.f.keyFile != "" {
		if err := writePrivateFile(s.f.keyFile, []byte(app.PEM), s.f.force); err != nil {
			return err
		}
		keyRef = keyReference(s.f.keyFile, s.f.out)
	}
	text := configLines(app, s.f.endpoints, keyRef, s.f.dashboardURL, session, s.now().UTC().Format(time.RFC3339))
	return writePrivateFile(s.f.out, []byte(text), s.f.force)
}

// keyReference names the key file as the settings file will read it: by
// its base name when both sit in one directory (a relative key file is
// taken from the settings file's directory), else by its absolute path.
func keyReference(keyFile, out string) string {
	if filepath.Dir(filepath.Clean(keyFile)) == filepath.Dir(filepath.Clean(out)) {
		return filepath.Base(keyFile)
	}
	if abs, err := filepath.Abs(keyFile); err == nil {
		return abs
	}
	return keyFile
}

// writePrivateFile writes a file readable only by its owner.
func writePrivateFile(path string, data []byte, replace bool) error {
	if !replace {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".polylane-setup-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return errors.Join(fmt.Errorf("replace %s", path), err)
	}
	return nil
}
