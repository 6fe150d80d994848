package causal

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/polylane/polylane/analysis/redact"
)

// EvidenceCommit marks evidence that names a commit (a regression's first bad
// commit).
const EvidenceCommit = "commit"

// maxEvidenceText caps the text of one evidence entry.
const maxEvidenceText = 400

// evidenceSet collects the evidence of one chain with stable ids.
type evidenceSet struct {
	items []Evidence
	byKey map[string]string
	runID int64
	jobID int64
}

func newEvidenceSet(runID, jobID int64) *evidenceSet {
	return &evidenceSet{byKey: map[string]string{}, runID: runID, jobID: jobID}
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxEvidenceText {
		cut := maxEvidenceText
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		return s[:cut] + "…"
	}
	return s
}

func (e *evidenceSet) add(key string, ev Evidence) string {
	if id, ok := e.byKey[key]; ok {
		return id
	}
	ev.ID = "E" + strconv.Itoa(len(e.items)+1)
	if ev.Kind == EvidenceLog {
		// redact before clipping, so that no cut leaves part of a secret
		ev.Text = redact.String(ev.Text)
	}
	ev.Text = clip(ev.Text)
	e.items = append(e.items, ev)
	e.byKey[key] = ev.ID
	return ev.ID
}

// file cites a repository file line.
func (e *evidenceSet) file(path string, line int, text, note string) string {
	if path == "" || line <= 0 {
		return ""
	}
	return e.add(fmt.Sprintf("f:%s:%d", path, line), Evidence{Kind: EvidenceFile, File: path, Line: line, Text: text, Note: note})
}

// log cites a line of the trigger job's log.
func (e *evidenceSet) log(l logLine, note string) string {
	if l.N <= 0 {
		return ""
	}
	return e.add(fmt.Sprintf("l:%d", l.N), Evidence{Kind: EvidenceLog, RunID: e.runID, JobID: e.jobID, Line: l.N, Text: l.Text, Note: note})
}

// otherLog cites a log line of another run.
func (e *evidenceSet) otherLog(runID, jobID int64, n int, text, note string) string {
	if n <= 0 {
		return ""
	}
	return e.add(fmt.Sprintf("o:%d:%d:%d", runID, jobID, n), Evidence{Kind: EvidenceLog, RunID: runID, JobID: jobID, Line: n, Text: text, Note: note})
}

// runs cites a set of runs.
func (e *evidenceSet) runs(text, note string) string {
	return e.add("r:"+text, Evidence{Kind: EvidenceRuns, Text: text, Note: note})
}

// commit cites a commit.
func (e *evidenceSet) commit(sha, note string) string {
	return e.add("c:"+sha, Evidence{Kind: EvidenceCommit, Text: sha, Note: note})
}

// cite formats evidence ids as "(E1, E3)", skipping empty ids.
func cite(ids ...string) string {
	var keep []string
	seen := map[string]bool{}
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			keep = append(keep, id)
		}
	}
	if len(keep) == 0 {
		return ""
	}
	sort.SliceStable(keep, func(i, j int) bool { return idNum(keep[i]) < idNum(keep[j]) })
	return " (" + strings.Join(keep, ", ") + ")"
}

func idNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "E"))
	return n
}
