// Package githubtest is a GitHub simulator: a real HTTP server on loopback that
// serves scenario directories with GitHub's REST shapes, records every write, sends
// signed webhook deliveries and injects faults. Tests, the demo and benchmarks use it.
package githubtest
