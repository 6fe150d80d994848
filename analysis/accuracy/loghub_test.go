package accuracy

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis"
)

// loghubSystems are the 16 Loghub-2k systems.
var loghubSystems = []string{"Android", "Apache", "BGL", "HDFS", "HPC", "Hadoop", "HealthApp", "Linux", "Mac", "OpenSSH", "OpenStack", "Proxifier", "Spark", "Thunderbird", "Windows", "Zookeeper"}

// readStructured returns the Content and EventId columns of a Loghub
// structured CSV.
func readStructured(t *testing.T, path string) (contents, events []string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ci, ei := -1, -1
	for i, h := range rows[0] {
		switch h {
		case "Content":
			ci = i
		case "EventId":
			ei = i
		}
	}
	if ci < 0 || ei < 0 {
		t.Fatalf("%s: no Content/EventId columns", path)
	}
	for _, row := range rows[1:] {
		contents = append(contents, row[ci])
		events = append(events, row[ei])
	}
	return contents, events
}

// groupingAccuracy is the logparser GA: a message counts when the set of
// messages of its predicted group equals the set of its true group.
func groupingAccuracy(pred []int, truth []string) float64 {
	truthSize := map[string]int{}
	for _, e := range truth {
		truthSize[e]++
	}
	members := map[int][]int{}
	for i, p := range pred {
		members[p] = append(members[p], i)
	}
	correct := 0
	for _, idx := range members {
		label := truth[idx[0]]
		same := true
		for _, i := range idx {
			if truth[i] != label {
				same = false
				break
			}
		}
		if same && truthSize[label] == len(idx) {
			correct += len(idx)
		}
	}
	return float64(correct) / float64(len(truth))
}

// loghubGA mines each system's messages with one configuration and returns
// the GA per system against the given ground-truth file suffix.
func loghubGA(t *testing.T, shared, suffix string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range loghubSystems {
		path := filepath.Join(shared, "data", "loghub-2k", s, s+"_2k.log_structured"+suffix+".csv")
		contents, events := readStructured(t, path)
		m := analysis.NewMiner(0)
		pred := make([]int, len(contents))
		for i, c := range contents {
			pred[i] = m.Add(c)
		}
		out[s] = groupingAccuracy(pred, events)
	}
	return out
}

func loghubRows(t *testing.T, shared string) []row {
	var rows []row
	for _, gt := range []struct{ suffix, name, ref, metric string }{
		{"", "original GT", "Drain per-system settings 0.865 (Go port 0.860)", "loghub-ga"},
		{"_corrected", "corrected GT", "Go Drain port 0.862", "loghub-ga-corrected"},
	} {
		ga := loghubGA(t, shared, gt.suffix)
		var sum float64
		var parts []string
		keys := make([]string, 0, len(ga))
		for k := range ga {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sum += ga[k]
			parts = append(parts, fmt.Sprintf("%s %.2f", k, ga[k]))
		}
		set := "Loghub-2k (16 systems)"
		mean := sum / float64(len(ga))
		rows = append(rows, row{set: set, measure: "grouping accuracy, one configuration, " + gt.name, got: f3(mean), reference: gt.ref, metric: gt.metric, value: mean})
		if debug("loghub") || gt.suffix == "" {
			rows = append(rows, row{set: set, measure: "GA per system, " + gt.name, got: strings.Join(parts, ", ")})
		}
	}
	return rows
}
