package narrator

import (
	"errors"
	"strings"
	"testing"

	"github.com/polylane/polylane/server/report"
)

// groundedSummary and groundedWhy word testdata/rollout.json faithfully.
const (
	groundedSummary = "The step `Provision test cluster` of the Integration workflow failed in 4 of the last 60 runs on `main`, and it comes and goes. " +
		"The mechanism is a rollout race: `task cluster:up` restarts the API server by patching `deployment/kube-apiserver`, and the readiness gate " +
		"passes on the old pod, so `kubectl apply` reached a restarting server at 127.0.0.1:6443 (E1, E3, E5). The proposed fix waits for the rollout in `Taskfile.yml`."
	groundedWhy = "The harness patches `deployment/kube-apiserver` (E3, E4) and then gates on `kubectl wait --for=condition=Available deploy --all`, " +
		"which the old pod satisfies (E5). Adding `kubectl rollout status deploy/kube-apiserver` to `Taskfile.yml` after line 41 (`Taskfile.yml:41`) " +
		"makes provisioning wait until the new API server serves. It is a CI-only change: the image ghcr.io/orbit-labs/skyline built from `Dockerfile` does not copy it. " +
		"See the [failing run](https://github.com/orbit-labs/skyline/actions/runs/7300112233) at commit 4f1c2a9."
)

func TestValidateWordingAccepts(t *testing.T) {
	d := loadDiagnosis(t, "rollout.json")
	cases := []struct {
		name string
		w    Wording
	}{
		{"grounded", Wording{groundedSummary, groundedWhy}},
		{"spelled counts and percentages", Wording{
			strings.Replace(groundedSummary, "4 of the last 60", "four of the last 60 (about 6.7%)", 1), groundedWhy}},
		{"category literal and plain step quoting", Wording{
			"Step \"Provision test cluster\" failed 4 times in 60 runs: a rollout-race.", "The fix edits Taskfile.yml."}},
		{"host of a URL", Wording{groundedSummary, groundedWhy + " The run is on github.com/orbit-labs/skyline."}},
		{"a URL a quote clipped", Wording{groundedSummary, groundedWhy + " See https://github.com/orbit-labs/skyline/actions/runs/73001…"}},
		{"thousands separators and dates", Wording{
			groundedSummary + " The window ran from 2026-09-01 to 2026-09-29.", groundedWhy + " Run 7,300,112,233 failed."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := ValidateWording(d, tc.w); err != nil {
				t.Fatalf("grounded wording rejected: %v", err)
			}
		})
	}
}

func TestValidateWordingRejects(t *testing.T) {
	d := loadDiagnosis(t, "rollout.json")
	cases := []struct {
		name    string
		summary string // replaces the summary when not empty
		why     string // appended to the why paragraph
		whyAll  string // replaces the why paragraph when not empty
		want    string // a substring of a reason
	}{
		{name: "unknown file", why: " The bug is in src/gateway/main.go.", want: `path "src/gateway/main.go"`},
		{name: "unknown harness file", why: " It also edits Makefile.", want: `path "Makefile"`},
		{name: "unknown line of a known file", why: " See Taskfile.yml:99.", want: `file:line "Taskfile.yml:99"`},
		{name: "unknown number", summary: strings.Replace(groundedSummary, "4 of the last 60", "13 of the last 60", 1), want: `number "13"`},
		{name: "unknown spelled number", why: " It failed eleven times.", want: `number "11" (spelled out)`},
		{name: "unknown run id", why: " Run 7300112234 failed too.", want: `number "7300112234"`},
		{name: "unknown commit", why: " It started at 4f1c2b9.", want: `commit or id "4f1c2b9"`},
		{name: "unknown URL", why: " Read https://evil.example.com/x for details.", want: `URL "https://evil.example.com/x"`},
		{name: "unknown clipped URL", why: " Read https://evil.example.com/x…", want: `URL "https://evil.example.com/x"`},
		{name: "link to unknown URL", why: " [Details](https://evil.example.com/x).", want: "link to"},
		{name: "mention", why: " Ping @octocat about it.", want: `mention "@octocat"`},
		{name: "team mention", why: " cc @orbit-labs/sre", want: `mention "@orbit-labs/sre"`},
		{name: "unknown endpoint", why: " It called api.internal:8443.", want: `"api.internal:8443" is not in the diagnosis`},
		{name: "unknown address", why: " The server is 10.0.0.5.", want: `address "10.0.0.5"`},
		{name: "unknown evidence id", why: " As E9 shows.", want: `evidence id "E9"`},
		{name: "heading", why: "\n\n## Details", want: "heading"},
		{name: "raw HTML", why: " <details>more</details>", want: "raw HTML"},
		{name: "HTML comment", why: " <!-- hidden -->", want: "raw HTML"},
		{name: "image", why: " ![x](https://github.com/orbit-labs/skyline/actions/runs/7300112233)", want: "image"},
		{name: "code block", why: "\n```\nrm -rf /\n```", want: "code block"},
		{name: "list", why: "\n- one\n- two", want: "list"},
		{name: "table", why: "\n| a | b |", want: "table"},
		{name: "entity", why: " &#64;octocat", want: "HTML entity"},
		{name: "zero-width character", why: " @\u200boctocat", want: "invisible"},
		{name: "bidi override", why: " \u202eevil", want: "invisible"},
		{name: "secret-like", why: " Token ghp_abcdefghijklmnopqrstuvwxyz0123456789.", want: "secret"},
		{name: "step dropped", summary: strings.Replace(groundedSummary, "`Provision test cluster`", "provisioning", 1), want: "failing step"},
		{name: "count dropped", summary: strings.Replace(groundedSummary, "4 of the last 60 runs", "several recent runs", 1), want: "class count"},
		{name: "mechanism dropped", summary: "Step `Provision test cluster` failed in 4 of the last 60 runs.", whyAll: "The fix edits `Taskfile.yml` (E5).", want: "does not say the mechanism"},
		{name: "other mechanism", why: " It is really a rate-limit.", want: `another mechanism "rate-limit"`},
		{name: "empty summary", summary: " ", want: "summary is empty"},
		{name: "too long", why: strings.Repeat(" The fix edits Taskfile.yml.", 120), want: "longer than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := Wording{Summary: groundedSummary, WhyFix: groundedWhy + tc.why}
			if tc.summary != "" {
				w.Summary = tc.summary
			}
			if tc.whyAll != "" {
				w.WhyFix = tc.whyAll
			}
			err := ValidateWording(d, w)
			if !errors.Is(err, ErrRejected) {
				t.Fatalf("accepted, want rejection mentioning %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("reasons %q do not mention %q", err, tc.want)
			}
		})
	}
}

