package githubtest

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-github/v66/github"
)

// mapFSOf copies a directory into an in-memory file system, so that a test
// proves the simulator reads a ScenarioFS and not the disk.
func mapFSOf(t *testing.T, dir string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, p))
		m[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestScenarioFS(t *testing.T) {
	dir := filepath.Join("testdata", "tiny")
	fromDisk := startTiny(t, Options{})
	mem := mapFSOf(t, dir)
	fromFS := startTiny(t, Options{Scenarios: []string{}, ScenarioFS: []fs.FS{mem}})
	// The log is read when downloaded: change the file system after loading
	// to prove it is read from there and not from the directory.
	logName := "logs/" + itoa(tinyFailJob) + ".txt"
	want := append(bytes.Clone(mem[logName].Data), "served from the FS\n"...)
	mem[logName].Data = want

	if got := fromFS.Repositories(); len(got) != 1 || got[0] != tinyRepo {
		t.Fatalf("repositories = %v, want [%s]", got, tinyRepo)
	}
	c := installClient(t, fromFS)
	loc, _, err := c.Actions.GetWorkflowJobLogs(ctx(t), tinyOwner, tinyName, tinyFailJob, 2)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(plainGet(t, loc.String(), nil).Body)
	if !bytes.Equal(got, want) {
		t.Errorf("log served from the FS: %d bytes, want %d", len(got), len(want))
	}
	for _, path := range []string{"Taskfile.yaml", ".github/workflows/ci.yml", "scripts/e2e.sh"} {
		a, errA := fromDisk.FileAt(tinyRepo, "main", path)
		b, errB := fromFS.FileAt(tinyRepo, "main", path)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: from FS %d bytes (%v), from disk %d bytes (%v)", path, len(b), errB, len(a), errA)
		}
	}
	runs, _, err := c.Actions.ListRepositoryWorkflowRuns(ctx(t), tinyOwner, tinyName, &github.ListWorkflowRunsOptions{})
	if err != nil || runs.GetTotalCount() == 0 {
		t.Errorf("list runs from the FS: %v (%d runs)", err, runs.GetTotalCount())
	}
}

func TestScenarioFSErrors(t *testing.T) {
	full := mapFSOf(t, filepath.Join("testdata", "tiny"))
	without := func(name string) fstest.MapFS {
		m := fstest.MapFS{}
		for k, v := range full {
			if k != name {
				m[k] = v
			}
		}
		return m
	}
	broken := without("runs.json")
	broken["runs.json"] = &fstest.MapFile{Data: []byte("{")}
	cases := []struct {
		name string
		fsys fs.FS
		want string
	}{
		{"no scenario.json", without("scenario.json"), "ScenarioFS[0]/scenario.json"},
		{"malformed runs.json", broken, "parse ScenarioFS[0]/runs.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(Options{ScenarioFS: []fs.FS{tc.fsys}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
