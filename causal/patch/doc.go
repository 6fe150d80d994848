// Package patch proposes the smallest harness change that fixes a failure
// mechanism, as a unified diff, and validates the patched files (YAML still
// parses with the same structure, shell still parses, a Taskfile or Makefile
// still defines the same tasks or targets) before the patch is offered.
//
// A patch never adds continue-on-error, never deletes or skips a test or an
// assertion, and never retries without a bound. The package is pure.
package patch

// Patch is a proposed harness change. Field names are part of the
// polylane.diagnosis/v1 contract.
type Patch struct {
	Title string       `json:"title"`
	Files []FileChange `json:"files"`
	// Diff is a unified diff that applies with git apply at the run's head_sha.
	Diff string `json:"diff"`
	// Rationale says in a paragraph why this change fixes the mechanism.
	Rationale string `json:"rationale,omitempty"`
}

// FileChange counts the lines a patch adds and removes in one file.
type FileChange struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}
