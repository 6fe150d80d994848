package githubtest

import (
	"maps"
	"net/http"
	"path"
	"strings"
)

// DefaultPermissions are the repository permissions every installation
// holds unless Options.Permissions says otherwise: what `polylane setup
// --workflows` asks for.
var DefaultPermissions = map[string]string{
	"actions": "write", "contents": "write", "issues": "write", "metadata": "read",
	"pull_requests": "write", "workflows": "write",
}

// Permission specifications, in the format GitHub writes to the
// X-Accepted-GitHub-Permissions response header
// (https://docs.github.com/rest/using-the-rest-api/troubleshooting-the-rest-api
// "Resource not accessible": "x-accepted-github-permissions: contents=read"):
// alternatives separated by ";", each a ","-separated set of permissions
// that must all be held. The levels per endpoint are those the REST
// reference lists under "Fine-grained access tokens" / "GitHub App
// installation access tokens".
const (
	needMetadata     = "metadata=read"
	needActionsRead  = "actions=read"
	needActionsWrite = "actions=write"
	needContentsRead = "contents=read"
	needContents     = "contents=write"
	// A ref write whose new commits change .github/workflows/ needs both;
	// GitHub names both sets (mkb79/Audible#882 quotes the header
	// "contents=write; contents=write,workflows=write").
	needWorkflowRef = "contents=write; contents=write,workflows=write"
	needPullsRead   = "pull_requests=read"
	needPulls       = "pull_requests=write"
	// Issue and pull request conversations accept either permission.
	needIssueRead  = "issues=read; pull_requests=read"
	needIssueWrite = "issues=write; pull_requests=write"
)

// errNoIntegrationAccess is GitHub's message for a call the installation's
// permissions do not cover (seen verbatim in countless reports, e.g.
// github.com/peter-evans/create-issue-from-file/issues/1220).
const errNoIntegrationAccess = "Resource not accessible by integration"

// permLevel orders permission levels.
func permLevel(v string) int {
	switch v {
	case "read":
		return 1
	case "write":
		return 2
	case "admin":
		return 3
	}
	return 0
}

// permits reports whether perms satisfy a specification.
func permits(perms map[string]string, spec string) bool {
	for _, alt := range strings.Split(spec, ";") {
		ok := true
		for _, one := range strings.Split(strings.TrimSpace(alt), ",") {
			name, level, _ := strings.Cut(strings.TrimSpace(one), "=")
			if permLevel(perms[name]) < permLevel(level) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// grantable reports whether asked narrows held: every asked permission is
// held at that level or above.
func grantable(held, asked map[string]string) bool {
	for name, level := range asked {
		if permLevel(level) == 0 || permLevel(held[name]) < permLevel(level) {
			return false
		}
	}
	return true
}

// refuseIntegration answers GitHub's 403 for a missing permission, naming
// the permissions that would have been accepted.
func refuseIntegration(w http.ResponseWriter, spec, doc string) {
	w.Header().Set("X-Accepted-GitHub-Permissions", spec)
	writeJSON(w, http.StatusForbidden, map[string]any{
		"message": errNoIntegrationAccess, "documentation_url": doc, "status": "403",
	})
}

// need wraps a handler so that an installation whose token lacks spec is
// refused as GitHub refuses it. Users and the app are not checked here:
// their access is decided by repoAccess.
func (s *Server) need(spec string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if p := principalOf(r); p.kind == kindInstallation && !permits(p.perms, spec) {
			refuseIntegration(w, spec, docsBase)
			return
		}
		h(w, r)
	}
}

// installationPerms returns a copy of an installation's permissions.
// Callers hold s.mu.
func (s *Server) installationPerms(id int64) map[string]string {
	if inst := s.installations[id]; inst != nil && inst.perms != nil {
		return maps.Clone(inst.perms)
	}
	return maps.Clone(s.opts.Permissions)
}

// SetInstallationPermissions replaces the permissions an installation
// holds, as when an admin accepts (or an owner reduces) the app's
// permissions. Tokens issued before keep the permissions they were issued
// with, as GitHub's do, until they expire.
func (s *Server) SetInstallationPermissions(id int64, perms map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inst := s.installations[id]; inst != nil {
		inst.perms = maps.Clone(perms)
	}
}

// workflowDir is the directory whose files need the workflows permission.
const workflowDir = ".github/workflows/"

// touchesWorkflows reports whether pointing a ref at sha brings in a commit
// that changes a file under .github/workflows/: a commit reachable from sha
// and from no current ref whose workflow files differ from its first
// parent's (a root commit's count when it has any). GitHub refuses such a
// ref write from an app without workflows: write. Callers hold s.mu.
func (s *Server) touchesWorkflows(repo *repoState, sha string) bool {
	g := repo.git
	known := map[string]bool{}
	for _, head := range repo.refs {
		stack := []string{head}
		for len(stack) > 0 {
			cur := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if known[cur] {
				continue
			}
			known[cur] = true
			if c := g.commits[cur]; c != nil {
				stack = append(stack, c.Parents...)
			}
		}
	}
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 && len(seen) < 10_000 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if known[cur] || seen[cur] {
			continue
		}
		seen[cur] = true
		c := g.commits[cur]
		if c == nil {
			continue
		}
		parentTree := ""
		if len(c.Parents) > 0 {
			if pc := g.commits[c.Parents[0]]; pc != nil {
				parentTree = pc.Tree
			}
		}
		if !sameWorkflows(g, parentTree, c.Tree) {
			return true
		}
		stack = append(stack, c.Parents...)
	}
	return false
}

// sameWorkflows compares the files under .github/workflows/ of two trees
// ("" is the empty tree).
func sameWorkflows(g *gitStore, a, b string) bool {
	fa, fb := workflowFiles(g, a), workflowFiles(g, b)
	if len(fa) != len(fb) {
		return false
	}
	for p, e := range fa {
		if fb[p] != e {
			return false
		}
	}
	return true
}

// workflowFiles lists a tree's files under .github/workflows/.
func workflowFiles(g *gitStore, tree string) map[string]fileEntry {
	out := map[string]fileEntry{}
	if tree == "" {
		return out
	}
	dir, ok := g.lookup(tree, path.Clean(workflowDir))
	if !ok || dir.Mode != modeTree {
		return out
	}
	files, err := g.flatten(dir.SHA)
	if err != nil {
		return out
	}
	return files
}
