package githubtest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Kinds of caller.
const (
	kindAnonymous    = ""
	kindInvalid      = "invalid"
	kindApp          = "app"
	kindInstallation = "installation"
	kindUser         = "user"
)

// principal is who made a request, as its Authorization header says.
type principal struct {
	kind           string
	installationID int64
	login          string
	userID         int64
	repos          map[string]bool   // a narrowed installation token's repos; nil = all
	perms          map[string]string // an installation token's permissions
	reason         string            // why an invalid credential was refused
}

// actor names the caller for recording and rate limiting.
func (p principal) actor() string {
	switch p.kind {
	case kindApp:
		return "app"
	case kindInstallation:
		return "installation:" + strconv.FormatInt(p.installationID, 10)
	case kindUser:
		return "user:" + strings.ToLower(p.login)
	}
	return ""
}

// principalFromActor is the inverse of actor, for control methods.
func principalFromActor(actor string) principal {
	kind, rest, _ := strings.Cut(actor, ":")
	switch kind {
	case "app":
		return principal{kind: kindApp}
	case "installation":
		id, _ := strconv.ParseInt(rest, 10, 64)
		return principal{kind: kindInstallation, installationID: id}
	case "user":
		return principal{kind: kindUser, login: rest}
	}
	return principal{}
}

// principalOf returns the caller the pipeline put in the context.
func principalOf(r *http.Request) principal {
	p, _ := r.Context().Value(ctxPrincipal).(principal)
	return p
}

// token is an issued installation or user access token.
type token struct {
	kind           string
	installationID int64
	login          string
	repos          map[string]bool
	perms          map[string]string // an installation token's, fixed when issued
	expires        time.Time
}

// appIdentity is the GitHub App the simulator plays.
type appIdentity struct {
	ID         int64
	Slug, Name string
	keys       []*rsa.PublicKey
	private    *rsa.PrivateKey
	hookURL    string
	secret     string
	botID      int64
	createdAt  time.Time
}

// botLogin is the app's bot user, "<slug>[bot]".
func (a *appIdentity) botLogin() string { return a.Slug + "[bot]" }

// initApp sets up the app identity and its key.
func (s *Server) initApp() error {
	o := s.opts
	s.app = appIdentity{ID: o.AppID, Slug: o.AppSlug, Name: o.AppSlug, hookURL: o.WebhookURL,
		secret: o.WebhookSecret, botID: 100_000_000 + o.AppID, createdAt: s.now().Add(-24 * time.Hour)}
	switch {
	case o.PrivateKey != nil:
		s.app.private = o.PrivateKey
		s.app.keys = []*rsa.PublicKey{&o.PrivateKey.PublicKey}
	case o.PublicKey != nil:
		s.app.keys = []*rsa.PublicKey{o.PublicKey}
	default:
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return fmt.Errorf("generate app key: %w", err)
		}
		s.app.private = key
		s.app.keys = []*rsa.PublicKey{&key.PublicKey}
	}
	return nil
}

// AppID is the app's id.
func (s *Server) AppID() int64 { return s.app.ID }

// AppSlug is the app's slug; its bot user is AppSlug()+"[bot]".
func (s *Server) AppSlug() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.app.Slug
}

// WebhookSecret is the secret deliveries are signed with.
func (s *Server) WebhookSecret() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.app.secret
}

// ClientID and ClientSecret are the app's OAuth credentials.
func (s *Server) ClientID() string { return s.opts.ClientID }

// ClientSecret is the app's OAuth client secret.
func (s *Server) ClientSecret() string { return s.opts.ClientSecret }

// PrivateKeyPEM returns the app's private key as PKCS#1 PEM, or nil when
// the simulator was given only a public key.
func (s *Server) PrivateKeyPEM() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.app.private == nil {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(s.app.private)})
}

