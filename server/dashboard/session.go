package dashboard

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Cookie names.
const (
	sessionCookie = "polylane_session"
	stateCookie   = "polylane_oauth"
)

// errBadCookie is any cookie that does not verify, decrypt or has expired.
var errBadCookie = errors.New("invalid or expired cookie")

// session is what the session cookie carries. The user's token never
// leaves the server in clear: the whole value is encrypted (AES-GCM) and
// signed (HMAC-SHA256). A cookie that verifies is a session only while the
// store holds it (see Dashboard.currentSession).
type session struct {
	ID      string `json:"sid"`
	UserID  int64  `json:"uid"`
	Login   string `json:"login"`
	Token   string `json:"tok"`
	Expires int64  `json:"exp"` // Unix seconds
}

// key is what the store knows a session by: the SHA-256 of its id, so
// that the store's copy signs nobody in.
func (s session) key() []byte {
	h := sha256.Sum256([]byte(s.ID))
	return h[:]
}

// oauthState is what the state cookie carries between the redirect to
// GitHub and the callback.
type oauthState struct {
	State   string `json:"state"`
	Next    string `json:"next"`
	Expires int64  `json:"exp"`
}

// sealer encrypts and signs cookie values with keys derived from the
// session secret.
type sealer struct {
	aead cipher.AEAD
	mac  []byte
}

// newSealer derives an encryption and a signing key from secret.
func newSealer(secret []byte) (*sealer, error) {
	if len(secret) < 32 {
		return nil, errors.New("session secret must be at least 32 bytes")
	}
	derive := func(label string) []byte {
		h := hmac.New(sha256.New, secret)
		h.Write([]byte(label))
		return h.Sum(nil)
	}
	block, err := aes.NewCipher(derive("polylane dashboard cookie encryption"))
	if err != nil {
		return nil, fmt.Errorf("session cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("session cipher: %w", err)
	}
	return &sealer{aead: aead, mac: derive("polylane dashboard cookie signature")}, nil
}

// sign returns the HMAC of data under the signing key, with a purpose label.
func (s *sealer) sign(purpose string, data []byte) []byte {
	h := hmac.New(sha256.New, s.mac)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write(data)
	return h.Sum(nil)
}

// seal encodes v as "<nonce+ciphertext>.<hmac>" in base64url.
func (s *sealer) seal(purpose string, v any) (string, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode %s cookie: %w", purpose, err)
	}
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("nonce: %w", err)
	}
	box := s.aead.Seal(nonce, nonce, plain, []byte(purpose))
	enc := base64.RawURLEncoding.EncodeToString(box)
	return enc + "." + base64.RawURLEncoding.EncodeToString(s.sign(purpose, []byte(enc))), nil
}

// open verifies, decrypts and decodes a value made by seal.
func (s *sealer) open(purpose, value string, v any) error {
	if len(value) > 4096 {
		return errBadCookie
	}
	enc, sig, ok := strings.Cut(value, ".")
	if !ok {
		return errBadCookie
	}
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, s.sign(purpose, []byte(enc))) {
		return errBadCookie
	}
	box, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || len(box) < s.aead.NonceSize() {
		return errBadCookie
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, box[:n], box[n:], []byte(purpose))
	if err != nil {
		return errBadCookie
	}
	if err := json.Unmarshal(plain, v); err != nil {
		return errBadCookie
	}
	return nil
}

// csrfToken is the token forms of a session must echo.
func (s *sealer) csrfToken(sessionID string) string {
	return base64.RawURLEncoding.EncodeToString(s.sign("csrf", []byte(sessionID)))
}

// checkCSRF compares a submitted token with the session's in constant time.
func (s *sealer) checkCSRF(sessionID, token string) bool {
	got, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil && sessionID != "" && hmac.Equal(got, s.sign("csrf", []byte(sessionID)))
}

// randomToken returns n random bytes in base64url.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // cannot happen on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// cookieJar writes and reads the dashboard's cookies.
type cookieJar struct {
	sealer *sealer
	secure bool
	now    func() time.Time
}

// set writes a sealed cookie that expires at exp.
func (j cookieJar) set(w http.ResponseWriter, name, path string, v any, exp time.Time) error {
	value, err := j.sealer.seal(name, v)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: path, Expires: exp,
		MaxAge: int(exp.Sub(j.now()).Seconds()), HttpOnly: true, Secure: j.secure, SameSite: http.SameSiteLaxMode})
	return nil
}

// clear deletes a cookie.
func (j cookieJar) clear(w http.ResponseWriter, name, path string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: path, MaxAge: -1, HttpOnly: true,
		Secure: j.secure, SameSite: http.SameSiteLaxMode})
}

// session reads the session cookie of a request.
func (j cookieJar) session(r *http.Request) (session, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return session{}, false
	}
	var s session
	if err := j.sealer.open(sessionCookie, c.Value, &s); err != nil || s.ID == "" || j.now().Unix() >= s.Expires {
		return session{}, false
	}
	return s, true
}

// state reads the OAuth state cookie of a request.
func (j cookieJar) state(r *http.Request) (oauthState, bool) {
	c, err := r.Cookie(stateCookie)
	if err != nil {
		return oauthState{}, false
	}
	var s oauthState
	if err := j.sealer.open(stateCookie, c.Value, &s); err != nil || s.State == "" || j.now().Unix() >= s.Expires {
		return oauthState{}, false
	}
	return s, true
}
