package narrator

import (
	"encoding/json"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/polylane/polylane/causal/diagnosis"
)

// grounds is what a diagnosis lets generated text mention: every path,
// file:line pair, number, commit, URL, endpoint, mention and evidence id
// found in it, and the text of every field for substring checks.
type grounds struct {
	corpus   string          // every string of the diagnosis, lower-cased, one per line
	paths    map[string]bool // path-like tokens and all their "/"-suffixes, lower-cased
	pairs    map[string]bool // "path:line" with every suffix form of path, lower-cased
	numbers  map[string]bool // canonical decimal numbers
	hexes    []string        // hex tokens of at least 7 digits (commits, ids), lower-cased
	evidence map[string]bool // evidence ids (E1, E2, …)
	urls     []string        // URLs, lower-cased
	links    map[string]bool // URLs Polylane built, which text may link to (links.go)
}

// newGrounds collects the grounds of a diagnosis. A nil diagnosis grounds
// nothing.
func newGrounds(d *diagnosis.Diagnosis) *grounds {
	g := &grounds{paths: map[string]bool{}, pairs: map[string]bool{}, numbers: map[string]bool{}, evidence: map[string]bool{}}
	if d == nil {
		return g
	}
	var strs []string
	if raw, err := json.Marshal(d); err == nil {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			g.walk(v, &strs)
		}
	}
	for _, s := range strs {
		g.addText(s)
	}
	g.corpus = strings.ToLower(strings.Join(strs, "\n"))
	g.addStructured(d)
	g.addDerived(d)
	g.addLinks(d)
	return g
}

// walk collects the strings of a decoded JSON value into strs and records
// its numbers.
func (g *grounds) walk(v any, strs *[]string) {
	switch x := v.(type) {
	case string:
		*strs = append(*strs, x)
	case json.Number:
		g.addNumber(x.String())
	case []any:
		for _, e := range x {
			g.walk(e, strs)
		}
	case map[string]any:
		for _, e := range x {
			g.walk(e, strs)
		}
	}
}

// addText records the tokens of one string of the diagnosis.
func (g *grounds) addText(s string) {
	for _, u := range urlPattern.FindAllString(s, -1) {
		u = trimURL(u)
		g.urls = append(g.urls, strings.ToLower(u))
		if pu, err := url.Parse(u); err == nil && pu.Host != "" {
			g.addPath(pu.Host + pu.Path)
		}
	}
	for _, m := range pairPattern.FindAllStringSubmatch(s, -1) {
		g.addPair(m[1], m[2])
	}
	for _, h := range hexPattern.FindAllString(s, -1) {
		g.hexes = append(g.hexes, strings.ToLower(h))
	}
	for _, tok := range pathTokens(s) {
		g.addPath(tok)
	}
	for _, n := range scanNumbers(s) {
		g.addNumber(n)
	}
}

// addStructured records the file:line pairs and evidence ids of the
// structured fields.
func (g *grounds) addStructured(d *diagnosis.Diagnosis) {
	if d.Lint != nil {
		g.addFileLine(d.Lint.File, d.Lint.Line)
	}
	if c := d.Chain; c != nil {
		g.addFileLine(c.SurfacingSite.File, c.SurfacingSite.Line)
		g.addFileLine(c.Producer.File, c.Producer.Line)
		for _, l := range c.Producer.Candidates {
			g.addFileLine(l.File, l.Line)
		}
		for _, l := range c.BlastRadius.Callers {
			g.addFileLine(l.File, l.Line)
		}
		for _, e := range c.Evidence {
			if e.ID != "" {
				g.evidence[strings.ToUpper(e.ID)] = true
			}
			if e.Kind != "log" {
				g.addFileLine(e.File, e.Line)
			}
		}
	}
	if d.Patch != nil {
		for _, f := range d.Patch.Files {
			g.addPath(f.Path)
		}
	}
	if im := d.Impact; im != nil {
		for _, e := range im.DeployEdges {
			g.addPath(e.Source)
			g.addPath(e.Via)
			g.addFileLine(e.Via, e.Line)
		}
	}
}

