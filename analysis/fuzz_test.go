package analysis

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds adds the test logs and a few hostile shapes to a fuzz corpus.
func fuzzSeeds(f *testing.F) {
	paths, _ := filepath.Glob("testdata/analyze/*.log")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\xff\xfe\x00bad utf-8 \xc3\x28 \x00\x00\n##[group]Run x\n##[error]Process completed with exit code 1.\n"))
	f.Add([]byte("2024-07-08T16:48:09.3750041Z ##[group]Run a\r\n\r\r\x1b[31m\x1b]0;t\x07\x1b[\n"))
	f.Add([]byte(strings.Repeat("##[group]\n", 100) + "Error: boom\n"))
	f.Add([]byte("x\tstep\t2024-07-08T16:48:09.3750041Z ##[error]failed\n"))
}

func FuzzScanner(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		sc := NewScanner(bytes.NewReader(data), Options{MaxLineBytes: 512})
		n := 0
		for sc.Scan() {
			l := sc.Line()
			n++
			if l.N != n {
				t.Fatalf("line number %d, want %d", l.N, n)
			}
			if len(l.Text) > 512 {
				t.Fatalf("line %d has %d bytes, cap 512", n, len(l.Text))
			}
			for _, c := range []byte(l.Text) {
				if c < ' ' && c != '\t' || c == 0x7f {
					t.Fatalf("line %d keeps control byte %#x", n, c)
				}
			}
			if l.Depth < 0 {
				t.Fatalf("negative depth")
			}
		}
		if sc.Err() != nil {
			t.Fatal(sc.Err())
		}
		if want := bytes.Count(data, []byte{'\n'}); n != want && n != want+1 {
			t.Fatalf("read %d lines of %d", n, want)
		}
	})
}

func FuzzAnalyze(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Analyze(bytes.NewReader(data), Options{MaxLineBytes: 1024})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, res)
		base := NewBaseline()
		if err := base.Add(bytes.NewReader(data[:len(data)/2])); err != nil {
			t.Fatal(err)
		}
		res, err = Analyze(bytes.NewReader(data), Options{Baseline: base})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, res)
	})
}

// checkResult asserts the invariants every Result keeps.
func checkResult(t *testing.T, res *Result) {
	t.Helper()
	causes := 0
	for i, l := range res.Lines {
		if l.N < 1 || l.N > res.TotalLines {
			t.Fatalf("line %d out of range 1..%d", l.N, res.TotalLines)
		}
		// the cause comes first, then at most the line naming the failing
		// test, then context
		if l.Role == RoleCause {
			causes++
		}
		if l.Role == RoleCause && i != causes-1 || i == 0 && l.Role != RoleCause || causes > 2 {
			t.Fatalf("line %d role %q", i, l.Role)
		}
	}
	if len(res.Lines) > maxOutLines+2 {
		t.Fatalf("%d lines returned", len(res.Lines))
	}
	if len(res.Signature) > maxSignatureBytes || !utf8.ValidString(res.Signature) && utf8.ValidString(res.Lines[0].Text) {
		t.Fatalf("bad signature %q", res.Signature)
	}
	if res.ExitCode != nil && (res.ExitLine < 1 || res.ExitLine > res.TotalLines) {
		t.Fatalf("exit line %d", res.ExitLine)
	}
	if strings.HasPrefix(res.Signature, "Process completed with exit code") {
		t.Fatalf("signature is the generic exit-code line")
	}
}

// lineSource generates a log of n copies of line without holding it in
// memory, sampling the heap as it goes.
type lineSource struct {
	line    []byte
	left    int
	pending []byte
	reads   int
	peak    uint64
}

func (s *lineSource) Read(p []byte) (int, error) {
	if len(s.pending) == 0 {
		if s.left == 0 {
			return 0, io.EOF
		}
		s.left--
		s.pending = s.line
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	s.reads++
	if s.reads%4096 == 0 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		s.peak = max(s.peak, m.HeapAlloc)
	}
	return n, nil
}

// TestHostileInputBoundedMemory feeds large hostile logs and checks that the
// heap stays bounded and nothing panics.
func TestHostileInputBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	tests := []struct {
		name  string
		line  string
		count int
	}{
		{"one 10 MB line", strings.Repeat("error: x ", 10<<20/9) + "\n", 1},
		{"a million group lines", "##[group]\n", 1_000_000},
		{"a million step headers", "2024-07-08T16:48:09.3750041Z ##[group]Run make\n", 1_000_000},
		{"many error blocks", "Error: connection reset by peer 0x7f00aa11\n\nok\n", 300_000},
		{"invalid utf-8 and NULs", "\xff\xfe\x00\x00 FAIL: \xc3\x28 timeout\n", 300_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GC()
			src := &lineSource{line: []byte(tc.line), left: tc.count}
			res, err := Analyze(src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res)
			if res.TotalLines < tc.count {
				t.Errorf("read %d lines, want at least %d", res.TotalLines, tc.count)
			}
			const limit = 64 << 20
			if src.peak > limit {
				t.Errorf("heap peaked at %d MB, limit %d MB", src.peak>>20, limit>>20)
			}
		})
	}
}
