package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
	"github.com/polylane/polylane/causal/diagnosis"
)

// loadFixture reads testdata/<name>.json.
func loadFixture(t testing.TB, name string) *diagnosis.Diagnosis {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	var d diagnosis.Diagnosis
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("decode fixture %s: %v", name, err)
	}
	return &d
}

// golden compares got with testdata/<file> (UPDATE=1 rewrites it).
func golden(t *testing.T, file, got string) {
	t.Helper()
	scenariotest.Golden(t, filepath.Join("testdata", file), []byte(got))
}

// fixtureCase is one fixture with its options and what its comment must say.
type fixtureCase struct {
	name  string
	opts  Options
	token string   // untrusted-text marker of the fixture
	want  []string // substrings of the comment
	never []string // substrings the comment must not hold
	// neverHTML are substrings the comment's HTML rendering (raw HTML let
	// through, as GitHub's sanitizer would for these tags) must not hold.
	neverHTML []string
}

var fixtureCases = []fixtureCase{
	{
		name: "rollout-race",
		opts: Options{DashboardURL: "https://polylane.example/runs/7300104412", BotLogin: "polylane[bot]",
			LogSteps: []LogStep{{JobID: 19800231177, Number: 5, FirstLine: 300}}},
		want: []string{"```mermaid\nflowchart TD", "#### Why this fix", "4 of the last 100 `main` runs", "Run conformance suite",
			"(same step, different cause)", "#### Production impact", "**CI-only change", "Checked and not affected (1)",
			"#### Observability", "#### Causal chain", "**Producer:** `e2e:fleet:up` in [`Taskfile.yml:64`](https://github.com/northwind/relay/blob/4f1d2c9a8b7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a/Taskfile.yml#L64)",
			"/job/19800231177#step:5:119)", "**1 file changed (+4/−0)**", "<details><summary>Diff</summary>",
			"Repository lint: `make lint`", "Polylane did not run it", "`@polylane help`", "fix -.-> producer",
			"[Open the diagnosis on the dashboard](https://polylane.example/runs/7300104412)"},
		never: []string{"Shortened", "[!WARNING]"},
	},
	{
		name: "network-flake",
		opts: Options{ConfigWarnings: []string{"window: must be between 10 and 500, got 5000; using 100"}},
		want: []string{"[!CAUTION]", "got 5000", "**This change reaches deployed artifacts:** `ghcr.io/lumen/ledger`",
			"Checked and not affected (1)", "1 failed run could not be read", "attempt 2", "+1/−1", "`make lint`",
			"- 2 runs without a failing step (cancelled, or no job data): `run cancelled`",
			"Counted as deployed, though no workflow here publishes it:\n\n- No workflow runs goreleaser with tools/.goreleaser.yaml; its release is counted as deployed.",
			"Also found, not deployed:\n\n- docker-compose.test.yml is a Compose file"},
		never: []string{"(empty)"},
	},
	{
		name: "regression",
		want: []string{"#### Where it started", "commit [`e1f2a3b`](https://github.com/orchard/pantry/commit/e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0)",
			"[run 8801888123](https://github.com/orchard/pantry/actions/runs/8801888123)", "a regression", "commit --> signal",
			"**Producer:** none in the harness"},
		never: []string{"#### Why this fix", "#### The fix", "#### Production impact", "Repository lint", "-.->"},
	},
	{
		name: "unknown",
		opts: Options{Stale: true, CurrentHead: "0123456789abcdef0123456789abcdef01234567"},
		want: []string{"[!WARNING]", "now at `0123456`", "could not name the mechanism", "**Mechanism** (`unknown`): unknown.",
			"Mechanism unknown", "candidate [`scripts/lib/digest.sh:12`]", "#### Why there is no fix", "too little history"},
		never: []string{"#### The fix", "-.->"},
	},
	{
		name: "no-chain",
		want: []string{"causal analysis has not run", "The causal stage has not run for this failure", "npm ERR! code ETIMEDOUT",
			"#### Why there is no fix", "No other failure class appears"},
		never: []string{"#### Production impact", "#### Observability"},
	},
	{
		name:  "hostile",
		token: "PWNED",
		opts: Options{Stale: true, CurrentHead: "<script>", DashboardURL: "javascript:alert(1)", BotLogin: "x` @all",
			ConfigWarnings: []string{"line 3: unknown key \"<b>PWNED</b>\" @mallory #9 https://evil.example/PWNED"}},
		want: []string{"[!WARNING]", "[!CAUTION]", "#### Why this fix", "`@polylane help`"},
		neverHTML: []string{"<script", "<img", "<iframe", "<b>", "<i>", "<details open", "<h1", "<h2", "<table", "<input",
			`href="javascript`, `href="http://evil`, `href="https://evil`, `src="`, "<del>", "<!-- PWNED"},
	},
	{
		name: "oversized",
		opts: Options{DashboardURL: "https://polylane.example/runs/1"},
		want: []string{"**Shortened.**", "the diff (", "evidence entries of the causal chain are left out",
			"#### Causal chain", "#### Production impact", "The full diagnosis is on the [dashboard](https://polylane.example/runs/1)"},
		never: []string{"<details>"},
	},
}

