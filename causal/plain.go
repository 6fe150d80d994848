package causal

import "strings"

// plainMechanisms say in a few words what each mechanism category means.
var plainMechanisms = map[string]string{
	RolloutRace:        "readiness gate that passes while a rollout is still under way",
	Ordering:           "resource that is used or awaited before it exists or is ready",
	TransientNetwork:   "transient network error on a call that nothing retries",
	RateLimit:          "remote service that rate-limits the job",
	ResourceExhaustion: "runner that runs out of memory, disk, processes or file watches",
	Timeout:            "step or command that runs out of time",
	PortConflict:       "fixed port that is already taken",
	Dependency:         "dependency that fails to resolve, pin or verify",
	Credentials:        "credential that is missing or refused",
	TestFailure:        "test that fails",
	BuildFailure:       "build that fails",
}

// PlainMechanism describes a mechanism category in a few plain words ("fixed
// port that is already taken"), without an article; an unknown category
// reads as "mechanism Polylane could not name".
func PlainMechanism(category string) string {
	if p, ok := plainMechanisms[category]; ok {
		return p
	}
	return "mechanism Polylane could not name"
}

// mechanismSentence names the mechanism in plain words and the files the
// patch changes, for the closing sentence of the summary paragraph; "" for
// an unknown mechanism.
func (x *explainer) mechanismSentence() string {
	cat := x.chain.Mechanism.Category
	if cat == "" || cat == Unknown {
		return ""
	}
	s := "Polylane reads this as a " + PlainMechanism(cat) + " (`" + cat + "`)"
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
	missing := cat != "" && cat != Unknown && !strings.Contains(r, cat) && !strings.Contains(r, PlainMechanism(cat))
	for _, f := range x.patch.Files {
		if !strings.Contains(r, f.Path) {
			missing = true
		}
	}
	if !missing {
		return r
	}
	tail := "The patch changes " + x.patchFiles()
	if cat != "" && cat != Unknown {
		tail += " to address a " + PlainMechanism(cat) + " (`" + cat + "`)"
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
