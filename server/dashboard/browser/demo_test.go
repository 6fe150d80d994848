//go:build browser

package browser

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// startDemo builds polylane, runs `polylane demo` on a free port and
// returns the dashboard's repository URL it prints once the diagnosis is
// posted. The demo is stopped with SIGINT when the test ends.
func startDemo(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "polylane")
	build := exec.Command("go", "build", "-o", bin, "github.com/polylane/polylane/cmd/polylane")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build polylane: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "demo", "--addr", "127.0.0.1:0", "--timeout", "90s")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`Dashboard: (http://\S+)`)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case u, ok := <-found:
		if !ok {
			t.Fatal("polylane demo exited without printing the dashboard URL")
		}
		return u
	case <-time.After(150 * time.Second):
		t.Fatal("polylane demo printed no dashboard URL within 150 s")
	}
	return ""
}

// TestDemoInChromium signs in to the dashboard of `polylane demo` through
// the simulator, checks the repository's chart against its JSON, renders a
// diagnosis's flowchart and checks that another installation is a 404.
func TestDemoInChromium(t *testing.T) {
	ctx := newBrowser(t)
	repoURL := startDemo(t)
	out := artifacts(t)
	base := regexp.MustCompile(`^(http://[^/]+)(/.*)$`).FindStringSubmatch(repoURL)
	if base == nil {
		t.Fatalf("dashboard URL %q", repoURL)
	}
	do(t, ctx, "sign in", chromedp.Navigate(repoURL), chromedp.WaitVisible(chromedp.CSS(`a.button`)),
		chromedp.Click(chromedp.CSS(`a.button`)), chromedp.WaitVisible(chromedp.CSS(`svg.chart`)))
	raw := eval[string](t, ctx, `fetch("/api/v1`+base[2]+`").then(r => r.text())`, chromedp.EvalAwaitPromise)
	var api struct {
		Window    struct{ Days int }
		Workflows []struct {
			Legend []struct {
				ClassID string `json:"class_id"`
			}
		}
	}
	if err := json.Unmarshal([]byte(raw), &api); err != nil || len(api.Workflows) == 0 {
		t.Fatalf("repository JSON: %v\n%.300s", err, raw)
	}
	want := 0
	for _, l := range api.Workflows[0].Legend {
		if l.ClassID != "" {
			want++
		}
	}
	type chart struct {
		Days    int `json:"days"`
		Classes int `json:"classes"`
		Drawn   int `json:"drawn"`
	}
	c := eval[chart](t, ctx, `(() => { const svg = document.querySelector("svg.chart");
		return {days: svg.querySelectorAll("g.day").length, classes: +svg.dataset.classes,
			drawn: new Set(Array.from(svg.querySelectorAll("rect[data-key^='class:']")).map(r => r.dataset.key)).size}; })()`)
	if c.Days != 30 || api.Window.Days != 30 || want == 0 || c.Classes != want || c.Drawn != want {
		t.Fatalf("demo chart: %d days, %d classes (%d drawn); the JSON has %d days and %d classes", c.Days, c.Classes, c.Drawn, api.Window.Days, want)
	}
	screenshot(t, ctx, out, "demo-repository")

	link := eval[string](t, ctx, `(document.querySelector('a[href*="/diagnoses/"]') || {}).href || ""`)
	if link == "" {
		t.Fatal("the demo's repository page links no diagnosis")
	}
	do(t, ctx, "open the diagnosis", chromedp.Navigate(link), chromedp.WaitReady(chromedp.CSS(`body[data-mermaid="done"]`)))
	svg := eval[int](t, ctx, `document.querySelectorAll('pre.mermaid[data-mermaid="svg"] > svg').length`)
	bad := eval[int](t, ctx, `document.querySelectorAll('[data-mermaid="error"], .error-icon').length`)
	text := eval[string](t, ctx, `document.querySelector("main").innerText`)
	if svg < 1 || bad != 0 || strings.Contains(text, "Syntax error") {
		t.Fatalf("demo diagnosis: %d flowcharts as SVG, %d errors", svg, bad)
	}
	screenshot(t, ctx, out, "demo-diagnosis")

	for _, p := range []string{"/installations/999999999", "/repos/someone-else/private", "/api/v1/installations/999999999"} {
		if st := eval[int](t, ctx, `fetch("`+p+`").then(r => r.status)`, chromedp.EvalAwaitPromise); st != 404 {
			t.Errorf("GET %s in the demo: %d, want 404", p, st)
		}
	}
}
