// Package analysis reads CI job logs and says why a job failed.
//
// It owns the GitHub Actions raw job-log parser (timestamps, BOM, ANSI, group and
// error markers, step boundaries recovered with the jobs API), cause-line
// localisation, and the normalised failure signature that is equal across runs of
// one failure class. It also defines the run, job and step values that every later
// stage works on, with GitHub's JSON field names.
//
// The package is pure: values in, values out. It does no network or file I/O of
// its own (logs arrive as io.Reader values), reads no clock and writes no logs.
package analysis
