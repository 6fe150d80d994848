package harness

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
)

// Limits on repository content, which is hostile input: anyone who can open a
// pull request writes it. Parsers recurse once per nesting level, and a
// recursion that overflows a goroutine's stack kills the process with no
// recover, so every file is measured by a linear scan before a parser sees it.
// Real harness files nest a few levels deep; a file past a limit is treated as
// unparsed and the diagnosis names it.
const (
	// MaxNesting bounds the nesting a file may have: shell constructs
	// (subshells, blocks, substitutions, keywords, chained operators), YAML
	// and JSON collections. A parser level costs at most a few kilobytes of
	// stack, so the bound keeps any parse within a few megabytes.
	MaxNesting = 200
	// MaxRepoBytes bounds the harness bytes one Repo reads in all; files read
	// after the budget is spent are treated as unparsed.
	MaxRepoBytes = 48 << 20
)

// ErrLimit is matched (errors.Is) by every LimitError.
var ErrLimit = errors.New("over a safety limit")

// LimitError says which file was not analysed because it is over a limit.
type LimitError struct {
	File string
	// What names the limit: "nesting", "size" or "budget".
	What string
	// Limit is the bound; Found what the file reached (at least Limit+1),
	// at Line (0 when not known).
	Limit, Found, Line int
	// Block is the first line of the script inside File that is over the
	// limit (a run: block, a recipe, a task command); 0 for the whole file.
	Block int
}

func (e *LimitError) Error() string {
	what := e.File
	if e.Block > 0 {
		what = fmt.Sprintf("the shell script at line %d of %s", e.Block, e.File)
	}
	switch e.What {
	case "nesting":
		at := ""
		if e.Line > 0 {
			at = fmt.Sprintf(" (line %d)", e.Line)
		}
		return fmt.Sprintf("%s nests deeper than %d levels%s; it was not parsed", what, e.Limit, at)
	case "size":
		return fmt.Sprintf("%s is larger than %d bytes; it was not parsed", what, e.Limit)
	default:
		return fmt.Sprintf("%s was not read: the diagnosis had already read %d bytes of harness files", e.File, e.Limit)
	}
}

// Is makes errors.Is(err, ErrLimit) and errors.Is(err, ErrTooLarge) hold.
func (e *LimitError) Is(target error) bool {
	return target == ErrLimit || (target == ErrTooLarge && e.What == "size")
}

// checkNesting returns a LimitError when depth exceeds MaxNesting.
func checkNesting(file string, depth, line int) error {
	if depth <= MaxNesting {
		return nil
	}
	return &LimitError{File: file, What: "nesting", Limit: MaxNesting, Found: depth, Line: line}
}

// Skipped is a file the model did not analyse and why.
type Skipped struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// noteLimit records err when it is a LimitError, so that the diagnosis can
// say which files it did not analyse.
func (r *Repo) noteLimit(err error) {
	var le *LimitError
	if !errors.As(err, &le) {
		return
	}
	if r.skipped == nil {
		r.skipped = map[string]string{}
	}
	if _, ok := r.skipped[le.File]; !ok {
		r.skipped[le.File] = le.Error()
	}
}

// Skipped lists the files that were not analysed because they are over a
// limit, sorted by path.
func (r *Repo) Skipped() []Skipped {
	out := make([]Skipped, 0, len(r.skipped))
	for f, why := range r.skipped {
		out = append(out, Skipped{File: f, Reason: why})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}

// JSONNesting returns how deeply data's arrays and objects nest and the
// 1-based line where that depth is first reached. It stops once past limit.
func JSONNesting(data []byte, limit int) (depth, line int) {
	d, ln, inStr := 0, 1, false
	for i := 0; i < len(data) && depth <= limit; i++ {
		c := data[i]
		switch {
		case c == '\n':
			ln++
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '[' || c == '{':
			if d++; d > depth {
				depth, line = d, ln
			}
		case (c == ']' || c == '}') && d > 0:
			d--
		}
	}
	return depth, line
}

// YAMLNesting returns an upper bound of how deeply a YAML document nests:
// its open block indentation levels plus the "- " and "key: " entries that
// open further levels on one line, plus its open flow collections. Quoted
// scalars, comments and the text of block scalars (| and >) are skipped. It
// stops once past limit.
func YAMLNesting(data []byte, limit int) (depth, line int) {
	var indents []int     // open block indentation columns
	flow, scalar := 0, -1 // scalar: the indentation of a block scalar's key line
	for ln, text := range bytesLines(data) {
		if depth > limit {
			break
		}
		col := 0
		for col < len(text) && text[col] == ' ' {
			col++
		}
		body := text[col:]
		if scalar >= 0 && (col > scalar || len(bytes.TrimSpace(body)) == 0) {
			continue
		}
		scalar = -1
		if flow == 0 && blockScalar(body) {
			scalar = col
		}
		if flow == 0 && len(body) > 0 && body[0] != '#' {
			for len(indents) > 0 && indents[len(indents)-1] >= col {
				indents = indents[:len(indents)-1]
			}
			indents = append(indents, col)
		}
		inline := 0
		quote := byte(0)
		for i := 0; i < len(body); i++ {
			c := body[i]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '\'' || c == '"':
				quote = c
			case c == '#' && (i == 0 || body[i-1] == ' '):
				i = len(body)
			case c == '[' || c == '{':
				flow++
			case c == ']' || c == '}':
				if flow > 0 {
					flow--
				}
			case (c == '-' || c == ':' || c == '?') && (i+1 == len(body) || body[i+1] == ' '):
				inline++
			}
			if d := len(indents) + inline + flow; d > depth {
				depth, line = d, ln+1
			}
		}
	}
	return depth, line
}

// blockScalarHeader matches the end of a line that starts a literal or
// folded block scalar: "key: |", "- >-", "run: |2".
var blockScalarHeader = regexp.MustCompile(`(^|[:\-]\s+|^\s*)[|>][-+0-9]*\s*(#.*)?$`)

// blockScalar reports whether a line opens a block scalar.
func blockScalar(line []byte) bool {
	return bytes.ContainsAny(line, "|>") && blockScalarHeader.Match(line)
}

// bytesLines splits data into lines without their newlines.
func bytesLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := 0
		for i < len(data) && data[i] != '\n' {
			i++
		}
		out = append(out, data[:i])
		if i < len(data) {
			i++
		}
		data = data[i:]
	}
	return out
}
