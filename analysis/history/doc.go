// Package history works across the runs of one workflow: it selects the window
// of the last N completed runs on the trigger run's branch, turns each failed run
// into a failure occurrence, clusters occurrences into failure classes (never
// across failing steps; exact signature first, then a bounded fuzzy merge), and
// decides the verdict (flaky, regression, broken, new) with the step's failure
// rate, a Wilson interval and a cadence sentence.
//
// The package is pure: values in, values out; the caller passes "now".
package history
