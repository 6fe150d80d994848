package narrator

import "testing"

// BenchmarkValidateWording measures one validation, grounds included.
func BenchmarkValidateWording(b *testing.B) {
	d := loadDiagnosis(b, "rollout.json")
	w := Wording{groundedSummary, groundedWhy}
	for b.Loop() {
		if err := ValidateWording(d, w); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeterministicAnswer measures one deterministic answer.
func BenchmarkDeterministicAnswer(b *testing.B) {
	d := loadDiagnosis(b, "rollout.json")
	for b.Loop() {
		if a := DeterministicAnswer(d, "why did it fail and how often?"); !a.Grounded {
			b.Fatal("ungrounded answer")
		}
	}
}
