package causal

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

var placeholder = regexp.MustCompile(`\{[a-z_]+\}`)

// fillSummary fills a rule summary's placeholders from the facts.
func (x *explainer) fillSummary(tpl string) string {
	return capitalize(placeholder.ReplaceAllStringFunc(tpl, func(p string) string {
		return x.placeholderValue(strings.Trim(p, "{}"))
	}))
}

// placeholderValue is the text of one {placeholder} of the matched rule's
// summary: the rule's own value, else one every rule may use.
func (x *explainer) placeholderValue(name string) string {
	if v, ok := x.rule.Values[name]; ok {
		return v(x)
	}
	if v, ok := commonValues[name]; ok {
		return v(x)
	}
	return ""
}

// commonValues are the placeholders any rule's summary may use.
var commonValues = map[string]summaryValue{
	"emitter_desc": (*explainer).emitterDesc,
	"cause_short": func(x *explainer) string {
		return strings.Trim(quoteShort(x.matched.Line.Text, x.matchedPart()), "'")
	},
	"cause_cite": func(x *explainer) string {
		return cite(append(append([]string{}, x.ids["cause"]...), x.ids["emitter"]...)...)
	},
	"endpoint": func(x *explainer) string {
		if x.endpoint != "" {
			return x.endpoint
		}
		return "the server"
	},
}

// emitterDesc describes the command that printed the cause, or the step
// when no command of it was located.
func (x *explainer) emitterDesc() string {
	if x.em.Node == nil {
		return x.stepDesc()
	}
	if _, ok := x.dockerRunProducer(); ok {
		if x.em.Node.Nearest(harness.NodeInstruction) != nil {
			return "`" + commandName(x.em.Node) + "`, running " + x.dockerRun.desc() + ","
		}
		return describe(x.em.Node) + ", running " + x.dockerRun.desc() + ","
	}
	return describe(x.em.Node)
}

// retryNote says what retries the emitter today, if anything.
func (x *explainer) retryNote() string {
	if l := x.em.Node.RetryLoop(); l != nil && l.Wait {
		return "It runs in a wait loop that polls it " + loopWords(l) + ", and the wait still failed."
	}
	if r := x.retryOf(x.em.Node); r != "" {
		return "It is retried through " + r + ", and it still failed."
	}
	if d, ok := builtinRetries[x.em.Node.Tool()]; ok {
		return "Nothing in the harness retries it, and " + d + "."
	}
	return "The command runs once; nothing retries it."
}

// stepDesc names the failing step when no command of it was located: the
// action it runs, or what the runner was doing.
func (x *explainer) stepDesc() string {
	switch {
	case x.step != nil && x.step.Uses != "":
		return fmt.Sprintf("the action `%s` in step %q", x.step.Uses, x.step.DisplayName())
	case x.step == nil && x.in.Step.Name == "Initialize containers":
		return "starting the job's service containers"
	case x.step != nil:
		return fmt.Sprintf("step %q", x.step.DisplayName())
	}
	return "the failing step"
}

// matchedPart returns the part of the matched line the rule's pattern hit.
func (x *explainer) matchedPart() string {
	if x.rule == nil {
		return ""
	}
	for _, re := range x.rule.Cause {
		if m := re.FindString(x.matched.Line.Text); m != "" {
			return m
		}
	}
	return ""
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func clipWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// changerWords names the units whose commands changed workloads.
func changerWords(changes []*harness.Node) string {
	var names []string
	seen := map[string]bool{}
	for _, c := range changes {
		l := unitLabel(c)
		if !seen[l] {
			seen[l] = true
			names = append(names, l)
		}
	}
	if len(names) == 0 {
		return "The harness"
	}
	return "The harness (" + strings.Join(names, ", ") + ")"
}

// workloadWords lists the changed objects from the log events.
func workloadWords(evs []event) string {
	var objs []string
	seen := map[string]bool{}
	for _, e := range evs {
		if e.Object == "" || seen[e.Object] {
			continue
		}
		seen[e.Object] = true
		if e.Kind == evPodDeleted {
			objs = append(objs, e.Object+" (deleted)")
			continue
		}
		objs = append(objs, e.Object)
	}
	if len(objs) == 0 {
		return "its workloads"
	}
	return strings.Join(dedupe(objs, 6), ", ")
}

// whatHappened is a short paragraph: what failed, where, and how.
func (x *explainer) whatHappened() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The step %q of %s failed", x.stepName(), firstNonEmptyStr(x.in.WorkflowName, x.in.WorkflowPath))
	if x.chain.Mechanism.Summary == "" && x.cause.Text != "" {
		fmt.Fprintf(&b, " with %s%s", quoteShort(x.cause.Text, ""), cite(x.ids["cause"]...))
	}
	b.WriteString(". ")
	b.WriteString(x.chain.Mechanism.Summary)
	if x.in.Cadence != "" {
		b.WriteString(" ")
		b.WriteString(strings.TrimSuffix(capitalize(x.in.Cadence), ".") + ".")
	}
	if s := x.mechanismSentence(); s != "" {
		b.WriteString(" " + s)
	}
	return strings.TrimSpace(b.String())
}

// whyThisFix says why the patch addresses the mechanism, or why there is none.
func (x *explainer) whyThisFix() string {
	if x.patch != nil {
		return x.rationaleWithFiles()
	}
	if x.fixNote != "" {
		return x.fixNote
	}
	return "Polylane proposes no patch."
}
