package demoscenario

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"time"
)

// makeLines maps a Makefile target to the line of its last recipe line,
// which make names when that line fails ("make: *** [Makefile:N: target]").
type makeLines map[string]int

// parseMakeLines reads the targets of a Makefile.
func parseMakeLines(makefile []byte) makeLines {
	out := makeLines{}
	target := ""
	sc := bufio.NewScanner(bytes.NewReader(makefile))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "\t") && target != "":
			out[target] = n
		case l == "" || strings.HasPrefix(l, "#"):
		default:
			target = ""
			if name, _, ok := strings.Cut(l, ":"); ok && !strings.ContainsAny(name, " =?") {
				target = name
			}
		}
	}
	return out
}

var goEnv = [][2]string{{"GOTOOLCHAIN", "local"}}

// testJob writes the log of the "Lint & unit tests" job.
func testJob(w *logWriter, p *plannedRun, key string, mk makeLines) {
	w.setUpJob("Lint & unit tests", []string{"actions/checkout@v4", "actions/setup-go@v5"})
	w.checkout(p, goEnv)
	w.setupGo(p, key, goEnv)
	ok := w.lint(p, mk)
	if ok {
		ok = w.unitTests(p, mk)
	} else {
		w.skip("Unit tests")
	}
	if ok {
		w.setupGoPost(p, key)
	} else {
		w.skip("Post Run actions/setup-go@v5")
	}
	w.checkoutCleanup()
	w.completeJob()
}

// lint writes the "Lint" step; it fails only on the quota pull request's
// first push.
func (w *logWriter) lint(p *plannedRun, mk makeLines) bool {
	w.begin("Lint")
	w.runHeader("make lint", goEnv)
	w.line("go vet ./...")
	w.wait(9 * time.Second)
	w.line("go run github.com/golangci/golangci-lint/cmd/golangci-lint@v1.62.2 run --timeout 5m")
	if !p.cacheHit {
		w.goDownloads("github.com/golangci/golangci-lint v1.62.2", "github.com/golangci/plugin-module-register v0.1.1",
			"github.com/golangci/go-printf-func-name v0.1.0", "honnef.co/go/tools v0.5.1", "mvdan.cc/gofumpt v0.7.0")
		w.wait(40 * time.Second)
	}
	w.wait(22 * time.Second)
	if p.outcome == lintIssue {
		w.line("internal/quota/limiter.go:47:3: ineffectual assignment to err (ineffassign)")
		w.line("\t\terr = l.store.Touch(ctx, customer)")
		w.line("\t\t^")
		w.line("make: *** [Makefile:%d: lint] Error 1", mk["lint"])
		w.errorExit(2)
		w.end("failure")
		return false
	}
	w.end("success")
	return true
}

// unitTests writes the "Unit tests" step; the month-bucketing regression
// fails internal/rollup while it is on main.
func (w *logWriter) unitTests(p *plannedRun, mk makeLines) bool {
	w.begin("Unit tests")
	w.runHeader("make test", goEnv)
	w.line("go test -race -count=1 ./...")
	fail := p.outcome == unitRegression
	for _, pkg := range goPackages {
		switch {
		case pkg.path == "internal/quota" && !p.hasQuota:
		case !pkg.tests:
			w.line("?   \tgithub.com/%s/%s\t[no test files]", fullName, pkg.path)
		case pkg.path == "internal/rollup" && fail:
			w.wait(2 * time.Second)
			w.lines(rollupFailure)
			w.line("FAIL\tgithub.com/%s/internal/rollup\t%.3fs", fullName, 0.03+0.02*w.r.Float64())
		default:
			w.goTestOK(pkg.path, 1)
		}
	}
	if fail {
		w.line("FAIL")
		w.line("make: *** [Makefile:%d: test] Error 1", mk["test"])
		w.errorExit(2)
		w.end("failure")
		return false
	}
	w.end("success")
	return true
}

const rollupFailure = `--- FAIL: TestMonthBucket (0.00s)
    --- FAIL: TestMonthBucket/auckland_last_hour_of_october (0.00s)
        bucket_test.go:64: MonthBucket(2026-10-31T11:30:00Z, "Pacific/Auckland") = 2026-10-01, want 2026-11-01
    --- FAIL: TestMonthBucket/tokyo_month_end (0.00s)
        bucket_test.go:64: MonthBucket(2026-10-31T15:10:00Z, "Asia/Tokyo") = 2026-10-01, want 2026-11-01
FAIL`

// imageJob writes the log of the "Container image" job, which always
// passes. Only its step times are kept.
func imageJob(w *logWriter, p *plannedRun) {
	w.setUpJob("Container image", []string{"actions/checkout@v4", "docker/setup-buildx-action@v3", "docker/build-push-action@v6"})
	w.checkout(p, goEnv)
	w.begin("Run docker/setup-buildx-action@v3")
	w.line("##[group]Run docker/setup-buildx-action@v3")
	w.wait(3 * time.Second)
	w.line("Using buildx version v0.19.3")
	w.end("success")
	w.begin("Build image")
	w.line("##[group]Run docker/build-push-action@v6")
	w.wait(70 * time.Second)
	w.line("#16 exporting to image")
	w.line("#16 DONE %.1fs", 0.2+w.r.Float64())
	w.end("success")
	for _, post := range []string{"Post Build image", "Post Run docker/setup-buildx-action@v3"} {
		w.begin(post)
		w.line("Post job cleanup.")
		w.wait(600 * time.Millisecond)
		w.end("success")
	}
	w.checkoutCleanup()
	w.completeJob()
}

func (p *plannedRun) describe() string {
	return fmt.Sprintf("%s %q", p.String(), p.title())
}
