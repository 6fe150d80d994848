// Package accuracy measures the analysis engine against public data sets
// written by others (PyTorch log-classifier fixtures, LogChunks, CiDiff,
// Loghub-2k), read in place from the shared data directory. It has no
// non-test code: run the report with
//
//	POLYLANE_ACCURACY=1 go test ./analysis/accuracy -run TestAccuracyReport -count=1 -v
package accuracy
