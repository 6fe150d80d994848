//go:build browser

package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
	"github.com/polylane/polylane/server/dashboard/dashboardtest"
)

// do runs steps that return nothing, failing the test on an error.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates JavaScript in the page and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, expr string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, opts...))
	if err != nil {
		t.Fatalf("evaluate %.60q: %v", expr, err)
	}
	return v
}

// setTimezone makes the page see the given time zone.
func setTimezone(zone string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone})
		return chromedp.Void{}, err
	}
}

// TestDashboardInChromium walks the dashboard as a person would.
func TestDashboardInChromium(t *testing.T) {
	s := startSite(t)
	ctx := newBrowser(t)
	out := artifacts(t)
	do(t, ctx, "set the time zone", setTimezone("Europe/Berlin"))
	repo := s.seeded.Repos[0]

	t.Run("SignIn", func(t *testing.T) {
		do(t, ctx, "sign in through the simulator",
			chromedp.Navigate(s.url+"/"),
			chromedp.WaitVisible(chromedp.CSS(`a.button`)),
			chromedp.Click(chromedp.CSS(`a.button`)),
			chromedp.WaitVisible(chromedp.CSS(`.who strong`)))
		if login := eval[string](t, ctx, `document.querySelector(".who strong").textContent`); login != "octocat" {
			t.Fatalf("signed in as %q", login)
		}
		body := eval[string](t, ctx, `document.querySelector("main").innerText`)
		if !strings.Contains(body, repo.FullName) || strings.Contains(body, "globex") {
			t.Fatalf("overview shows the wrong repositories:\n%.400s", body)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll("svg.sparkline[role=img][aria-label]").length`); n != 4 {
			t.Fatalf("%d labelled sparklines, want 4 (2 repositories x 2 workflows)", n)
		}
		screenshot(t, ctx, out, "overview")
	})

	t.Run("RepositoryChart", func(t *testing.T) {
		do(t, ctx, "open the repository", chromedp.Navigate(s.url+"/repos/"+repo.FullName),
			chromedp.WaitVisible(chromedp.CSS(`svg.chart`)))
		type chart struct {
			ID      string `json:"id"`
			Days    int    `json:"days"`
			DayAttr int    `json:"dayAttr"`
			Classes int    `json:"classes"`
			Legend  int    `json:"legend"`
			Keys    int    `json:"keys"`
		}
		charts := eval[[]chart](t, ctx, `Array.from(document.querySelectorAll("article.workflow")).map(a => {
			const svg = a.querySelector("svg.chart");
			const keys = new Set(Array.from(svg.querySelectorAll("rect[data-key^='class:']")).map(r => r.dataset.key));
			return {id: a.dataset.workflow, days: svg.querySelectorAll("g.day").length, dayAttr: +svg.dataset.days,
				classes: +svg.dataset.classes, legend: a.querySelectorAll(".legend li[data-class]").length, keys: keys.size};
		})`)
		if len(charts) != 2 {
			t.Fatalf("%d charts, want 2", len(charts))
		}
		lede := eval[string](t, ctx, `document.querySelector(".lede").textContent`)
		m := regexp.MustCompile(`(\d{4}-\d\d-\d\d) to (\d{4}-\d\d-\d\d)`).FindStringSubmatch(lede)
		if m == nil {
			t.Fatalf("no window in %q", lede)
		}
		from, _ := time.Parse("2006-01-02", m[1])
		to, _ := time.Parse("2006-01-02", m[2])
		for i, c := range charts {
			want := s.seeded.ClassesBetween(repo.ID, s.seeded.Workflows[repo.ID][i], from, to)
			if c.Days != 30 || c.DayAttr != 30 {
				t.Errorf("workflow %s: %d day groups (data-days %d), want 30", c.ID, c.Days, c.DayAttr)
			}
			if want == 0 || c.Classes != want || c.Legend != want || c.Keys != want {
				t.Errorf("workflow %s: %d classes (legend %d, drawn %d), want %d", c.ID, c.Classes, c.Legend, c.Keys, want)
			}
		}
		screenshot(t, ctx, out, "repository")
	})

	t.Run("ClassPage", func(t *testing.T) {
		do(t, ctx, "open the fixed class",
			chromedp.Navigate(s.url+"/repos/"+repo.FullName+"/classes/"+s.seeded.FixedClass),
			chromedp.WaitVisible(chromedp.CSS(`table.effect`)),
			chromedp.WaitReady(chromedp.CSS(`body[data-mermaid="done"]`)))
		if n := eval[int](t, ctx, `document.querySelectorAll('pre.mermaid[data-mermaid="svg"] svg').length`); n != 1 {
			t.Fatalf("class page: %d rendered flowcharts, want 1", n)
		}
		screenshot(t, ctx, out, "class")
	})

	t.Run("DiagnosisFlowchart", func(t *testing.T) {
		id := s.seeded.Diagnoses[repo.ID][0]
		do(t, ctx, "open a diagnosis", chromedp.Navigate(fmt.Sprintf("%s/repos/%s/diagnoses/%d", s.url, repo.FullName, id)),
			chromedp.WaitReady(chromedp.CSS(`body[data-mermaid="done"]`)))
		type flow struct {
			SVG    int    `json:"svg"`
			Errors int    `json:"errors"`
			Nodes  int    `json:"nodes"`
			Text   string `json:"text"`
		}
		f := eval[flow](t, ctx, `({
			svg: document.querySelectorAll('pre.mermaid[data-mermaid="svg"] > svg').length,
			errors: document.querySelectorAll('[data-mermaid="error"], .error-icon').length,
			nodes: document.querySelectorAll('pre.mermaid svg g.node').length,
			text: document.querySelector('article.assessment').innerText})`)
		if f.SVG != 1 || f.Errors != 0 || f.Nodes < 3 || strings.Contains(f.Text, "Syntax error") {
			t.Fatalf("flowchart: %d svg, %d errors, %d nodes", f.SVG, f.Errors, f.Nodes)
		}
		screenshot(t, ctx, out, "diagnosis")
	})

	t.Run("ForeignInstallationIs404", func(t *testing.T) {
		foreign := fmt.Sprintf("/installations/%d", dashboardtest.FirstInstallationID+1)
		do(t, ctx, "open the overview", chromedp.Navigate(s.url+"/"))
		if st := eval[int](t, ctx, fmt.Sprintf(`fetch(%q).then(r => r.status)`, foreign), chromedp.EvalAwaitPromise); st != 404 {
			t.Fatalf("foreign installation: status %d, want 404", st)
		}
		api := "/api/v1/repos/" + s.seeded.Repos[1].FullName
		if st := eval[int](t, ctx, fmt.Sprintf(`fetch(%q).then(r => r.status)`, api), chromedp.EvalAwaitPromise); st != 404 {
			t.Fatalf("foreign repository API: status %d, want 404", st)
		}
		do(t, ctx, "open the foreign installation", chromedp.Navigate(s.url+foreign), chromedp.WaitReady(chromedp.CSS("h1")))
		if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h != "404" {
			t.Fatalf("foreign installation page says %q", h)
		}
	})

	t.Run("Accessibility", func(t *testing.T) { accessibility(t, ctx, s) })
}

// screenshot saves a full-page PNG as a test artefact; with UPDATE=1 it
// also replaces the README's copy in docs/screenshots (the demo's pages are
// artefacts only).
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if len(png) < 1000 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot %s: not a PNG (%d bytes)", name, len(png))
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if scenariotest.Updating() && !strings.HasPrefix(name, "demo-") {
		docs := filepath.Join("..", "..", "..", "docs", "screenshots")
		if err := os.MkdirAll(docs, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(docs, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
