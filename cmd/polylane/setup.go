package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

const setupSummary = `Registers Polylane as a GitHub App with GitHub's app-manifest flow and writes
its settings file. It serves a page on --addr; opening it in a browser posts
the app's manifest (permissions, webhook events, webhook URL) to GitHub or
GitHub Enterprise Server, where you confirm the app. GitHub sends the browser
back with a code, which setup exchanges for the app's id, private key, webhook
secret and OAuth credentials; they are written to --out with mode 0600 and
never printed. Then install the app and run: polylane serve --config FILE.`

// setupFlags are setup's options (not settings of the running server).
type setupFlags struct {
	githubURL, apiURL, org, name  string
	webhookURL, dashboardURL, out string
	keyFile                       string
	addr                          string
	force, workflows              bool
	timeout                       time.Duration
	endpoints                     gitHubEndpoints
}

// orgName is a GitHub organization login.
var orgName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)

func parseSetupFlags(args []string, stdout io.Writer) (*setupFlags, error) {
	f := &setupFlags{}
	fs := flag.NewFlagSet("polylane setup", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.githubURL, "github-url", "https://github.com", "GitHub's web URL: https://github.com or your GitHub Enterprise Server's https://HOST.")
	fs.StringVar(&f.apiURL, "github-api-url", "", "GitHub's REST API URL; empty: https://api.github.com/ for github.com, else GITHUB-URL/api/v3/.")
	fs.StringVar(&f.org, "org", "", "Organization that owns the app; empty: your user account.")
	fs.StringVar(&f.name, "name", "", "The app's name, unique on GitHub (at most 34 characters); empty: polylane-<random>.")
	fs.StringVar(&f.webhookURL, "webhook-url", "", "Public URL GitHub delivers webhooks to, such as https://polylane.example.com/webhooks/github (a bare origin gets /webhooks/github). Required.")
	fs.StringVar(&f.dashboardURL, "dashboard-url", "", "Public URL of the dashboard (the app's homepage and OAuth callback); empty: the webhook URL's origin.")
	fs.StringVar(&f.out, "out", "polylane.env", "Settings file to write (mode 0600).")
	fs.StringVar(&f.keyFile, "key-file", "", "Write the private key to this file (mode 0600) and name it in --out, instead of inline (for a Kubernetes Secret).")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:0", "Local address of the setup page (port 0: any free port).")
	fs.BoolVar(&f.force, "force", false, "Overwrite --out if it exists.")
	fs.BoolVar(&f.workflows, "workflows", false, "Also ask for workflows: write, so fixes may change .github/workflows/*.")
	fs.DurationVar(&f.timeout, "timeout", 15*time.Minute, "How long to wait for GitHub's answer.")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "Usage: polylane setup --webhook-url URL [flags]\n\n%s\n\nFlags:\n", setupSummary)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil, errHelp
		}
		return nil, &configError{name: "polylane setup", msg: err.Error() + " (see --help)"}
	}
	if fs.NArg() > 0 {
		return nil, &configError{name: "polylane setup", msg: fmt.Sprintf("unexpected argument %q (see --help)", fs.Arg(0))}
	}
	return f, f.check()
}