// TestGolden renders every fixture as a comment (and as a fix pull request
// or a regression comment where that applies), compares with the goldens
// and checks marker, sections, safety, size and the flowchart.
func TestGolden(t *testing.T) {
	for _, tc := range fixtureCases {
		t.Run(tc.name, func(t *testing.T) {
			d := loadFixture(t, tc.name)
			s := safety{repo: d.Repository, dashboard: safeURL(tc.opts.DashboardURL), token: tc.token}
			out, err := Comment(d, tc.opts)
			if err != nil {
				t.Fatalf("Comment: %v", err)
			}
			checkDocument(t, out, KindAssessment, d, s)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("comment lacks %q", w)
				}
			}
			for _, w := range tc.never {
				if strings.Contains(out, w) {
					t.Errorf("comment holds %q", w)
				}
			}
			html := renderHTML(t, out)
			for _, w := range tc.neverHTML {
				if strings.Contains(html, w) {
					t.Errorf("HTML rendering holds %q", w)
				}
			}
			golden(t, tc.name+".md", out)
			renderVariants(t, tc, d, s)
		})
	}
}

// renderVariants renders the fix pull request, the regression comment and
// the muted form where they apply.
func renderVariants(t *testing.T, tc fixtureCase, d *diagnosis.Diagnosis, s safety) {
	if d.Patch != nil {
		title, body, err := PullRequest(d, tc.opts)
		if err != nil {
			t.Fatalf("PullRequest: %v", err)
		}
		if strings.ContainsAny(title, "\n\r") || len([]rune(title)) > 120 || title == "" {
			t.Errorf("pull request title %q is not one line of at most 120 characters", title)
		}
		checkDocument(t, body, KindFixPR, d, s)
		if strings.Contains(body, "<details>") {
			t.Errorf("the fix pull request repeats its own diff")
		}
		golden(t, tc.name+".pr.md", "title: "+title+"\n\n"+body)
	}
	if d.Verdict.FirstBadSHA != nil {
		out, err := RegressionComment(d, tc.opts)
		if err != nil {
			t.Fatalf("RegressionComment: %v", err)
		}
		checkDocument(t, out, KindRegression, d, s)
		golden(t, tc.name+".regression.md", out)
	}
	if tc.name == "hostile" || tc.name == "rollout-race" {
		opts := tc.opts
		opts.Muted, opts.MuteReason = true, "noisy while we migrate <b>PWNED</b> @ops"
		out, err := Comment(d, opts)
		if err != nil {
			t.Fatalf("Comment (muted): %v", err)
		}
		checkDocument(t, out, KindAssessment, d, s)
		if strings.Contains(out, "```mermaid") || !strings.Contains(out, "unmute") {
			t.Errorf("muted comment is not the short form")
		}
		golden(t, tc.name+".muted.md", out)
	}
}

// checkDocument asserts what holds for every rendered document.
func checkDocument(t *testing.T, out, kind string, d *diagnosis.Diagnosis, s safety) {
	t.Helper()
	if len(out) >= MaxChars {
		t.Errorf("%s is %d bytes, want < %d", kind, len(out), MaxChars)
	}
	m, ok := ParseMarker(out)
	if !ok {
		t.Fatalf("%s: no marker on the first line: %q", kind, strings.SplitN(out, "\n", 2)[0])
	}
	want := Marker{Kind: kind, Version: MarkerVersion, Repo: d.Repository, Class: d.TriggerClass, Run: d.Run.ID, Attempt: d.Run.Attempt}
	if m != want {
		t.Errorf("%s marker = %+v, want %+v", kind, m, want)
	}
	if strings.Count(out, "<!-- polylane:") != 1 {
		t.Errorf("%s: %d markers, want 1", kind, strings.Count(out, "<!-- polylane:"))
	}
	if s.family == "" && d.Chain != nil {
		// The "Known elsewhere" section links the public threads the
		// catalogue lists for the cause line's error family.
		s.family = d.Chain.Mechanism.Family
	}
	for _, p := range checkMarkdown(out, s) {
		t.Errorf("%s: %s", kind, p)
	}
}
