package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v66/github"
)

// lockedBuffer is a bytes.Buffer safe for a command writing while the test
// reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

const tinyScenario = "../../server/githubtest/testdata/tiny"

func TestSimulateUsage(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderrIn string
	}{
		{"help", []string{"--help"}, exitOK, "Usage: polylane simulate", ""},
		{"no scenario", nil, exitUsage, "", "--scenario is required"},
		{"bad flag", []string{"--nope"}, exitUsage, "", "flag provided but not defined"},
		{"bad app id", []string{"--scenario", tinyScenario, "--app-id", "0"}, exitUsage, "", "--app-id"},
		{"unreadable scenario", []string{"--scenario", t.TempDir()}, exitUsage, "", "scenario.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runMain(context.Background(), append([]string{"simulate"}, tc.args...), nil, &out, &errOut, func(string) string { return "" })
			if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errOut.String(), tc.stderrIn) {
				t.Errorf("code %d\nstdout %q\nstderr %q", code, out.String(), errOut.String())
			}
		})
	}
}

func TestSimulateServesUntilInterrupted(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- runMain(ctx, []string{"simulate", "--scenario", tinyScenario, "--addr", "127.0.0.1:0",
			"--app-id", "321", "--private-key-out", keyFile}, nil, out, &lockedBuffer{}, func(string) string { return "" })
	}()
	apiRE := regexp.MustCompile(`export POLYLANE_GITHUB_API_URL=(\S+)`)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "Serving until interrupted") {
		if time.Now().After(deadline) {
			t.Fatalf("simulate printed no environment: %q", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	text := out.String()
	for _, want := range []string{"export POLYLANE_GITHUB_APP_ID=321", "export POLYLANE_GITHUB_PRIVATE_KEY_FILE=" + keyFile,
		"export POLYLANE_WEBHOOK_SECRET=", "repository: acme/widget"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	info, err := os.Stat(keyFile)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("private key file: %v, mode %v", err, info.Mode())
	}
	checkSimulatorWorks(t, apiRE.FindStringSubmatch(text)[1], keyFile)
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d after interrupt", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("simulate did not stop on interrupt")
	}
}

// checkSimulatorWorks uses the printed settings the way serve would.
func checkSimulatorWorks(t *testing.T, apiURL, keyFile string) {
	t.Helper()
	pemBytes, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	atr, err := ghinstallation.NewAppsTransport(http.DefaultTransport, 321, pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	atr.BaseURL = strings.TrimSuffix(apiURL, "/")
	itr := ghinstallation.NewFromAppsTransport(atr, 77)
	itr.BaseURL = atr.BaseURL
	c, err := github.NewClient(&http.Client{Transport: itr, Timeout: 10 * time.Second}).WithEnterpriseURLs(apiURL, apiURL)
	if err != nil {
		t.Fatal(err)
	}
	runs, _, err := c.Actions.ListRepositoryWorkflowRuns(context.Background(), "acme", "widget", nil)
	if err != nil || runs.GetTotalCount() == 0 {
		t.Fatalf("list runs through the printed settings: %v", err)
	}
	if !strings.HasSuffix(apiURL, "/api/v3/") {
		t.Errorf("API URL %q is not the /api/v3/ base", apiURL)
	}
}
