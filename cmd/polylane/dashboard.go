package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/polylane/polylane/server/dashboard"
)

// dashboardConfig holds the dashboard's settings.
type dashboardConfig struct {
	Public          bool
	ClientID        string
	ClientSecret    string
	SessionSecret   string
	InsecureCookies bool
	BaseURL         string
	GitHubWebURL    string
	AccessTTL       time.Duration
}

// dashboardSettings are the dashboard's rows of the settings table.
var dashboardSettings = []setting{
	{Env: "POLYLANE_DASHBOARD_PUBLIC", Flag: "dashboard-public", Switch: "true", Default: "false", Commands: []string{cmdServe},
		Usage: "Serve the dashboard's public repositories to anyone, without sign-in (true or false); --dashboard-public sets true.",
		set:   func(c *Config, v string) (err error) { c.Dashboard.Public, err = parseBool(v); return err }},
	{Env: "POLYLANE_GITHUB_CLIENT_ID", Flag: "github-client-id", Commands: []string{cmdServe},
		Usage: "The GitHub App's OAuth client id, for signing in to the dashboard.",
		set:   func(c *Config, v string) error { c.Dashboard.ClientID = v; return nil }},
	{Env: "POLYLANE_GITHUB_CLIENT_SECRET", Secret: true, Commands: []string{cmdServe},
		Usage: "The GitHub App's OAuth client secret; required with POLYLANE_GITHUB_CLIENT_ID.",
		set:   func(c *Config, v string) error { c.Dashboard.ClientSecret = v; return nil }},
	{Env: "POLYLANE_DASHBOARD_SESSION_SECRET", Secret: true, Commands: []string{cmdServe},
		Usage: "Key (32 bytes or more) that signs and encrypts dashboard cookies; empty: a random key, so sign-ins end on restart.",
		set:   setSessionSecret},
	{Env: "POLYLANE_DASHBOARD_INSECURE_COOKIES", Flag: "dashboard-insecure-cookies", Switch: "true", Default: "false", Commands: []string{cmdServe},
		Usage: "Send dashboard cookies without Secure, for plain-HTTP localhost and the demo only (true or false).",
		set:   func(c *Config, v string) (err error) { c.Dashboard.InsecureCookies, err = parseBool(v); return err }},
	{Env: "POLYLANE_DASHBOARD_URL", Flag: "dashboard-url", Commands: []string{cmdServe},
		Usage: "Public URL of the dashboard, for the OAuth callback (URL/auth/callback); required for sign-in (POLYLANE_GITHUB_CLIENT_ID).",
		set:   func(c *Config, v string) error { return setHTTPURL(&c.Dashboard.BaseURL, v) }},
	{Env: "POLYLANE_GITHUB_WEB_URL", Flag: "github-web-url", Commands: []string{cmdServe},
		Usage: "GitHub's web URL for sign-in pages and links; empty: https://github.com, or the API URL without /api/v3/.",
		set:   func(c *Config, v string) error { return setHTTPURL(&c.Dashboard.GitHubWebURL, v) }},
	{Env: "POLYLANE_DASHBOARD_ACCESS_TTL", Flag: "dashboard-access-ttl", Default: "1m", Commands: []string{cmdServe},
		Usage: "How long the dashboard keeps a user's installations and repositories before asking GitHub again.",
		set:   setAccessTTL},
}

func parseBool(v string) (bool, error) {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%q is not true or false", v)
	}
	return b, nil
}

func setSessionSecret(c *Config, v string) error {
	if v != "" && len(v) < 32 {
		return errors.New("must be at least 32 bytes (for example: openssl rand -hex 32)")
	}
	c.Dashboard.SessionSecret = v
	return nil
}

func setHTTPURL(dst *string, v string) error {
	if v == "" {
		*dst = ""
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", v)
	}
	*dst = v
	return nil
}

func setAccessTTL(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Second || d > time.Hour {
		return fmt.Errorf("%q is not a duration from 1s to 1h", v)
	}
	c.Dashboard.AccessTTL = d
	return nil
}

// checkDashboard checks the dashboard's settings together. Sign-in needs
// the dashboard's own URL: without it the OAuth redirect would be built
// from each request's Host header, which the client chooses. (The demo
// sets it.)
func checkDashboard(cfg *Config) error {
	c := cfg.Dashboard
	switch {
	case (c.ClientID == "") != (c.ClientSecret == ""):
		return &configError{name: "POLYLANE_GITHUB_CLIENT_SECRET", msg: "set both it and POLYLANE_GITHUB_CLIENT_ID, or neither"}
	case c.ClientID != "" && !c.Public && c.BaseURL == "":
		return &configError{name: cfg.source("POLYLANE_DASHBOARD_URL"),
			msg: "is required for dashboard sign-in (POLYLANE_GITHUB_CLIENT_ID): the dashboard's public URL, such as https://polylane.example.com"}
	}
	return nil
}

// mountDashboard adds the dashboard's routes to serve.
func mountDashboard(_ context.Context, env *serveEnv) error {
	c := env.Config.Dashboard
	d, err := dashboard.New(dashboard.Options{Store: env.Store, Public: c.Public, ClientID: c.ClientID,
		ClientSecret: c.ClientSecret, SessionSecret: []byte(c.SessionSecret), InsecureCookies: c.InsecureCookies,
		GitHubAPIURL: env.Config.GitHubAPIURL, GitHubURL: c.GitHubWebURL, BaseURL: c.BaseURL, AccessTTL: c.AccessTTL})
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	d.Mount(env.Server)
	ev := env.Logger.Info().Bool("public", c.Public).Bool("sign_in", c.ClientID != "")
	if c.SessionSecret == "" && !c.Public {
		ev = ev.Str("note", "no POLYLANE_DASHBOARD_SESSION_SECRET: sign-ins end when the process stops")
	}
	ev.Msg("dashboard mounted")
	return nil
}
