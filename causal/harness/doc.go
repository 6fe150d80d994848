// Package harness models the CI harness of a repository with 1-based file:line
// positions: GitHub Actions workflows (jobs, steps, services, reusable
// workflows), Taskfile v3 files, Makefiles and shell (run: blocks, task
// commands, recipes and scripts, parsed with mvdan.cc/sh/v3). Dockerfiles
// are split into their logical instructions (DockerInstructions) for the
// packages that read what an image build runs and copies.
//
// Resolve follows a workflow step's run: block down to the tasks, targets,
// package.json scripts, shell scripts and functions it runs, recursively, and
// returns an execution tree whose command leaves carry their positions. All
// parsing is bounded: oversized files are refused, recursion is cut at a fixed
// depth, cycles are detected, and invalid input yields an error or a partial
// model, never a panic.
//
// The package is pure: files arrive through an fs.FS.
package harness
