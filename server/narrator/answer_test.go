package narrator

import (
	"slices"
	"strings"
	"testing"
)

func TestDeterministicAnswer(t *testing.T) {
	cases := []struct {
		fixture, question string
		contains          []string // substrings the answer must hold
		cites             []string // ids it must cite
		grounded          bool
		notKnown          bool // says "not known from the evidence"
	}{
		{"rollout.json", "Why did it fail?", []string{"Provision test cluster", "rollout-race", "line 214"}, []string{"E1", "E3", "E5"}, true, false},
		{"rollout.json", "Which file produced this?", []string{"`cluster:up` at `Taskfile.yml:41`"}, []string{"E5"}, true, false},
		{"rollout.json", "Is it retried today?", []string{"has no retry"}, nil, false, false},
		{"rollout.json", "How often does this happen?", []string{"4 of the last 60 runs", "intermittent"}, []string{"E6"}, true, false},
		{"rollout.json", "Is the fix safe for production?", []string{"Taskfile.yml", "(+3/-0)", "not in production", "Production impact"}, []string{"E3", "E4", "E5"}, true, false},
		{"rollout.json", "what about kube-apiserver?", []string{"deployment.apps/kube-apiserver patched"}, []string{"E3"}, true, false},
		{"rollout.json", "Is the database schema migration involved?", []string{"not known from the evidence"}, nil, true, true},
		{"rollout.json", "lorem ipsum", []string{"This is not known from the evidence.", "The mechanism is `rollout-race`", "`explain` command"}, []string{"E1"}, true, true},
		{"regression.json", "When did it start? Which commit?", []string{"regression", "deadbeef0123456789abcdef0123456789abcdef"}, nil, false, false},
		{"regression.json", "Where is the fix?", []string{"No harness patch is proposed"}, nil, false, false},
		{"regression.json", "which file produced it?", []string{"harness code that produced the failure is not known from the evidence"}, nil, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.fixture+"/"+tc.question, func(t *testing.T) {
			d := loadDiagnosis(t, tc.fixture)
			a := DeterministicAnswer(d, tc.question)
			for _, s := range tc.contains {
				if !strings.Contains(a.Text, s) {
					t.Errorf("answer lacks %q:\n%s", s, a.Text)
				}
			}
			for _, id := range tc.cites {
				if !slices.Contains(a.Cited, id) {
					t.Errorf("answer does not cite %s (cites %v):\n%s", id, a.Cited, a.Text)
				}
			}
			if a.Grounded != tc.grounded {
				t.Errorf("grounded = %v, want %v:\n%s", a.Grounded, tc.grounded, a.Text)
			}
			if got := strings.Contains(a.Text, notKnown); got != tc.notKnown {
				t.Errorf("says not known = %v, want %v:\n%s", got, tc.notKnown, a.Text)
			}
			cited, err := ValidateAnswer(d, a.Text)
			if err != nil && (len(a.Cited) > 0 || tc.notKnown) {
				t.Errorf("the deterministic answer fails validation: %v\n%s", err, a.Text)
			}
			if err == nil && !slices.Equal(cited, a.Cited) {
				t.Errorf("validator reads citations %v, answer reports %v", cited, a.Cited)
			}
			if len(a.Text) > maxAnswer {
				t.Errorf("answer is %d bytes, over %d", len(a.Text), maxAnswer)
			}
		})
	}
}

func TestDeterministicAnswerNeverQuotesTheQuestion(t *testing.T) {
	d := loadDiagnosis(t, "rollout.json")
	for _, q := range []string{injection, "@octocat why <script>alert(1)</script>", strings.Repeat("why ", 5000)} {
		a := DeterministicAnswer(d, q)
		for _, bad := range []string{"octocat", "<script", "alert(", "evil.example", "Ignore previous"} {
			if strings.Contains(a.Text, bad) {
				t.Errorf("answer to %.40q quotes %q", q, bad)
			}
		}
	}
	if a := DeterministicAnswer(nil, "why?"); !strings.Contains(a.Text, notKnown) || a.Grounded {
		t.Errorf("answer without a diagnosis: %+v", a)
	}
}
