package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// rsaKeyPEM returns a fresh RSA private key in PEM, as GitHub hands out.
func rsaKeyPEM(t *testing.T) []byte {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

// writeMode writes a file and sets its mode exactly (the umask does not
// narrow it).
func writeMode(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// TestServeRefusesReadableSecretFiles: serve and migrate exit 2, with one
// line naming the file and "chmod 600 FILE" and before creating anything,
// when a settings file that holds a secret or the private key file may be
// read by the group or by others; 0600 and 0400 files work.
func TestServeRefusesReadableSecretFiles(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	key := rsaKeyPEM(t)
	tests := []struct {
		name         string
		settingsMode os.FileMode // 0: no settings file
		settings     string
		keyMode      os.FileMode // 0: no key file
		args         []string
		env          map[string]string
		refused      string // "settings", "key" or "" (starts)
	}{
		{name: "group-readable settings with a secret", settingsMode: 0o640, settings: "POLYLANE_WEBHOOK_SECRET=s3cret\n",
			args: []string{"serve", "--config", "{SETTINGS}"}, refused: "settings"},
		{name: "world-readable settings with a secret", settingsMode: 0o644, settings: "POLYLANE_WEBHOOK_SECRET=s3cret\n",
			args: []string{"serve", "--config", "{SETTINGS}"}, refused: "settings"},
		{name: "group-readable settings named in the environment", settingsMode: 0o640, settings: "POLYLANE_WEBHOOK_SECRET=s3cret\n",
			args: []string{"serve"}, env: map[string]string{"POLYLANE_CONFIG_FILE": "{SETTINGS}"}, refused: "settings"},
		{name: "migrate with group-readable settings with a secret", settingsMode: 0o640,
			settings: "POLYLANE_WEBHOOK_SECRET=s3cret\nPOLYLANE_DATABASE_URL=sqlite://{DIR}/polylane.db\n",
			args:     []string{"migrate", "--config", "{SETTINGS}"}, refused: "settings"},
		{name: "settings with a database password", settingsMode: 0o640, settings: "POLYLANE_DATABASE_URL=postgres://polylane:hunter2@127.0.0.1:1/polylane\n",
			args: []string{"migrate", "--config", "{SETTINGS}"}, refused: "settings"},
		{name: "world-readable key file", keyMode: 0o644, args: []string{"serve"},
			env: map[string]string{"POLYLANE_WEBHOOK_SECRET": "s", "POLYLANE_GITHUB_APP_ID": "42", "POLYLANE_GITHUB_PRIVATE_KEY_FILE": "{KEY}"}, refused: "key"},
		{name: "group-readable key file", keyMode: 0o440, args: []string{"serve"},
			env: map[string]string{"POLYLANE_WEBHOOK_SECRET": "s", "POLYLANE_GITHUB_APP_ID": "42", "POLYLANE_GITHUB_PRIVATE_KEY_FILE": "{KEY}"}, refused: "key"},
		{name: "readable key file named by private settings", settingsMode: 0o600, keyMode: 0o644,
			settings: "POLYLANE_WEBHOOK_SECRET=s3cret\nPOLYLANE_GITHUB_APP_ID=42\nPOLYLANE_GITHUB_PRIVATE_KEY_FILE=app.pem\n",
			args:     []string{"serve", "--config", "{SETTINGS}"}, refused: "key"},
		{name: "private settings and key", settingsMode: 0o600, keyMode: 0o600,
			settings: "POLYLANE_WEBHOOK_SECRET=s3cret\nPOLYLANE_GITHUB_APP_ID=42\nPOLYLANE_GITHUB_PRIVATE_KEY_FILE=app.pem\n",
			args:     []string{"serve", "--config", "{SETTINGS}"}},
		{name: "read-only key", keyMode: 0o400, args: []string{"serve"},
			env: map[string]string{"POLYLANE_WEBHOOK_SECRET": "s", "POLYLANE_GITHUB_APP_ID": "42", "POLYLANE_GITHUB_PRIVATE_KEY_FILE": "{KEY}"}},
		{name: "group-readable settings without a secret", settingsMode: 0o644, settings: "POLYLANE_LOG_LEVEL=info\n",
			args: []string{"serve", "--config", "{SETTINGS}"}, env: map[string]string{"POLYLANE_WEBHOOK_SECRET": "s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, work := t.TempDir(), t.TempDir()
			settingsPath, keyPath := filepath.Join(files, "polylane.env"), filepath.Join(files, "app.pem")
			fill := func(s string) string {
				return strings.NewReplacer("{SETTINGS}", settingsPath, "{KEY}", keyPath, "{DIR}", work).Replace(s)
			}
			if tc.settingsMode != 0 {
				writeMode(t, settingsPath, []byte(fill(tc.settings)), tc.settingsMode)
			}
			if tc.keyMode != 0 {
				writeMode(t, keyPath, key, tc.keyMode)
			}
			env := map[string]string{"POLYLANE_DATABASE_URL": "sqlite://" + filepath.Join(work, "polylane.db"), "POLYLANE_LOG_FORMAT": "json"}
			for k, v := range tc.env {
				env[k] = fill(v)
			}
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = fill(a)
			}
			if tc.refused == "" {
				env["POLYLANE_ADDR"] = "127.0.0.1:0"
				startServe(t, env, args...)
				return
			}
			// A refusal must come first: were the file accepted, serve
			// would stop on the busy port instead, with another message.
			env["POLYLANE_ADDR"] = busy.Addr().String()
			refused := map[string]string{"settings": settingsPath, "key": keyPath}[tc.refused]
			code, stderr := runRefused(t, work, env, args)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitUsage, stderr)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, refused) || !strings.Contains(stderr, "chmod 600 "+refused) {
				t.Fatalf("stderr %q, want one line naming %s and saying chmod 600 %s", stderr, refused, refused)
			}
			if strings.Contains(stderr, "s3cret") || strings.Contains(stderr, "hunter2") {
				t.Fatalf("stderr holds a secret: %q", stderr)
			}
			if entries, _ := os.ReadDir(work); len(entries) != 0 {
				t.Fatalf("%s created %s although it refused to start", args[0], entries[0].Name())
			}
		})
	}
}

