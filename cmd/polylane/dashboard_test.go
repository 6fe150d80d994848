package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDashboardSettings(t *testing.T) {
	base := map[string]string{"POLYLANE_WEBHOOK_SECRET": "x"}
	with := func(kv ...string) map[string]string { return envWith(base, kv...) }
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr string
		check   func(t *testing.T, c dashboardConfig)
	}{
		{name: "defaults", env: base, check: func(t *testing.T, c dashboardConfig) {
			if c.Public || c.InsecureCookies || c.AccessTTL != time.Minute || c.ClientID != "" {
				t.Fatalf("defaults: %+v", c)
			}
		}},
		{name: "flags", env: with("POLYLANE_GITHUB_CLIENT_SECRET", "s"),
			args: []string{"--dashboard-public", "--dashboard-insecure-cookies", "--github-client-id", "Iv1.x",
				"--dashboard-url", "https://ci.example/", "--dashboard-access-ttl", "30s"},
			check: func(t *testing.T, c dashboardConfig) {
				if !c.Public || !c.InsecureCookies || c.ClientID != "Iv1.x" || c.ClientSecret != "s" ||
					c.BaseURL != "https://ci.example/" || c.AccessTTL != 30*time.Second {
					t.Fatalf("flags: %+v", c)
				}
			}},
		{name: "short session secret", env: with("POLYLANE_DASHBOARD_SESSION_SECRET", "short"), wantErr: "POLYLANE_DASHBOARD_SESSION_SECRET"},
		{name: "bad ttl", env: with("POLYLANE_DASHBOARD_ACCESS_TTL", "2h"), wantErr: "POLYLANE_DASHBOARD_ACCESS_TTL"},
		{name: "bad web url", args: []string{"--github-web-url", "ftp://x"}, env: base, wantErr: "--github-web-url"},
		{name: "bad switch value", env: with("POLYLANE_DASHBOARD_PUBLIC", "maybe"), wantErr: "POLYLANE_DASHBOARD_PUBLIC"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadConfig(cmdServe, "", tc.args, envOf(tc.env), io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c.Dashboard)
		})
	}
}

// TestServeMountsTheDashboard runs serve in public mode and reads the
// overview page and its API; a client id without its secret stops serve.
func TestServeMountsTheDashboard(t *testing.T) {
	env := map[string]string{"POLYLANE_DATABASE_URL": "sqlite://" + filepath.Join(t.TempDir(), "dash.db"),
		"POLYLANE_WEBHOOK_SECRET": "w", "POLYLANE_ADDR": "127.0.0.1:0", "POLYLANE_DASHBOARD_PUBLIC": "true"}
	_, addr, _ := startServe(t, env, "serve")
	for _, tc := range []struct{ path, body string }{
		{"/", "Nothing to show yet"}, {"/api/v1/overview", `"installations":[]`}, {"/healthz", "ok"},
		{"/static/dashboard.css", "--fg"},
	} {
		status, body := httpGet(t, "http://"+addr+tc.path)
		if status != 200 || !strings.Contains(body, tc.body) {
			t.Fatalf("GET %s = %d %.200q, want 200 with %q", tc.path, status, body, tc.body)
		}
	}
	if status, _ := httpGet(t, "http://"+addr+"/repos/acme/none"); status != 404 {
		t.Fatalf("unknown repository: %d, want 404", status)
	}

	env["POLYLANE_GITHUB_CLIENT_ID"] = "Iv1.only-the-id"
	out, err := polylaneCmd(env, "serve").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "POLYLANE_GITHUB_CLIENT_SECRET") {
		t.Fatalf("serve with a client id and no secret: %v\n%s", err, out)
	}
}
