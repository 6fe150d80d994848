package analysis

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/redact"
)

// secretLog is a failing step whose cause line carries an installation
// token (a new one in every run) and whose echoed command carries a
// password.
func secretLog(token string) string {
	return strings.Join([]string{
		"2026-09-01T08:00:00.1000000Z ##[group]Run composer install",
		"2026-09-01T08:00:00.2000000Z composer install",
		"2026-09-01T08:00:00.3000000Z ##[endgroup]",
		"2026-09-01T08:00:00.4000000Z + mysql -uroot -pS3cretPass -e 'create database shop'",
		"2026-09-01T08:00:00.5000000Z   Failed to execute git clone --mirror -- 'https://x-access-token:" + token + "@github.com/acme/sdk.git' '/tmp/vcs': fatal: Authentication failed",
		"2026-09-01T08:00:00.6000000Z ##[error]Process completed with exit code 1.",
	}, "\n")
}

// TestSecretInLogRedactedByAnalyze: the lines, command, signature and
// endpoint of a result hold no credential the log printed; the result
// says which kind it removed on which line; two runs with different tokens
// get the same signature.
func TestSecretInLogRedactedByAnalyze(t *testing.T) {
	tokens := []string{"ghs_qNvAd8haSJiku0qoEV1ACoNVwvoaBz7erOwB", "ghs_1T7lQ9caZEXVSM0fSAvwJLXJ27IDHlEo2U8m"}
	var sigs []string
	for _, tok := range tokens {
		res, err := Analyze(strings.NewReader(secretLog(tok)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{tok[4:], "S3cretPass"} {
			if strings.Contains(string(out), secret) {
				t.Errorf("the result holds %q: %s", secret, out)
			}
		}
		cause, ok := res.Cause()
		if !ok || !strings.Contains(cause.Text, "Failed to execute git clone") || !strings.Contains(res.Signature, redact.Marker("GitHub token")) {
			t.Fatalf("cause %+v, signature %q", cause, res.Signature)
		}
		want := redact.Secret{Kind: "GitHub token", Line: cause.N}
		found := false
		for _, s := range res.Redacted {
			found = found || s == want
		}
		if !found {
			t.Errorf("redacted = %+v, want %+v", res.Redacted, want)
		}
		if res.Endpoint != "github.com" {
			t.Errorf("endpoint = %q, want github.com", res.Endpoint)
		}
		sigs = append(sigs, res.SignatureID)
	}
	if sigs[0] != sigs[1] {
		t.Errorf("signature ids differ across runs: %v", sigs)
	}
}
