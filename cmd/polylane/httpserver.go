package main

import (
	"fmt"
	"net"
	"time"
)

// httpConfig holds the settings of the HTTP server and the webhook's
// intake.
type httpConfig struct {
	ReadTimeout  time.Duration
	WriteTimeout time.Duration
	// MaxInFlight bounds the deliveries the webhook handles at once.
	MaxInFlight int
	// MetricsAddr, when set, is a listener of its own for /metrics.
	MetricsAddr string
}

// httpSettings are the HTTP server's rows of the settings table. Their
// order matters: the write timeout is checked against the read timeout.
// The defaults are server.DefaultReadTimeout, DefaultWriteTimeout and
// webhook.DefaultMaxInFlight (a test checks that they agree).
var httpSettings = []setting{
	{Env: "POLYLANE_HTTP_READ_TIMEOUT", Flag: "http-read-timeout", Default: "30s", Commands: []string{cmdServe},
		Usage: "How long a client may take to send a whole request, headers and body; a request that stops arriving is closed after it (1s to 10m).",
		set:   setReadTimeout},
	{Env: "POLYLANE_HTTP_WRITE_TIMEOUT", Flag: "http-write-timeout", Default: "60s", Commands: []string{cmdServe},
		Usage: "How long a request may take from the end of its headers to the end of its answer, body included; longer than POLYLANE_HTTP_READ_TIMEOUT.",
		set:   setWriteTimeout},
	{Env: "POLYLANE_WEBHOOK_MAX_IN_FLIGHT", Flag: "webhook-max-in-flight", Default: "256", Commands: []string{cmdServe},
		Usage: "Deliveries the webhook reads, verifies and records at once; past it GitHub is answered 503 (1 to 100000).",
		set:   func(c *Config, v string) (err error) { c.HTTP.MaxInFlight, err = intIn(v, 1, 100_000); return err }},
	{Env: "POLYLANE_METRICS_ADDR", Flag: "metrics-addr", Commands: []string{cmdServe},
		Usage: "Listen address (host:port) of a separate listener that serves /metrics, which then leaves POLYLANE_ADDR; empty: /metrics is on POLYLANE_ADDR, open to whoever reaches the webhook.",
		set:   setMetricsAddr},
}

func setReadTimeout(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second || d > 10*time.Minute {
		return fmt.Errorf("%q is not a duration from 1s to 10m", v)
	}
	c.HTTP.ReadTimeout = d
	return nil
}

func setWriteTimeout(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second || d > time.Hour {
		return fmt.Errorf("%q is not a duration from 1s to 1h", v)
	}
	if d <= c.HTTP.ReadTimeout {
		return fmt.Errorf("%s must be longer than POLYLANE_HTTP_READ_TIMEOUT (%s): it counts the body's reading too", v, c.HTTP.ReadTimeout)
	}
	c.HTTP.WriteTimeout = d
	return nil
}

func setMetricsAddr(c *Config, v string) error {
	if v == "" {
		c.HTTP.MetricsAddr = ""
		return nil
	}
	if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
		return fmt.Errorf("%q is not host:port", v)
	}
	c.HTTP.MetricsAddr = v
	return nil
}
