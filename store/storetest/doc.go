// Package storetest is the conformance suite that every store.Store
// implementation runs: one set of tests, two real backends.
package storetest
