package githubtest

import (
	"fmt"
	"strings"
	"time"
)

// timeRange is a half-open interval [from, to); zero ends are open.
type timeRange struct {
	from, to time.Time
}

func (t *timeRange) contains(v time.Time) bool {
	if !t.from.IsZero() && v.Before(t.from) {
		return false
	}
	return t.to.IsZero() || v.Before(t.to)
}

// parseTimeRange reads GitHub's search date syntax: "D", ">D", ">=D", "<D",
// "<=D", "A..B", "A..*", "*..B", where a date is YYYY-MM-DD or an RFC 3339
// time. A date covers its whole (UTC) day.
func parseTimeRange(v string) (*timeRange, error) {
	bad := fmt.Errorf("invalid created filter %q", v)
	if a, b, ok := strings.Cut(v, ".."); ok {
		tr := &timeRange{}
		if a != "*" {
			start, _, err := parseBound(a)
			if err != nil {
				return nil, bad
			}
			tr.from = start
		}
		if b != "*" {
			_, end, err := parseBound(b)
			if err != nil {
				return nil, bad
			}
			tr.to = end
		}
		return tr, nil
	}
	for _, op := range []string{">=", "<=", ">", "<", ""} {
		if !strings.HasPrefix(v, op) {
			continue
		}
		start, end, err := parseBound(strings.TrimPrefix(v, op))
		if err != nil {
			return nil, bad
		}
		switch op {
		case ">=":
			return &timeRange{from: start}, nil
		case ">":
			return &timeRange{from: end}, nil
		case "<=":
			return &timeRange{to: end}, nil
		case "<":
			return &timeRange{to: start}, nil
		}
		return &timeRange{from: start, to: end}, nil
	}
	return nil, bad
}

// parseBound reads one date or time and returns the interval it covers.
func parseBound(v string) (start, end time.Time, err error) {
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, t.Add(24 * time.Hour), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, t.Add(time.Second), nil
		}
	}
	return time.Time{}, time.Time{}, fmt.Errorf("invalid date %q", v)
}
