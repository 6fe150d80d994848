//go:build !race

package worker

// raceDetector tells the sweep's report that the race detector is off.
const raceDetector = false
