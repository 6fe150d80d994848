// Package report renders a diagnosis as the pull-request comment (markdown with a
// Mermaid flowchart) and as the body of a fix pull request.
package report
