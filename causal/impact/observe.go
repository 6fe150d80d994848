package impact

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/polylane/polylane/causal/harness"
)

// maxPrintNotes bounds the notes about what new commands print.
const maxPrintNotes = 6

// Observe says where a changed step is visible and what a failure leaves
// behind: the workflow, job and step that show it; the diagnostics the job
// collects and uploads when it fails (steps guarded by failure() or
// always(), actions/upload-artifact names and paths); and what the patch's
// added lines print (echo text, rollout status, wait and retry output).
// workflowPath and stepName name the step the failure surfaced in; added are
// the lines the patch adds, as they appear in the diff without the "+".
func Observe(repo fs.FS, workflowPath, stepName string, added []string) []string {
	var notes []string
	r := harness.NewRepo(repo)
	if wf, err := r.Workflow(workflowPath); err == nil && wf != nil {
		notes = append(notes, stepNotes(r, wf, stepName)...)
	} else if workflowPath != "" {
		notes = append(notes, fmt.Sprintf("The workflow %s could not be read, so where the step shows is not known.", workflowPath))
	}
	return append(notes, printNotes(added)...)
}

// stepNotes says where the step is visible and what the job keeps on failure.
func stepNotes(r *harness.Repo, wf *harness.Workflow, stepName string) []string {
	job, step, err := wf.FindStep("", stepName, 0)
	if err != nil {
		return []string{fmt.Sprintf("The change runs in the %s workflow (%s); the step %q was not found in it.", workflowName(wf), wf.Path, stepName)}
	}
	jobName := job.Name
	if jobName == "" {
		jobName = job.ID
	}
	notes := []string{fmt.Sprintf("The changed step is visible in the %s workflow (%s), job %s, step %q.",
		workflowName(wf), wf.Path, jobName, step.DisplayName())}
	var collectors, uploads []string
	for _, s := range job.Steps[step.Index+1:] {
		cond := strings.ToLower(strings.ReplaceAll(s.If, " ", ""))
		if !strings.Contains(cond, "failure()") && !strings.Contains(cond, "always()") && !strings.Contains(cond, "!cancelled()") {
			continue
		}
		action, _, _ := strings.Cut(strings.ToLower(s.Uses), "@")
		switch {
		case action == "actions/upload-artifact":
			name := s.With["name"].Text
			if name == "" {
				name = "artifact"
			}
			uploads = append(uploads, fmt.Sprintf("%s (%s)", name, strings.Join(listValues(s.With["path"].Text), ", ")))
		case s.Run != "":
			files := writtenFiles(r.ResolveStep(wf, job, s))
			c := fmt.Sprintf("%q", s.DisplayName())
			if len(files) > 0 {
				c += " (writes " + listClip(files, 4) + ")"
			}
			collectors = append(collectors, c)
		}
	}
	switch {
	case len(uploads) > 0 && len(collectors) > 0:
		notes = append(notes, fmt.Sprintf("When the job fails it runs %s and uploads %s.", strings.Join(collectors, " and "), strings.Join(uploads, " and ")))
	case len(uploads) > 0:
		notes = append(notes, fmt.Sprintf("When the job fails it uploads %s.", strings.Join(uploads, " and ")))
	case len(collectors) > 0:
		notes = append(notes, fmt.Sprintf("When the job fails it runs %s, but uploads nothing; the output is only in the job log.", strings.Join(collectors, " and ")))
	default:
		notes = append(notes, "The job collects and uploads no diagnostics on failure; the step log is the only record.")
	}
	return notes
}

// writtenFiles lists the base names of files the tree's commands redirect
// output to.
func writtenFiles(tree *harness.Node) []string {
	var out []string
	tree.Walk(func(n *harness.Node) bool {
		if n.Kind != harness.NodeTaskCmd && n.Kind != harness.NodeRecipe && n.Kind != harness.NodeStep {
			return true
		}
		text := n.Text
		if n.Kind == harness.NodeStep && n.Step != nil {
			text = n.Step.Run
		}
		for _, target := range redirectTargets(text) {
			if base := path.Base(n.ExpandVars(target)); base != "." && base != "/" && !strings.HasPrefix(base, "/dev") {
				out = appendOnce(out, base)
			}
		}
		return true
	})
	return out
}

// redirectTargets parses shell and returns the words it redirects output to.
func redirectTargets(src string) []string {
	f, err := harness.ParseShellSyntax("", maskTemplates(src))
	if err != nil {
		return nil
	}
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if rd, ok := n.(*syntax.Redirect); ok && rd.Word != nil {
			switch rd.Op.String() {
			case ">", ">>", "&>", ">|":
				out = append(out, unmask(wordString(rd.Word)))
			}
		}
		return true
	})
	return out
}

// printNotes says what the added lines print.
func printNotes(added []string) []string {
	var notes []string
	for _, line := range added {
		if len(notes) >= maxPrintNotes {
			break
		}
		text := commandText(line)
		if text == "" {
			continue
		}
		if n := envNote(text); n != "" {
			notes = appendOnce(notes, n)
			continue
		}
		f, err := harness.ParseShellSyntax("", maskTemplates(text))
		if err != nil {
			continue
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			if call, ok := n.(*syntax.CallExpr); ok {
				if note := callNote(call); note != "" {
					notes = appendOnce(notes, note)
				}
			}
			return true
		})
	}
	return notes
}

