package patch

import (
	"fmt"
	"regexp"

	"github.com/rhysd/actionlint"

	"github.com/polylane/polylane/causal/harness"
)

// RuleActionlint is the rule of a patched workflow that has an actionlint
// error its original did not have.
const RuleActionlint = "actionlint"

// IsWorkflow reports whether a path is a GitHub Actions workflow, which
// Validate (and so Build) checks with actionlint.
func IsWorkflow(p string) bool { return kindOf(p, nil) == kindWorkflow }

// lintErrors lints a workflow's bytes with actionlint's parser and its
// rules that need nothing but the bytes. Left out are shellcheck and
// pyflakes (external processes) and what reads other files: local actions
// and local reusable workflows are looked up in caches without a project,
// which answer "unknown" without touching the filesystem. Nothing is
// logged: no rule is given a debug writer.
func lintErrors(p string, content []byte) []*actionlint.Error {
	w, errs := actionlint.Parse(content)
	if w == nil {
		return errs
	}
	actions := actionlint.NewLocalActionsCache(nil, nil)
	workflows := actionlint.NewLocalReusableWorkflowCache(nil, "", nil)
	rules := []actionlint.Rule{
		actionlint.NewRuleMatrix(),
		actionlint.NewRuleCredentials(),
		actionlint.NewRuleShellName(),
		actionlint.NewRuleRunnerLabel(),
		actionlint.NewRuleEvents(),
		actionlint.NewRuleJobNeeds(),
		actionlint.NewRuleAction(actions),
		actionlint.NewRuleEnvVar(),
		actionlint.NewRuleID(),
		actionlint.NewRuleGlob(),
		actionlint.NewRulePermissions(),
		actionlint.NewRuleWorkflowCall(p, workflows),
		actionlint.NewRuleExpression(actions, workflows),
		actionlint.NewRuleDeprecatedCommands(),
		actionlint.NewRuleIfCond(),
	}
	v := actionlint.NewVisitor()
	for _, r := range rules {
		v.AddPass(r)
	}
	if err := v.Visit(w); err != nil {
		return append(errs, &actionlint.Error{Message: err.Error(), Kind: "visit"})
	}
	for _, r := range rules {
		errs = append(errs, r.Errs()...)
	}
	return errs
}

// positionInMessage matches the positions some messages quote ("previously
// defined at line:3,col:5"), which move when a patch adds lines.
var positionInMessage = regexp.MustCompile(`line:\d+,\s*col:\d+`)

// lintKey identifies an actionlint error across two versions of a file.
func lintKey(e *actionlint.Error) string {
	return e.Kind + ": " + positionInMessage.ReplaceAllString(e.Message, "line:_,col:_")
}

// checkActionlint rejects a patched workflow with an actionlint error that
// the original does not have (each error counted by its rule and message,
// not its line, which a patch moves). Errors the original already has are
// not the patch's to fix. The original is the repository's file, so it is
// linted only within the harness's size and nesting bounds (the new content
// passed them in parseBoth); beyond them it counts as having no error.
func checkActionlint(p string, old, new []byte) error {
	added := lintErrors(p, new)
	if len(added) == 0 {
		return nil
	}
	had := map[string]int{}
	if old != nil && harness.CheckYAML(p, old) == nil {
		for _, e := range lintErrors(p, old) {
			had[lintKey(e)]++
		}
	}
	for _, e := range added {
		k := lintKey(e)
		if had[k] > 0 {
			had[k]--
			continue
		}
		return &ValidationError{Path: p, Line: e.Line, Rule: RuleActionlint,
			Msg: fmt.Sprintf("actionlint finds an error the original workflow does not have: %s [%s]", e.Message, e.Kind)}
	}
	return nil
}
