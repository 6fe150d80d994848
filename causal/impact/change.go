package impact

import (
	"path"
	"strconv"
	"strings"
)

// Change is one file a patch changes. Lines are the 1-based lines of the
// original file that the change touches (removed lines, and the lines either
// side of an insertion); nil means the whole file, or a new file.
type Change struct {
	Path  string
	Lines []int
}

// ChangesFromDiff reads the files and touched original lines of a unified
// diff (as patch.UnifiedDiff writes it).
func ChangesFromDiff(diff string) []Change {
	var out []Change
	var cur *Change
	created := false
	oldLine, oldLeft, newLeft := 0, 0, 0
	for _, line := range strings.Split(diff, "\n") {
		if cur != nil && (oldLeft > 0 || newLeft > 0) {
			switch {
			case strings.HasPrefix(line, "-"):
				cur.Lines = appendLine(cur.Lines, oldLine)
				oldLine++
				oldLeft--
			case strings.HasPrefix(line, "+"):
				if !created {
					cur.Lines = appendLine(appendLine(cur.Lines, oldLine-1), oldLine)
				}
				newLeft--
			case strings.HasPrefix(line, `\`):
			default:
				oldLine++
				oldLeft--
				newLeft--
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			out = append(out, Change{})
			cur, created = &out[len(out)-1], false
		case cur != nil && strings.HasPrefix(line, "--- "):
			cur.Path = diffPath(line[4:], "a/")
		case cur != nil && strings.HasPrefix(line, "+++ "):
			if p := diffPath(line[4:], "b/"); p != "" {
				cur.Path = p
			}
		case cur != nil && strings.HasPrefix(line, "new file mode"):
			created = true
		case cur != nil && strings.HasPrefix(line, "@@ "):
			oldLine, oldLeft, newLeft = hunkHeader(line)
		}
	}
	kept := out[:0]
	for _, c := range out {
		if c.Path != "" {
			kept = append(kept, c)
		}
	}
	return kept
}

// appendLine adds a positive line number once.
func appendLine(lines []int, n int) []int {
	if n < 1 {
		return lines
	}
	for _, l := range lines {
		if l == n {
			return lines
		}
	}
	return append(lines, n)
}

// diffPath reads a path from a ---/+++ header; /dev/null gives "".
func diffPath(name, prefix string) string {
	name = strings.TrimRight(name, "\r")
	if i := strings.IndexByte(name, '\t'); i >= 0 {
		name = name[:i]
	}
	if strings.HasPrefix(name, `"`) {
		if u, err := strconv.Unquote(name); err == nil {
			name = u
		}
	}
	if name == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(name, prefix)
}

// hunkHeader reads the old start and both counts of "@@ -a,b +c,d @@".
func hunkHeader(h string) (start, oldCount, newCount int) {
	f := strings.Fields(h)
	if len(f) < 3 {
		return 0, 0, 0
	}
	start, oldCount = hunkRange(f[1])
	_, newCount = hunkRange(f[2])
	if oldCount == 0 {
		start++ // an empty old range names the line before the insertion
	}
	return start, oldCount, newCount
}

// hunkRange reads "-start,count" (count defaults to 1).
func hunkRange(r string) (int, int) {
	s, c, ok := strings.Cut(r[1:], ",")
	start, _ := strconv.Atoi(s)
	count := 1
	if ok {
		count, _ = strconv.Atoi(c)
	}
	return start, count
}

// touches reports whether the change touches any line in [from, to]. A change
// without lines touches everything.
func (c Change) touches(from, to int) bool {
	if len(c.Lines) == 0 {
		return true
	}
	for _, l := range c.Lines {
		if l >= from && l <= to {
			return true
		}
	}
	return false
}

// within returns p relative to dir when p is inside dir ("." is the root).
func within(dir, p string) (string, bool) {
	dir = path.Clean(dir)
	if dir == "." || dir == "" {
		return p, true
	}
	rel, ok := strings.CutPrefix(p, dir+"/")
	return rel, ok
}
