package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/polylane/polylane/causal/patch"
)

// patchCounts adds up the lines a patch adds and removes.
func patchCounts(fs []patch.FileChange) (added, removed int) {
	for _, f := range fs {
		added += f.Added
		removed += f.Removed
	}
	return added, removed
}

// fileList names the changed files as code spans.
func (r *renderer) fileList(fs []patch.FileChange) string {
	paths := make([]string, len(fs))
	for i, f := range fs {
		paths[i] = f.Path
	}
	if len(paths) == 0 {
		return "no file"
	}
	return r.codeListN(paths, 4)
}

// fix is the patch section: the title, the files changed with their
// counts and, when it fits, the diff in a collapsible block. inBody is set
// for a fix pull request, whose own diff is the change.
func (r *renderer) fix(b *strings.Builder, inBody bool) {
	p := r.d.Patch
	if p == nil {
		return
	}
	b.WriteString("#### The fix: " + r.p(p.Title) + "\n\n")
	added, removed := patchCounts(p.Files)
	fmt.Fprintf(b, "**%d %s changed (+%d/−%d)**\n\n", len(p.Files), plural(len(p.Files), "file", "files"), added, removed)
	left := r.each(len(p.Files), func(i int) {
		f := p.Files[i]
		fmt.Fprintf(b, "- %s: +%d/−%d\n", r.fileRef(f.Path, 0), f.Added, f.Removed)
	})
	more(b, left)
	b.WriteString("\n")
	if slices.ContainsFunc(p.Files, func(f patch.FileChange) bool { return patch.IsWorkflow(f.Path) }) {
		b.WriteString("Checked with actionlint: the patched workflow has no error that the original did not have.\n\n")
	}
	switch {
	case inBody:
		b.WriteString("The change itself is this pull request's diff.\n\n")
	case p.Diff == "":
		b.WriteString("The patch carries no diff text.\n\n")
	case len(p.Diff) > maxDiff:
		r.cut.diff = fmt.Sprintf("the diff (%d bytes) is not shown", len(p.Diff))
	case !r.lim.diff:
		r.cut.diff = "the diff is not shown"
	default:
		b.WriteString("<details><summary>Diff</summary>\n\n")
		b.WriteString(fenced("diff", p.Diff))
		b.WriteString("\n</details>\n\n")
	}
	if r.cut.diff != "" {
		b.WriteString("The diff is left out of this comment for its size; it is in the fix pull request and on the dashboard.\n\n")
	}
	if !inBody {
		r.withheld(b)
	}
}

// withheld says why the patch is not opened as a fix pull request, and how
// to allow it.
func (r *renderer) withheld(b *strings.Builder) {
	for _, why := range r.opts.FixWithheld {
		switch why {
		case WithheldWorkflows:
			var wfs []string
			for _, f := range r.d.Patch.Files {
				if strings.HasPrefix(f.Path, ".github/workflows/") {
					wfs = append(wfs, f.Path)
				}
			}
			changes := "a workflow file"
			if len(wfs) > 0 {
				changes = r.codeListN(wfs, 4)
			}
			b.WriteString("Polylane opens no pull request for this fix because it changes " + changes +
				" and the repository does not allow fix pull requests that change workflows; set `fix_pull_requests.workflows: true` in `.github/polylane.yml` on the default branch to allow them.\n\n")
		case WithheldWorkflowsPermission:
			b.WriteString("Polylane opens no pull request for this fix because it changes a workflow file and the app's installation lacks the `workflows: write` permission, without which GitHub refuses the branch; the patch above can be applied by hand.\n\n")
		case WithheldCredential:
			b.WriteString("Polylane never opens this fix as a pull request on its own because it passes a credential; someone with write access can ask for it with `@" + r.opts.handle() + " fix`.\n\n")
		}
	}
}

// lint names the repository's declared lint command and says honestly
// that Polylane did not run it.
func (r *renderer) lint(b *strings.Builder) {
	l := r.d.Lint
	if l == nil || l.Command == "" || r.d.Patch == nil {
		return
	}
	b.WriteString("Repository lint: " + r.c(l.Command))
	if l.File != "" {
		b.WriteString(" (declared in " + r.fileRef(l.File, l.Line) + ")")
	}
	b.WriteString(". Polylane did not run it, so its verdict on this change is not known; run it before merging.\n\n")
}

// notAnalysed names the repository files the diagnosis left unparsed
// because they are over a safety limit.
func (r *renderer) notAnalysed(b *strings.Builder) {
	if len(r.d.NotAnalysed) == 0 {
		return
	}
	b.WriteString("Not analysed: Polylane did not parse these files, which are over a safety limit, and diagnosed without them:\n\n")
	for i, s := range r.d.NotAnalysed {
		if i == 10 {
			fmt.Fprintf(b, "- and %d more\n", len(r.d.NotAnalysed)-i)
			break
		}
		b.WriteString("- " + r.c(s.File) + ": " + escapeText(plain(s.Reason, 200)) + "\n")
	}
	b.WriteString("\n")
}

// assessed says which run and commit the assessment is for.
func (r *renderer) assessed(b *strings.Builder) {
	d := r.d
	fmt.Fprintf(b, "Polylane assessed %s", r.runRef(d.Run.ID, d.Run.Number))
	if d.Run.Attempt > 0 {
		fmt.Fprintf(b, " (attempt %d)", d.Run.Attempt)
	}
	if d.Run.HeadSHA != "" {
		b.WriteString(" at " + link(r.shortSHA(d.Run.HeadSHA), r.ln.commit(d.Run.HeadSHA)))
	}
	if d.Run.Event != "" {
		b.WriteString(", triggered by " + r.c(d.Run.Event))
	}
	b.WriteString(".\n\n")
}

// footer closes every document with how to follow up.
func (r *renderer) footer(b *strings.Builder) {
	h := "@" + r.opts.handle()
	b.WriteString("---\n\n")
	fmt.Fprintf(b, "Written by Polylane from the run's logs, the last %d runs of the workflow and the repository's harness. ", r.d.Window.Runs)
	fmt.Fprintf(b, "Ask follow-ups in a comment: `%s help`, `%s explain`, `%s why <question>`", h, h, h)
	if r.d.Patch != nil {
		fmt.Fprintf(b, ", `%s fix`", h)
	}
	if r.d.TriggerClass != "" {
		b.WriteString(", or " + code(h+" mute "+r.d.TriggerClass, 120) + " to silence this class")
	}
	b.WriteString(".")
	if u := safeURL(r.opts.DashboardURL); u != "" {
		b.WriteString(" " + link("Open the diagnosis on the dashboard", u) + ".")
	}
	b.WriteString("\n")
}
