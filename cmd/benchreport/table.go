package benchreport

import (
	"fmt"
	"math"
	"strings"
)

// Row is one line of the report: a measurement taken two ways, A and B,
// side by side, their ratio B ÷ A, and the target it answers to.
type Row struct {
	Measurement string
	A, B        string
	Ratio       string
	Target      string
	Met         string // "yes", "no" or ""
}

// Render writes the rows as one markdown table.
func Render(rows []Row) string {
	var b strings.Builder
	b.WriteString("| measurement (A · B) | A | B | B ÷ A | target | met |\n")
	b.WriteString("|---|--:|--:|--:|---|:-:|\n")
	for _, r := range rows {
		cells := []string{r.Measurement, r.A, r.B, r.Ratio, r.Target, r.Met}
		for i, c := range cells {
			if c == "" {
				c = "—"
			}
			cells[i] = strings.ReplaceAll(c, "|", "\\|")
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// num formats a value with a precision that suits its size, and thousands
// separators.
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.Abs(v) >= 100:
		return thousands(fmt.Sprintf("%.0f", v))
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// thousands puts commas in the integer part of a formatted number.
func thousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// ratio formats b ÷ a.
func ratio(a, b float64) string {
	if math.IsNaN(a) || math.IsNaN(b) || a == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", b/a)
}

// met says whether a check passed; "" when the value is missing.
func met(ok bool, have bool) string {
	switch {
	case !have:
		return ""
	case ok:
		return "yes"
	}
	return "no"
}
