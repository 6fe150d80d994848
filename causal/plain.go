package causal

import "strings"

// mechanismSentence names the mechanism in plain words and the files the
// patch changes, for the closing sentence of the summary paragraph; "" for
// an unknown mechanism.
func (x *explainer) mechanismSentence() string {
	cat := x.chain.Mechanism.Category
	if !cat.Known() {
		return ""
	}
	s := "Polylane reads this as a " + cat.Plain() + " (`" + string(cat) + "`)"
	if files := x.patchFiles(); files != "" {
		s += "; its patch changes " + files
	}
	return s + "."
}

// patchFiles lists the files the patch changes as code spans, "" without a
// patch.
func (x *explainer) patchFiles() string {
	if x.patch == nil {
		return ""
	}
	var names []string
	for _, f := range x.patch.Files {
		names = append(names, "`"+f.Path+"`")
	}
	return joinAnd(dedupe(names, 4))
}

// rationaleWithFiles is the patch's rationale, closed by a sentence naming
// the changed files and the mechanism when the rationale does not already
// name them all.
func (x *explainer) rationaleWithFiles() string {
	r := strings.TrimSpace(x.patch.Rationale)
	cat := x.chain.Mechanism.Category
	missing := cat.Known() && !strings.Contains(r, string(cat)) && !strings.Contains(r, cat.Plain())
	for _, f := range x.patch.Files {
		if !strings.Contains(r, f.Path) {
			missing = true
		}
	}
	if !missing {
		return r
	}
	tail := "The patch changes " + x.patchFiles()
	if cat.Known() {
		tail += " to address a " + cat.Plain() + " (`" + string(cat) + "`)"
	}
	return strings.TrimSpace(r + " " + tail + ".")
}

// joinAnd joins words as "a", "a and b", "a, b and c".
func joinAnd(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}
