package patch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrDoesNotApply is wrapped by Apply when a hunk's context or removed lines
// are not found in the file: the file changed since the patch was made.
var ErrDoesNotApply = errors.New("patch does not apply")

// FileDiff is the part of a unified diff that changes one file.
type FileDiff struct {
	// Path is the file the diff produces (the +++ name); for a deletion, the
	// file it removes.
	Path string
	// Created and Deleted are set when the diff creates or deletes the file.
	Created, Deleted bool
	// Diff is this file's part of the diff, headers included.
	Diff string
}

// Files splits a unified diff (git-style or plain) into its files, in order.
// It fails when a part names no file.
func Files(diff string) ([]FileDiff, error) {
	var out []FileDiff
	for _, chunk := range splitFiles(diff) {
		fd := FileDiff{Diff: chunk}
		for _, line := range strings.SplitAfter(chunk, "\n") {
			line = strings.TrimRight(line, "\n")
			switch {
			case strings.HasPrefix(line, "@@ "):
				// headers end at the first hunk
			case strings.HasPrefix(line, "--- "):
				if headerPath(line[4:], "a/") == "" {
					fd.Created = true
				} else if fd.Path == "" {
					fd.Path = headerPath(line[4:], "a/")
				}
				continue
			case strings.HasPrefix(line, "+++ "):
				if p := headerPath(line[4:], "b/"); p != "" {
					fd.Path = p
				} else {
					fd.Deleted = true
				}
				continue
			default:
				continue
			}
			break
		}
		if fd.Path == "" {
			if strings.TrimSpace(chunk) == "" {
				continue
			}
			return nil, fmt.Errorf("diff part %d names no file", len(out)+1)
		}
		out = append(out, fd)
	}
	return out, nil
}

// hunk is one "@@" section of a file's diff.
type hunk struct {
	header   string
	oldStart int // 1-based; 0 for an insertion into an empty file
	old, new []string
}

// Apply applies one file's unified diff (as Files returns it, or the whole
// diff of a single file) to the file's current content and returns the new
// content. Like git apply without fuzz, a hunk may land some lines above or
// below the position its header names (the file gained or lost lines
// elsewhere), but its context and removed lines must match exactly;
// otherwise the error wraps ErrDoesNotApply. Lines keep their terminators,
// so CRLF files stay CRLF and "\ No newline at end of file" is honoured. A
// diff that deletes the file returns nil.
func Apply(old []byte, fileDiff string) ([]byte, error) {
	hunks, err := parseHunks(fileDiff)
	if err != nil {
		return nil, err
	}
	lines := splitLines(old)
	out := make([]string, 0, len(lines)+8)
	next := 0 // first line of old not yet copied
	delta := 0
	for i, h := range hunks {
		want := h.oldStart - 1 + delta
		if len(h.old) == 0 {
			want = h.oldStart + delta // an insertion goes after line oldStart
		}
		at, ok := locate(lines, h.old, want, next)
		if !ok {
			return nil, fmt.Errorf("hunk %d (%s): context or removed lines not found: %w", i+1, h.header, ErrDoesNotApply)
		}
		out = append(out, lines[next:at]...)
		out = append(out, h.new...)
		next = at + len(h.old)
		delta = at - (h.oldStart - 1)
		if len(h.old) == 0 {
			delta = at - h.oldStart
		}
	}
	out = append(out, lines[next:]...)
	if strings.Contains(fileDiff, "\n+++ /dev/null") || strings.HasPrefix(fileDiff, "+++ /dev/null") {
		if len(out) > 0 {
			return nil, fmt.Errorf("deletion leaves %d lines: %w", len(out), ErrDoesNotApply)
		}
		return nil, nil
	}
	return []byte(strings.Join(out, "")), nil
}

// locate finds where the old lines of a hunk start: at want if they match
// there, else at the nearest matching position at or after floor. An empty
// hunk body (a pure insertion) lands at want, clamped to the file.
func locate(lines, old []string, want, floor int) (int, bool) {
	if len(old) == 0 {
		return min(max(want, floor), len(lines)), true
	}
	last := len(lines) - len(old)
	for d := 0; ; d++ {
		below, above := want+d, want-d
		if below > last && above < floor {
			return 0, false
		}
		if below >= floor && below <= last && matchAt(lines, old, below) {
			return below, true
		}
		if d > 0 && above >= floor && above <= last && matchAt(lines, old, above) {
			return above, true
		}
	}
}

