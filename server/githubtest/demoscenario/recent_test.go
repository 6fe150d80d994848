package demoscenario

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/causal/diagnosis"
)

func TestNewestRunIsTheTrigger(t *testing.T) {
	g := &generated{runs: plan()}
	if got := g.trigger().created.Truncate(24 * time.Hour); !got.Equal(newestRun) {
		t.Errorf("newestRun = %s, but the trigger ran on %s", newestRun.Format(time.DateOnly), got.Format(time.DateOnly))
	}
}

// historyFiles lists the files RecentFS shifts.
func historyFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (p == "runs.json" || strings.HasPrefix(p, "jobs/") || strings.HasPrefix(p, "logs/")) {
			out = append(out, p)
		}
		return err
	})
	if err != nil || len(out) < 50 {
		t.Fatalf("history files: %v (%d)", err, len(out))
	}
	return out
}

func TestRecentFS(t *testing.T) {
	cases := []struct {
		name      string
		now       time.Time
		unchanged bool
	}{
		{"the day after the newest run", newestRun.Add(24*time.Hour + 10*time.Hour), true},
		{"months later", time.Date(2027, 3, 15, 9, 30, 0, 0, time.UTC), false},
		{"before the history", time.Date(2026, 1, 10, 23, 0, 0, 0, time.UTC), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			shifted := RecentFS(tc.now)
			for _, name := range historyFiles(t) {
				a, _ := fs.ReadFile(FS(), name)
				b, err := fs.ReadFile(shifted, name)
				if err != nil || len(a) != len(b) || bytes.Count(a, []byte("\n")) != bytes.Count(b, []byte("\n")) {
					t.Fatalf("%s: %v; %d bytes and %d lines, want %d and %d", name, err, len(b), bytes.Count(b, []byte("\n")), len(a), bytes.Count(a, []byte("\n")))
				}
				if bytes.Equal(a, b) != tc.unchanged {
					t.Errorf("%s: unchanged = %v, want %v", name, bytes.Equal(a, b), tc.unchanged)
				}
			}
			var runs struct {
				Runs []struct {
					CreatedAt time.Time `json:"created_at"`
				} `json:"workflow_runs"`
			}
			data, _ := fs.ReadFile(shifted, "runs.json")
			if err := json.Unmarshal(data, &runs); err != nil {
				t.Fatal(err)
			}
			want := tc.now.UTC().Truncate(24*time.Hour).AddDate(0, 0, -1)
			if got := runs.Runs[0].CreatedAt.Truncate(24 * time.Hour); !got.Equal(want) {
				t.Errorf("newest run on %s, want %s", got.Format(time.DateOnly), want.Format(time.DateOnly))
			}
		})
	}
}

// TestRecentFSLogs checks what a shifted log says: the line times, goose's
// and postgres's times move together; a test's input times do not.
func TestRecentFSLogs(t *testing.T) {
	shifted := RecentFS(time.Date(2027, 3, 15, 9, 30, 0, 0, time.UTC))
	var sawGoose, sawPostgres, sawTest bool
	for _, name := range historyFiles(t) {
		if !strings.HasPrefix(name, "logs/") {
			continue
		}
		b, _ := fs.ReadFile(shifted, name)
		for _, l := range strings.Split(string(b), "\n") {
			switch {
			case strings.Contains(l, " goose run: "):
				sawGoose = true
				if l[:10] != strings.ReplaceAll(l[29:39], "/", "-") {
					t.Errorf("goose's time and the line's differ: %q", l)
				}
			case strings.Contains(l, " UTC [1] LOG:  database system is ready"):
				sawPostgres = !strings.Contains(l, " 2026-")
			case strings.Contains(l, "MonthBucket(2026-10-31T"):
				sawTest = true
			}
		}
		if !strings.HasPrefix(string(b), "\ufeff2027-") && !strings.HasPrefix(string(b), "\ufeff2026-") {
			t.Errorf("%s does not start with a BOM and a time: %q", name, b[:20])
		}
	}
	if !sawGoose || !sawPostgres || !sawTest {
		t.Errorf("goose %v, postgres shifted %v, test input kept %v; want all", sawGoose, sawPostgres, sawTest)
	}
}

// TestRecentFSDiagnosis checks the shifted history diagnoses as the
// generated one does.
func TestRecentFSDiagnosis(t *testing.T) {
	out, s, err := diagnosis.DiagnoseScenario(RecentFS(time.Date(2027, 3, 15, 9, 30, 0, 0, time.UTC)), diagnosis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, x := out.Diagnosis, s.Expect
	if d.Window.Runs != *x.Window.Runs || d.Window.Failed != *x.Window.Failed || d.Clusters[0].Count != *x.TriggerClusterCount ||
		d.Verdict.Kind != *x.Verdict || len(d.Clusters) != 2 {
		t.Errorf("shifted: window %d/%d, trigger class %d runs, verdict %s, %d classes; want %d/%d, %d, %s, 2",
			d.Window.Runs, d.Window.Failed, d.Clusters[0].Count, d.Verdict.Kind, len(d.Clusters),
			*x.Window.Runs, *x.Window.Failed, *x.TriggerClusterCount, *x.Verdict)
	}
	if got := d.Window.To.Format(time.DateOnly); got != "2027-03-14" {
		t.Errorf("window ends %s, want 2027-03-14", got)
	}
}
