// Package harness models the CI harness of a repository with 1-based file:line
// positions: GitHub Actions workflows (jobs, steps, services, reusable
// workflows, local composite actions), Taskfile v3 files, Makefiles,
// justfiles, Compose files, Dockerfiles (build stages and RUN
// instructions) and shell (run: blocks, task commands, recipes, RUN
// instructions, scripts and bats files, parsed with mvdan.cc/sh/v3).
//
// ResolveStep follows a workflow step down to everything it runs in the
// repository, recursively: tasks, make targets (across included and
// recursively invoked makefiles), just recipes, package.json scripts, shell
// scripts (run, sourced, whose functions stay callable, or inline with
// bash -c), the Dockerfile stages an image build runs (docker build, buildx,
// podman, docker compose, docker/build-push-action), a script a container
// runs from a mounted directory, and the local Helm charts and kustomize
// directories a command renders. It returns an execution tree whose command
// leaves carry their positions; working directories follow cd, pushd, -C
// and the job's checkout path, and container directories map back to the
// repository through WORKDIR, COPY and volumes.
//
// All parsing is bounded (limits.go): oversized files are refused, recursion
// is cut at a fixed depth, cycles and repeated includes are detected, and
// missing or invalid input yields a note on the node where the tree stops,
// never a panic.
//
// The package is pure: files arrive through an fs.FS.
package harness
