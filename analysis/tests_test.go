package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		line         string
		name         string
		header, bare bool
		ok           bool
	}{
		{"--- FAIL: chainsaw/workload-placement (131.92s)", "chainsaw/workload-placement", false, true, true},
		{"--- FAIL: TestCheckout (0.00s)", "TestCheckout", false, true, true},
		{"\u25cf Basket \u203a applies the voucher once", "Basket \u203a applies the voucher once", true, false, true},
		{"FAILED tests/test_w.py::test_idem[sqlite] - assert 1 == 2", "tests/test_w.py::test_idem[sqlite]", false, false, true},
		{"tests/test_w.py::test_idem FAILED", "tests/test_w.py::test_idem", false, true, true},
		{"____________ test_idem[sqlite] ____________", "test_idem[sqlite]", true, false, true},
		{"____ ERROR at setup of test_get[vim] ____", "test_get[vim]", true, false, true},
		{"test tiles::cache::tests::keeps_hot ... FAILED", "tiles::cache::tests::keeps_hot", false, true, true},
		{"---- tiles::cache::tests::keeps_hot stdout ----", "tiles::cache::tests::keeps_hot", true, false, true},
		{"[ERROR] com.x.DiscountTest.childFare -- Time elapsed: 0.010 s <<< FAILURE!", "com.x.DiscountTest#childFare", false, true, true},
		{"testIsDirty(com.x.DirtyFlagTest)  Time elapsed: 0.058 sec  <<< FAILURE!", "com.x.DirtyFlagTest#testIsDirty", false, true, true},
		{"com.x.CartTest > totalIsRounded() FAILED", "com.x.CartTest#totalIsRounded", false, true, true},
		{"\u2717 testThatUploadWorks, XCTAssertTrue failed", "testThatUploadWorks", false, false, true},
		{"FAIL: test_parse (tests.test_dates.DatesTest)", "test_parse (tests.test_dates.DatesTest)", true, false, true},
		{"not ok 3 - handles empty input", "handles empty input", false, false, true},
		{"\u2718  4 [chromium] \u203a a.spec.ts:42:7 \u203a cart \u203a promo (5.2s)", "[chromium] \u203a a.spec.ts:42:7 \u203a cart \u203a promo", false, true, true},
		{"Error: some tests failed", "", false, false, false},
		{"--- PASS: chainsaw/create (2.10s)", "", false, false, false},
	}
	for _, tc := range []struct{ line, name string }{
		{"1) Invoices::Dunning escalates after the second reminder", "Invoices::Dunning escalates after the second reminder"},
		{"12) Cart totals applies the voucher", "Cart totals applies the voucher"},
		{"1) [webkit] \u203a a.spec.ts:3:7 \u203a cart \u203a totals \u2500\u2500\u2500\u2500", "[webkit] \u203a a.spec.ts:3:7 \u203a cart \u203a totals"},
		{"1) Failure:", ""}, // minitest: the name follows on the next line
		{"1)", ""},
		{"Failures:", ""},
	} {
		ft, ok := numberedFailure([]byte(tc.line))
		if ok != (tc.name != "") || ft.name != tc.name || ok && !ft.header {
			t.Errorf("numberedFailure(%q) = %+v, %v; want %q", tc.line, ft, ok, tc.name)
		}
	}
	for _, tc := range tests {
		ft, ok := parseVerdict([]byte(tc.line))
		if ok != tc.ok || ft.name != tc.name || ft.header != tc.header || ft.bare != tc.bare {
			t.Errorf("parseVerdict(%q) = %+v, %v; want name %q header %v bare %v ok %v", tc.line, ft, ok, tc.name, tc.header, tc.bare, tc.ok)
		}
	}
}

// TestAnalyzeNamesFailingTest: the signature names the failing test, and the
// cause is the assertion or error inside it, not the runner's verdict.
func TestAnalyzeNamesFailingTest(t *testing.T) {
	tests := []struct {
		log, test, causeHas, alsoCause string
	}{
		{"chainsaw.log", "chainsaw/replicate-bucket", "actual resource not found", "--- FAIL: chainsaw/replicate-bucket"},
		{"jest.log", "Basket \u203a applies the voucher once", "expect(received).toBe(expected)", "\u25cf Basket"},
		{"pytest.log", "tests/test_window.py::test_window_is_idempotent[sqlite]", "E       assert 9994 == 10000", ""},
		{"surefire.log", "com.example.fare.DiscountTest#childFareIsRounded", "AssertionFailedError: expected: <12.40>", "DiscountTest.childFareIsRounded -- Time elapsed"},
		{"cargo.log", "tiles::cache::tests::keeps_hot_tiles", "assertion `left == right` failed: hot tile evicted", ""},
		{"rspec.log", "Invoices::Dunning escalates after the second reminder", "Failure/Error: expect(invoice.reload.stage)", ""},
		{"playwright.log", "[firefox] \u203a tests/invoices.spec.ts:21:5 \u203a invoices \u203a exports a CSV", "Error: Timed out 5000ms waiting for expect(locator).toBeVisible()", ""},
	}
	for _, tc := range tests {
		t.Run(tc.log, func(t *testing.T) {
			res := analyzeTests(t, tc.log, nil)
			cause, _ := res.Cause()
			if res.Test != tc.test {
				t.Errorf("test = %q, want %q", res.Test, tc.test)
			}
			if !strings.Contains(cause.Text, tc.causeHas) {
				t.Errorf("cause = %q, want it to contain %q", cause.Text, tc.causeHas)
			}
			if !strings.Contains(res.Signature, tc.test) {
				t.Errorf("signature %q does not name the test %q", res.Signature, tc.test)
			}
			if tc.alsoCause != "" && !hasCauseLine(res, tc.alsoCause) {
				t.Errorf("no cause line contains %q: %+v", tc.alsoCause, res.Lines)
			}
		})
	}
}

