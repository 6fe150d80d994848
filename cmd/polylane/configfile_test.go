package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseConfigFile reads KEY=VALUE lines and refuses what is not one.
func TestParseConfigFile(t *testing.T) {
	tests := []struct {
		name, text string
		want       map[string]string
		err        string
	}{
		{"plain, comments, export", "# c\n\nPOLYLANE_ADDR=:9090\nexport POLYLANE_LOG_LEVEL = debug \n",
			map[string]string{"POLYLANE_ADDR": ":9090", "POLYLANE_LOG_LEVEL": "debug"}, ""},
		{"double quotes with escapes", `POLYLANE_GITHUB_PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\nAB+/=\n-----END RSA PRIVATE KEY-----\n"`,
			map[string]string{"POLYLANE_GITHUB_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----\nAB+/=\n-----END RSA PRIVATE KEY-----\n"}, ""},
		{"single quotes are literal", `POLYLANE_WEBHOOK_SECRET='a\nb"$c'`, map[string]string{"POLYLANE_WEBHOOK_SECRET": `a\nb"$c`}, ""},
		{"empty value", "POLYLANE_DATABASE_URL=", map[string]string{"POLYLANE_DATABASE_URL": ""}, ""},
		{"unknown key", "POLYLANE_NOPE=1", nil, "x.env:1: POLYLANE_NOPE is not a setting"},
		{"no nesting", "POLYLANE_CONFIG_FILE=other.env", nil, "POLYLANE_CONFIG_FILE is not a setting"},
		{"twice", "POLYLANE_ADDR=:1\nPOLYLANE_ADDR=:2", nil, "x.env:2: POLYLANE_ADDR is set twice"},
		{"no equals", "POLYLANE_ADDR", nil, "x.env:1: want KEY=VALUE"},
		{"lower-case key", "polylane_addr=:1", nil, "want KEY=VALUE"},
		{"unterminated", `POLYLANE_WEBHOOK_SECRET="abc`, nil, "unterminated double-quoted value"},
		{"text after quote", `POLYLANE_WEBHOOK_SECRET="abc" x`, nil, "text after the closing quote"},
		{"unterminated single", `POLYLANE_WEBHOOK_SECRET='abc`, nil, "unterminated single-quoted value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseConfigFile(strings.NewReader(tc.text), "x.env")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "abc") {
					t.Fatalf("the error shows the value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

// TestFormatConfigValueRoundTrips: what setup writes reads back unchanged.
func TestFormatConfigValueRoundTrips(t *testing.T) {
	for _, v := range []string{"", "plain-1.2_3:/@+=,", "with space", "quote ' and \" both\n", "a\\nb", "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n", "tab\there", "$HOME"} {
		line := "POLYLANE_WEBHOOK_SECRET=" + formatConfigValue(v)
		got, err := parseConfigFile(strings.NewReader(line), "x")
		if err != nil || got["POLYLANE_WEBHOOK_SECRET"] != v {
			t.Errorf("%q: wrote %s, read %q (%v)", v, line, got["POLYLANE_WEBHOOK_SECRET"], err)
		}
	}
}

// TestConfigFileBacksTheEnvironment: the file gives settings, the
// environment and flags win, secrets need a private file, and a relative
// key file is found next to the config file.
func TestConfigFileBacksTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	key := []byte(testKey)
	if err := os.WriteFile(filepath.Join(dir, "app.pem"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "polylane.env")
	text := "POLYLANE_WEBHOOK_SECRET=from-file\nPOLYLANE_ADDR=127.0.0.1:7000\nPOLYLANE_LOG_LEVEL=warn\n" +
		"POLYLANE_GITHUB_APP_ID=42\nPOLYLANE_GITHUB_PRIVATE_KEY_FILE=app.pem\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"POLYLANE_LOG_LEVEL": "debug"}
	cfg, err := loadConfig(cmdServe, "", []string{"--config", path, "--addr", "127.0.0.1:7001"},
		func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.WebhookSecret != "from-file" || cfg.Addr != "127.0.0.1:7001" || cfg.LogLevel.String() != "debug" ||
		cfg.GitHubAppID != 42 || string(cfg.GitHubKey) != string(key) {
		t.Fatalf("config: secret from file %v, addr %s, level %s, app %d, key read %v", cfg.WebhookSecret == "from-file",
			cfg.Addr, cfg.LogLevel, cfg.GitHubAppID, cfg.GitHubKey != nil)
	}
	env["POLYLANE_CONFIG_FILE"] = path
	if cfg, err = loadConfig(cmdServe, "", nil, func(k string) string { return env[k] }, io.Discard); err != nil || cfg.Addr != "127.0.0.1:7000" {
		t.Fatalf("POLYLANE_CONFIG_FILE: %v %+v", err, cfg)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = loadConfig(cmdServe, "", nil, func(k string) string { return env[k] }, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "POLYLANE_CONFIG_FILE: "+path+" holds secrets but other users may read it") {
		t.Fatalf("world-readable file with secrets: %v", err)
	}
	env["POLYLANE_CONFIG_FILE"] = filepath.Join(dir, "missing.env")
	if _, err = loadConfig(cmdMigrate, "", nil, func(k string) string { return env[k] }, io.Discard); err == nil ||
		!strings.HasPrefix(err.Error(), "POLYLANE_CONFIG_FILE: open config file") {
		t.Fatalf("missing file: %v", err)
	}
}

// TestQueueSettings: the rescue delay must exceed the job timeout.
func TestQueueSettings(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, ""},
		{map[string]string{"POLYLANE_JOB_TIMEOUT": "5s", "POLYLANE_RESCUE_STUCK_JOBS_AFTER": "8s"}, ""},
		{map[string]string{"POLYLANE_JOB_TIMEOUT": "20m"}, "POLYLANE_RESCUE_STUCK_JOBS_AFTER: 15m must be longer than POLYLANE_JOB_TIMEOUT"},
		{map[string]string{"POLYLANE_JOB_TIMEOUT": "0s"}, "POLYLANE_JOB_TIMEOUT:"},
	}
	for _, tc := range tests {
		tc.env["POLYLANE_WEBHOOK_SECRET"] = "s"
		cfg, err := loadConfig(cmdServe, "", nil, func(k string) string { return tc.env[k] }, io.Discard)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.env, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%v: error %v, want %q", tc.env, err, tc.want)
		case err == nil && cfg.Queue.RescueAfter <= cfg.Queue.JobTimeout:
			t.Errorf("%v: rescue %s, timeout %s", tc.env, cfg.Queue.RescueAfter, cfg.Queue.JobTimeout)
		}
	}
}
