package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// runAsPolylane makes the test binary behave as the polylane binary, so the
// end-to-end tests start a real process without a separate build.
const runAsPolylane = "POLYLANE_TEST_RUN_AS_BINARY"

func TestMain(m *testing.M) {
	if os.Getenv(runAsPolylane) == "1" {
		os.Args = append([]string{"polylane"}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(m.Run())
}

// polylaneCmd returns the command that runs polylane with args and env.
func polylaneCmd(env map[string]string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = []string{runAsPolylane + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

type e2eBackend struct {
	name string
	url  func(t *testing.T) string // POLYLANE_DATABASE_URL
}

func e2eBackends() []e2eBackend {
	return []e2eBackend{
		{"sqlite", func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "e2e.db") }},
		{"postgres", func(t *testing.T) string { return postgresSchemaURL(t) }},
	}
}

// postgresSchemaURL returns POLYLANE_TEST_DATABASE_URL pointed at a schema of
// its own (dropped after the test); it skips without the variable unless CI=true.
func postgresSchemaURL(t testing.TB) string {
	base := os.Getenv("POLYLANE_TEST_DATABASE_URL")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but POLYLANE_TEST_DATABASE_URL is not set")
		}
		t.Skip("set POLYLANE_TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run against PostgreSQL")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("POLYLANE_TEST_DATABASE_URL unreachable: %v", err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "polylane_e2e_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

// TestServeEndToEnd migrates, starts serve on a free port, checks the three
// endpoints and stops it with SIGTERM, on each backend.
func TestServeEndToEnd(t *testing.T) {
	for _, b := range e2eBackends() {
		t.Run(b.name, func(t *testing.T) {
			env := map[string]string{"POLYLANE_DATABASE_URL": b.url(t)}
			if out, err := polylaneCmd(env, "migrate").CombinedOutput(); err != nil {
				t.Fatalf("migrate: %v\n%s", err, out)
			}
			env["POLYLANE_WEBHOOK_SECRET"] = "e2e-hunter2"
			env["POLYLANE_ADDR"] = "127.0.0.1:0"
			env["POLYLANE_SHUTDOWN_TIMEOUT"] = "8s"
			cmd := polylaneCmd(env, "serve", "--no-migrate")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			logs := &bytes.Buffer{}
			addr := waitListening(t, stderr, logs)
			for _, tc := range []struct{ path, body string }{
				{"/healthz", "ok"}, {"/readyz", "ready"}, {"/metrics", "polylane_queue_running 1"},
			} {
				status, body := httpGet(t, "http://"+addr+tc.path)
				if status != 200 || !strings.Contains(body, tc.body) {
					t.Fatalf("GET %s = %d %.200q, want 200 with %q", tc.path, status, body, tc.body)
				}
			}
			start := time.Now()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("serve exited with %v after SIGTERM; logs:\n%s", err, logs)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("serve still running 10 s after SIGTERM; logs:\n%s", logs)
			}
			t.Logf("%s: exit 0 %v after SIGTERM", b.name, time.Since(start).Round(time.Millisecond))
			if strings.Contains(logs.String(), "e2e-hunter2") {
				t.Fatal("the logs contain the webhook secret")
			}
		})
	}
}

// startServe runs the binary with env and args (serve and its flags) and
// returns the process, the address it listens on and its logs. The process
// is killed and waited for when the test ends.
func startServe(t *testing.T, env map[string]string, args ...string) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	cmd := polylaneCmd(env, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	logs := &bytes.Buffer{}
	return cmd, waitListening(t, stderr, logs), logs
}

// waitListening reads serve's JSON logs until the "listening" line and
// returns its address; it keeps copying the logs into logs.
func waitListening(t *testing.T, r io.Reader, logs *bytes.Buffer) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			logs.Write(append(sc.Bytes(), '\n'))
			var line struct{ Message, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "listening" {
				found <- line.Addr
			}
		}
		close(found)
	}()
	select {
	case addr, ok := <-found:
		if !ok {
			t.Fatalf("serve exited before listening; logs:\n%s", logs)
		}
		return addr
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not listen within 60 s; logs:\n%s", logs)
	}
	return ""
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestServeRefusesBadSettings: exit 2, one line on stderr, nothing created.
func TestServeRefusesBadSettings(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no webhook secret", map[string]string{}, "polylane: POLYLANE_WEBHOOK_SECRET: is required"},
		{"unreachable postgres", map[string]string{"POLYLANE_WEBHOOK_SECRET": "s",
			"POLYLANE_DATABASE_URL": "postgres://nobody@127.0.0.1:1/x"}, "polylane: POLYLANE_DATABASE_URL: connect to PostgreSQL"},
		{"port taken", map[string]string{"POLYLANE_WEBHOOK_SECRET": "s", "POLYLANE_ADDR": busy.Addr().String()}, "polylane: POLYLANE_ADDR:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := polylaneCmd(tc.env, "serve")
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != exitUsage {
				t.Fatalf("exit %d (%v), want %d; stderr %q", code, err, exitUsage, stderr.String())
			}
			if msg := stderr.String(); !strings.HasPrefix(msg, tc.want) || strings.Count(msg, "\n") != 1 {
				t.Fatalf("stderr %q, want one line starting with %q", msg, tc.want)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 0 {
				t.Fatalf("serve created %s although it refused to start", entries[0].Name())
			}
		})
	}
}
