package accuracy

import (
	"fmt"
	"strings"
	"testing"
)

// direction says on which side of its goal a figure meets its target.
type direction uint8

const (
	atLeast direction = iota // figure ≥ goal
	atMost                   // figure ≤ goal
)

// target is one development target: the row's metric, its goal and direction.
type target struct {
	metric string
	goal   float64
	dir    direction
	show   func(float64) string // formats the goal as the row shows its figure
	of     string               // which figure of the row, when it shows several
}

func (g target) met(v float64) bool {
	if g.dir == atMost {
		return v <= g.goal
	}
	return v >= g.goal
}

func (g target) String() string {
	s := "≥ " + g.show(g.goal)
	if g.dir == atMost {
		s = "≤ " + g.show(g.goal)
	}
	if g.of != "" {
		s = g.of + " " + s
	}
	return s
}

// verdict is what the report says of one row's target.
type verdict struct{ target, met string }

// judge holds each row against its target: verdicts[i] is row i's target and
// PASS or MISS (empty for rows without one), misses lists the missed targets.
// A target whose metric names no row, or more than one, is an error.
func judge(rows []row, targets []target) (verdicts []verdict, misses []string, err error) {
	verdicts = make([]verdict, len(rows))
	for _, g := range targets {
		n := 0
		for i, r := range rows {
			if r.metric != g.metric {
				continue
			}
			n++
			verdicts[i] = verdict{target: g.String(), met: "PASS"}
			if !g.met(r.value) {
				verdicts[i].met = "MISS"
				misses = append(misses, fmt.Sprintf("%s, %s: %s, target %s", r.set, r.measure, r.got, g))
			}
		}
		if n != 1 {
			return nil, nil, fmt.Errorf("target %q names %d rows of the report, want 1", g.metric, n)
		}
	}
	return verdicts, misses, nil
}

// TestJudgeMarksMissedTargets holds the verdicts of the accuracy report
// without the data sets: a figure on the wrong side of its goal is a MISS and
// is listed, one on the goal passes, and a target that names no row (or two)
// is an error rather than a silent pass.
func TestJudgeMarksMissedTargets(t *testing.T) {
	rows := []row{
		{set: "S", measure: "any-hit", got: "0.870", metric: "hit", value: 0.87},
		{set: "S", measure: "median lines", got: "10", metric: "median", value: 10},
		{set: "S", measure: "precision", got: "0.514"},
	}
	tests := []struct {
		name    string
		targets []target
		met     []string // per row
		misses  []string
		err     string
	}{
		{"all met", []target{{metric: "hit", goal: 0.85, show: f2}, {metric: "median", goal: 15, dir: atMost, show: whole}},
			[]string{"PASS", "PASS", ""}, nil, ""},
		{"on the goal", []target{{metric: "hit", goal: 0.87, show: f2}, {metric: "median", goal: 10, dir: atMost, show: whole}},
			[]string{"PASS", "PASS", ""}, nil, ""},
		{"floor missed", []target{{metric: "hit", goal: 0.90, show: f2}},
			[]string{"MISS", "", ""}, []string{"S, any-hit: 0.870, target ≥ 0.90"}, ""},
		{"ceiling missed", []target{{metric: "median", goal: 9, dir: atMost, show: whole}},
			[]string{"", "MISS", ""}, []string{"S, median lines: 10, target ≤ 9"}, ""},
		{"unknown metric", []target{{metric: "recall", goal: 0.5, show: f2}}, nil, nil, `target "recall" names 0 rows`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			verdicts, misses, err := judge(rows, tc.targets)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("judge error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range verdicts {
				if v.met != tc.met[i] {
					t.Errorf("row %d: met = %q, want %q", i, v.met, tc.met[i])
				}
			}
			if strings.Join(misses, "\n") != strings.Join(tc.misses, "\n") {
				t.Errorf("misses = %q, want %q", misses, tc.misses)
			}
		})
	}
}
