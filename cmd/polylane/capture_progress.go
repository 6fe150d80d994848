package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress reports how far a capture phase is: a bar redrawn in place on a
// terminal, plain lines (at each tenth and at the end) otherwise.
type progress struct {
	w     io.Writer
	tty   bool
	phase string
	total int
	done  int
	shown int // the last tenth printed, for plain lines
	last  time.Time
}

// newProgress reports on w, as a bar when w is a terminal.
func newProgress(w io.Writer) *progress {
	return &progress{w: w, tty: isTerminal(w)}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// start begins a phase of total steps.
func (p *progress) start(phase string, total int) {
	p.phase, p.total, p.done, p.shown = phase, total, 0, -1
	if !p.tty {
		fmt.Fprintf(p.w, "capture: %s: %d to go\n", phase, total)
		return
	}
	p.draw(true)
}

// step counts one step done (skipped ones too).
func (p *progress) step() {
	p.done++
	if p.tty {
		p.draw(p.done == p.total)
		return
	}
	if p.total > 0 {
		if tenth := p.done * 10 / p.total; tenth > p.shown && tenth < 10 {
			p.shown = tenth
			fmt.Fprintf(p.w, "capture: %s: %d/%d\n", p.phase, p.done, p.total)
		}
	}
}

// finish ends a phase with a note.
func (p *progress) finish(note string) {
	if p.tty {
		p.draw(true)
		fmt.Fprintln(p.w)
	}
	if note != "" {
		note = " (" + note + ")"
	}
	fmt.Fprintf(p.w, "capture: %s: %d/%d done%s\n", p.phase, p.done, p.total, note)
}

// barWidth is the number of cells of the bar.
const barWidth = 30

// draw redraws the bar, at most ten times a second unless forced.
func (p *progress) draw(force bool) {
	now := time.Now()
	if !force && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	filled := barWidth
	if p.total > 0 {
		filled = barWidth * p.done / p.total
	}
	fmt.Fprintf(p.w, "\r%-10s [%s%s] %d/%d", p.phase, strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), p.done, p.total)
}
