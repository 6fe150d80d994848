package diagnosis

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

// TestGeneratedScenariosMatchTheirGenerators renders every generated
// scenario under testdata/scenarios in memory (the realistic rs-* ones from
// testdata/specs, the synthetic ones from genScenarios) and fails when a
// committed file differs, is missing or is not generated any more, and when
// an rs-* directory has no spec. UPDATE=1 writes them instead.
func TestGeneratedScenariosMatchTheirGenerators(t *testing.T) {
	root := filepath.Join("testdata", "scenarios")
	generated := map[string]map[string][]byte{}
	for _, s := range rsScenarios(t) {
		generated[s.name] = s.render()
	}
	for _, g := range append(append(append(slices.Clone(genScenarios), prScenarios...), causeScenarios...), append(append(rangeScenarios, sameCauseScenarios...), secretInLog)...) {
		generated[g.name] = g.files()
	}
	for name, files := range generated {
		t.Run(name, func(t *testing.T) {
			scenariotest.GoldenDir(t, filepath.Join(root, name), files)
		})
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, "rs-") || generated[name] != nil {
			continue
		}
		if !scenariotest.Updating() {
			t.Errorf("%s has no spec %s (UPDATE=1 removes it)", filepath.Join(root, name), filepath.Join(rsSpecDir, name+".txtar"))
		} else if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
}
