package scenariotest

import (
	"bytes"
	"fmt"
	"strings"
)

const (
	// diffLines is how many changed lines of each side Diff shows.
	diffLines = 8
	// diffContext is how many equal lines Diff shows before the change.
	diffContext = 2
	// diffWidth is how much of a long line Diff shows.
	diffWidth = 160
)

// Diff returns a short line diff of want and got: the lines from the first
// that differs to the last, at most diffLines of each side, prefixed "-"
// (want) and "+" (got), after a little context. Long lines are cut to the
// part around their first difference.
func Diff(want, got []byte) string {
	if bytes.Equal(want, got) {
		return "(no difference)"
	}
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	first := 0
	for first < len(w) && first < len(g) && w[first] == g[first] {
		first++
	}
	tail := 0
	for tail < len(w)-first && tail < len(g)-first && w[len(w)-1-tail] == g[len(g)-1-tail] {
		tail++
	}
	ws, gs := w[first:len(w)-tail], g[first:len(g)-tail]
	at := 0
	if len(ws) > 0 && len(gs) > 0 {
		at = firstDifference(ws[0], gs[0])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "@@ line %d @@\n", first+1)
	for _, l := range w[max(0, first-diffContext):first] {
		b.WriteString("  " + clip(l, 0) + "\n")
	}
	writeSide(&b, "-", ws, at)
	writeSide(&b, "+", gs, at)
	return strings.TrimSuffix(b.String(), "\n")
}

func writeSide(b *strings.Builder, mark string, lines []string, at int) {
	for i, l := range lines {
		if i == diffLines {
			fmt.Fprintf(b, "%s … %d more lines\n", mark, len(lines)-i)
			return
		}
		b.WriteString(mark + " " + clip(l, at) + "\n")
	}
}

// firstDifference is the byte offset where a and b first differ.
func firstDifference(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// clip cuts a long line to diffWidth bytes around offset at.
func clip(l string, at int) string {
	if len(l) <= diffWidth {
		return l
	}
	start := max(0, min(at-diffWidth/2, len(l)-diffWidth))
	out := l[start : start+diffWidth]
	if start > 0 {
		out = "…" + out
	}
	if start+diffWidth < len(l) {
		out += "…"
	}
	return strings.ToValidUTF8(out, "")
}
