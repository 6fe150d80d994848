// Package causal explains a failure class as a causal chain.
//
// It owns the harness model (workflow YAML, Taskfile, Makefile and shell, all with
// 1-based file:line positions), producer resolution (from the failing step to the
// command that produced the cause line), the ordered mechanism rules, the analysis
// of retries that already wrap the producer, the blast radius, and the chain with
// its evidence. Sub-packages propose the patch (causal/patch), assess whether it
// reaches anything deployed (causal/impact), and assemble the whole diagnosis
// (causal/diagnosis).
//
// The package is pure: repository files arrive as an fs.FS, logs as values; it does
// no network I/O, reads no clock and writes no logs.
package causal
