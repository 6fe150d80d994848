package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// parseFlags parses inv.args with fs, whose name is the command's ("polylane
// demo"). --help prints usageText and the flags to stdout; a bad flag is
// reported with the same text on stderr. When done is true the command
// returns code at once.
func parseFlags(inv *invocation, fs *flag.FlagSet, usageText string) (code int, done bool) {
	fs.SetOutput(io.Discard)
	usage := func(w io.Writer) {
		fmt.Fprint(w, usageText)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	err := fs.Parse(inv.args)
	switch {
	case err == nil:
		return exitOK, false
	case errors.Is(err, flag.ErrHelp):
		usage(inv.stdout)
		return exitOK, true
	}
	fmt.Fprintf(inv.stderr, "%s: %v\n", fs.Name(), err)
	usage(inv.stderr)
	return exitUsage, true
}
