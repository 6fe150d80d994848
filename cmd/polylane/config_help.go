package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rs/zerolog"
)

// printHelp prints a subcommand's usage and settings.
func printHelp(w io.Writer, cmd, summary string, list []setting) {
	fmt.Fprintf(w, "Usage: polylane %s [flags]\n\n%s\n\nSettings (a flag wins over its environment variable):\n", cmd, summary)
	for _, s := range list {
		flagText := "(environment only)"
		switch {
		case s.Flag != "" && s.Switch != "":
			flagText = "--" + s.Flag
		case s.Flag != "":
			flagText = "--" + s.Flag + " VALUE"
		}
		fmt.Fprintf(w, "\n  %-34s %s\n", flagText, s.Env)
		fmt.Fprintf(w, "      %s", s.Usage)
		switch {
		case s.Secret:
			fmt.Fprint(w, " Secret: never printed.")
		case s.Default != "":
			fmt.Fprintf(w, " Default: %s.", s.Default)
		}
		fmt.Fprintln(w)
	}
}

// markdownRow renders a setting as a row of the README's configuration table.
func markdownRow(s setting) string {
	flagText, def := "—", "—"
	if s.Flag != "" {
		flagText = "`--" + s.Flag + "`"
	}
	if s.Default != "" {
		def = "`" + s.Default + "`"
	}
	usage := s.Usage
	if s.Secret {
		usage += " Secret."
	}
	return fmt.Sprintf("| `%s` | %s | %s | %s |", s.Env, flagText, def, strings.ReplaceAll(usage, "|", "\\|"))
}

// newLogger makes the process logger from the configuration: JSON (or a
// console rendering) on w at the configured level, with timestamps.
func newLogger(c *Config, w io.Writer) zerolog.Logger {
	if c.LogFormat == "console" {
		w = zerolog.ConsoleWriter{Out: w, NoColor: w != os.Stderr, TimeFormat: "15:04:05.000"}
	}
	return zerolog.New(w).Level(c.LogLevel).With().Timestamp().Logger()
}

// reportConfigError prints a configuration error on one line.
func reportConfigError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "polylane: %s\n", flatten(err.Error()))
	return exitUsage
}

// flatten keeps a message on one line.
func flatten(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