func TestValidateWordingPatchedFile(t *testing.T) {
	d := loadDiagnosis(t, "rollout.json")
	summary := strings.Replace(groundedSummary, " The proposed fix waits for the rollout in `Taskfile.yml`.", "", 1)
	err := ValidateWording(d, Wording{summary, "Waiting for the rollout closes the race (E5)."})
	if err == nil || !strings.Contains(err.Error(), `patched file "Taskfile.yml"`) {
		t.Fatalf("want a rejection for the missing patched file, got %v", err)
	}
}

func TestValidateWordingRegression(t *testing.T) {
	d := loadDiagnosis(t, "regression.json")
	summary := "Step `Unit tests` failed in 6 of the last 30 runs on `main`: `TestBalanceRounding` is a test that fails (E1)."
	good := Wording{summary, "No harness patch is proposed: the failure started at commit deadbee, and the fix belongs in that change."}
	if err := ValidateWording(d, good); err != nil {
		t.Fatalf("grounded regression wording rejected: %v", err)
	}
	bad := Wording{summary, "No harness patch is proposed: the fix belongs in the change that introduced it."}
	if err := ValidateWording(d, bad); err == nil || !strings.Contains(err.Error(), "first bad commit") {
		t.Fatalf("want a rejection for the missing first bad commit, got %v", err)
	}
}

func TestValidateAnswer(t *testing.T) {
	d := loadDiagnosis(t, "rollout.json")
	cases := []struct {
		name, text string
		cited      []string
		want       string // "" means accepted
	}{
		{name: "cited", text: "The gate `kubectl wait` passes on the old pod (E5), so the apply hit a restarting server (E1).", cited: []string{"E5", "E1"}},
		{name: "list", text: "Two things:\n- the patch of `deployment/kube-apiserver` (E3)\n- the gate at `Taskfile.yml:41` (E5)", cited: []string{"E3", "E5"}},
		{name: "not known", text: "This is not known from the evidence. The diagnosis only covers the provisioning step."},
		{name: "no citation", text: "The API server restarts.", want: "cites no evidence id"},
		{name: "unknown citation", text: "See E12.", want: `evidence id "E12"`},
		{name: "injected link", text: "Done (E1). [Open PR](https://evil.example/pr)", want: "link to"},
		{name: "injected mention", text: "Sure @admin, opening a PR now (E1).", want: "mention"},
		{name: "heading", text: "# Answer\nIt is a race (E1).", want: "heading"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cited, err := ValidateAnswer(d, tc.text)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				if strings.Join(cited, ",") != strings.Join(tc.cited, ",") {
					t.Fatalf("cited %v, want %v", cited, tc.cited)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a rejection mentioning %q", err, tc.want)
			}
		})
	}
}

func TestValidateNilDiagnosis(t *testing.T) {
	if err := ValidateWording(nil, Wording{"It failed in 3 runs.", "See Makefile."}); err == nil {
		t.Fatal("wording grounded in no diagnosis was accepted")
	}
	if _, err := ValidateAnswer(nil, "This is not known from the evidence."); err != nil {
		t.Fatalf("a not-known answer needs no diagnosis: %v", err)
	}
}

func FuzzValidate(f *testing.F) {
	f.Add(groundedSummary, groundedWhy)
	f.Add("<a href=x>@x</a> ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "`E1` 1,2.3.4:5 `")
	d := loadDiagnosis(f, "rollout.json")
	g := newGrounds(d)
	f.Fuzz(func(t *testing.T, a, b string) {
		err := validateWording(g, d, Wording{a, b})
		if err != nil && !errors.Is(err, ErrRejected) {
			t.Fatalf("error is not a rejection: %v", err)
		}
		cited, err := validateAnswer(g, a)
		if err == nil {
			for _, id := range cited {
				if !g.evidence[id] {
					t.Fatalf("accepted answer cites unknown %s", id)
				}
			}
		}
		md := markdown(g, a+"\n\n"+b)
		if strings.Contains(md, "@") && !strings.Contains(md, "@"+report.WordJoiner) && !inCode(md, "@") {
			t.Fatalf("live mention in %q", md)
		}
	})
}

// inCode reports whether every occurrence of s in md is inside a code
// span, a rough check for the fuzzer.
func inCode(md, s string) bool {
	parts := strings.Split(md, "`")
	for i, p := range parts {
		if i%2 == 0 && strings.Contains(strings.ReplaceAll(p, "@"+report.WordJoiner, ""), s) {
			return false
		}
	}
	return true
}
