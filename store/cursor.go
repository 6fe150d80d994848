package store

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// RunCursor is a position in the run history: the last run of a page. Pages
// are ordered by (CreatedAt, RunID, Attempt) descending, so a cursor stays
// valid while new runs arrive.
type RunCursor struct {
	CreatedAt time.Time
	RunID     int64
	Attempt   int
}

// String encodes the cursor as an opaque URL-safe token.
func (c RunCursor) String() string {
	raw := fmt.Sprintf("%d.%d.%d", c.CreatedAt.UnixMicro(), c.RunID, c.Attempt)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// ParseRunCursor decodes a token made by RunCursor.String.
func ParseRunCursor(token string) (RunCursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) > 64 {
		return RunCursor{}, fmt.Errorf("run cursor %q: %w", token, ErrInvalid)
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 3 {
		return RunCursor{}, fmt.Errorf("run cursor %q: %w", token, ErrInvalid)
	}
	var nums [3]int64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return RunCursor{}, fmt.Errorf("run cursor %q: %w", token, ErrInvalid)
		}
		nums[i] = n
	}
	if nums[2] < 0 || nums[2] > 1<<31-1 {
		return RunCursor{}, fmt.Errorf("run cursor %q: %w", token, ErrInvalid)
	}
	return RunCursor{CreatedAt: time.UnixMicro(nums[0]).UTC(), RunID: nums[1], Attempt: int(nums[2])}, nil
}
