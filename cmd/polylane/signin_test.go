package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSignInNeedsDashboardURL: without POLYLANE_DASHBOARD_URL the OAuth
// redirect would be built from each request's Host header, so serve
// refuses dashboard sign-in without it (public mode signs nobody in).
func TestSignInNeedsDashboardURL(t *testing.T) {
	signIn := map[string]string{"POLYLANE_WEBHOOK_SECRET": "w", "POLYLANE_GITHUB_CLIENT_ID": "Iv1.x",
		"POLYLANE_GITHUB_CLIENT_SECRET": "s"}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"sign-in without a dashboard URL", signIn, "POLYLANE_DASHBOARD_URL: is required"},
		{"sign-in with a dashboard URL", envWith(signIn, "POLYLANE_DASHBOARD_URL", "https://ci.example"), ""},
		{"public mode", envWith(signIn, "POLYLANE_DASHBOARD_PUBLIC", "true"), ""},
		{"client id without its secret", envWith(signIn, "POLYLANE_GITHUB_CLIENT_SECRET", "", "POLYLANE_DASHBOARD_URL", "https://ci.example"),
			"POLYLANE_GITHUB_CLIENT_SECRET: set both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadConfig(cmdServe, "", nil, envOf(tc.env), &bytes.Buffer{})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestServeRefusesSignInWithoutDashboardURL runs serve with sign-in and no
// dashboard URL: it exits 2 with one line naming the setting, before it
// creates the database.
func TestServeRefusesSignInWithoutDashboardURL(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	cmd := polylaneCmd(map[string]string{"POLYLANE_DATABASE_URL": "sqlite://" + db, "POLYLANE_WEBHOOK_SECRET": "w",
		"POLYLANE_ADDR": "127.0.0.1:0", "POLYLANE_GITHUB_CLIENT_ID": "Iv1.x", "POLYLANE_GITHUB_CLIENT_SECRET": "s"}, "serve")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("serve started without POLYLANE_DASHBOARD_URL; logs:\n%s", stderr.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitUsage {
		t.Fatalf("serve ended with %v, want exit %d; stderr:\n%s", err, exitUsage, stderr.String())
	}
	if line := stderr.String(); strings.Count(line, "\n") != 1 || !strings.Contains(line, "POLYLANE_DASHBOARD_URL") {
		t.Fatalf("stderr %q, want one line naming POLYLANE_DASHBOARD_URL", line)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the database was created (%v)", err)
	}
}
