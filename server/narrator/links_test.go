package narrator

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/polylane/polylane/causal/diagnosis"
)

// phishing is a URL a hostile pull request's job prints in its log.
const phishing = "https://evil.example/login?next=ci"

// phishingDiagnosis is testdata/rollout.json whose failing log line and
// evidence print URLs a hostile job controls: a phishing page, and a
// github.com page of the repository that Polylane never built (a pull
// request the job chose) or of another repository.
func phishingDiagnosis(t *testing.T) *diagnosis.Diagnosis {
	t.Helper()
	d := loadDiagnosis(t, "rollout.json")
	printed := "Session expired: sign in again at " + phishing +
		" (see https://github.com/orbit-labs/skyline/pull/999 and https://github.com/attacker/skyline/blob/main/README.md)"
	d.Failure.Lines[0].Text += " " + printed
	d.Chain.Evidence[0].Text += " " + printed
	return d
}

func TestNarratedLinksOnlyToPolylaneURLs(t *testing.T) {
	const run = "https://github.com/orbit-labs/skyline/actions/runs/7300112233"
	cases := []struct {
		name, link string
		kept       bool
	}{
		{"phishing URL printed in the log", phishing, false},
		{"pull request URL printed in the log", "https://github.com/orbit-labs/skyline/pull/999", false},
		{"other repository printed in the log", "https://github.com/attacker/skyline/blob/main/README.md", false},
		{"the run Polylane diagnosed", run, true},
		{"the failing job's log at its step", run + "/job/91000001#step:5:214", true},
		{"the head commit", "https://github.com/orbit-labs/skyline/commit/4f1c2a9e8b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a", true},
		{"a cited file line at the head commit", "https://github.com/orbit-labs/skyline/blob/4f1c2a9e8b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a/Taskfile.yml#L41", true},
		{"a file at another commit", "https://github.com/orbit-labs/skyline/blob/main/Taskfile.yml", false},
		{"a run outside the diagnosis", "https://github.com/orbit-labs/skyline/actions/runs/7300112", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := phishingDiagnosis(t)
			text := "The apply hit a restarting API server (E1); [sign in](" + tc.link + ") to see it."
			h := newHarness(t, nil, reply{content: text}, reply{content: "SUMMARY: " + groundedSummary +
				"\nWHY THIS FIX: " + groundedWhy + " Then [sign in](" + tc.link + ")."})
			a, err := h.n.Answer(context.Background(), d, "why did it fail?", Options{InstallationID: 1})
			md := a.Markdown(d)
			_, werr := h.n.Narrate(context.Background(), d, Options{InstallationID: 1})
			linked := strings.Contains(md, "]("+tc.link+")")
			if !tc.kept {
				for _, e := range []error{err, werr} {
					if !errors.Is(e, ErrRejected) || !strings.Contains(e.Error(), "link to") {
						t.Fatalf("err = %v, want a rejection of the link", e)
					}
				}
				if a.Narrated || linked {
					t.Fatalf("the answer links to %s:\n%s", tc.link, md)
				}
			}
			if tc.kept && (err != nil || werr != nil || !linked) {
				t.Fatalf("answer err %v, wording err %v; rendered:\n%s", err, werr, md)
			}
			// Rendering alone never links what the validator refuses.
			direct := Markdown(d, "[sign in]("+tc.link+")")
			if got := strings.Contains(direct, "]("+tc.link+")"); got != tc.kept {
				t.Fatalf("Markdown links %v, want %v:\n%s", got, tc.kept, direct)
			}
		})
	}
}
