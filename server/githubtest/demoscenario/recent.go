package demoscenario

import (
	"bytes"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"time"
)

// newestRun is the day of the scenario's newest run (the trigger).
var newestRun = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

// RecentFS returns the scenario moved in time by whole days so that its
// newest run happened the day before now (UTC): a dashboard that charts
// the last 30 days then shows the whole history, whenever the demo runs.
// Timestamps keep their width, so files keep their sizes and logs their
// line numbers; repo/ and expect.json are unchanged. FS is the scenario as
// generated.
func RecentFS(now time.Time) fs.FS {
	yesterday := now.UTC().Truncate(24*time.Hour).AddDate(0, 0, -1)
	return shiftFS{base: FS(), by: yesterday.Sub(newestRun)}
}

// shiftFS serves a scenario with the timestamps of runs.json, jobs/ and
// logs/ moved by a fixed duration.
type shiftFS struct {
	base fs.FS
	by   time.Duration
}

// Open opens name in the base file system; the history files are read
// whole and served shifted.
func (s shiftFS) Open(name string) (fs.File, error) {
	f, err := s.base.Open(name)
	if err != nil || s.by == 0 || !(name == "runs.json" || strings.HasPrefix(name, "jobs/") || strings.HasPrefix(name, "logs/")) {
		return f, err
	}
	info, err := f.Stat()
	if err != nil || info.IsDir() {
		return f, err
	}
	data, err := fs.ReadFile(s.base, name)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("shift %s: %w", name, err)
	}
	return &shiftedFile{File: f, r: bytes.NewReader(shiftTimes(data, s.by))}, nil
}

// shiftedFile is a base file whose content is replaced; Stat and Close
// are the base file's (the size does not change).
type shiftedFile struct {
	fs.File
	r *bytes.Reader
}

func (f *shiftedFile) Read(p []byte) (int, error) { return f.r.Read(p) }

// Timestamps the history carries: RFC 3339 in JSON and at the start of
// every log line (with 7 fractional digits there), goose's log prefix and
// postgres's own log time. Text inside log messages (a test's input
// times) is left alone.
var (
	jsonTime     = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"`)
	logLineTime  = regexp.MustCompile(`(?m)^(\x{FEFF})?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z`)
	gooseTime    = regexp.MustCompile(`(?m)(Z )(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d) `)
	postgresTime = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{3})? UTC`)
)

// shiftTimes moves every timestamp of a history file by d.
func shiftTimes(data []byte, d time.Duration) []byte {
	move := func(layout string) func([]byte) []byte {
		return func(b []byte) []byte {
			t, err := time.Parse(layout, string(b))
			if err != nil {
				return b
			}
			return []byte(t.Add(d).Format(layout))
		}
	}
	data = jsonTime.ReplaceAllFunc(data, move(`"2006-01-02T15:04:05Z"`))
	data = logLineTime.ReplaceAllFunc(data, func(b []byte) []byte {
		rest, bom := bytes.CutPrefix(b, []byte("\ufeff"))
		out := move("2006-01-02T15:04:05.0000000Z")(rest)
		if bom {
			return append([]byte("\ufeff"), out...)
		}
		return out
	})
	data = gooseTime.ReplaceAllFunc(data, func(b []byte) []byte {
		return append(append([]byte("Z "), move("2006/01/02 15:04:05")(b[2:len(b)-1])...), ' ')
	})
	data = postgresTime.ReplaceAllFunc(data, func(b []byte) []byte {
		if bytes.IndexByte(b, '.') > 0 {
			return move("2006-01-02 15:04:05.000 UTC")(b)
		}
		return move("2006-01-02 15:04:05 UTC")(b)
	})
	return data
}
