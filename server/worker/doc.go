// Package worker runs Polylane's queued jobs (River): diagnose a run, publish the
// report, open or update a fix pull request, answer a mention.
package worker
