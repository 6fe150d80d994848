// Package benchreport runs Polylane's benchmarks and prints their figures
// as one markdown table, two measurements side by side on each row (SQLite
// and PostgreSQL, cold and warm history, a window and a ten times larger
// one) with their ratio and the target they answer to. `make bench` runs it:
//
//	POLYLANE_BENCH_REPORT=bench-report.md go test ./cmd/benchreport -run TestReport -count=1 -timeout 60m
//
// The benchmarks themselves live with the code they measure; this package
// starts them with `go test -bench`, reads the standard benchmark lines
// (and the few tables some of them log), and renders the table.
package benchreport
