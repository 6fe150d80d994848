package analysis

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

// TestExplainLogChunks is a development aid: with POLYLANE_EXPLAIN=1 it
// reports, for the LogChunks logs, whether any candidate block overlaps the
// labelled chunk and at which rank the best overlapping block sits.
func TestExplainLogChunks(t *testing.T) {
	if os.Getenv("POLYLANE_EXPLAIN") == "" {
		t.Skip("set POLYLANE_EXPLAIN=1")
	}
	home, _ := os.UserCacheDir()
	dir := filepath.Join(home, "polylane", "logchunks")
	f, err := os.Open(scenariotest.Path(t, "data", "logchunks", "labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	ranks := map[int]int{}
	total := 0
	for sc.Scan() {
		var l struct {
			Log   string `json:"log"`
			Start int    `json:"chunk_start_line"`
			End   int    `json:"chunk_end_line"`
		}
		json.Unmarshal(sc.Bytes(), &l)
		if l.Start == 0 {
			continue
		}
		total++
		rank, reg, all := explainBlocks(t, filepath.Join(dir, l.Log), l.Start, l.End)
		ranks[min(rank, 5)]++
		if os.Getenv("POLYLANE_EXPLAIN") == "v" && rank != 0 {
			fmt.Printf("== %s gold %d-%d region %d-%d rank %d\n", l.Log, l.Start, l.End, reg.first, reg.last, rank)
			for i, x := range all {
				if i > 5 {
					break
				}
				bl := x.b.lines[x.b.best]
				fmt.Printf("   %3d [%d-%d] %s %.100q\n", x.score, x.b.first, x.b.last, bl.feat.class, bl.text)
			}
		}
	}
	t.Logf("total %d; rank of first overlapping block: %v (-1 = none)", total, ranks)
}

// scoredBlock is a candidate block with its final score.
type scoredBlock struct {
	b     *block
	score int
}

// explainBlocks localises one log and returns the rank of the first block
// overlapping lines start..end (-1 when none), the region and all blocks.
func explainBlocks(t *testing.T, path string, start, end int) (int, region, []scoredBlock) {
	lf, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	s := NewScanner(lf, Options{})
	z := newLocalizer(nil)
	for s.Scan() {
		z.observe(s.n, s.clean, s.line.Kind, s.header, len(s.steps.spans)-1)
	}
	z.close()
	reg := z.failureRegion(s.n, s.steps.spans)
	var all []scoredBlock
	for _, b := range z.blocks {
		all = append(all, scoredBlock{b, z.blockScore(b, reg, s.steps.spans)})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	for i, x := range all {
		if x.b.first <= end && x.b.last >= start {
			return i, reg, all
		}
	}
	return -1, reg, all
}

// TestExplainFile prints the analysis of the log named by POLYLANE_EXPLAIN_LOG
// (a development aid).
func TestExplainFile(t *testing.T) {
	path := os.Getenv("POLYLANE_EXPLAIN_LOG")
	if path == "" {
		t.Skip("set POLYLANE_EXPLAIN_LOG=path")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Analyze(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res.Steps = nil
	out, _ := json.MarshalIndent(res, "", " ")
	fmt.Println(string(out))
}

// TestExplainMiner prints the templates mined from one Loghub system named by
// POLYLANE_EXPLAIN_MINER (a development aid).
func TestExplainMiner(t *testing.T) {
	sys := os.Getenv("POLYLANE_EXPLAIN_MINER")
	if sys == "" {
		t.Skip("set POLYLANE_EXPLAIN_MINER=System")
	}
	f, err := os.Open(scenariotest.Path(t, "data", "loghub-2k", sys, sys+"_2k.log_structured.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	rows, _ := r.ReadAll()
	ci := 0
	for i, h := range rows[0] {
		if h == "Content" {
			ci = i
		}
	}
	m := NewMiner(0)
	count := map[int]int{}
	for _, row := range rows[1:] {
		count[m.Add(row[ci])]++
	}
	for id := 0; id < m.Len(); id++ {
		fmt.Printf("%5d %s\n", count[id], m.Template(id))
	}
}
