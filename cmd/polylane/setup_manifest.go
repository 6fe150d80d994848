package main

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// appPermissions are the repository permissions `polylane setup` asks for,
// as GitHub App manifest keys: read workflow runs, jobs and logs and
// re-run failed jobs (`@polylane rerun`; GitHub refuses a re-run without
// actions: write); read harness files and push fix branches; open fix pull
// requests; write comments (a pull request's conversation is its issue's).
// Metadata is mandatory.
func appPermissions(workflows bool) map[string]string {
	p := map[string]string{
		"actions":       "write",
		"contents":      "write",
		"pull_requests": "write",
		"issues":        "write",
		"metadata":      "read",
	}
	if workflows {
		// Only needed when fixes may change .github/workflows/*: GitHub
		// refuses such pushes without it.
		p["workflows"] = "write"
	}
	return p
}

// appEvents are the webhook events the manifest subscribes to. GitHub
// sends installation and installation_repositories to every app without a
// subscription and refuses a manifest that lists them ("Default events
// unsupported: installation and installation_repositories"), so they are
// not here although Polylane handles both. repository (a repository made
// private, renamed, transferred or deleted) needs the subscription and the
// metadata permission.
var appEvents = []string{"workflow_run", "issue_comment", "pull_request", "repository"}

// appManifest is the GitHub App manifest `polylane setup` posts.
type appManifest struct {
	Name               string            `json:"name"`
	URL                string            `json:"url"`
	Description        string            `json:"description"`
	HookAttributes     hookAttributes    `json:"hook_attributes"`
	RedirectURL        string            `json:"redirect_url"`
	CallbackURLs       []string          `json:"callback_urls,omitempty"`
	Public             bool              `json:"public"`
	DefaultPermissions map[string]string `json:"default_permissions"`
	DefaultEvents      []string          `json:"default_events"`
}

type hookAttributes struct {
	URL    string `json:"url"`
	Active bool   `json:"active"`
}

// newManifest builds the manifest: the webhook at webhookURL, the app's
// page and OAuth callback on dashboardURL, and GitHub's answer sent back to
// redirectURL (setup's local callback).
func newManifest(name, webhookURL, dashboardURL, redirectURL string, workflows bool) appManifest {
	return appManifest{
		Name:               name,
		URL:                dashboardURL,
		Description:        "Polylane diagnoses failing GitHub Actions runs and proposes fixes to the CI harness.",
		HookAttributes:     hookAttributes{URL: webhookURL, Active: true},
		RedirectURL:        redirectURL,
		CallbackURLs:       []string{strings.TrimSuffix(dashboardURL, "/") + "/auth/callback"},
		Public:             false,
		DefaultPermissions: appPermissions(workflows),
		DefaultEvents:      append([]string(nil), appEvents...),
	}
}

// gitHubEndpoints are the addresses of one GitHub: github.com or a GitHub
// Enterprise Server (the simulator looks like one).
type gitHubEndpoints struct {
	Web string // https://github.com or https://HOST, no trailing slash
	API string // https://api.github.com/ or https://HOST/api/v3/
}

// endpointsFor derives the REST API from the web URL unless apiURL is given.
func endpointsFor(webURL, apiURL string) (gitHubEndpoints, error) {
	u, err := url.Parse(webURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return gitHubEndpoints{}, fmt.Errorf("%q is not an http(s) URL", webURL)
	}
	web := strings.TrimSuffix(u.Scheme+"://"+u.Host+u.Path, "/")
	e := gitHubEndpoints{Web: web, API: web + "/api/v3/"}
	if strings.EqualFold(u.Host, "github.com") || strings.EqualFold(u.Host, "www.github.com") {
		e = gitHubEndpoints{Web: "https://github.com", API: "https://api.github.com/"}
	}
	if apiURL != "" {
		a, err := url.Parse(apiURL)
		if err != nil || (a.Scheme != "http" && a.Scheme != "https") || a.Host == "" {
			return gitHubEndpoints{}, fmt.Errorf("%q is not an http(s) URL", apiURL)
		}
		e.API = strings.TrimSuffix(apiURL, "/") + "/"
	}
	return e, nil
}

// newAppURL is the page the manifest form posts to: the user's, or an
// organization's.
func (e gitHubEndpoints) newAppURL(org, state string) string {
	path := "/settings/apps/new"
	if org != "" {
		path = "/organizations/" + url.PathEscape(org) + "/settings/apps/new"
	}
	return e.Web + path + "?state=" + url.QueryEscape(state)
}