func matchAt(lines, old []string, at int) bool {
	for i, l := range old {
		if lines[at+i] != l {
			return false
		}
	}
	return true
}

// parseHunks reads the hunks of one file's diff, checking each hunk's line
// counts against its header.
func parseHunks(diff string) ([]hunk, error) {
	var hunks []hunk
	var cur *hunk
	oldLeft, newLeft := 0, 0
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		if raw == "" {
			continue
		}
		if oldLeft == 0 && newLeft == 0 {
			if !strings.HasPrefix(raw, "@@ ") {
				continue // file headers, or text between files
			}
			h, o, n, err := parseHunkHeader(strings.TrimRight(raw, "\r\n"))
			if err != nil {
				return nil, err
			}
			hunks = append(hunks, h)
			cur, oldLeft, newLeft = &hunks[len(hunks)-1], o, n
			continue
		}
		text, noEOL := raw[1:], i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ `)
		if noEOL {
			text = strings.TrimSuffix(text, "\n")
			i++
		} else if !strings.HasSuffix(text, "\n") {
			text += "\n" // the diff itself lacks a final newline
		}
		switch raw[0] {
		case ' ':
			cur.old, cur.new = append(cur.old, text), append(cur.new, text)
			oldLeft, newLeft = oldLeft-1, newLeft-1
		case '-':
			cur.old = append(cur.old, text)
			oldLeft--
		case '+':
			cur.new = append(cur.new, text)
			newLeft--
		case '\n', '\r':
			// An empty context line whose leading space was stripped.
			cur.old, cur.new = append(cur.old, raw), append(cur.new, raw)
			oldLeft, newLeft = oldLeft-1, newLeft-1
		default:
			return nil, fmt.Errorf("hunk %s: unexpected line %q", cur.header, clip(raw))
		}
		if oldLeft < 0 || newLeft < 0 {
			return nil, fmt.Errorf("hunk %s: more lines than its header counts", cur.header)
		}
	}
	if oldLeft != 0 || newLeft != 0 {
		return nil, fmt.Errorf("hunk %s: truncated (%d old and %d new lines missing)", cur.header, oldLeft, newLeft)
	}
	if len(hunks) == 0 && !strings.Contains(diff, "/dev/null") {
		return nil, errors.New("diff has no hunk")
	}
	return hunks, nil
}

// parseHunkHeader reads "@@ -a,b +c,d @@ …".
func parseHunkHeader(line string) (hunk, int, int, error) {
	fields := strings.Fields(line)
	if len(fields) < 4 || fields[3] != "@@" || !strings.HasPrefix(fields[1], "-") || !strings.HasPrefix(fields[2], "+") {
		return hunk{}, 0, 0, fmt.Errorf("malformed hunk header %q", clip(line))
	}
	start, oldN, err1 := hunkRangeOf(fields[1][1:])
	_, newN, err2 := hunkRangeOf(fields[2][1:])
	if err := errors.Join(err1, err2); err != nil {
		return hunk{}, 0, 0, fmt.Errorf("malformed hunk header %q: %w", clip(line), err)
	}
	return hunk{header: strings.Join(fields[:4], " "), oldStart: start}, oldN, newN, nil
}

// hunkRangeOf reads "start,count" (count defaults to 1).
func hunkRangeOf(r string) (start, count int, err error) {
	s, c, ok := strings.Cut(r, ",")
	if start, err = strconv.Atoi(s); err != nil || start < 0 {
		return 0, 0, fmt.Errorf("bad range %q", r)
	}
	count = 1
	if ok {
		if count, err = strconv.Atoi(c); err != nil || count < 0 {
			return 0, 0, fmt.Errorf("bad range %q", r)
		}
	}
	return start, count, nil
}

// clip bounds a line quoted in an error.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
