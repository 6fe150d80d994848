package worker

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/polylane/polylane/store"
)

// maxFailedAttempts bounds the job attempts of one case that may end in an
// error: the faulted attempt, the one a restart cancels, and one more.
const maxFailedAttempts = 3

// checkInvariants asserts what must hold after any case, whatever the
// fault: one assessment comment per pull request; at most one fix pull
// request and one fix branch per failure class; nothing published for a
// rejected delivery; every accepted delivery settled in a visible state
// (done, ignored with a reason, or failed with an explanation); no secret
// in any log line; a bounded number of failed job attempts. It returns the
// failed attempts counted.
func (a *sweepApp) checkInvariants(t testing.TB, s *flowState) int {
	t.Helper()
	for _, pr := range a.sim.PullRequests(a.repo) {
		if n := len(a.assessments(pr.Number)); n > 1 {
			t.Errorf("%d assessment comments on #%d", n, pr.Number)
		}
	}
	heads := map[string]int{}
	for _, pr := range a.botPulls() {
		heads[pr.Head]++
		if heads[pr.Head] > 1 {
			t.Errorf("a second fix pull request from %s", pr.Head)
		}
	}
	if b := a.fixBranches(); len(b) > len(heads) || len(b) > 1 {
		t.Errorf("fix branches %v for fix pull requests %v", b, heads)
	}
	a.checkRejected(t, s)
	a.checkAccepted(t, s)
	a.checkSecrets(t)
	failed := strings.Count(a.logs.String(), ` did not finish"`)
	if failed > maxFailedAttempts {
		t.Errorf("%d job attempts failed, want at most %d", failed, maxFailedAttempts)
	}
	return failed
}

// checkRejected: a forged delivery is not stored, and nothing is
// published about what it carried.
func (a *sweepApp) checkRejected(t testing.TB, s *flowState) {
	t.Helper()
	ctx := context.Background()
	for _, guid := range s.rejected {
		if _, err := a.st.GetDelivery(ctx, guid); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("rejected delivery %s was stored (%v)", guid, err)
		}
	}
	if s.forgedRun != 0 {
		key := store.RunKey{RepositoryID: a.sc.Repository.ID, RunID: s.forgedRun, Attempt: 1}
		if _, err := a.st.GetDiagnosis(ctx, key); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("run %d of a rejected delivery was diagnosed (%v)", s.forgedRun, err)
		}
	}
	if s.forgedComment != 0 {
		if r := a.repliesTo(s.number, s.forgedComment); len(r) != 0 {
			t.Errorf("%d replies to a comment whose delivery was rejected", len(r))
		}
		for _, c := range a.sim.Comments(a.repo, s.number) {
			if c.ID == s.forgedComment && len(c.Reactions) != 0 {
				t.Errorf("the comment of a rejected delivery got reactions %+v", c.Reactions)
			}
		}
	}
}

// checkAccepted: every delivery answered 202 ended done, ignored with a
// reason, or failed with an explanation.
func (a *sweepApp) checkAccepted(t testing.TB, s *flowState) {
	t.Helper()
	for _, guid := range s.accepted {
		rec, err := a.st.GetDelivery(context.Background(), guid)
		switch {
		case err != nil:
			t.Errorf("accepted delivery %s is lost: %v", guid, err)
		case rec.State == store.DeliveryDone:
		case rec.State == store.DeliveryIgnored && rec.Error != "":
		case rec.State == store.DeliveryFailed && rec.Error != "":
		default:
			t.Errorf("accepted delivery %s (%s) ended %s %q", guid, rec.Event, rec.State, rec.Error)
		}
	}
}

// tokenPattern matches GitHub's tokens (installation ghs_, user ghu_,
// OAuth gho_, personal ghp_, refresh ghr_) and a JWT's header and claims.
var tokenPattern = regexp.MustCompile(`gh[spuor]_[A-Za-z0-9]{16,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ`)

// checkSecrets fails when a log line holds the webhook secret, a piece of
// the app's private key, or a token.
func (a *sweepApp) checkSecrets(t testing.TB) {
	t.Helper()
	key := keyPieces(a.sim.PrivateKeyPEM())
	for _, line := range strings.Split(a.logs.String(), "\n") {
		if leak := secretIn(line, a.sim.WebhookSecret(), key); leak != "" {
			t.Errorf("a log line holds %s: %.300s", leak, line)
		}
	}
}

// keyPieces cuts a PEM key's base64 body into pieces of 24 characters.
func keyPieces(keyPEM []byte) []string {
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return nil
	}
	body := base64.StdEncoding.EncodeToString(block.Bytes)
	var out []string
	for i := 0; i+24 <= len(body); i += 24 {
		out = append(out, body[i:i+24])
	}
	return out
}

// secretIn names the secret a line holds, "" for none.
func secretIn(line, webhookSecret string, keyPieces []string) string {
	if webhookSecret != "" && strings.Contains(line, webhookSecret) {
		return "the webhook secret"
	}
	if m := tokenPattern.FindString(line); m != "" {
		return "a token (" + m[:4] + "…)"
	}
	for _, p := range keyPieces {
		if strings.Contains(line, p) {
			return "a piece of the private key"
		}
	}
	return ""
}

// signWith signs a body as GitHub would with secret.
func signWith(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// TestSecretIn checks the log scan the sweep relies on: it must see each
// kind of secret, and nothing in an ordinary line.
func TestSecretIn(t *testing.T) {
	key := []string{"MIIEvQIBADANBgkqhkiG9w0B"}
	tests := []struct {
		line string
		want string
	}{
		{`{"message":"diagnosed","repo":"o/r"}`, ""},
		{`{"error":"POST /app/installations/7/access_tokens: token ghs_16C7e42F292c6912E7710c838347Ae178B4a refused"}`, "a token (ghs_…)"},
		{`{"url":"https://x/?access_token=ghu_abcdefghijklmnop1234"}`, "a token (ghu_…)"},
		{`{"auth":"Bearer eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOjF9.sig"}`, "a token (eyJh…)"},
		{`{"secret":"hunter2-webhook-secret"}`, "the webhook secret"},
		{`{"key":"...MIIEvQIBADANBgkqhkiG9w0B..."}`, "a piece of the private key"},
		{`{"message":"sha256=ab12 signature checked"}`, ""},
	}
	for _, tc := range tests {
		if got := secretIn(tc.line, "hunter2-webhook-secret", key); got != tc.want {
			t.Errorf("secretIn(%s) = %q, want %q", tc.line, got, tc.want)
		}
	}
}
