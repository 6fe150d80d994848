package store

import (
	"errors"
	"testing"
	"time"
)

func TestRunCursorRoundTrip(t *testing.T) {
	tests := []RunCursor{
		{CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC), RunID: 123456789012, Attempt: 3},
		{CreatedAt: time.UnixMicro(0).UTC(), RunID: 1, Attempt: 1},
		{CreatedAt: time.Date(1999, 12, 31, 23, 59, 59, 999999000, time.UTC), RunID: -5, Attempt: 0},
	}
	for _, c := range tests {
		got, err := ParseRunCursor(c.String())
		if err != nil {
			t.Fatalf("ParseRunCursor(%q): %v", c.String(), err)
		}
		if got != c {
			t.Fatalf("round trip of %+v gave %+v", c, got)
		}
	}
}

func TestParseRunCursorRejects(t *testing.T) {
	for _, token := range []string{"", "!!!", "MS4y", "YS5iLmM", "MS4yLi0x", "MS4yLjk5OTk5OTk5OTk5"} {
		if _, err := ParseRunCursor(token); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseRunCursor(%q) = %v, want ErrInvalid", token, err)
		}
	}
}
