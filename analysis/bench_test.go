package analysis

import (
	"bytes"
	"os"
	"testing"
)

// benchLog is a GitHub Actions job log of realistic shape used by the
// micro-benchmarks: the test logs of testdata/analyze repeated.
func benchLog(b *testing.B) []byte {
	b.Helper()
	var buf bytes.Buffer
	for _, name := range []string{"github-go-test.log", "github-reset.log", "github-two-failures.log", "travis-pytest.log", "jenkins-maven.log"} {
		data, err := os.ReadFile("testdata/analyze/" + name)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(data)
	}
	one := buf.Bytes()
	return bytes.Repeat(one, 200)
}

func reportLines(b *testing.B, data []byte) {
	lines := bytes.Count(data, []byte{'\n'})
	b.SetBytes(int64(len(data)))
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkScanner measures the parser alone.
func BenchmarkScanner(b *testing.B) {
	data := benchLog(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc := NewScanner(bytes.NewReader(data), Options{})
		for sc.Scan() {
		}
	}
	reportLines(b, data)
}

// BenchmarkLocalize measures parser plus localiser (rules, blocks, ranking).
func BenchmarkLocalize(b *testing.B) {
	data := benchLog(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Analyze(bytes.NewReader(data), Options{}); err != nil {
			b.Fatal(err)
		}
	}
	reportLines(b, data)
}

// BenchmarkClassifyLine measures the per-line rules on a mix of lines.
func BenchmarkClassifyLine(b *testing.B) {
	lines := bytes.Split(benchLog(b)[:1<<16], []byte{'\n'})
	var lc []byte
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l := lines[i%len(lines)]
		lc = lowerASCII(lc[:0], l)
		classifyLine(ruleInput{text: l, lc: lc})
	}
}

// BenchmarkSignature measures Normalize and SignatureID on cause lines.
func BenchmarkSignature(b *testing.B) {
	causes := []string{
		`from server for: "STDIN": Get "https://127.0.0.1:32443/api/v1/namespaces/karmada-cluster/secrets/cell-1": read tcp 127.0.0.1:59253->127.0.0.1:32443: read: connection reset by peer`,
		"npm ERR! network request to https://registry.npmjs.org/caniuse-lite/-/caniuse-lite-1.0.30001669.tgz failed, reason: connect ETIMEDOUT 104.16.9.177:443",
		"FAILED [310.0221s] distributed/test_c10d_spawn_gloo.py::TestDistributedNNFunctionsGloo::test_all_gather - RuntimeError: Process 0 terminated or timed out after 310.0115718841553 seconds",
		"E0730 10:12:17.911000 80638 site-packages/torch/testing/_internal/common_distributed.py:1133] Could not retrieve traceback for timed out process: 0",
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		SignatureID(signatureText(causes[i%len(causes)]))
	}
}

// BenchmarkAnalyzeSmall measures the fixed cost of one small log.
func BenchmarkAnalyzeSmall(b *testing.B) {
	data, err := os.ReadFile("testdata/analyze/github-reset.log")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Analyze(bytes.NewReader(data), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
