package patch

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// FileEdit is the whole old and new content of one file a patch changes. A nil
// Old creates the file; a nil New deletes it.
type FileEdit struct {
	Path string
	Old  []byte
	New  []byte
}

// ErrNoChange is returned by Build when no edit changes anything.
var ErrNoChange = errors.New("patch changes nothing")

// Build validates every edit, then returns the patch with its unified diff and
// per-file counts. Edits that change nothing are dropped; a patch with no
// remaining edit is ErrNoChange. Two edits of one path are an error.
func Build(title, rationale string, edits []FileEdit) (*Patch, error) {
	p := &Patch{Title: title, Rationale: rationale}
	seen := make(map[string]bool, len(edits))
	var diff strings.Builder
	for _, e := range edits {
		if seen[e.Path] {
			return nil, fmt.Errorf("build patch %q: %s edited twice", title, e.Path)
		}
		seen[e.Path] = true
		if e.Old != nil && e.New != nil && bytes.Equal(e.Old, e.New) {
			continue
		}
		if err := Validate(e.Path, e.Old, e.New); err != nil {
			return nil, fmt.Errorf("build patch %q: %w", title, err)
		}
		d := UnifiedDiff(e.Path, e.Old, e.New)
		diff.WriteString(d)
		fc := countOne(d)
		fc.Path = e.Path
		p.Files = append(p.Files, fc)
	}
	if len(p.Files) == 0 {
		return nil, fmt.Errorf("build patch %q: %w", title, ErrNoChange)
	}
	p.Diff = diff.String()
	return p, nil
}

// BuildIn is Build for a repository given as an fs.FS: it also checks that no
// path passes through a symbolic link and that each edit's Old is the file's
// current content (nil for a file that does not exist yet).
func BuildIn(repo fs.FS, title, rationale string, edits []FileEdit) (*Patch, error) {
	for _, e := range edits {
		if err := CheckPathIn(repo, e.Path); err != nil {
			return nil, fmt.Errorf("build patch %q: %w", title, err)
		}
		cur, err := fs.ReadFile(repo, e.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if e.Old != nil {
				return nil, fmt.Errorf("build patch %q: %s does not exist in the repository", title, e.Path)
			}
		case err != nil:
			return nil, fmt.Errorf("build patch %q: read %s: %w", title, e.Path, err)
		case e.Old == nil:
			return nil, fmt.Errorf("build patch %q: %s already exists", title, e.Path)
		case !bytes.Equal(cur, e.Old):
			return nil, fmt.Errorf("build patch %q: %s differs from the repository's copy", title, e.Path)
		}
	}
	return Build(title, rationale, edits)
}

// Count returns the added and removed line counts of every file in a unified
// diff, in the order the files appear. Header lines are not counted, and
// hunk lengths are honoured, so a removed line that starts with "--" is still
// counted as removed.
func Count(diff string) []FileChange {
	var out []FileChange
	for _, chunk := range splitFiles(diff) {
		fc := countOne(chunk)
		if fc.Path == "" {
			continue
		}
		out = append(out, fc)
	}
	return out
}

// splitFiles cuts a multi-file diff at each "diff --git" line.
func splitFiles(diff string) []string {
	var chunks []string
	start := -1
	for off := 0; off < len(diff); {
		end := strings.IndexByte(diff[off:], '\n')
		if end < 0 {
			end = len(diff) - off
		}
		if strings.HasPrefix(diff[off:], "diff --git ") {
			if start >= 0 {
				chunks = append(chunks, diff[start:off])
			}
			start = off
		}
		off += end + 1
	}
	if start >= 0 {
		chunks = append(chunks, diff[start:])
	}
	if len(chunks) == 0 {
		return splitPlain(diff)
	}
	return chunks
}

// splitPlain cuts a diff without "diff --git" lines at each "--- " header
// that a "+++ " header follows.
func splitPlain(diff string) []string {
	lines := strings.SplitAfter(diff, "\n")
	var chunks []string
	var cur strings.Builder
	for i, l := range lines {
		if strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") && cur.Len() > 0 {
			chunks = append(chunks, cur.String())
			cur.Reset()
		}
		cur.WriteString(l)
	}
	if cur.Len() > 0 {
		chunks = append(chunks, cur.String())
	}
	return chunks
}

// countOne counts the lines of one file's diff and reads its path from the
// +++ header (or the --- header for a deletion).
func countOne(d string) FileChange {
	var fc FileChange
	oldLeft, newLeft := 0, 0
	for _, line := range strings.Split(d, "\n") {
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(line, "+"):
				fc.Added++
				newLeft--
			case strings.HasPrefix(line, "-"):
				fc.Removed++
				oldLeft--
			case strings.HasPrefix(line, " "), line == "":
				oldLeft--
				newLeft--
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "+++ "):
			if p := headerPath(line[4:], "b/"); p != "" {
				fc.Path = p
			}
		case strings.HasPrefix(line, "--- "):
			if p := headerPath(line[4:], "a/"); p != "" && fc.Path == "" {
				fc.Path = p
			}
		case strings.HasPrefix(line, "@@ "):
			oldLeft, newLeft = hunkCounts(line)
		}
	}
	return fc
}

// headerPath strips the a/ or b/ prefix (and git's quoting) from a ---/+++
// header name; /dev/null gives "".
func headerPath(name, prefix string) string {
	name = strings.TrimRight(name, "\r")
	if i := strings.IndexByte(name, '\t'); i >= 0 {
		name = name[:i]
	}
	if strings.HasPrefix(name, `"`) {
		if u, err := unquoteC(name); err == nil {
			name = u
		}
	}
	if name == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(name, prefix)
}

// unquoteC undoes git's C-style path quoting (octal and simple escapes).
func unquoteC(q string) (string, error) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", fmt.Errorf("not a quoted name: %s", q)
	}
	q = q[1 : len(q)-1]
	var sb strings.Builder
	for i := 0; i < len(q); i++ {
		if q[i] != '\\' || i+1 == len(q) {
			sb.WriteByte(q[i])
			continue
		}
		i++
		switch c := q[i]; {
		case c >= '0' && c <= '7' && i+2 < len(q):
			v, err := strconv.ParseUint(q[i:i+3], 8, 8)
			if err != nil {
				return "", fmt.Errorf("bad octal escape in %s: %w", q, err)
			}
			sb.WriteByte(byte(v))
			i += 2
		case c == 't':
			sb.WriteByte('\t')
		case c == 'n':
			sb.WriteByte('\n')
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), nil
}

// hunkCounts reads the old and new line counts from a hunk header.
func hunkCounts(header string) (int, int) {
	fields := strings.Fields(header)
	if len(fields) < 3 {
		return 0, 0
	}
	return rangeCount(fields[1]), rangeCount(fields[2])
}

// rangeCount reads the count of "-start,count" (count defaults to 1).
func rangeCount(r string) int {
	r = r[1:]
	_, count, ok := strings.Cut(r, ",")
	if !ok {
		return 1
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
