// Package diagnosis assembles the polylane.diagnosis/v1 document: it runs the
// pure pipeline (analysis of the failing logs, the window and failure classes of
// analysis/history, the causal chain, patch and impact of causal) over one
// workflow history. The CLI feeds it from a scenario directory and the server
// from GitHub and its store; both get the same result for the same input.
package diagnosis
