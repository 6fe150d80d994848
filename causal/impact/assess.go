package impact

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// maxRunsIn bounds the workflow steps listed per changed file.
const maxRunsIn = 5

// Assess says whether the changed files reach anything deployed. repo is the
// repository tree at the commit the patch applies to; repository is
// "owner/name" (it resolves ${{ github.repository }} in image names and may
// be empty). A change without lines is taken to touch the whole file.
//
// The result lists the repository's deploy edges, the artifacts the changes
// reach (ci_only when none), what was checked and found not affected, a
// verdict per file, notes on build files that are not deployed, and a summary
// in prose. Observability is left to Observe, which needs the failing step.
func Assess(repo fs.FS, repository string, changes []Change) (*Impact, error) {
	return assess(repo, repository, changes, nil)
}

// assess is Assess for a patch that passes the credentials creds: the
// impact lists them, is never CI-only, and its summary says so.
func assess(repo fs.FS, repository string, changes []Change, creds []Credential) (*Impact, error) {
	if repo == nil {
		return nil, errors.New("assess impact: no repository tree")
	}
	g := buildGraph(repo, repository)
	im := &Impact{DeployEdges: []Edge{}, Affected: []string{}, Notes: g.notes, Assumed: g.assumed, Credentials: creds}
	hitEdges := map[*deployEdge]bool{}
	var found, missed []string
	for _, c := range changes {
		fv := FileVerdict{Path: c.Path, Role: role(c.Path), RunsIn: g.runsIn(c.Path)}
		for _, e := range g.edges {
			hit, why := e.reach(c)
			fv.Reasons = append(fv.Reasons, why)
			if !hit {
				missed = appendOnce(missed, why)
			}
			if hit {
				found = appendOnce(found, why)
				hitEdges[e] = true
				fv.Affected = appendOnce(fv.Affected, e.Artifact)
				im.Affected = appendOnce(im.Affected, e.Artifact)
			}
		}
		im.Files = append(im.Files, fv)
	}
	for _, e := range g.edges {
		im.DeployEdges = appendEdge(im.DeployEdges, e.Edge)
		if !hitEdges[e] {
			im.CheckedNotAffected = appendOnce(im.CheckedNotAffected, checkedLabel(e.Edge))
		}
	}
	im.CIOnly = len(im.Affected) == 0 && len(im.Credentials) == 0
	im.Summary = summarize(im, g, found, missed)
	return im, nil
}

// AssessDiff is Assess for the files and lines of a unified diff; the
// credential references the diff adds are listed (ScanCredentials).
func AssessDiff(repo fs.FS, repository, diff string) (*Impact, error) {
	return AssessPatch(repo, repository, diff, nil)
}

// AssessPatch is AssessDiff for a patch whose fix described the
// credentials it passes (who receives them, where they go); references in
// files no description covers are listed as found.
func AssessPatch(repo fs.FS, repository, diff string, described []Credential) (*Impact, error) {
	return assess(repo, repository, ChangesFromDiff(diff), mergeCredentials(described, ScanCredentials(diff)))
}

// appendEdge appends e unless an equal edge is present.
func appendEdge(edges []Edge, e Edge) []Edge {
	for _, x := range edges {
		if x == e {
			return edges
		}
	}
	return append(edges, e)
}

// checkedLabel names an edge for the checked-and-not-affected list.
func checkedLabel(e Edge) string {
	label := fmt.Sprintf("%s (%s from %s", e.Artifact, e.Kind, e.Source)
	if e.Via != "" && e.Via != e.Source {
		label += ", published by " + e.Via
	}
	return label + ")"
}

// runsIn lists the workflow steps that execute a file, as "workflow › step".
func (g *graph) runsIn(p string) []string {
	var out []string
	for _, st := range g.steps {
		if len(out) >= maxRunsIn {
			break
		}
		label := workflowName(st.wf) + " › " + st.step.DisplayName()
		if st.wf.Path == p {
			out = appendOnce(out, workflowName(st.wf)+" (every job)")
			continue
		}
		if st.tree == nil {
			continue
		}
		found := false
		st.tree.Walk(func(n *harness.Node) bool {
			found = found || n.File == p
			return !found
		})
		if found {
			out = appendOnce(out, label)
		}
	}
	return out
}

// workflowName returns a workflow's name, or its path.
func workflowName(wf *harness.Workflow) string {
	if wf.Name != "" {
		return wf.Name
	}
	return wf.Path
}

