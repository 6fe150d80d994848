// Package scenario loads scenario directories (polylane.scenario/v1, contracts.md §1):
// a snapshot of one repository's CI history laid out as the GitHub REST API serves it.
// It reads through an fs.FS and reports a missing or malformed file by name.
package scenario