// authenticate reads the Authorization header.
func (s *Server) authenticate(r *http.Request) principal {
	h := r.Header.Get("Authorization")
	if h == "" {
		return principal{}
	}
	scheme, cred, _ := strings.Cut(h, " ")
	cred = strings.TrimSpace(cred)
	switch strings.ToLower(scheme) {
	case "bearer", "token":
	default:
		return principal{kind: kindInvalid, reason: "Bad credentials"}
	}
	if strings.Count(cred, ".") == 2 {
		if err := s.verifyJWT(cred); err != nil {
			return principal{kind: kindInvalid, reason: err.Error()}
		}
		return principal{kind: kindApp}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tokens[cred]
	if t == nil || !time.Now().Before(t.expires) {
		return principal{kind: kindInvalid, reason: "Bad credentials"}
	}
	p := principal{kind: t.kind, installationID: t.installationID, login: t.login, repos: t.repos, perms: t.perms}
	if u := s.users[strings.ToLower(t.login)]; u != nil {
		p.userID = u.ID
	}
	return p
}

// verifyJWT checks an app JWT: RS256 signed by one of the app's keys, iss
// the app id (or client id), iat not in the future, exp in the future and at
// most ten minutes ahead. Errors carry GitHub's messages.
func (s *Server) verifyJWT(tok string) error {
	//lint:ignore ST1005 GitHub's own message, answered verbatim to the client
	undecodable := errors.New("A JSON web token could not be decoded")
	parts := strings.Split(tok, ".")
	var header struct {
		Alg string `json:"alg"`
	}
	var claims struct {
		Iat json.Number `json:"iat"`
		Exp json.Number `json:"exp"`
		Iss any         `json:"iss"`
	}
	if decodeSegment(parts[0], &header) != nil || decodeSegment(parts[1], &claims) != nil || header.Alg != "RS256" {
		return undecodable
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return undecodable
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	s.mu.Lock()
	keys := append([]*rsa.PublicKey(nil), s.app.keys...)
	s.mu.Unlock()
	verified := false
	for _, k := range keys {
		if rsa.VerifyPKCS1v15(k, crypto.SHA256, digest[:], sig) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return undecodable
	}
	return s.checkClaims(claims.Iat, claims.Exp, claims.Iss)
}

// checkClaims validates the time and issuer claims of an app JWT.
func (s *Server) checkClaims(iatN, expN json.Number, iss any) error {
	iat, err1 := iatN.Int64()
	exp, err2 := expN.Int64()
	now := time.Now().Unix()
	const skew = 60
	switch {
	case err1 != nil || iat > now+skew:
		return errors.New("'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued")
	case err2 != nil || exp <= now:
		return errors.New("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
	case exp > now+600+skew || exp-iat > 600+skew:
		return errors.New("'Expiration time' claim ('exp') is too far in the future")
	}
	issuer := fmt.Sprint(iss)
	if f, ok := iss.(float64); ok {
		issuer = strconv.FormatInt(int64(f), 10)
	}
	if issuer != strconv.FormatInt(s.app.ID, 10) && issuer != s.opts.ClientID {
		return errors.New("'Issuer' claim ('iss') must be an Integer")
	}
	return nil
}

// decodeSegment decodes one base64url JSON segment of a JWT.
func decodeSegment(seg string, v any) error {
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return fmt.Errorf("decode segment: %w", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode segment: %w", err)
	}
	return nil
}

// issueToken stores a new token of the given prefix. Callers hold s.mu.
func (s *Server) issueToken(prefix string, t *token) string {
	v := prefix + mustRandom(36)
	s.tokens[v] = t
	return v
}

// InstallationToken issues an installation token directly, for clients
// that take a plain token (e.g. GITHUB_TOKEN in `polylane capture`).
func (s *Server) InstallationToken(installationID int64) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.installations[installationID] == nil {
		return "", fmt.Errorf("installation %d is not known", installationID)
	}
	return s.issueToken("ghs_", &token{kind: kindInstallation, installationID: installationID,
		perms: s.installationPerms(installationID), expires: time.Now().Add(s.opts.TokenTTL)}), nil
}

// UserToken issues a user access token for login (the user is created if
// needed), as the OAuth flow would.
func (s *Server) UserToken(login string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ensureUser(login)
	return s.issueToken("ghu_", &token{kind: kindUser, login: login, expires: time.Now().Add(8 * time.Hour)})
}

// requireApp lets only app JWT callers through.
func requireApp(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := principalOf(r)
		if p.kind != kindApp {
			msg := "A JSON web token could not be decoded"
			if p.kind == kindInvalid {
				msg = p.reason
			}
			writeError(w, http.StatusUnauthorized, msg)
			return
		}
		next(w, r)
	}
}

// requireUser lets only user-token callers through.
func requireUser(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch p := principalOf(r); p.kind {
		case kindUser:
			next(w, r)
		case kindInstallation, kindApp:
			writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		case kindInvalid:
			writeError(w, http.StatusUnauthorized, p.reason)
		default:
			writeError(w, http.StatusUnauthorized, "Requires authentication")
		}
	}
}

// unauthenticated answers 401 for anonymous and bad credentials; it
// returns false when the caller is authenticated.
func unauthenticated(w http.ResponseWriter, p principal) bool {
	switch p.kind {
	case kindAnonymous:
		writeError(w, http.StatusUnauthorized, "Requires authentication")
	case kindInvalid:
		writeError(w, http.StatusUnauthorized, p.reason)
	default:
		return false
	}
	return true
}