// summarize writes the production-impact summary in prose.
func summarize(im *Impact, g *graph, found, missed []string) string {
	parts := []string{describeFiles(im.Files)}
	for _, fv := range im.Files {
		parts = append(parts, describeRuns(fv))
	}
	parts = append(parts, describeEdges(g.edges))
	switch {
	case len(g.edges) == 0:
	case len(im.Affected) == 0:
		them := "any of them"
		if len(g.edges) == 1 {
			them = "it"
		}
		s := fmt.Sprintf("The change does not reach %s: %s.", them, strings.Join(missed, "; "))
		if im.CIOnly {
			s += " It is a CI-only change."
		}
		parts = append(parts, s)
	default:
		parts = append(parts, fmt.Sprintf("The change reaches %s: %s. Treat it as a production change and review it with the owners of what ships.",
			strings.Join(im.Affected, ", "), strings.Join(found, "; ")))
	}
	if len(im.Credentials) > 0 {
		parts = append(parts, credentialSentence(im.Credentials))
	}
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, " ")
}

// describeFiles names the changed files and what they are.
func describeFiles(files []FileVerdict) string {
	switch len(files) {
	case 0:
		return "The patch changes no file."
	case 1:
		return fmt.Sprintf("The only changed file is %s, %s.", files[0].Path, files[0].Role)
	}
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = fmt.Sprintf("%s (%s)", f.Path, f.Role)
	}
	return "The changed files are " + strings.Join(parts, ", ") + "."
}

// describeRuns says where a file runs.
func describeRuns(fv FileVerdict) string {
	if len(fv.RunsIn) == 0 {
		if harnessFile(fv.Path) {
			return fmt.Sprintf("No workflow step in the repository was found to execute %s.", fv.Path)
		}
		return ""
	}
	return fmt.Sprintf("%s runs on the GitHub Actions runner in %s, not in production.", fv.Path, strings.Join(fv.RunsIn, "; "))
}

// describeEdges lists the repository's deploy edges.
func describeEdges(edges []*deployEdge) string {
	if len(edges) == 0 {
		return "Polylane found no deploy edge in the repository: no workflow pushes an image or publishes a release or chart, " +
			"and no Dockerfile, Helm chart, Kubernetes manifest, kustomization, Compose file or goreleaser configuration ships, " +
			"so nothing deployed can read the change."
	}
	var parts []string
	for _, e := range edges {
		parts = appendOnce(parts, edgeProse(e.Edge))
	}
	if len(parts) == 1 {
		return "The repository's only deploy edge is " + parts[0] + "."
	}
	return fmt.Sprintf("The repository has %d deploy edges: %s.", len(parts), listClip(parts, 6))
}

// edgeProse describes one edge in a phrase.
func edgeProse(e Edge) string {
	via := ""
	if e.Via != "" {
		via = " by " + e.Via
		if e.Job != "" {
			via += " (job " + e.Job + ")"
		}
	}
	compose := strings.Contains(strings.ToLower(e.Via), "compose")
	switch {
	case e.Kind == OCIImage && via == "":
		return fmt.Sprintf("the OCI image built from %s, which no workflow here pushes", e.Source)
	case e.Kind == OCIImage && compose:
		return fmt.Sprintf("the OCI image %s, built from %s and run%s", e.Artifact, e.Source, via)
	case e.Kind == OCIImage:
		return fmt.Sprintf("the OCI image %s, built from %s and pushed%s", e.Artifact, e.Source, via)
	case e.Kind == Chart && via == "":
		return fmt.Sprintf("the Helm chart %s in %s", e.Artifact, e.Source)
	case e.Kind == Chart:
		return fmt.Sprintf("the Helm chart %s in %s, released%s", e.Artifact, e.Source, via)
	case e.Kind == Manifest && strings.HasPrefix(path.Base(e.Source), "kustomization"):
		return fmt.Sprintf("the kustomization %s (%s)", path.Dir(e.Source), e.Artifact)
	case e.Kind == Manifest && compose:
		return fmt.Sprintf("the Compose deployment %s (%s)", e.Source, e.Artifact)
	case e.Kind == Manifest:
		return fmt.Sprintf("the Kubernetes manifests in %s (%s)", e.Source, e.Artifact)
	case via == "":
		return fmt.Sprintf("the %s configured in %s", e.Artifact, e.Source)
	}
	return fmt.Sprintf("the %s published%s", e.Artifact, via)
}
