package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/patch"
)

// A push to GitHub's container registry with the workflow's token needs
// the packages: write permission (docs.github.com, "Publishing Docker
// images", and "Permissions for the GITHUB_TOKEN"). Where a job declares no
// permissions, its token gets the repository's or organisation's default,
// which GitHub made read-only for new ones in February 2023 and which an
// administrator may restrict at any time: the push then fails from one run
// on although no commit touched the workflow. Maintainers declare what the
// job needs (hyperledger/firefly-signer#74 and its sibling repositories,
// macbre/push-to-ghcr#31).

// fixGHCRPackagesWrite gives the failing job packages: write when the push
// used the workflow's token.
func fixGHCRPackagesWrite(x *fixContext) (*fixPlan, error) {
	if x.wf == nil || x.job == nil || x.step == nil {
		return nil, noFix("the failing job was not located")
	}
	token := false
	for _, s := range x.job.Steps {
		text := s.Run + " " + s.With["password"].Text
		if strings.Contains(text, "secrets.GITHUB_TOKEN") || strings.Contains(text, "github.token") {
			token = true
		}
	}
	if !token {
		return nil, noFix("the job does not log in with the workflow's token, so the refused credential is another one (a personal token or a GitHub App's), which the job's permissions do not change")
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	if x.wf.HasPermissions && !x.job.HasPermissions {
		return nil, noFix("the workflow sets permissions for every job; giving this job its own would drop the others it grants, so the workflow's block is the maintainers' to extend with packages: write")
	}
	out, err := patch.SetJobPermission(content, x.job.Line, []string{"contents: read"}, "packages", "write")
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("GitHub's container registry refused the push with the workflow's token%s: pushing a package needs the packages: write permission, and a job that declares none gets the default, which is read-only for repositories and organisations created since February 2023 and can be restricted by an administrator. "+
		"The patch declares what job %q needs (contents: read to check out, packages: write to push); nothing else gains access.", cite(x.ids["cause"]...), x.job.ID)
	return &fixPlan{Title: "Let job " + x.job.ID + " push packages", Rationale: rationale,
		Edits:   []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}},
		Setting: &Location{File: x.wf.Path, Line: x.job.Line, Symbol: "jobs." + x.job.ID + ".permissions"}}, nil
}
