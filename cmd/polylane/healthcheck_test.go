package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthcheck: exit 0 on 200, 1 otherwise or when nothing answers, 2 on
// a bad URL; the default URL follows POLYLANE_ADDR's port.
func TestHealthcheck(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte("ready\n"))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	tests := []struct {
		name   string
		args   []string
		env    string
		status int
		want   int
	}{
		{"ready", []string{"--url", srv.URL + "/readyz"}, "", http.StatusOK, exitOK},
		{"not ready", []string{"--url", srv.URL + "/readyz"}, "", http.StatusServiceUnavailable, exitFailure},
		{"default URL from POLYLANE_ADDR", nil, ":" + port, http.StatusOK, exitOK},
		{"nothing listening", []string{"--url", "http://127.0.0.1:1/readyz"}, "", http.StatusOK, exitFailure},
		{"bad URL", []string{"--url", "localhost"}, "", http.StatusOK, exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status = tc.status
			var out, errOut bytes.Buffer
			code := runMain(context.Background(), append([]string{"healthcheck"}, tc.args...), strings.NewReader(""), &out, &errOut,
				func(k string) string {
					if k == "POLYLANE_ADDR" {
						return tc.env
					}
					return ""
				})
			if code != tc.want {
				t.Fatalf("exit %d, want %d (stdout %q, stderr %q)", code, tc.want, out.String(), errOut.String())
			}
		})
	}
	if got := localReadyURL(""); got != "http://127.0.0.1:8080/readyz" {
		t.Errorf("default URL %s", got)
	}
}
