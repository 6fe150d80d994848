package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/rs/zerolog"
)

const demoUsage = `Usage: polylane demo [--addr HOST:PORT] [--once] [--keep] [--timeout D]

Runs Polylane end to end on this machine with no configuration and no GitHub
account: it starts a GitHub simulator serving lumenfield/tally, an example
repository shipped inside the binary (four weeks of CI history in which a
database migration fails now and then), starts the server on a temporary
SQLite database, sends the signed workflow_run webhook of the newest failed
run, waits for the diagnosis, runs the failing workflow three times, green,
on the fix pull request's branch to show the fix being verified, prints the
comment Polylane posted and the dashboard's URL, then sends the webhook of a
pull request's failed run and prints the line its comment leads with (is the
failure the pull request's own?), and serves until interrupted (Ctrl-C).

Flags:
`

// demoFlags are the parsed flags of polylane demo.
type demoFlags struct {
	addr    string
	simAddr string
	once    bool
	keep    bool
	timeout time.Duration
}

func parseDemoFlags(inv *invocation) (*demoFlags, int) {
	f := &demoFlags{}
	fs := flag.NewFlagSet("polylane demo", flag.ContinueOnError)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen `address` of Polylane's server and dashboard (port 0 picks a free one)")
	fs.StringVar(&f.simAddr, "simulator-addr", "127.0.0.1:0", "listen `address` of the GitHub simulator")
	fs.BoolVar(&f.once, "once", false, "exit after printing the comment instead of serving (for scripts and CI)")
	fs.BoolVar(&f.keep, "keep", false, "keep the temporary directory (database, log, app key) after exiting")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "how long to wait for the diagnosis to be posted")
	if code, done := parseFlags(inv, fs, demoUsage); done {
		return nil, code
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(inv.stderr, "polylane demo: unexpected argument %q (see --help)\n", fs.Arg(0))
		return nil, exitUsage
	case f.timeout <= 0:
		fmt.Fprintf(inv.stderr, "polylane demo: --timeout must be positive, got %s\n", f.timeout)
		return nil, exitUsage
	}
	return f, exitOK
}

func runDemo(ctx context.Context, inv *invocation) int {
	f, code := parseDemoFlags(inv)
	if f == nil {
		return code
	}
	return demo(ctx, inv, f, runDemoServer)
}

// demoServerFunc runs Polylane's server on ln with cfg until ctx ends,
// logging to log. runDemoServer is the real one; tests pass a stand-in.
type demoServerFunc func(ctx context.Context, cfg *Config, log zerolog.Logger, ln net.Listener) error

// demo runs the demo with the given server; tests pass a stand-in.
func demo(ctx context.Context, inv *invocation, f *demoFlags, run demoServerFunc) int {
	env, err := startDemo(ctx, f, run, inv.stdout)
	if err != nil {
		return demoFailed(inv, env, err)
	}
	defer env.stop(inv.stdout)
	env.printStarted(inv.stdout)
	pub, err := env.trigger(ctx, inv.stdout)
	if err != nil {
		return demoFailed(inv, env, err)
	}
	if pub.fix != nil {
		if pub, err = env.verifyFix(ctx, inv.stdout, pub); err != nil {
			return demoFailed(inv, env, err)
		}
	}
	env.printPublication(inv.stdout, pub)
	env.pullRequest(ctx, inv.stdout, pub)
	if f.once {
		return exitOK
	}
	fmt.Fprintln(inv.stdout, "\nServing until interrupted (Ctrl-C).")
	select {
	case <-ctx.Done():
	case err := <-env.serverDone:
		env.serverDone <- err // stop() reads it again
		return demoFailed(inv, env, fmt.Errorf("the server stopped: %w", err))
	}
	fmt.Fprintln(inv.stdout, "\npolylane demo: stopped")
	return exitOK
}

// demoFailed reports an error on one line, keeps the temporary directory
// so that its log can be read, and returns the exit status.
func demoFailed(inv *invocation, env *demoEnv, err error) int {
	code := exitFailure
	var ue *demoUsageError
	if errors.As(err, &ue) {
		code = exitUsage
	}
	fmt.Fprintf(inv.stderr, "polylane demo: %s\n", flatten(err.Error()))
	if env == nil {
		return code
	}
	// Once the server has run, its log explains the failure: keep it.
	started := env.logFile != nil
	env.keep = env.keep || started
	env.stop(io.Discard)
	if env.keep {
		fmt.Fprintf(inv.stderr, "polylane demo: kept %s (polylane.log, polylane.db, app.pem)\n", env.dir)
	}
	return code
}

// demoUsageError is a problem with what the user asked for (a busy
// address), as opposed to a failure of the demo itself.
type demoUsageError struct{ err error }

func (e *demoUsageError) Error() string { return e.err.Error() }
func (e *demoUsageError) Unwrap() error { return e.err }
