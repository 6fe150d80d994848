package worker

import (
	"strings"

	"github.com/polylane/polylane/causal/impact"
	"github.com/polylane/polylane/server/report"
)

// workflowsDir holds a repository's GitHub Actions workflows.
const workflowsDir = ".github/workflows/"

// withheld says why the diagnosis' patch is not opened as a fix pull
// request on its own (report.WithheldWorkflows, report.WithheldCredential):
// a patch that changes a workflow needs fix_pull_requests.workflows, and a
// patch that passes a credential is opened only when someone with write
// access asks. Both are read from the diff as well as from the stored
// assessment, so that a diagnosis stored before the assessment listed
// credentials is held back too.
func (p *published) withheld() []string {
	d := p.doc
	if d.Patch == nil || d.Patch.Diff == "" {
		return nil
	}
	var out []string
	if len(workflowFiles(d.Patch.Diff)) > 0 {
		switch {
		case !p.set.WorkflowFixes:
			out = append(out, report.WithheldWorkflows)
		case p.lacksWorkflows():
			out = append(out, report.WithheldWorkflowsPermission)
		}
	}
	if d.Impact != nil && len(d.Impact.Credentials) > 0 || len(impact.ScanCredentials(d.Patch.Diff)) > 0 {
		out = append(out, report.WithheldCredential)
	}
	return out
}

// workflowFiles lists the workflow files a diff changes.
func workflowFiles(diff string) []string {
	var out []string
	for _, c := range impact.ChangesFromDiff(diff) {
		if strings.HasPrefix(c.Path, workflowsDir) {
			out = append(out, c.Path)
		}
	}
	return out
}

// fixBlocked says why no fix pull request may be opened or updated now
// (report.WithheldWorkflows or report.WithheldCredential), "" when one may:
// requested is an "@polylane fix" from someone with write access, which
// may open a patch that passes a credential, never one that changes a
// workflow the repository does not let Polylane change.
func (p *published) fixBlocked(requested bool) string {
	for _, why := range p.withheld() {
		if why != report.WithheldCredential || !requested {
			return why
		}
	}
	return ""
}

// withheldReply answers "@polylane fix" when the fix may not be opened.
func (p *published) withheldReply(why string) string {
	if why == report.WithheldWorkflows {
		return "No fix pull request was opened: the fix changes " + inert(strings.Join(workflowFiles(p.doc.Patch.Diff), ", ")) +
			", and this repository does not let Polylane open pull requests that change workflows. Set `fix_pull_requests.workflows: true` in `.github/polylane.yml` on the default branch to allow it; the patch is in the assessment comment. Nothing was changed.\n"
	}
	if why == report.WithheldWorkflowsPermission {
		return "No fix pull request was opened: the fix changes " + inert(strings.Join(workflowFiles(p.doc.Patch.Diff), ", ")) +
			", and GitHub lets an app write workflow files only with the `workflows: write` permission, which Polylane's installation does not hold. " +
			"To allow it, give the GitHub App the repository permission \"Workflows: Read and write\" (or create it with `polylane setup --workflows`) and accept the new permission in the installation's settings" +
			p.settingsLink() + "; the patch is in the assessment comment. Nothing was changed.\n"
	}
	return "No fix pull request was opened: the fix passes a credential. Nothing was changed.\n"
}

// lacksWorkflows reports that the installation's token is known to lack
// workflows: write.
func (p *published) lacksWorkflows() bool {
	if p.noWorkflows {
		return true
	}
	level, known := p.gh.Granted("workflows")
	return known && level != "write" && level != "admin"
}

// settingsLink is " (URL)" of the installation's settings page, when known.
func (p *published) settingsLink() string {
	if p.installURL == "" {
		return ""
	}
	return " (" + p.installURL + ")"
}