// TestTestSignatureStability: the same test failing with another duration
// and namespace reads the same; another test failing reads differently.
func TestTestSignatureStability(t *testing.T) {
	base := analyzeTests(t, "chainsaw.log", nil)
	same := analyzeTests(t, "chainsaw.log", strings.NewReplacer(
		"chainsaw-hip-ferret", "chainsaw-calm-otter", "(122.10s)", "(140.55s)", "(124.20s)", "(143.01s)", "10:02:04", "11:07:31"))
	other := analyzeTests(t, "chainsaw.log", strings.NewReplacer(
		"replicate-bucket", "delete-bucket"))
	if base.SignatureID != same.SignatureID {
		t.Errorf("same failure, different signatures:\n%q\n%q", base.Signature, same.Signature)
	}
	if base.SignatureID == other.SignatureID || other.Test != "chainsaw/delete-bucket" {
		t.Errorf("different tests, signatures %q and %q (test %q)", base.Signature, other.Signature, other.Test)
	}
}

// TestRetriedErrorIsNotTheCause: errors the harness retried and got past
// are not why the step failed; the last error before the exit line is.
func TestRetriedErrorIsNotTheCause(t *testing.T) {
	res := analyzeTests(t, "retried.log", nil)
	cause, _ := res.Cause()
	if !strings.Contains(cause.Text, "unexpected EOF") {
		t.Errorf("cause = %q, want the EOF after the retried errors", cause.Text)
	}
	for _, c := range []string{"timed out waiting for the condition", "resource mapping not found"} {
		if hasCauseLine(res, c) {
			t.Errorf("retried error %q is a cause line", c)
		}
	}
}

// TestRetryNotice: notices of another attempt count, the last attempt and
// the scripts that print notices do not.
func TestRetryNotice(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"apply attempt 1/6 did not succeed, sleeping 10s", true},
		{"karmadactl join cell-1: attempt 2/5 failed, retrying in 10s", true},
		{"WARNING: Retrying (Retry(total=4, connect=None)) after connection broken", true},
		{"npm WARN retry will retry, error on last attempt: Error: ECONNRESET", true},
		{"attempt 5/5 failed, giving up", false},
		{`  echo "apply attempt ${attempt}/6 did not succeed, sleeping 10s"`, false},
		{"error: timed out waiting for the condition", false},
	}
	for _, tc := range tests {
		if got := retryNotice(lowerASCII(nil, []byte(tc.line))); got != tc.want {
			t.Errorf("retryNotice(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

// TestScenarioTestSignatures reads the karmada chainsaw runs in place: runs
// failing in one test share a signature, runs failing in different tests do
// not, and the signature never names the parent "chainsaw" alone.
func TestScenarioTestSignatures(t *testing.T) {
	dir := filepath.Dir(sharedScenarioLog(t, "karmada-rollout", "scenario.json"))
	logs, err := filepath.Glob(filepath.Join(dir, "logs", "*.txt"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no logs in %s: %v", dir, err)
	}
	byTest := map[string]map[string]bool{}
	for _, p := range logs {
		res := analyzeFile(t, p, Options{})
		if res.Test == "" {
			continue
		}
		if res.Test == "chainsaw" {
			t.Errorf("%s: test is the parent %q", filepath.Base(p), res.Test)
		}
		if byTest[res.Test] == nil {
			byTest[res.Test] = map[string]bool{}
		}
		byTest[res.Test][res.SignatureID] = true
	}
	seen := map[string]string{}
	for test, ids := range byTest {
		if len(ids) != 1 {
			t.Errorf("test %s has %d signatures, want 1", test, len(ids))
		}
		for id := range ids {
			if other, ok := seen[id]; ok {
				t.Errorf("tests %s and %s share signature %s", test, other, id)
			}
			seen[id] = test
		}
	}
	if len(byTest) < 2 {
		t.Errorf("failing tests found: %v; want several", byTest)
	}
}

func analyzeTests(t *testing.T, name string, edit *strings.Replacer) *Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tests", name))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if edit != nil {
		text = edit.Replace(text)
	}
	res, err := Analyze(strings.NewReader(text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func hasCauseLine(res *Result, s string) bool {
	for _, l := range res.Lines {
		if l.Role == RoleCause && strings.Contains(l.Text, s) {
			return true
		}
	}
	return false
}
