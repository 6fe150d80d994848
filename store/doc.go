// Package store is the storage contract of Polylane: the record types
// (installations, repositories, webhook deliveries, workflow runs, jobs and steps,
// failure occurrences and classes, diagnoses, published comments, fix pull requests),
// the Store interface that store/sqlite and store/postgres implement, and its errors.
package store