// check validates the flags and fills the derived values.
func (f *setupFlags) check() error {
	var err error
	if f.endpoints, err = endpointsFor(f.githubURL, f.apiURL); err != nil {
		return &configError{name: "--github-url", msg: err.Error()}
	}
	if f.org != "" && !orgName.MatchString(f.org) {
		return &configError{name: "--org", msg: fmt.Sprintf("%q is not an organization login", f.org)}
	}
	if f.name == "" {
		suffix, err := randomHex(3)
		if err != nil {
			return err
		}
		f.name = "polylane-" + suffix
	}
	if n := len([]rune(f.name)); n > 34 || strings.TrimSpace(f.name) == "" || strings.ContainsAny(f.name, "\r\n") {
		return &configError{name: "--name", msg: "want one line of 1 to 34 characters"}
	}
	if f.webhookURL == "" {
		return &configError{name: "--webhook-url", msg: "is required: the public URL GitHub delivers to, such as https://polylane.example.com" + WebhookPath}
	}
	hook, err := url.Parse(f.webhookURL)
	if err != nil || (hook.Scheme != "http" && hook.Scheme != "https") || hook.Host == "" {
		return &configError{name: "--webhook-url", msg: fmt.Sprintf("%q is not an http(s) URL", f.webhookURL)}
	}
	if hook.Path == "" || hook.Path == "/" {
		hook.Path = WebhookPath
		f.webhookURL = hook.String()
	}
	if f.dashboardURL == "" {
		f.dashboardURL = hook.Scheme + "://" + hook.Host
	}
	if err := setHTTPURL(&f.dashboardURL, f.dashboardURL); err != nil {
		return &configError{name: "--dashboard-url", msg: err.Error()}
	}
	f.dashboardURL = strings.TrimSuffix(f.dashboardURL, "/")
	if _, err := os.Stat(f.out); err == nil && !f.force {
		return &configError{name: "--out", msg: f.out + " exists; choose another file or pass --force"}
	}
	if st, err := os.Stat(filepath.Dir(f.out)); err != nil || !st.IsDir() {
		return &configError{name: "--out", msg: "the directory of " + f.out + " does not exist"}
	}
	if f.keyFile != "" {
		if _, err := os.Stat(f.keyFile); err == nil && !f.force {
			return &configError{name: "--key-file", msg: f.keyFile + " exists; choose another file or pass --force"}
		}
		if filepath.Clean(f.keyFile) == filepath.Clean(f.out) {
			return &configError{name: "--key-file", msg: "must differ from --out"}
		}
	}
	if f.timeout <= 0 {
		return &configError{name: "--timeout", msg: "must be positive"}
	}
	return nil
}

// setupResult is how the callback ends the flow.
type setupResult struct {
	app appCredentials
	err error
}

func runSetup(ctx context.Context, inv *invocation) int {
	f, err := parseSetupFlags(inv.args, inv.stdout)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if err != nil {
		return reportConfigError(inv.stderr, err)
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return reportConfigError(inv.stderr, &configError{name: "--addr", msg: err.Error()})
	}
	flow, err := newSetupFlow(f, "http://"+ln.Addr().String())
	if err != nil {
		_ = ln.Close()
		fmt.Fprintf(inv.stderr, "polylane: setup: %v\n", err)
		return exitFailure
	}
	srv := &http.Server{Handler: flow.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		// Let the browser receive the last page before the server stops.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	owner := "your user account"
	if f.org != "" {
		owner = "the organization " + f.org
	}
	fmt.Fprintf(inv.stdout, "Open %s/ in a browser on this machine to create the GitHub App %q for %s on %s.\n",
		flow.local, f.name, owner, f.endpoints.Web)
	fmt.Fprintf(inv.stdout, "Webhook URL: %s\nWaiting for GitHub (Ctrl-C stops)…\n", f.webhookURL)
	timer := time.NewTimer(f.timeout)
	defer timer.Stop()
	select {
	case res := <-flow.done:
		if res.err != nil {
			fmt.Fprintf(inv.stderr, "polylane: setup: %s\n", flatten(res.err.Error()))
			return exitFailure
		}
		printNextSteps(inv.stdout, f, res.app)
		return exitOK
	case <-ctx.Done():
		fmt.Fprintln(inv.stderr, "polylane: setup: interrupted; nothing was written")
		return exitFailure
	case <-timer.C:
		fmt.Fprintf(inv.stderr, "polylane: setup: no answer from GitHub within %s; nothing was written\n", f.timeout)
		return exitFailure
	}
}

// printNextSteps tells what to do after the app exists; no secret is
// printed.
func printNextSteps(w io.Writer, f *setupFlags, app appCredentials) {
	fmt.Fprintf(w, "Created the GitHub App %q (id %d).\n", oneLineText(app.Name, 80), app.ID)
	fmt.Fprintf(w, "Wrote its settings to %s (mode 0600: it holds the private key, the webhook secret and the OAuth secret).\n", f.out)
	fmt.Fprintf(w, "Next:\n  1. Install the app on your repositories: %s\n", f.endpoints.installURL(app.Slug))
	fmt.Fprintf(w, "  2. Run Polylane where GitHub reaches %s:\n", f.webhookURL)
	fmt.Fprintf(w, "       POLYLANE_DATABASE_URL=postgres://… polylane serve --config %s\n", f.out)
	fmt.Fprintf(w, "     or with Docker Compose: cp %s deploy/polylane.env && docker compose -f deploy/docker-compose.yml up -d\n", f.out)
}

// randomState returns the unguessable state that ties GitHub's redirect to
// this run of setup.
func randomState() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random state: %w", err)
	}
	return hex.EncodeToString(b), nil
}
