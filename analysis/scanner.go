package analysis

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// DefaultMaxLineBytes is the line cap used when Options.MaxLineBytes is zero.
// Longer lines are truncated, never fatal.
const DefaultMaxLineBytes = 64 << 10

// maxDepth saturates the group depth counter.
const maxDepth = 1 << 16

// Kind classifies a log line by the runner marker it carries.
type Kind uint8

// Line kinds. KindScript marks the cyan-echoed lines of a run: script inside a
// step header group.
const (
	KindPlain Kind = iota
	KindGroup
	KindEndGroup
	KindError
	KindWarning
	KindNotice
	KindCommand
	KindDebug
	KindPostJob
	KindCleanup
	KindScript
)

var kindNames = [...]string{"plain", "group", "endgroup", "error", "warning", "notice", "command", "debug", "post-job", "cleanup", "script"}

// String returns the kind's lower-case name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// MarshalText makes kinds render as their names in JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// LogLine is one line of a job log as the Scanner reads it.
type LogLine struct {
	// N is the 1-based raw line number (split on '\n').
	N int `json:"n"`
	// Time is the runner timestamp, zero when the line has none.
	Time time.Time `json:"time,omitzero"`
	// Text is the line without timestamp, BOM, ANSI sequences and control
	// characters; of a line with bare carriage returns, the last visible part.
	Text string `json:"text"`
	Kind Kind   `json:"kind"`
	// Depth is the ##[group] nesting depth (the group line itself counts as inside).
	Depth int `json:"depth"`
	// Step is the step the line belongs to; zero for logs without step markers.
	Step StepRef `json:"step"`
	// Truncated is true when the raw line was longer than the cap.
	Truncated bool `json:"truncated,omitempty"`
}

// Message returns the text after a runner marker such as "##[error]".
func (l LogLine) Message() string { return string(markerBody([]byte(l.Text), l.Kind)) }

// Scanner reads a CI log line by line in constant memory. It understands the
// GitHub Actions raw job-log format (timestamps, markers, step boundaries, also
// the `gh run view --log` form) and reads plain logs of other CI systems as
// they are.
type Scanner struct {
	r       *bufio.Reader
	max     int
	n       int
	long    []byte // copy of a line longer than the reader's buffer
	clean   []byte // cleaned text of the current line
	line    LogLine
	text    bool // line.Text materialised
	err     error
	depth   int
	header  bool // inside a step header group (##[group]Run ... ##[endgroup])
	steps   *stepTracker
	sawTime bool
	done    bool
}

// NewScanner returns a Scanner over r. Only opts.Steps and opts.MaxLineBytes
// are used.
func NewScanner(r io.Reader, opts Options) *Scanner {
	max := opts.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	size := max
	if size < 4096 {
		size = 4096
	}
	return &Scanner{r: bufio.NewReaderSize(r, size), max: max, steps: newStepTracker(opts.Steps)}
}

// Scan advances to the next line. It returns false at the end of the input or
// on a read error (see Err).
func (s *Scanner) Scan() bool {
	raw, truncated, ok := s.read()
	if !ok {
		return false
	}
	s.n++
	s.process(raw, truncated)
	return true
}

// Line returns the current line.
func (s *Scanner) Line() LogLine {
	if !s.text {
		s.line.Text = string(s.clean)
		s.text = true
	}
	return s.line
}

// bytes returns the current line's cleaned text without allocating; it is
// valid until the next call to Scan.
func (s *Scanner) bytes() []byte { return s.clean }

// Err returns the first read error other than io.EOF.
func (s *Scanner) Err() error { return s.err }

// Spans returns the step spans recovered so far, in log order.
func (s *Scanner) Spans() []StepSpan { return append([]StepSpan(nil), s.steps.spans...) }

// Lines returns the number of lines read so far.
func (s *Scanner) Lines() int { return s.n }

// read returns the next raw line without its '\n', truncated to the cap.
func (s *Scanner) read() (line []byte, truncated, ok bool) {
	if s.err != nil || s.done {
		return nil, false, false
	}
	b, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], b[:min(len(b), s.max)]...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = s.r.ReadSlice('\n')
			if room := s.max - len(s.long); room > 0 {
				s.long = append(s.long, b[:min(len(b), room)]...)
			}
		}
		b, truncated = s.long, true
		if len(b) > 0 && b[len(b)-1] == '\n' {
			b = b[:len(b)-1]
		}
	}
	if err != nil && err != io.EOF {
		s.err = fmt.Errorf("read log line %d: %w", s.n+1, err)
		return nil, false, false
	}
	if err == io.EOF {
		s.done = true
		if len(b) == 0 {
			return nil, false, false
		}
	}
	if !truncated {
		if len(b) > 0 && b[len(b)-1] == '\n' {
			b = b[:len(b)-1]
		}
		if len(b) > s.max {
			b, truncated = b[:s.max], true
		}
	}
	return b, truncated, true
}

