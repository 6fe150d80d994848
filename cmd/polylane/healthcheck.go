package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

const healthcheckSummary = `Asks a running serve whether it is ready (GET /readyz) and exits 0 when it
answers 200, 1 otherwise. Container images without a shell use it as their
health check (Docker Compose's healthcheck). The default address is this
host's POLYLANE_ADDR port.`

func runHealthcheck(ctx context.Context, inv *invocation) int {
	fs := flag.NewFlagSet("polylane healthcheck", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	target := fs.String("url", "", "URL to ask; empty: http://127.0.0.1:PORT/readyz with POLYLANE_ADDR's port (default 8080).")
	timeout := fs.Duration("timeout", 3*time.Second, "How long to wait for the answer.")
	if err := fs.Parse(inv.args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(inv.stdout, "Usage: polylane healthcheck [flags]\n\n%s\n\nFlags:\n", healthcheckSummary)
			fs.SetOutput(inv.stdout)
			fs.PrintDefaults()
			return exitOK
		}
		return reportConfigError(inv.stderr, &configError{name: "polylane healthcheck", msg: err.Error()})
	}
	u := *target
	if u == "" {
		u = localReadyURL(inv.getenv("POLYLANE_ADDR"))
	}
	if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return reportConfigError(inv.stderr, &configError{name: "--url", msg: fmt.Sprintf("%q is not an http(s) URL", u)})
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return reportConfigError(inv.stderr, &configError{name: "--url", msg: err.Error()})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(inv.stderr, "polylane: healthcheck: %s\n", flatten(err.Error()))
		return exitFailure
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 400))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(inv.stderr, "polylane: healthcheck: %s answered %d: %s\n", u, resp.StatusCode, flatten(string(body)))
		return exitFailure
	}
	fmt.Fprintf(inv.stdout, "%s\n", flatten(string(body)))
	return exitOK
}

// localReadyURL is /readyz on loopback at the port of a listen address
// (serve's default port when addr names none).
func localReadyURL(addr string) string {
	port := defaultPort()
	if _, p, err := net.SplitHostPort(addr); err == nil && p != "" && p != "0" {
		port = p
	}
	return "http://127.0.0.1:" + port + "/readyz"
}

// defaultPort is the port of POLYLANE_ADDR's default.
func defaultPort() string {
	for _, s := range settings {
		if s.Env == "POLYLANE_ADDR" {
			if _, p, err := net.SplitHostPort(s.Default); err == nil {
				return p
			}
		}
	}
	return "8080"
}
