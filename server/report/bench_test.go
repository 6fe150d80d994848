package report

import "testing"

// BenchmarkComment measures rendering a typical assessment and an
// oversized one that has to be shortened.
func BenchmarkComment(b *testing.B) {
	for _, name := range []string{"rollout-race", "oversized"} {
		d := loadFixture(b, name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Comment(d, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