// addDerived records numbers a faithful wording may compute: counts of
// lists, the green runs of the window, the other failures, and rates as
// percentages.
func (g *grounds) addDerived(d *diagnosis.Diagnosis) {
	w := d.Window
	ints := []int{len(d.Clusters), max(len(d.Clusters)-1, 0), w.Runs - w.Failed, len(d.UnknownRuns)}
	for _, c := range d.Clusters {
		ints = append(ints, len(c.Runs), w.Failed-c.Count, w.Runs-c.Count)
		g.addPercent(c.Count, w.Runs)
	}
	g.addPercent(w.Failed, w.Runs)
	if c := d.Chain; c != nil {
		ints = append(ints, len(c.Evidence), len(c.Mechanism.Evidence), len(c.BlastRadius.Callers), len(c.Producer.Candidates))
	}
	if p := d.Patch; p != nil {
		added, removed := 0, 0
		for _, f := range p.Files {
			added += f.Added
			removed += f.Removed
		}
		ints = append(ints, len(p.Files), added, removed)
	}
	if im := d.Impact; im != nil {
		ints = append(ints, len(im.Affected), len(im.DeployEdges))
	}
	for _, n := range ints {
		if n >= 0 {
			g.addNumber(strconv.Itoa(n))
		}
	}
	fr := d.FailureRate
	g.addPercent(fr.Failures, fr.Runs)
	for _, f := range []float64{fr.Rate, fr.Low, fr.High, d.Verdict.Confidence} {
		for _, prec := range []int{0, 1, 2} {
			g.addNumber(strconv.FormatFloat(100*f, 'f', prec, 64))
			g.addNumber(strconv.FormatFloat(f, 'f', prec, 64))
		}
	}
}

// addPercent records n of total as a percentage at 0, 1 and 2 decimals.
func (g *grounds) addPercent(n, total int) {
	if total <= 0 {
		return
	}
	p := 100 * float64(n) / float64(total)
	for _, prec := range []int{0, 1, 2} {
		g.addNumber(strconv.FormatFloat(p, 'f', prec, 64))
	}
	g.addNumber(strconv.Itoa(int(math.Floor(p))))
}

// addFileLine records a file, its line and the pair.
func (g *grounds) addFileLine(file string, line int) {
	if file == "" {
		return
	}
	g.addPath(file)
	if line > 0 {
		g.addPair(file, strconv.Itoa(line))
		g.addNumber(strconv.Itoa(line))
	}
}

// addPath records a path and every run of its "/"-separated parts, so
// that a file's base name and its directories count as named.
func (g *grounds) addPath(p string) {
	p = normPath(p)
	if p == "" {
		return
	}
	parts := strings.Split(p, "/")
	if len(parts) > 12 {
		parts = parts[len(parts)-12:]
	}
	for i := range parts {
		for j := i + 1; j <= len(parts); j++ {
			g.paths[strings.Join(parts[i:j], "/")] = true
		}
	}
}

// addPair records path:line for every suffix form of path.
func (g *grounds) addPair(path, line string) {
	n, ok := canonNumber(line)
	if !ok {
		return
	}
	p := normPath(path)
	for p != "" {
		g.pairs[p+":"+n] = true
		i := strings.IndexByte(p, '/')
		if i < 0 {
			break
		}
		p = p[i+1:]
	}
}

// addNumber records a number in canonical form.
func (g *grounds) addNumber(s string) {
	if n, ok := canonNumber(s); ok {
		g.numbers[n] = true
	}
}

// hasPath reports whether the diagnosis names the path, or a path it is
// part of on "/" boundaries.
func (g *grounds) hasPath(p string) bool { return g.paths[normPath(p)] }

// hasPair reports whether the diagnosis names line of path.
func (g *grounds) hasPair(path, line string) bool {
	n, ok := canonNumber(line)
	return ok && g.pairs[normPath(path)+":"+n]
}

// hasNumber reports whether the diagnosis holds the number.
func (g *grounds) hasNumber(s string) bool {
	n, ok := canonNumber(s)
	return ok && g.numbers[n]
}

// hasHex reports whether the hex token is a prefix of one in the diagnosis.
func (g *grounds) hasHex(h string) bool {
	h = strings.ToLower(h)
	for _, x := range g.hexes {
		if strings.HasPrefix(x, h) {
			return true
		}
	}
	return false
}

// hasURL reports whether the URL is, or begins, a URL of the diagnosis.
// Such a URL may be named as text; only canLink URLs may be linked.
func (g *grounds) hasURL(u string) bool {
	u = strings.TrimRight(strings.ToLower(trimURL(u)), "/")
	if u == "" {
		return false
	}
	for _, x := range g.urls {
		if strings.HasPrefix(x, u) {
			return true
		}
	}
	return false
}

// contains reports whether some field of the diagnosis contains s,
// ignoring case.
func (g *grounds) contains(s string) bool {
	return s != "" && strings.Contains(g.corpus, strings.ToLower(s))
}

// normPath lower-cases a path and drops "./", leading and trailing "/".
func normPath(p string) string {
	p = strings.ToLower(strings.TrimSpace(p))
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return strings.Trim(p, "/")
}

// canonNumber writes a decimal number canonically: no thousands
// separators, no leading zeros, no trailing fractional zeros.
func canonNumber(s string) (string, bool) {
	s = strings.ReplaceAll(s, ",", "")
	if s == "" || len(s) > 40 {
		return "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	if i := strings.IndexByte(s, '.'); i < 0 {
		t := strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
		if t == "" {
			t = "0"
		}
		if strings.HasPrefix(s, "-") && t != "0" {
			t = "-" + t
		}
		return t, true
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}
