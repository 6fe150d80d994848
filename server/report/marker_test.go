package report

import (
	"strings"
	"testing"
)

func TestMarkerRoundTrip(t *testing.T) {
	tests := []Marker{
		{Kind: KindAssessment, Version: 1, Repo: "octo/repo", Class: "step-abc123", Run: 42, Attempt: 2},
		{Kind: KindFixPR, Version: 1, Repo: "1234", Class: "x --> <b>y</b> run=9 \"q\"", Run: 1, Attempt: 1},
		{Kind: KindRegression, Version: 1, Repo: "", Class: "-", Run: 0, Attempt: 0},
		{Kind: KindAssessment, Version: 1, Repo: "a/b", Class: "trailing-", Run: 7, Attempt: 1},
		{Kind: KindAssessment, Version: 1, Repo: "a/b", Class: "%41 100%", Run: 7, Attempt: 1},
	}
	for _, m := range tests {
		s := m.String()
		if strings.Count(s, "-->") != 1 || !strings.HasSuffix(s, " -->") || strings.Contains(s, "\n") {
			t.Errorf("marker %q can be ended early or spans lines", s)
		}
		got, ok := ParseMarker(s + "\nbody text\n")
		if !ok || got != m {
			t.Errorf("ParseMarker(%q) = %+v, %v; want %+v", s, got, ok, m)
		}
		if !strings.HasPrefix(s, MarkerPrefix(m.Kind)) {
			t.Errorf("%q does not start with MarkerPrefix(%q)", s, m.Kind)
		}
	}
}

func TestParseMarkerRejects(t *testing.T) {
	for _, body := range []string{
		"", "hello", "<!-- other-bot -->", "text\n<!-- polylane:assessment v1 repo=a/b -->",
		"<!-- polylane:assessment v0 repo=a/b -->", "<!-- polylane:assessment vx -->",
		"<!-- polylane:assessment v1 run=abc -->", "<!-- polylane:assessment v1 class=%zz -->",
		"<!-- polylane:assessment v1 repo=a/b",
	} {
		if m, ok := ParseMarker(body); ok {
			t.Errorf("ParseMarker(%q) = %+v, want no marker", body, m)
		}
	}
	if m, ok := ParseMarker("\ufeff\n <!-- polylane:assessment v2 repo=a/b future=1 class=c -->\nx"); !ok || m.Version != 2 || m.Class != "c" {
		t.Errorf("a later version with a new field = %+v, %v", m, ok)
	}
}

func TestSameThread(t *testing.T) {
	a := Marker{Kind: KindAssessment, Repo: "a/b", Class: "c1", Run: 1}
	tests := []struct {
		b    Marker
		want bool
	}{
		{Marker{Kind: KindAssessment, Repo: "a/b", Class: "c2", Run: 2, Attempt: 3}, true},
		{Marker{Kind: KindAssessment, Repo: "a/c", Class: "c1"}, false},
		{Marker{Kind: KindFixPR, Repo: "a/b", Class: "c1"}, false},
	}
	for _, tc := range tests {
		if got := a.SameThread(tc.b); got != tc.want {
			t.Errorf("SameThread(%+v) = %v, want %v", tc.b, got, tc.want)
		}
	}
	f := Marker{Kind: KindFixPR, Repo: "a/b", Class: "c1"}
	if f.SameThread(Marker{Kind: KindFixPR, Repo: "a/b", Class: "c2"}) {
		t.Errorf("fix pull requests of two classes share a thread")
	}
}
