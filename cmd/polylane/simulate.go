package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/polylane/polylane/server/githubtest"
)

const simulateUsage = `Usage: polylane simulate --scenario DIR [--scenario DIR]... [flags]

Serves scenario directories (polylane.scenario/v1) as a GitHub simulator on
loopback: the REST API under /api/v3/ (GitHub Enterprise Server layout) and
at the root, job logs through 302 redirects, git data, pull requests,
comments, app installation tokens and OAuth sign-in. It prints the base URL,
the app id, where the app's private key was written, and the environment for
"polylane serve", then serves until interrupted (Ctrl-C).

Flags:
`

// simulateFlags are the parsed flags of polylane simulate.
type simulateFlags struct {
	scenarios listFlag
	addr      string
	appID     int64
	keyOut    string
	secret    string
	hookURL   string
	allHeads  bool
}

func parseSimulateFlags(inv *invocation) (*simulateFlags, int) {
	f := &simulateFlags{}
	fs := flag.NewFlagSet("polylane simulate", flag.ContinueOnError)
	fs.Var(&f.scenarios, "scenario", "scenario `directory` to serve (repeatable; required)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8787", "listen `address` (HOST:PORT; port 0 picks a free one)")
	fs.Int64Var(&f.appID, "app-id", 1, "the simulated GitHub App's `id`")
	fs.StringVar(&f.keyOut, "private-key-out", "", "write the app's private key to this `file` (mode 0600); default: a new temporary directory")
	fs.StringVar(&f.secret, "webhook-secret", "", "webhook `secret` deliveries are signed with; default: random")
	fs.StringVar(&f.hookURL, "webhook-url", "", "the app's webhook `URL` (where deliveries go)")
	fs.BoolVar(&f.allHeads, "tree-at-run-heads", false, "serve each scenario's repo/ at every run's head commit, so any run can be a trigger")
	if code, done := parseFlags(inv, fs, simulateUsage); done {
		return nil, code
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(inv.stderr, "polylane simulate: unexpected argument %q\n", fs.Arg(0))
		return nil, exitUsage
	case len(f.scenarios) == 0:
		fmt.Fprintln(inv.stderr, "polylane simulate: --scenario is required (a scenario directory to serve)")
		return nil, exitUsage
	case f.appID <= 0:
		fmt.Fprintln(inv.stderr, "polylane simulate: --app-id must be a positive number")
		return nil, exitUsage
	}
	return f, exitOK
}

func runSimulate(ctx context.Context, inv *invocation) int {
	f, code := parseSimulateFlags(inv)
	if f == nil {
		return code
	}
	sim, err := githubtest.New(githubtest.Options{Scenarios: f.scenarios, Addr: f.addr, AppID: f.appID,
		WebhookSecret: f.secret, WebhookURL: f.hookURL, TreeAtRunHeads: f.allHeads})
	if err != nil {
		fmt.Fprintf(inv.stderr, "polylane simulate: %v\n", err)
		return exitUsage
	}
	keyPath, err := writePrivateKey(f.keyOut, f.appID, sim.PrivateKeyPEM())
	if err != nil {
		fmt.Fprintf(inv.stderr, "polylane simulate: %v\n", err)
		return exitFailure
	}
	if err := sim.Listen(); err != nil {
		fmt.Fprintf(inv.stderr, "polylane simulate: %v\n", err)
		return exitFailure
	}
	defer sim.Close()
	printSimulator(inv.stdout, sim, keyPath)
	<-ctx.Done()
	fmt.Fprintln(inv.stdout, "polylane simulate: stopped")
	return exitOK
}

// writePrivateKey writes the key with mode 0600, to path or to a new
// temporary directory, and returns where it went.
func writePrivateKey(path string, appID int64, pemBytes []byte) (string, error) {
	if path == "" {
		dir, err := os.MkdirTemp("", "polylane-simulate-")
		if err != nil {
			return "", fmt.Errorf("create a directory for the private key: %w", err)
		}
		path = filepath.Join(dir, "app-"+strconv.FormatInt(appID, 10)+".pem")
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", fmt.Errorf("write private key: %w", err)
	}
	_, werr := fh.Write(pemBytes)
	cerr := fh.Close()
	if err := errors.Join(werr, cerr, os.Chmod(path, 0o600)); err != nil {
		return "", fmt.Errorf("write private key %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path, nil //nolint:nilerr // a relative path still names the file
	}
	return abs, nil
}

// printSimulator prints where the simulator is and how to point serve at it.
func printSimulator(w io.Writer, sim *githubtest.Server, keyPath string) {
	api := sim.APIURL()
	fmt.Fprintf(w, "GitHub simulator listening on %s\n", sim.URL())
	fmt.Fprintf(w, "  REST API base URL: %s (go-github WithEnterpriseURLs; ghinstallation BaseURL without the slash)\n", api)
	fmt.Fprintf(w, "  OAuth and app-manifest pages: %s/login/oauth/authorize, %s/settings/apps/new\n", sim.URL(), sim.URL())
	fmt.Fprintf(w, "  app id: %d (bot user %s[bot])\n", sim.AppID(), sim.AppSlug())
	fmt.Fprintf(w, "  private key: %s (mode 0600)\n", keyPath)
	for _, repo := range sim.Repositories() {
		fmt.Fprintf(w, "  repository: %s\n", repo)
	}
	fmt.Fprintf(w, "\nEnvironment for polylane serve (test credentials of this simulator only):\n")
	fmt.Fprintf(w, "export POLYLANE_GITHUB_API_URL=%s\n", api)
	fmt.Fprintf(w, "export POLYLANE_GITHUB_APP_ID=%d\n", sim.AppID())
	fmt.Fprintf(w, "export POLYLANE_GITHUB_PRIVATE_KEY_FILE=%s\n", keyPath)
	fmt.Fprintf(w, "export POLYLANE_WEBHOOK_SECRET=%s\n", sim.WebhookSecret())
	fmt.Fprintf(w, "export POLYLANE_GITHUB_CLIENT_ID=%s\n", sim.ClientID())
	fmt.Fprintf(w, "export POLYLANE_GITHUB_CLIENT_SECRET=%s\n", sim.ClientSecret())
	fmt.Fprintf(w, "\nServing until interrupted (Ctrl-C).\n")
}
