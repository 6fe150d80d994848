// Command polylane is the Polylane binary: the GitHub App server and the
// offline tools that run the same diagnosis pipeline.
//
// Usage:
//
//	polylane <command> [flags]
//
// Run "polylane help" for the list of commands and "polylane <command> --help"
// for the flags of one.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit statuses shared by every subcommand.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // bad flags, settings or unreadable input; nothing was done
)

// command is one subcommand of the binary.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, inv *invocation) int
}

// invocation is what a subcommand gets from main: its arguments, the standard
// streams and the environment lookup, so tests can run commands in-process.
type invocation struct {
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// commandList is every subcommand, in the order "polylane help" lists
// them.
var commandList = []command{
	{name: "setup", summary: "register the GitHub App (manifest flow) and write its settings file", run: runSetup},
	{name: "demo", summary: "diagnose the shipped example repository end to end against a simulated GitHub", run: runDemo},
	{name: cmdServe, summary: "run the GitHub App server and its workers", run: runServe},
	{name: "diagnose", summary: "diagnose a failing run from a scenario directory", run: runDiagnose},
	{name: cmdMigrate, summary: "apply pending database migrations and exit", run: runMigrate},
	{name: "capture", summary: "write a scenario directory from a repository's real CI history", run: runCapture},
	{name: "analyze", summary: "say why one CI job log failed", run: runAnalyze},
	{name: "simulate", summary: "serve scenario directories as a simulated GitHub (for local runs)", run: runSimulate},
	{name: "healthcheck", summary: "exit 0 when the local serve answers /readyz (for container health checks)", run: runHealthcheck},
	{name: "version", summary: "print the version and exit", run: runVersion},
}

// commands indexes commandList by name.
var commands = indexCommands(commandList)

func indexCommands(list []command) map[string]command {
	m := make(map[string]command, len(list))
	for _, c := range list {
		if _, dup := m[c.name]; dup {
			panic("polylane: command listed twice: " + c.name)
		}
		m[c.name] = c
	}
	return m
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// runMain dispatches to a subcommand and returns the process exit status.
func runMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "--help", "-help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run(ctx, &invocation{args: []string{"--help"}, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv})
			}
		}
		usage(stdout)
		return exitOK
	case "-v", "--version":
		args = []string{"version"}
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "polylane: unknown command %q (run \"polylane help\")\n", args[0])
		return exitUsage
	}
	return c.run(ctx, &invocation{args: args[1:], stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv})
}

func usage(w io.Writer) {
	fmt.Fprint(w, "Polylane diagnoses failing GitHub Actions runs.\n\nUsage:\n  polylane <command> [flags]\n\nCommands:\n")
	for _, c := range commandList {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun \"polylane <command> --help\" for the flags of a command.\n")
}
