package impact

import "testing"

// BenchmarkAssessScenario measures one full assessment of the karmada
// example (repository scan, workflow resolution, verdicts and summary).
func BenchmarkAssessScenario(b *testing.B) {
	repo := scenarioRepo(b, "karmada-rollout")
	changes := []Change{{Path: "Taskfile.yaml", Lines: []int{96, 97}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Assess(repo, "datum-cloud/compute", changes); err != nil {
			b.Fatal(err)
		}
	}
}
