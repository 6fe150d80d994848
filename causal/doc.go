// Package causal explains a failure class as a causal chain.
//
// Explain is the entry point the pipeline calls. It works in these stages:
//
//   - harness model (causal/harness): the failing workflow step is located
//     (also inside local reusable workflows) and its run: script is resolved
//     down to the Taskfile tasks, make targets, package.json scripts, shell
//     scripts and functions it runs, with 1-based file:line positions;
//   - log alignment: the failing step's lines (read once, bounded) are
//     matched against that tree through what the log echoes (`task: [name]
//     cmd`, make's echoed recipes and `make: *** [file:line: target]`, `+ cmd`
//     xtrace lines, the output of echo commands in scripts), and the command
//     that printed the cause line (the emitter) is chosen by the programs,
//     hosts and subcommands the cause line names;
//   - mechanism rules (rules.go): an ordered table, specific causes above
//     generic ones. A rule combines cause-line patterns, harness events seen
//     in the log before the cause (workload patched, pod deleted, condition
//     met, release upgraded, ...), the endpoint the failure names (local or
//     remote) and an optional harness predicate (a gate after pod-template
//     changes, a start without a wait). It names a contracts.md category, a
//     producer role (emitter, gate, trigger, install, step, time limit) and a
//     fix shape. No rule matching gives the category unknown, said plainly. A
//     regression verdict points at the first bad commit instead: no producer,
//     no patch;
//   - what happens today: the retry loops, retry functions and tool-native
//     retry settings around the emitter and its neighbours, and the other
//     workflow steps that run the producer's task, target or script;
//   - fix shapes (fix_*.go over causal/patch's shape_*.go primitives): the
//     smallest edit in the host file's own syntax, validated and diffed by
//     causal/patch, and assessed by causal/impact;
//   - evidence: every sentence cites ids of file lines and log lines.
//
// To add a mechanism, add a rule to the table (above any generic rule its
// patterns overlap), a fix shape to the fixes map if a harness change is
// right, and a synthetic case under testdata/cases.
//
// The package is pure: repository files arrive as an fs.FS, logs as streams;
// it does no network I/O, reads no clock and writes no logs.
package causal
