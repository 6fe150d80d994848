package benchreport

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Result is one benchmark line: its name without the GOMAXPROCS suffix,
// its iterations and its metrics by unit ("ns/op", "p99-ms", …).
type Result struct {
	Name       string
	Iterations int
	Metrics    map[string]float64
}

// Output is what one `go test` run printed, parsed.
type Output struct {
	Results []Result
	// Rows are the cells of markdown table rows the tests logged.
	Rows [][]string
	// Lines are the other lines, for messages.
	Lines []string
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.+)$`)

// Parse reads `go test -bench` output.
func Parse(r io.Reader) (Output, error) {
	var out Output
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t")
		trimmed := strings.TrimSpace(line)
		if m := benchLine.FindStringSubmatch(trimmed); m != nil {
			if res, ok := parseResult(m); ok {
				out.Results = append(out.Results, res)
				continue
			}
		}
		if strings.HasPrefix(trimmed, "|") && strings.HasSuffix(trimmed, "|") && !strings.HasPrefix(trimmed, "|---") {
			var cells []string
			for _, c := range strings.Split(strings.Trim(trimmed, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			out.Rows = append(out.Rows, cells)
			continue
		}
		out.Lines = append(out.Lines, line)
	}
	return out, sc.Err()
}

func parseResult(m []string) (Result, bool) {
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return Result{}, false
	}
	fields := strings.Fields(m[3])
	if len(fields)%2 != 0 {
		return Result{}, false
	}
	res := Result{Name: m[1], Iterations: n, Metrics: map[string]float64{}}
	for i := 0; i < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return Result{}, false
		}
		res.Metrics[fields[i+1]] = v
	}
	return res, true
}

// Find returns the result of a benchmark by name.
func (o Output) Find(name string) (Result, bool) {
	for _, r := range o.Results {
		if r.Name == name {
			return r, true
		}
	}
	return Result{}, false
}

// Metric returns one metric of a benchmark.
func (o Output) Metric(name, unit string) (float64, bool) {
	r, ok := o.Find(name)
	if !ok {
		return 0, false
	}
	v, ok := r.Metrics[unit]
	return v, ok
}

// Row finds a logged table row whose first cell starts with prefix.
func (o Output) Row(prefix string) ([]string, bool) {
	for _, r := range o.Rows {
		if len(r) > 0 && strings.HasPrefix(r[0], prefix) {
			return r, true
		}
	}
	return nil, false
}

// pageLine is a dashboard benchmark line: backend, page, p50, p95, max.
var pageLine = regexp.MustCompile(`^(sqlite|postgres)\s+(\S+)\s+([\d.]+)ms\s+([\d.]+)ms\s+([\d.]+)ms$`)

// Page is one dashboard page's answer times in milliseconds.
type Page struct {
	Backend, Name string
	P50, P95, Max float64
}

// Pages reads the dashboard benchmark's per-page lines.
func (o Output) Pages() []Page {
	var out []Page
	for _, l := range o.Lines {
		m := pageLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		p := Page{Backend: m[1], Name: m[2]}
		p.P50, _ = strconv.ParseFloat(m[3], 64)
		p.P95, _ = strconv.ParseFloat(m[4], 64)
		p.Max, _ = strconv.ParseFloat(m[5], 64)
		out = append(out, p)
	}
	return out
}
