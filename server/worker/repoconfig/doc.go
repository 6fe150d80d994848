// Package repoconfig reads a repository's .github/polylane.yml: which
// workflows, branches and conclusions Polylane diagnoses, the window, where
// it comments, its fix pull requests (automatic or on request, labels, when
// to close them), muted classes and the narrator opt-in.
//
// The rules of the file are its JSON Schema (Schema, published as
// docs/polylane.schema.json); Parse checks a file against that same schema,
// interpreting it, so the published rules and the enforced ones are one.
// Parse never fails: a value that breaks a rule is described in a warning
// with its YAML line, and the key keeps its default, so that Polylane says
// what is wrong in its comment and goes on.
package repoconfig
