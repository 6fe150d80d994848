package store

import "errors"

// Errors every Store implementation returns (wrapped, so test with errors.Is).
var (
	// ErrNotFound: the record asked for, or a record it refers to, does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the write would duplicate a record that must be unique.
	ErrConflict = errors.New("conflict: record already exists")
	// ErrInvalid: the record is malformed (missing key, bad state, bad JSON).
	ErrInvalid = errors.New("invalid record")
	// ErrQueueNotStarted: a queue operation needs StartQueue first.
	ErrQueueNotStarted = errors.New("queue not started")
)
