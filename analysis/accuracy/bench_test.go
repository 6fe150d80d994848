package accuracy

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/polylane/polylane/analysis"
)

// BenchmarkAnalyzeLogChunks runs Analyze end to end over every LogChunks
// development log held in memory and reports lines/s and MB/s. Run it on one
// core with GOMAXPROCS=1.
func BenchmarkAnalyzeLogChunks(b *testing.B) {
	dir := logChunksDir(b, sharedDir(b))
	var logs [][]byte
	var lines, size int
	err := filepath.WalkDir(filepath.Join(dir, "logs"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		logs = append(logs, data)
		lines += bytes.Count(data, []byte{'\n'})
		size += len(data)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, data := range logs {
			if _, err := analysis.Analyze(bytes.NewReader(data), analysis.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(lines)*float64(b.N)/sec, "lines/s")
	b.ReportMetric(float64(len(logs)), "logs")
}
