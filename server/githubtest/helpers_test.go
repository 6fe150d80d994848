package githubtest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

// Facts of testdata/tiny used across tests.
const (
	tinyRepo    = "acme/widget"
	tinyOwner   = "acme"
	tinyName    = "widget"
	tinyInst    = int64(77)
	tinyTrigger = int64(9005)
	tinyFailJob = int64(19005)
	tinyPR      = 12
)

// startTiny starts a simulator on testdata/tiny with the given options.
func startTiny(t *testing.T, opts Options) *Server {
	t.Helper()
	if opts.Scenarios == nil {
		opts.Scenarios = []string{filepath.Join("testdata", "tiny")}
	}
	s, err := Start(opts)
	if err != nil {
		t.Fatalf("start simulator: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// installClient returns an installation client for testdata/tiny.
func installClient(t *testing.T, s *Server) *github.Client {
	t.Helper()
	c, err := s.NewInstallationClient(tinyInst)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ctx returns a context that ends with the test.
func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// statusOf returns the HTTP status carried by a go-github error.
func statusOf(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// sharedDir is where the read-only shared data lives.
func sharedDir() string {
	if d := os.Getenv("POLYLANE_SHARED_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared")
}

// sharedScenario returns a shared scenario directory, skipping the test
// when it is absent (failing under CI).
func sharedScenario(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(sharedDir(), "scenarios", name)
	if _, err := os.Stat(filepath.Join(dir, "scenario.json")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared scenario %s is missing (set POLYLANE_SHARED_DIR): %v", name, err)
		}
		t.Skipf("shared scenario %s not found at %s; set POLYLANE_SHARED_DIR to run this test", name, dir)
	}
	return dir
}

// plainGet fetches a URL with a client that sends no credentials.
func plainGet(t *testing.T, url string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// mustKey generates an RSA key for a test.
func mustKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key
}
