// Package history works across the runs of one workflow: it selects the window
// of the last N completed runs on the trigger run's branch, turns each failed run
// into a failure occurrence, clusters occurrences into failure classes (never
// across failing steps; exact signature first, then a bounded fuzzy merge), and
// decides the verdict (flaky, regression, broken, new) with the step's failure
// rate, a Wilson interval and a cadence sentence.
//
// A class is persistent when the step never passed again after the class's
// first run; a class that came and went, or one that stopped, is
// intermittent. The verdict on the trigger's class (Timeline.Decide) reads as
// an SRE would: an intermittent class is a flake, surer with every separate
// episode; a persistent class is broken when the step never passed in the
// window and a regression (from the head commit of its first run) when it
// started after green runs. One failing run alone is not a regression: it is
// new unless a test runner's failure or a build error turned a step red that
// passed at the previous run reaching it on another commit, and then it is a
// regression of that commit with a low confidence (0.55) until a later run or
// a re-run tells.
//
// The package is pure: values in, values out; the caller passes "now".
package history
