package repoconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse reads a typical file (every key set) and an invalid one
// (ten warnings), the costs docs/architecture.md compares.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"full.yml", "invalid.yml"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(data)
			}
		})
	}
}