// conversionURL exchanges a manifest code for the app's credentials.
func (e gitHubEndpoints) conversionURL(code string) string {
	return e.API + "app-manifests/" + url.PathEscape(code) + "/conversions"
}

// installURL is where the new app is installed on repositories.
func (e gitHubEndpoints) installURL(slug string) string {
	return e.Web + "/apps/" + url.PathEscape(slug) + "/installations/new"
}

// appCredentials is GitHub's answer to a manifest conversion: the fields
// Polylane keeps.
type appCredentials struct {
	ID            int64  `json:"id"`
	Slug          string `json:"slug"`
	Name          string `json:"name"`
	HTMLURL       string `json:"html_url"`
	PEM           string `json:"pem"`
	WebhookSecret string `json:"webhook_secret"`
	ClientID      string `json:"client_id"`
	ClientSecret  string `json:"client_secret"`
}

// check refuses an answer Polylane could not run with.
func (c appCredentials) check() error {
	switch {
	case c.ID <= 0:
		return fmt.Errorf("GitHub's answer has no app id")
	case c.Slug == "":
		return fmt.Errorf("GitHub's answer has no app slug")
	case checkPEM([]byte(c.PEM)) != nil:
		return fmt.Errorf("GitHub's answer has no PEM private key")
	case c.WebhookSecret == "":
		return fmt.Errorf("GitHub's answer has no webhook secret (was the manifest's webhook active?)")
	}
	return nil
}

// configLines renders the settings file setup writes: the app's
// credentials (the private key inline, or keyFile naming where it is), the
// API URL, the dashboard's sign-in settings and a fresh session key. Keys
// are written in a fixed order.
func configLines(c appCredentials, e gitHubEndpoints, keyFile, dashboardURL, sessionSecret, written string) string {
	vals := map[string]string{
		"POLYLANE_GITHUB_APP_ID":            fmt.Sprint(c.ID),
		"POLYLANE_GITHUB_API_URL":           e.API,
		"POLYLANE_WEBHOOK_SECRET":           c.WebhookSecret,
		"POLYLANE_GITHUB_PRIVATE_KEY":       c.PEM,
		"POLYLANE_GITHUB_CLIENT_ID":         c.ClientID,
		"POLYLANE_GITHUB_CLIENT_SECRET":     c.ClientSecret,
		"POLYLANE_DASHBOARD_URL":            dashboardURL,
		"POLYLANE_DASHBOARD_SESSION_SECRET": sessionSecret,
	}
	if keyFile != "" {
		delete(vals, "POLYLANE_GITHUB_PRIVATE_KEY")
		vals["POLYLANE_GITHUB_PRIVATE_KEY_FILE"] = keyFile
	}
	if e.Web != "https://github.com" {
		vals["POLYLANE_GITHUB_WEB_URL"] = e.Web
	}
	order := []string{"POLYLANE_GITHUB_APP_ID", "POLYLANE_GITHUB_API_URL", "POLYLANE_GITHUB_WEB_URL",
		"POLYLANE_WEBHOOK_SECRET", "POLYLANE_GITHUB_PRIVATE_KEY", "POLYLANE_GITHUB_PRIVATE_KEY_FILE", "POLYLANE_GITHUB_CLIENT_ID",
		"POLYLANE_GITHUB_CLIENT_SECRET", "POLYLANE_DASHBOARD_URL", "POLYLANE_DASHBOARD_SESSION_SECRET"}
	var b strings.Builder
	fmt.Fprintf(&b, "# Polylane settings for the GitHub App %q (id %d), written by polylane setup on %s.\n",
		oneLineText(c.Name, 80), c.ID, written)
	b.WriteString("# It holds secrets: keep it private (mode 0600). Run: polylane serve --config FILE\n")
	b.WriteString("# (set POLYLANE_DATABASE_URL too). Environment variables and flags win over it.\n")
	for _, k := range order {
		if v, ok := vals[k]; ok && v != "" {
			fmt.Fprintf(&b, "%s=%s\n", k, formatConfigValue(v))
		}
	}
	return b.String()
}

// oneLineText keeps text from a remote answer printable, on one line and
// bounded.
func oneLineText(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= n {
			b.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f {
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sortedKeys lists a map's keys in order (for messages and pages).
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
