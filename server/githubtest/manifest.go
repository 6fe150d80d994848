package githubtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// manifestCode is a pending GitHub App manifest conversion.
type manifestCode struct {
	manifest appManifest
	expires  time.Time
}

// appManifest is the part of a GitHub App manifest the simulator uses.
type appManifest struct {
	Name           string `json:"name"`
	URL            string `json:"url"`
	RedirectURL    string `json:"redirect_url"`
	HookAttributes struct {
		URL string `json:"url"`
	} `json:"hook_attributes"`
	DefaultPermissions map[string]string `json:"default_permissions"`
	DefaultEvents      []string          `json:"default_events"`
}

// ManifestCode registers a manifest as if a user had approved it on
// GitHub's "create app" page and returns the code for
// POST /app-manifests/{code}/conversions.
func (s *Server) ManifestCode(manifestJSON []byte) (string, error) {
	var m appManifest
	if err := json.Unmarshal(manifestJSON, &m); err != nil {
		return "", fmt.Errorf("parse app manifest: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newManifestCode(m), nil
}

// newManifestCode stores a manifest and returns its code. Callers hold s.mu.
func (s *Server) newManifestCode(m appManifest) string {
	code := mustRandom(20)
	s.manifests[code] = &manifestCode{manifest: m, expires: time.Now().Add(time.Hour)}
	return code
}

// handleNewApp serves POST /settings/apps/new (and the organization
// variant): the page a manifest form posts to. It approves the manifest at
// once and redirects to its redirect_url with the code and state, as GitHub
// does after the user confirms.
func (s *Server) handleNewApp(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	var m appManifest
	if err := json.Unmarshal([]byte(r.Form.Get("manifest")), &m); err != nil || m.URL == "" {
		http.Error(w, "Invalid GitHub App configuration: manifest is missing or malformed", http.StatusUnprocessableEntity)
		return
	}
	s.mu.Lock()
	code := s.newManifestCode(m)
	s.mu.Unlock()
	if m.RedirectURL == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><p>App created. Code: <code>%s</code></p>", html.EscapeString(code))
		return
	}
	u, err := url.Parse(m.RedirectURL)
	if err != nil {
		http.Error(w, "Invalid redirect_url", http.StatusUnprocessableEntity)
		return
	}
	q := u.Query()
	q.Set("code", code)
	if st := r.URL.Query().Get("state"); st != "" {
		q.Set("state", st)
	}
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// handleManifestConversion serves POST /app-manifests/{code}/conversions:
// the app takes the manifest's name and hook URL, and the answer carries the
// app id, private key, webhook secret and OAuth credentials.
func (s *Server) handleManifestConversion(w http.ResponseWriter, r *http.Request) {
	code := chi.URLParam(r, "code")
	s.mu.Lock()
	defer s.mu.Unlock()
	mc := s.manifests[code]
	if mc == nil || !time.Now().Before(mc.expires) {
		notFound(w)
		return
	}
	delete(s.manifests, code)
	if mc.manifest.Name != "" {
		s.app.Name = mc.manifest.Name
		s.app.Slug = slugify(mc.manifest.Name)
	}
	if mc.manifest.HookAttributes.URL != "" {
		s.app.hookURL = mc.manifest.HookAttributes.URL
	}
	if s.app.private == nil {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "generate key: "+err.Error())
			return
		}
		s.app.private = key
		s.app.keys = append(s.app.keys, &key.PublicKey)
	}
	body := s.appJSON()
	body["client_secret"] = s.opts.ClientSecret
	body["webhook_secret"] = s.app.secret
	body["pem"] = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(s.app.private)}))
	writeJSON(w, http.StatusCreated, body)
}

// slugify makes GitHub's slug of an app name.
func slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(name) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
