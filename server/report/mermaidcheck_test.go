package report

import (
	"strings"
	"testing"
)

func TestValidateFlowchart(t *testing.T) {
	good := "flowchart TD\n  a[\"A #quot;x#quot; #35;1\"]\n  b[\"B\"]\n  a --> b\n  b -.-> a\n"
	if err := ValidateFlowchart(good); err != nil {
		t.Errorf("valid chart rejected: %v", err)
	}
	tests := []struct{ name, src, want string }{
		{"no header", "a[\"A\"]", "header"},
		{"other direction", "flowchart LR\n  a[\"A\"]", "header"},
		{"empty", "flowchart TD\n", "no node"},
		{"raw quote", "flowchart TD\n  a[\"say \"hi\"\"]", "not a node or edge"},
		{"raw bracket", "flowchart TD\n  a[\"x]\"]", "unescaped"},
		{"raw hash", "flowchart TD\n  a[\"#1\"]", "unescaped"},
		{"backtick", "flowchart TD\n  a[\"`md`\"]", "unescaped"},
		{"keyword id", "flowchart TD\n  end[\"E\"]", "keyword"},
		{"duplicate", "flowchart TD\n  a[\"A\"]\n  a[\"B\"]", "twice"},
		{"undefined edge", "flowchart TD\n  a[\"A\"]\n  a --> b", "before it is defined"},
		{"click", "flowchart TD\n  a[\"A\"]\n  click a call alert()", "not a node or edge"},
		{"style", "flowchart TD\n  a[\"A\"]\n  style a fill:#f00", "not a node or edge"},
		{"unquoted label", "flowchart TD\n  a[A]", "not a node or edge"},
		{"long label", "flowchart TD\n  a[\"" + strings.Repeat("x", 700) + "\"]", "label of"},
		{"thick edge", "flowchart TD\n  a[\"A\"]\n  b[\"B\"]\n  a ==> b", "not a node or edge"},
		{"directive", "%%{init: {}}%%\nflowchart TD\n  a[\"A\"]", "header"},
	}
	for _, tc := range tests {
		err := ValidateFlowchart(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one about %q", tc.name, err, tc.want)
		}
	}
}

// TestFlowchartShapes checks the chart of each fixture: valid, with the
// nodes its diagnosis calls for.
func TestFlowchartShapes(t *testing.T) {
	tests := []struct {
		fixture string
		want    []string
	}{
		{"rollout-race", []string{"producer[", "event1[", "mechanism[\"rollout-race: ", "signal[", "step[", "run[", "fix -.-> producer"}},
		{"network-flake", []string{"producer[", "mechanism[\"transient-network: ", "fix -.-> producer", "producer --> mechanism"}},
		{"regression", []string{"commit[\"Change at commit e1f2a3b\"]", "commit --> signal"}},
		{"unknown", []string{"mechanism[\"Mechanism unknown\"]"}},
		{"no-chain", []string{"signal[\"log line 154: npm ERR! code ETIMEDOUT\"]", "signal --> step"}},
		{"oversized", []string{"events[\"57 more harness events\"]"}},
	}
	for _, tc := range tests {
		src := Flowchart(loadFixture(t, tc.fixture))
		if err := ValidateFlowchart(src); err != nil {
			t.Errorf("%s: %v\n%s", tc.fixture, err, src)
		}
		for _, w := range tc.want {
			if !strings.Contains(src, w) {
				t.Errorf("%s: chart lacks %q:\n%s", tc.fixture, w, src)
			}
		}
	}
	if err := ValidateFlowchart(Flowchart(nil)); err != nil {
		t.Errorf("chart of no diagnosis: %v", err)
	}
}
