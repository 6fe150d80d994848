package causal

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

var loggedInput = regexp.MustCompile(`^  ([A-Za-z0-9_-]+):(?: |$)`)

// emptySecretInputs returns the inputs of the failing action step that the
// workflow sets from a secret but that are missing from the inputs the
// runner logged for the step: an expression that evaluates to nothing
// leaves the input out, so the secret is empty or not set in this context.
// It returns nothing when the log shows no inputs at all.
func (x *explainer) emptySecretInputs() []string {
	if x.step == nil || x.step.Uses == "" || len(x.step.With) == 0 {
		return nil
	}
	logged, seen := map[string]bool{}, false
	in := false
	for _, l := range x.log.before() {
		text := l.Text
		switch {
		case text == "with:":
			in, seen = true, true
		case in && loggedInput.MatchString(text):
			logged[loggedInput.FindStringSubmatch(text)[1]] = true
		case in && !strings.HasPrefix(text, "  "):
			in = false
		}
	}
	if !seen {
		return nil
	}
	var out []string
	for k, v := range x.step.With {
		if strings.Contains(v.Text, "secrets.") && !logged[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// secretNote is the summary sentence about inputs whose secret is empty,
// citing the workflow lines that set them.
func (x *explainer) secretNote() string {
	keys := x.emptySecretInputs()
	if len(keys) == 0 {
		return ""
	}
	var parts, names, ids []string
	for _, k := range keys {
		v := x.step.With[k]
		parts = append(parts, fmt.Sprintf("`%s` from `%s`", k, strings.TrimSpace(v.Text)))
		names = append(names, "`"+k+"`")
		ids = append(ids, x.ev.file(x.wf.Path, v.Line, k+": "+v.Text, "an input set from a secret"))
	}
	return fmt.Sprintf(" The step sets %s, but the inputs the runner logged for the step have no %s, so the secret is empty or not set for this workflow%s.",
		strings.Join(parts, " and "), strings.Join(names, " or "), cite(ids...))
}
