package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = "unknown"
)

func runVersion(_ context.Context, inv *invocation) int {
	fs := flag.NewFlagSet("polylane version", flag.ContinueOnError)
	fs.SetOutput(inv.stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: polylane version\n\nPrints the version, the commit it was built from and the Go version.")
	}
	if err := fs.Parse(inv.args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	fmt.Fprintf(inv.stdout, "polylane %s (commit %s, %s)\n", version, commit, runtime.Version())
	return exitOK
}
