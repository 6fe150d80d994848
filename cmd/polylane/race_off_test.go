//go:build !race

package main

// raceDetector is set when the tests run with the race detector, which
// multiplies memory and time.
const raceDetector = false