// commandText strips YAML and Makefile framing from an added line: list
// markers, run:/cmd: keys, recipe tabs and @/- prefixes.
func commandText(line string) string {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(line, "\t") {
		t = strings.ReplaceAll(t, "$$", "$") // a make recipe escapes the shell's $
	}
	t = strings.TrimPrefix(t, "- ")
	for _, key := range []string{"run:", "cmd:", "- cmd:", "defer:"} {
		if v, ok := strings.CutPrefix(t, key); ok {
			t = strings.TrimSpace(v)
		}
	}
	t = strings.TrimLeft(t, "@-+")
	if t == "|" || t == ">" || strings.HasPrefix(t, "#") {
		return ""
	}
	if len(t) >= 2 && (t[0] == '\'' || t[0] == '"') && t[len(t)-1] == t[0] {
		t = t[1 : len(t)-1]
	}
	return t
}

// envNote explains retry settings given as environment or config keys.
func envNote(text string) string {
	key, value, ok := strings.Cut(text, ":")
	if !ok || strings.ContainsAny(key, " \t") {
		return ""
	}
	value = strings.Trim(strings.TrimSpace(value), `"'`)
	switch strings.ToLower(key) {
	case "npm_config_fetch_retries":
		return fmt.Sprintf("npm retries a failed registry fetch up to %s times and logs each retry as a warning before giving up.", value)
	case "pip_retries":
		return fmt.Sprintf("pip retries failed downloads up to %s times and logs each retry.", value)
	case "goproxy":
		return fmt.Sprintf("Go module downloads use GOPROXY=%s.", value)
	}
	return ""
}

// callNote says what one added command prints, or "".
func callNote(call *syntax.CallExpr) string {
	var args []string
	for _, w := range call.Args {
		args = append(args, unmask(wordString(w)))
	}
	if len(args) == 0 {
		return ""
	}
	tool := path.Base(args[0])
	switch {
	case tool == "echo" || tool == "printf":
		msg := strings.Join(skipDashes(args[1:]), " ")
		msg = strings.NewReplacer(`\n`, " ", "%s", "…", "%d", "…").Replace(msg)
		if strings.TrimSpace(msg) == "" {
			return ""
		}
		return fmt.Sprintf("It prints %q.", clip(msg, 160))
	case tool == "kubectl" && indexOf(args, "rollout") >= 0 && indexOf(args, "status") >= 0:
		return fmt.Sprintf("kubectl rollout status reports the progress of %s until the rollout completes or times out.", wordAfter(args, "status"))
	case tool == "kubectl" && indexOf(args, "wait") >= 0:
		return "kubectl wait prints one \"condition met\" line per resource it waited for."
	case tool == "curl" && hasFlag(args, "--retry"):
		return "curl prints a warning for every retry, with the attempts left."
	case tool == "helm" && hasFlag(args, "--wait"):
		return "helm waits for the release's resources to become ready before it reports the release."
	case tool == "sleep":
		return ""
	}
	return ""
}

// skipDashes drops leading option words (echo -e, printf --).
func skipDashes(args []string) []string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		args = args[1:]
	}
	return args
}

// wordString flattens a shell word: literal and quoted text as written,
// parameters as $NAME, arithmetic as $((expr)).
func wordString(w *syntax.Word) string {
	var sb strings.Builder
	var part func(p syntax.WordPart)
	part = func(p syntax.WordPart) {
		switch p := p.(type) {
		case *syntax.Lit:
			sb.WriteString(p.Value)
		case *syntax.SglQuoted:
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				part(q)
			}
		case *syntax.ParamExp:
			if p.Param != nil {
				sb.WriteString("$" + p.Param.Value)
			}
		case *syntax.CmdSubst:
			sb.WriteString("$(…)")
		case *syntax.ArithmExp:
			var x strings.Builder
			if err := syntax.NewPrinter().Print(&x, &syntax.Word{Parts: []syntax.WordPart{p}}); err == nil {
				sb.WriteString(x.String())
			} else {
				sb.WriteString("$((…))")
			}
		}
	}
	for _, p := range w.Parts {
		part(p)
	}
	return sb.String()
}

// maskTemplates turns {{ .NAME }} and ${{ expr }} into a placeholder word the
// shell parser accepts; unmask turns it back into <NAME>.
func maskTemplates(s string) string {
	var sb strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		start := i
		if i > 0 && s[i-1] == '$' {
			start--
		}
		name := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s[i+2:i+j]), "."))
		var safe strings.Builder
		for _, r := range name {
			if r == '_' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
				safe.WriteRune(r)
			}
		}
		sb.WriteString(s[:start] + "__TPL_" + safe.String() + "__")
		s = s[i+j+2:]
	}
}

// unmask restores masked templates as <NAME>.
func unmask(s string) string {
	for {
		i := strings.Index(s, "__TPL_")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i+6:], "__")
		if j < 0 {
			return s
		}
		s = s[:i] + "<" + s[i+6:i+6+j] + ">" + s[i+6+j+2:]
	}
}
