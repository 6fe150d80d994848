//go:build browser

package browser

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// accessibility checks labelled controls, the skip link and focus styles
// with the keyboard, time localisation, and the contrast of text.
func accessibility(t *testing.T, ctx context.Context, s site) {
	repo := s.seeded.Repos[0]
	pages := []string{"/", "/repos/" + repo.FullName, "/repos/" + repo.FullName + "/classes/" + s.seeded.FixedClass,
		fmt.Sprintf("/repos/%s/diagnoses/%d", repo.FullName, s.seeded.Diagnoses[repo.ID][0])}
	for _, p := range pages {
		do(t, ctx, "open "+p, chromedp.Navigate(s.url+p), chromedp.WaitReady(chromedp.CSS("main")))
		unlabelled := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("input:not([type=hidden]), select, textarea, button"))
			.filter(el => !(el.labels && el.labels.length) && !el.getAttribute("aria-label") && !(el.tagName === "BUTTON" && el.textContent.trim()))
			.map(el => el.outerHTML.slice(0, 80))`)
		if len(unlabelled) > 0 {
			t.Errorf("%s: controls without a label: %v", p, unlabelled)
		}
		unnamed := eval[int](t, ctx, `Array.from(document.querySelectorAll("svg.chart, svg.sparkline"))
			.filter(el => el.getAttribute("role") !== "img" || !(el.getAttribute("aria-label") || el.getAttribute("aria-labelledby"))).length`)
		if unnamed > 0 {
			t.Errorf("%s: %d charts without role=img and a name", p, unnamed)
		}
		checkContrast(t, ctx, p)
	}
	keyboard(t, ctx, s.url+"/repos/"+repo.FullName)
	localTimes(t, ctx)
}

// keyboard checks that Tab first reaches a visible skip link with a focus
// outline, and that it moves focus to the main content.
func keyboard(t *testing.T, ctx context.Context, url string) {
	type focus struct {
		Class   string  `json:"class"`
		Outline string  `json:"outline"`
		Left    float64 `json:"left"`
	}
	do(t, ctx, "open "+url, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("main")), chromedp.KeyEvent(kb.Tab))
	first := eval[focus](t, ctx, `(() => { const el = document.activeElement; const cs = getComputedStyle(el);
		return {class: el.className, outline: cs.outlineStyle + " " + cs.outlineWidth, left: el.getBoundingClientRect().left}; })()`)
	do(t, ctx, "follow the skip link", chromedp.KeyEvent(kb.Enter))
	after := eval[string](t, ctx, `document.activeElement.id || location.hash`)
	if first.Class != "skip" || first.Left < 0 || strings.HasPrefix(first.Outline, "none") {
		t.Errorf("first Tab: focus on %q at x=%.0f with outline %q, want the visible skip link with an outline", first.Class, first.Left, first.Outline)
	}
	if after != "main" && after != "#main" {
		t.Errorf("the skip link moved focus to %q, want main", after)
	}
	var reached []string
	for range 12 {
		do(t, ctx, "press Tab", chromedp.KeyEvent(kb.Tab))
		reached = append(reached, eval[string](t, ctx, `document.activeElement.tagName + (document.activeElement.id ? "#" + document.activeElement.id : "")`))
	}
	if !strings.Contains(strings.Join(reached, " "), "SELECT#days") {
		t.Errorf("Tab from the main content did not reach the days control: %v", reached)
	}
}

// localTimes checks that <time> shows the viewer's zone (Europe/Berlin here).
func localTimes(t *testing.T, ctx context.Context) {
	shown := eval[string](t, ctx, `document.querySelector("time[datetime]").textContent`)
	utc := eval[string](t, ctx, `document.querySelector("time[datetime]").title`)
	if !strings.HasSuffix(utc, "UTC") || shown == utc || !strings.Contains(shown, "GMT+") {
		t.Errorf("time shown as %q (UTC %q), want the viewer's zone", shown, utc)
	}
}

// checkContrast measures the text colours of a page against their
// backgrounds and wants WCAG AA's 4.5:1.
func checkContrast(t *testing.T, ctx context.Context, page string) {
	type sample struct {
		Sel string    `json:"sel"`
		FG  []float64 `json:"fg"`
		BG  []float64 `json:"bg"`
	}
	samples := eval[[]sample](t, ctx, `(() => {
		const rgb = s => (s.match(/[\d.]+/g) || []).map(Number);
		const bg = el => { for (; el; el = el.parentElement) { const c = rgb(getComputedStyle(el).backgroundColor);
			if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3); } return [255, 255, 255]; };
		const sels = ["body", "main p", ".muted", "main a", "th", "td", "code", ".badge", ".crumbs li", ".foot", ".legend li", "button"];
		return sels.map(sel => { const el = document.querySelector(sel); if (!el) return null;
			return {sel, fg: rgb(getComputedStyle(el).color).slice(0, 3), bg: bg(el)}; }).filter(Boolean);
	})()`)
	if len(samples) < 5 {
		t.Fatalf("%s: only %d text samples", page, len(samples))
	}
	for _, s := range samples {
		if r := contrast(s.FG, s.BG); r < 4.5 {
			t.Errorf("%s %s: contrast %.2f:1 (%v on %v), want at least 4.5:1", page, s.Sel, r, s.FG, s.BG)
		}
	}
}

// contrast is the WCAG contrast ratio of two sRGB colours.
func contrast(a, b []float64) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// luminance is the WCAG relative luminance of an sRGB colour.
func luminance(c []float64) float64 {
	if len(c) < 3 {
		return 1
	}
	lin := func(v float64) float64 {
		v /= 255
		if v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c[0]) + 0.7152*lin(c[1]) + 0.0722*lin(c[2])
}