// process cleans one raw line and classifies it.
func (s *Scanner) process(raw []byte, truncated bool) {
	if len(raw) > 0 && raw[len(raw)-1] == '\r' {
		raw = raw[:len(raw)-1]
	}
	if s.n == 1 {
		raw = bytes.TrimPrefix(raw, utf8BOM)
	}
	stepHint, raw := splitGHView(raw)
	var at time.Time
	if t, k, ok := parseTimestamp(raw); ok {
		at, raw = t, raw[k:]
		s.sawTime = true
	}
	raw = skipTravisMarkers(lastVisibleSegment(raw))
	cyan := bytes.HasPrefix(raw, []byte("\x1b[36;1m"))
	s.clean = cleanText(s.clean[:0], raw)
	kind := classify(s.clean)
	if cyan && s.header && kind == KindPlain {
		kind = KindScript
	}
	s.line = LogLine{N: s.n, Time: at, Kind: kind, Truncated: truncated}
	s.text = false
	s.track(kind, at, stepHint)
}

// track updates group depth and step state for the current line.
func (s *Scanner) track(kind Kind, at time.Time, stepHint []byte) {
	if s.n == 1 && s.sawTime {
		s.steps.start(s.n)
	}
	switch kind {
	case KindGroup:
		if s.depth < maxDepth {
			s.depth++
		}
		body := s.clean[len("##[group]"):]
		s.header = false
		if bytes.HasPrefix(body, []byte("Run ")) && stepHint == nil {
			s.steps.header(s.n, string(body), at)
			s.header = true
		}
		s.line.Depth = s.depth
	case KindEndGroup:
		s.line.Depth = s.depth
		if s.depth > 0 {
			s.depth--
		}
		s.header = false
	case KindPostJob:
		s.depth, s.header = 0, false
		s.steps.postJob(s.n)
	case KindCleanup:
		s.depth, s.header = 0, false
		s.steps.cleanup(s.n)
	default:
		s.line.Depth = s.depth
	}
	if stepHint != nil {
		s.steps.named(s.n, string(stepHint))
	}
	s.line.Step = s.steps.extend(s.n)
}

// splitGHView recognises the `gh run view --log` form
// "job<TAB>step<TAB>timestamp text" and returns the step name and the rest.
func splitGHView(b []byte) (step, rest []byte) {
	lim := b
	if len(lim) > 512 {
		lim = lim[:512]
	}
	i := bytes.IndexByte(lim, '\t')
	if i <= 0 {
		return nil, b
	}
	j := bytes.IndexByte(lim[i+1:], '\t')
	if j < 0 {
		return nil, b
	}
	j += i + 1
	if !hasTimestampAt(b, j+1) {
		return nil, b
	}
	return b[i+1 : j], b[j+1:]
}

// classify returns the kind of a cleaned line.
func classify(b []byte) Kind {
	if len(b) < 9 {
		return KindPlain
	}
	if b[0] == '#' && b[1] == '#' && b[2] == '[' {
		switch {
		case bytes.HasPrefix(b, []byte("##[group]")):
			return KindGroup
		case bytes.HasPrefix(b, []byte("##[endgroup]")):
			return KindEndGroup
		case bytes.HasPrefix(b, []byte("##[error]")):
			return KindError
		case bytes.HasPrefix(b, []byte("##[warning]")):
			return KindWarning
		case bytes.HasPrefix(b, []byte("##[notice]")):
			return KindNotice
		case bytes.HasPrefix(b, []byte("##[command]")):
			return KindCommand
		case bytes.HasPrefix(b, []byte("##[debug]")):
			return KindDebug
		}
		return KindPlain
	}
	switch {
	case b[0] == '[' && bytes.HasPrefix(b, []byte("[command]")):
		return KindCommand
	case b[0] == 'P' && string(b) == "Post job cleanup.":
		return KindPostJob
	case b[0] == 'C' && string(b) == "Cleaning up orphan processes":
		return KindCleanup
	}
	return KindPlain
}

// markerBody returns b without the runner marker of its kind.
func markerBody(b []byte, k Kind) []byte {
	var p string
	switch k {
	case KindGroup:
		p = "##[group]"
	case KindEndGroup:
		p = "##[endgroup]"
	case KindError:
		p = "##[error]"
	case KindWarning:
		p = "##[warning]"
	case KindNotice:
		p = "##[notice]"
	case KindDebug:
		p = "##[debug]"
	case KindCommand:
		if bytes.HasPrefix(b, []byte("[command]")) {
			p = "[command]"
		} else {
			p = "##[command]"
		}
	}
	return bytes.TrimPrefix(b, []byte(p))
}

// cleanText appends src to dst without ANSI sequences and C0 control
// characters other than tab.
func cleanText(dst, src []byte) []byte {
	start := len(dst)
	dst = stripANSI(dst, src)
	out := dst[start:]
	j := 0
	if !hasControl(out) {
		return dst
	}
	for _, c := range out {
		if (c < ' ' && c != '\t') || c == 0x7f {
			continue
		}
		out[j] = c
		j++
	}
	return dst[:start+j]
}

// hasControl reports whether b holds a control character other than a tab,
// eight bytes at a time: a word with no byte below 0x20 and none equal to
// 0x7f is skipped whole.
func hasControl(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		below := (x - ones*0x20) &^ x & highs
		del := x ^ ones*0x7f
		if below|(del-ones)&^del&highs == 0 {
			continue
		}
		for _, c := range b[i : i+8] {
			if (c < ' ' && c != '\t') || c == 0x7f {
				return true
			}
		}
	}
	for _, c := range b[i:] {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return true
		}
	}
	return false
}
