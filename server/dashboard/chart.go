package dashboard

import (
	"fmt"
	"html"
	"html/template"
	"strings"
	"time"
)

// Colours of the charts: outcomes, then failure classes by rank (a
// colour-blind-safe palette), then the colour of any further class.
const (
	colorSuccess   = "#2e7d32"
	colorFailure   = "#b71c1c"
	colorCancelled = "#8a8f98"
	colorOther     = "#c9d1d9"
	colorPending   = "#7fb3e6"
	colorMoreClass = "#6d4c41"
	colorRate      = "#b71c1c"
)

// classColors colour the most frequent classes of a chart.
var classColors = []string{"#d55e00", "#cc79a7", "#e69f00", "#0072b2", "#56b4e9", "#882255", "#44aa99", "#999933"}

// classColor is the colour of the class of a rank (0 = most frequent).
func classColor(rank int) string {
	if rank < len(classColors) {
		return classColors[rank]
	}
	return colorMoreClass
}

// segment is one part of a stacked bar.
type segment struct {
	Key   string // data-key: an outcome or "class:<id>"
	Label string
	Color string
	Value int
}

// bar is one day of a stacked bar chart.
type bar struct {
	Day   time.Time
	Segs  []segment
	Title string // the accessible text of the day
}

// chartSpec describes a bar chart.
type chartSpec struct {
	ID      string // element id, for aria-labelledby
	Title   string
	Desc    string
	Bars    []bar
	Classes int        // distinct failure classes shown, for data-classes
	Marker  *time.Time // a day to mark (a merged fix), optional
	Marked  string     // the marker's label
}

// Chart geometry, in SVG user units.
const (
	barWidth    = 14
	barGap      = 3
	chartHeight = 140
	axisHeight  = 22
	leftMargin  = 34
)

// barChart renders a stacked bar chart as inline SVG with a title, a
// description and one <title> per day for screen readers and tooltips.
func barChart(c chartSpec) template.HTML {
	maxV := 1
	for _, b := range c.Bars {
		maxV = max(maxV, total(b.Segs))
	}
	width := leftMargin + len(c.Bars)*(barWidth+barGap) + barGap
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="chart" id="%s" role="img" aria-labelledby="%s-title %s-desc" viewBox="0 0 %d %d" width="%d" height="%d" data-days="%d" data-classes="%d" preserveAspectRatio="xMinYMin meet">`,
		esc(c.ID), esc(c.ID), esc(c.ID), width, chartHeight+axisHeight, width, chartHeight+axisHeight, len(c.Bars), c.Classes)
	fmt.Fprintf(&s, `<title id="%s-title">%s</title><desc id="%s-desc">%s</desc>`, esc(c.ID), esc(c.Title), esc(c.ID), esc(c.Desc))
	gridLines(&s, maxV, width)
	for i, b := range c.Bars {
		x := leftMargin + barGap + i*(barWidth+barGap)
		fmt.Fprintf(&s, `<g class="day" data-day="%s" data-runs="%d"><title>%s</title>`, b.Day.Format("2006-01-02"), total(b.Segs), esc(b.Title))
		y := chartHeight
		for _, sg := range b.Segs {
			if sg.Value == 0 {
				continue
			}
			h := max(1, sg.Value*(chartHeight-8)/maxV)
			y -= h
			fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" data-key="%s"></rect>`, x, y, barWidth, h, sg.Color, esc(sg.Key))
		}
		if total(b.Segs) == 0 {
			fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%d" height="1" fill="%s"></rect>`, x, chartHeight-1, barWidth, colorOther)
		}
		if (len(c.Bars)-1-i)%7 == 0 { // weekly labels, the last day always labelled
			anchor, tx := "start", x
			if i == len(c.Bars)-1 {
				anchor, tx = "end", x+barWidth
			}
			fmt.Fprintf(&s, `<text x="%d" y="%d" class="axis" text-anchor="%s">%s</text>`, tx, chartHeight+15, anchor, b.Day.Format("Jan 2"))
		}
		s.WriteString(`</g>`)
		if c.Marker != nil && b.Day.Equal(*c.Marker) {
			fmt.Fprintf(&s, `<line class="marker" x1="%d" x2="%d" y1="0" y2="%d"></line><text class="axis" x="%d" y="10">%s</text>`,
				x+barWidth/2, x+barWidth/2, chartHeight, x+barWidth/2+3, esc(c.Marked))
		}
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// gridLines draws the value axis: zero and the maximum.
func gridLines(s *strings.Builder, maxV, width int) {
	fmt.Fprintf(s, `<line class="grid" x1="%d" x2="%d" y1="%d" y2="%d"></line>`, leftMargin, width, chartHeight, chartHeight)
	top := chartHeight - (chartHeight - 8)
	fmt.Fprintf(s, `<line class="grid" x1="%d" x2="%d" y1="%d" y2="%d"></line>`, leftMargin, width, top, top)
	fmt.Fprintf(s, `<text class="axis" x="2" y="%d">%d</text><text class="axis" x="2" y="%d">0</text>`, top+4, maxV, chartHeight)
}

// total sums the values of segments.
func total(segs []segment) int {
	n := 0
	for _, s := range segs {
		n += s.Value
	}
	return n
}

// sparkline renders failure rates per day as a small line chart; days
// without finished runs leave a gap.
func sparkline(label string, days []DayRate) template.HTML {
	const w, h, pad = 120, 28, 2
	step := float64(w-2*pad) / float64(max(1, len(days)-1))
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="sparkline" role="img" aria-label="%s" viewBox="0 0 %d %d" width="%d" height="%d">`, esc(label), w, h, w, h)
	fmt.Fprintf(&s, `<line class="grid" x1="0" x2="%d" y1="%d" y2="%d"></line>`, w, h-pad, h-pad)
	var pts []string
	flush := func() {
		switch len(pts) {
		case 0:
		case 1:
			xy := strings.Split(pts[0], ",")
			fmt.Fprintf(&s, `<circle cx="%s" cy="%s" r="1.5" fill="%s"></circle>`, xy[0], xy[1], colorRate)
		default:
			fmt.Fprintf(&s, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"></polyline>`, colorRate, strings.Join(pts, " "))
		}
		pts = pts[:0]
	}
	for i, d := range days {
		if d.Succeeded+d.Failed == 0 {
			flush()
			continue
		}
		x := pad + float64(i)*step
		y := float64(h-pad) - d.Rate*float64(h-2*pad)
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
	}
	flush()
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// esc escapes text for SVG markup (element text and attribute values).
func esc(s string) string { return html.EscapeString(s) }
