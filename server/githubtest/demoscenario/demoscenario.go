// Package demoscenario is Polylane's own example scenario
// (polylane.scenario/v1, contracts.md §1), embedded in the binary for
// `polylane demo` and for tests: four weeks of CI history of lumenfield/tally,
// a fictional Go service with a Helm chart, a container image and a release
// workflow.
//
// Its "CI" workflow fails for two reasons. The newest run on main, the
// trigger, fails in "Migrate database": the integration job's postgres
// service container has no health check, so the runner starts the steps as
// soon as the container exists and, when setup-go restores a warm cache,
// goose connects before postgres listens ("connect: connection refused").
// That happens in 8 of the main runs, with green runs in between, and the
// fix is a CI-only patch: a health check on the service. Separately, a
// month-bucketing bug broke "Unit tests" for four consecutive runs until it
// was fixed. A few pull-request runs sit on their own branches.
//
// FS is the scenario as generated (runs from 2026-10-30 to 2026-11-27);
// RecentFS moves it in time so that it ends the day before a given date,
// which is what the demo serves.
//
// scenario/repo/ is written by hand. The rest (scenario.json, runs.json,
// jobs/, logs/, expect.json) is generated from a fixed seed by the
// generator in this package's tests; regenerate it with
//
//	UPDATE=1 go test ./server/githubtest/demoscenario -run TestGenerated
package demoscenario

import (
	"embed"
	"io/fs"
)

// dataDir is the scenario directory inside this package.
const dataDir = "scenario"

//go:embed all:scenario
var data embed.FS

// FS returns the scenario as a file system rooted at the scenario directory
// (scenario.json, runs.json, jobs/, logs/, repo/, expect.json). Pass it to
// githubtest.Options.ScenarioFS or to diagnosis.DiagnoseScenario.
func FS() fs.FS {
	sub, err := fs.Sub(data, dataDir)
	if err != nil {
		panic("demoscenario: " + err.Error()) // dataDir is a valid constant path
	}
	return sub
}