// runRefused runs the binary in dir and returns its exit status and
// stderr; it kills a process that is still running after 30 s.
func runRefused(t *testing.T, dir string, env map[string]string, args []string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := polylaneCmd(env, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s still running after 30 s; stderr %q", args[0], stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return code, stderr.String()
}

// TestKubernetesKeyReachesServe: the shipped Deployment gives serve its
// private key in a way serve accepts: from the Secret as a variable, or as
// a file whose mode (defaultMode or the item's mode, made group-readable
// by the kubelet when the pod sets fsGroup) only its owner may read.
func TestKubernetesKeyReachesServe(t *testing.T) {
	dep, ok := readK8s(t)["Deployment"]
	if !ok {
		t.Fatal("no Deployment")
	}
	var pod struct {
		SecurityContext struct {
			FSGroup *int `yaml:"fsGroup"`
		} `yaml:"securityContext"`
		Containers []struct {
			Env []struct {
				Name      string `yaml:"name"`
				Value     string `yaml:"value"`
				ValueFrom *struct {
					SecretKeyRef *struct{ Name, Key string } `yaml:"secretKeyRef"`
				} `yaml:"valueFrom"`
			} `yaml:"env"`
			VolumeMounts []struct {
				Name      string `yaml:"name"`
				MountPath string `yaml:"mountPath"`
			} `yaml:"volumeMounts"`
		} `yaml:"containers"`
		Volumes []struct {
			Name   string `yaml:"name"`
			Secret *struct {
				DefaultMode *int `yaml:"defaultMode"`
				Items       []struct {
					Path string `yaml:"path"`
					Mode *int   `yaml:"mode"`
				} `yaml:"items"`
			} `yaml:"secret"`
		} `yaml:"volumes"`
	}
	spec, _ := dep.raw["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	b, err := yaml.Marshal(tmpl["spec"])
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &pod); err != nil {
		t.Fatal(err)
	}
	if len(pod.Containers) == 0 {
		t.Fatal("no container")
	}
	c := pod.Containers[0]
	for _, e := range c.Env {
		switch e.Name {
		case "POLYLANE_GITHUB_PRIVATE_KEY":
			if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Key == "" {
				t.Errorf("POLYLANE_GITHUB_PRIVATE_KEY does not come from a Secret")
			}
		case "POLYLANE_GITHUB_PRIVATE_KEY_FILE":
			mode := -1
			for _, m := range c.VolumeMounts {
				rel, found := strings.CutPrefix(e.Value, strings.TrimSuffix(m.MountPath, "/")+"/")
				for _, v := range pod.Volumes {
					if !found || v.Name != m.Name || v.Secret == nil {
						continue
					}
					mode = 0o644 // Kubernetes' default
					if v.Secret.DefaultMode != nil {
						mode = *v.Secret.DefaultMode
					}
					for _, it := range v.Secret.Items {
						if it.Path == rel && it.Mode != nil {
							mode = *it.Mode
						}
					}
					if pod.SecurityContext.FSGroup != nil {
						mode |= 0o440
					}
				}
			}
			if mode < 0 || mode&0o077 != 0 {
				t.Errorf("the key file %s is not mounted from a Secret that only its owner may read (mode %04o): serve would refuse it", e.Value, mode)
			}
		}
	}
}
