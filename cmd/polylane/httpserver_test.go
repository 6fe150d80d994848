package main

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/webhook"
)

// TestHTTPSettings: the HTTP settings default to the server's and the
// webhook's own defaults, and refuse what would break them.
func TestHTTPSettings(t *testing.T) {
	base := map[string]string{"POLYLANE_WEBHOOK_SECRET": "hunter2"}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
		want    httpConfig
	}{
		{name: "defaults", env: base, want: httpConfig{ReadTimeout: server.DefaultReadTimeout,
			WriteTimeout: server.DefaultWriteTimeout, MaxInFlight: webhook.DefaultMaxInFlight}},
		{name: "set", env: envWith(base, "POLYLANE_HTTP_READ_TIMEOUT", "5s", "POLYLANE_HTTP_WRITE_TIMEOUT", "20s",
			"POLYLANE_WEBHOOK_MAX_IN_FLIGHT", "40", "POLYLANE_METRICS_ADDR", "127.0.0.1:9100"),
			want: httpConfig{ReadTimeout: 5 * time.Second, WriteTimeout: 20 * time.Second, MaxInFlight: 40, MetricsAddr: "127.0.0.1:9100"}},
		{name: "write not above read", env: envWith(base, "POLYLANE_HTTP_READ_TIMEOUT", "1m", "POLYLANE_HTTP_WRITE_TIMEOUT", "1m"),
			wantErr: "POLYLANE_HTTP_WRITE_TIMEOUT: 1m must be longer than POLYLANE_HTTP_READ_TIMEOUT"},
		{name: "read too long", env: envWith(base, "POLYLANE_HTTP_READ_TIMEOUT", "1h"), wantErr: "POLYLANE_HTTP_READ_TIMEOUT:"},
		{name: "no cap", env: envWith(base, "POLYLANE_WEBHOOK_MAX_IN_FLIGHT", "0"), wantErr: "POLYLANE_WEBHOOK_MAX_IN_FLIGHT:"},
		{name: "metrics without port", env: envWith(base, "POLYLANE_METRICS_ADDR", "9100"), wantErr: "POLYLANE_METRICS_ADDR:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadConfig(cmdServe, "summary", nil, envOf(tc.env), &bytes.Buffer{})
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.HTTP != tc.want {
				t.Fatalf("%+v, want %+v", c.HTTP, tc.want)
			}
		})
	}
}

// TestMetricsListener: with POLYLANE_METRICS_ADDR, serve answers /metrics
// there and only there; the main port keeps its other routes.
func TestMetricsListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	metricsAddr := ln.Addr().String()
	ln.Close()
	env := map[string]string{"POLYLANE_DATABASE_URL": "sqlite://" + t.TempDir() + "/m.db", "POLYLANE_WEBHOOK_SECRET": "hunter2",
		"POLYLANE_ADDR": "127.0.0.1:0", "POLYLANE_METRICS_ADDR": metricsAddr}
	_, addr, logs := startServe(t, env, "serve")
	for _, tc := range []struct {
		url, body string
		status    int
	}{
		{"http://" + addr + "/metrics", "", 404},
		{"http://" + addr + "/healthz", "ok", 200},
		{"http://" + metricsAddr + "/metrics", "polylane_build_info", 200},
		{"http://" + metricsAddr + "/healthz", "", 404},
	} {
		status, body := httpGet(t, tc.url)
		if status != tc.status || !strings.Contains(body, tc.body) {
			t.Errorf("GET %s = %d %.100q, want %d with %q; logs:\n%s", tc.url, status, body, tc.status, tc.body, logs)
		}
	}
}
