package patch

import (
	"fmt"
	"strconv"
	"strings"
)

// contextLines is the number of unchanged lines shown around each change.
const contextLines = 3

// maxEditDistance bounds the Myers search. Past it the differing middle of the
// file is emitted as one replacement: still a correct diff, only not minimal.
const maxEditDistance = 1000

// opKind is one line of an edit script.
type opKind byte

const (
	opEqual  opKind = ' '
	opDelete opKind = '-'
	opInsert opKind = '+'
)

// edit is one line of an edit script with its 0-based positions in old and new.
type edit struct {
	kind     opKind
	old, new int
}

// UnifiedDiff returns a git-style unified diff that turns old into new for the
// file at path, with three lines of context, or "" when they are equal. A nil
// old means the file is created, a nil new that it is deleted. Lines keep their
// own terminators, so a missing final newline is reported with
// "\ No newline at end of file" exactly as git does, and CRLF files stay CRLF.
func UnifiedDiff(path string, old, new []byte) string {
	if old != nil && new != nil && string(old) == string(new) {
		return ""
	}
	if old == nil && new == nil {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	var sb strings.Builder
	from, to := headerName("a/", path), headerName("b/", path)
	sb.WriteString("diff --git " + from + " " + to + "\n")
	switch {
	case old == nil:
		sb.WriteString("new file mode 100644\n")
		from = "/dev/null"
	case new == nil:
		sb.WriteString("deleted file mode 100644\n")
		to = "/dev/null"
	}
	if len(a) == 0 && len(b) == 0 {
		// Creating or deleting an empty file: git writes no hunk at all.
		return sb.String()
	}
	sb.WriteString("--- " + from + "\n+++ " + to + "\n")
	writeHunks(&sb, a, b, diffLines(a, b))
	return sb.String()
}

// splitLines splits text into lines that keep their "\n"; the last line may
// lack one.
func splitLines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	s := string(text)
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// headerName prefixes a path for a diff header and, when it holds control
// characters, quotes, backslashes or non-ASCII bytes, C-quotes it with octal
// escapes the way git does.
func headerName(prefix, p string) string {
	full := prefix + p
	plain := true
	for i := 0; i < len(full); i++ {
		if c := full[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			plain = false
			break
		}
	}
	if plain {
		return full
	}
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(full); i++ {
		switch c := full[i]; {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c == '\t':
			sb.WriteString(`\t`)
		case c == '\n':
			sb.WriteString(`\n`)
		case c < 0x20 || c >= 0x7f:
			sb.WriteString(fmt.Sprintf("\\%03o", c))
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// diffLines returns an edit script from a to b: common prefix and suffix are
// matched directly, the middle with Myers' algorithm bounded by
// maxEditDistance.
func diffLines(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]edit, 0, len(a)+len(b))
	for i := 0; i < pre; i++ {
		ops = append(ops, edit{opEqual, i, i})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)...)
	for i := 0; i < suf; i++ {
		ops = append(ops, edit{opEqual, len(a) - suf + i, len(b) - suf + i})
	}
	return ops
}

// myers computes a shortest edit script between a and b (offsets shifted by
// base). When the distance exceeds maxEditDistance it falls back to deleting
// all of a and inserting all of b.
func myers(a, b []string, base int) []edit {
	ia, ib := internLines(a, b)
	n, m := len(ia), len(ib)
	limit := min(n+m, maxEditDistance)
	offset := limit + 1
	v := make([]int32, 2*limit+3)
	var trace [][]int32
	for d := 0; d <= limit; d++ {
		snapshot := make([]int32, 2*d+1)
		copy(snapshot, v[offset-d:offset+d+1])
		trace = append(trace, snapshot)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = int(v[offset+k+1])
			} else {
				x = int(v[offset+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && ia[x] == ib[y] {
				x, y = x+1, y+1
			}
			v[offset+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(trace, n, m, d, base)
			}
		}
	}
	ops := make([]edit, 0, n+m)
	for i := 0; i < n; i++ {
		ops = append(ops, edit{opDelete, base + i, base})
	}
	for j := 0; j < m; j++ {
		ops = append(ops, edit{opInsert, base + n, base + j})
	}
	return ops
}

// internLines maps each distinct line to a small integer so comparisons in
// the search loop are cheap.
func internLines(a, b []string) ([]int, []int) {
	ids := make(map[string]int, len(a)+len(b))
	conv := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	return conv(a), conv(b)
}

// backtrack walks the saved frontiers from (n, m) back to the origin and
// returns the edit script in forward order. trace[d] holds the frontier as it
// was before round d, for diagonals -d..d.
func backtrack(trace [][]int32, n, m, dEnd, base int) []edit {
	var rev []edit
	x, y := n, m
	for d := dEnd; d > 0; d-- {
		prev := trace[d]
		at := func(k int) int { return int(prev[k+d]) }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, edit{opEqual, base + x, base + y})
		}
		if x == prevX {
			rev = append(rev, edit{opInsert, base + x, base + prevY})
		} else {
			rev = append(rev, edit{opDelete, base + prevX, base + y})
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, edit{opEqual, base + x, base + y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// writeHunks groups the edit script into hunks with contextLines of context
// and writes them.
func writeHunks(sb *strings.Builder, a, b []string, ops []edit) {
	for start := 0; start < len(ops); {
		first := nextChange(ops, start)
		if first < 0 {
			return
		}
		lo := max(first-contextLines, start)
		hi := first
		for {
			hi = lastOfRun(ops, hi)
			next := nextChange(ops, hi+1)
			if next < 0 || next-hi-1 > 2*contextLines {
				break
			}
			hi = next
		}
		end := min(hi+contextLines+1, len(ops))
		writeHunk(sb, a, b, ops[lo:end])
		start = end
	}
}

// nextChange returns the index of the first non-equal op at or after i, or -1.
func nextChange(ops []edit, i int) int {
	for ; i < len(ops); i++ {
		if ops[i].kind != opEqual {
			return i
		}
	}
	return -1
}

// lastOfRun returns the index of the last op of the run of changes at i.
func lastOfRun(ops []edit, i int) int {
	for i+1 < len(ops) && ops[i+1].kind != opEqual {
		i++
	}
	return i
}

// writeHunk writes one hunk header and its lines.
func writeHunk(sb *strings.Builder, a, b []string, ops []edit) {
	oldStart, newStart := ops[0].old, ops[0].new
	oldCount, newCount := 0, 0
	for _, op := range ops {
		if op.kind != opInsert {
			oldCount++
		}
		if op.kind != opDelete {
			newCount++
		}
	}
	sb.WriteString("@@ -" + hunkRange(oldStart, oldCount) + " +" + hunkRange(newStart, newCount) + " @@\n")
	for _, op := range ops {
		var line string
		if op.kind == opInsert {
			line = b[op.new]
		} else {
			line = a[op.old]
		}
		sb.WriteByte(byte(op.kind))
		sb.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats one side of a hunk header: 1-based start and count, with
// the start of an empty range naming the line before it, as diff does.
func hunkRange(start0, count int) string {
	if count == 0 {
		return strconv.Itoa(start0) + ",0"
	}
	if count == 1 {
		return strconv.Itoa(start0 + 1)
	}
	return strconv.Itoa(start0+1) + "," + strconv.Itoa(count)
}
