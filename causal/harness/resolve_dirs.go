package harness

import (
	"path"
	"regexp"
	"strings"
)

// workdir is a script's working directory as its cd, pushd and popd move
// it, relative to the repository root; unknown after a cd it cannot read.
type workdir struct {
	dir   string
	stack []string
}

// change applies a cd, pushd or popd command to the working directory and
// reports whether the command was one. Only commands that run in the
// script's own shell move it (not inside a pipeline, a substitution or a
// condition's fallback).
func (w *workdir) change(rs *resolver, n *Node) bool {
	c := n.Cmd
	name := c.Name()
	if name != "cd" && name != "pushd" && name != "popd" {
		return false
	}
	if c.PipeLen > 1 || c.Substituted || c.Background {
		return true
	}
	switch name {
	case "popd":
		if k := len(w.stack); k > 0 {
			w.dir, w.stack = w.stack[k-1], w.stack[:k-1]
		}
		return true
	case "pushd":
		w.stack = append(w.stack, w.dir)
	}
	args := skipFlags(c.Args[1:])
	if len(args) == 0 {
		return true
	}
	if d, ok := rs.cdTarget(n, w.dir, args[0]); ok {
		w.dir = d
	}
	return true
}

// scriptDirRef matches the usual ways a script names its own directory.
var scriptDirRef = regexp.MustCompile(`^"?\$\(\s*dirname\s+"?\$(?:0|\{?BASH_SOURCE(?:\[0\])?\}?)"?\s*\)"?|^"?\$\{BASH_SOURCE(?:\[0\])?%/\*\}"?`)

// cdTarget returns the repository directory that a cd argument names from
// dir, and false when it cannot tell (a variable, an absolute path).
func (rs *resolver) cdTarget(n *Node, dir, arg string) (string, bool) {
	if m := scriptDirRef.FindString(arg); m != "" {
		own := dir
		if s := n.Nearest(NodeScript); s != nil {
			own = path.Dir(s.File)
		}
		arg = own + "/" + strings.Trim(strings.TrimPrefix(arg, m), `"/`)
		dir = ""
	}
	arg = strings.Trim(n.ExpandVars(arg), `"'`)
	if arg == "" || arg == "-" || strings.ContainsAny(arg, "$`{}*?~") || path.IsAbs(arg) {
		return dir, false
	}
	return rs.inRepo(path.Join(dir, arg)), true
}

// inRepo maps a directory relative to the workspace to one relative to the
// repository: a job that checks the repository out under a path (actions/
// checkout's path:) has it there. A path written from the workspace
// (${{ github.workspace }}/x, $GITHUB_WORKSPACE/x) is relative to it.
func (rs *resolver) inRepo(dir string) string {
	dir = path.Clean(workspaceRelative(dir))
	if p := rs.checkout; p != "" {
		if dir == p {
			return "."
		}
		if strings.HasPrefix(dir, p+"/") {
			return strings.TrimPrefix(dir, p+"/")
		}
	}
	return dir
}

// workspaceRefs are the ways a workflow names the workspace directory.
var workspaceRefs = []string{"${{ github.workspace }}", "${{github.workspace}}", "$GITHUB_WORKSPACE", "${GITHUB_WORKSPACE}"}

// workspaceRelative removes a leading workspace reference from p.
func workspaceRelative(p string) string {
	for _, ref := range workspaceRefs {
		if rest, ok := strings.CutPrefix(p, ref); ok {
			return "./" + strings.TrimPrefix(rest, "/")
		}
	}
	return p
}

// envExpr matches ${{ env.NAME }}.
var envExpr = regexp.MustCompile(`\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// expandEnv replaces ${{ env.NAME }} with the job's or the workflow's env
// value (literal values only, a few rounds).
func expandEnv(s string, wf *Workflow, job *Job) string {
	for i := 0; i < 4 && strings.Contains(s, "${{"); i++ {
		next := envExpr.ReplaceAllStringFunc(s, func(m string) string {
			name := envExpr.FindStringSubmatch(m)[1]
			if v, ok := job.Env[name]; ok {
				return v.Text
			}
			if v, ok := wf.Env[name]; ok {
				return v.Text
			}
			return m
		})
		if next == s {
			break
		}
		s = next
	}
	return s
}

// CheckoutPath returns where a job checks the repository r out, relative
// to the workspace ("" for the workspace itself).
func (r *Repo) CheckoutPath(wf *Workflow, job *Job) string {
	return checkoutPath(wf, job, r.name)
}

// checkoutPath returns where a job checks this repository (full name
// repo, when known) out, relative to the workspace ("" for the workspace
// itself).
func checkoutPath(wf *Workflow, job *Job, repo string) string {
	for _, s := range job.Steps {
		if !strings.HasPrefix(s.Uses, "actions/checkout@") {
			continue
		}
		if r := s.With["repository"].Text; r != "" && !strings.Contains(r, "github.repository") && !strings.EqualFold(r, repo) {
			continue // another repository
		}
		raw := workspaceRelative(expandEnv(s.With["path"].Text, wf, job))
		if p := strings.Trim(path.Clean(raw), "/"); p != "" && p != "." && !strings.ContainsAny(p, "${") {
			return p
		}
		return ""
	}
	return ""
}
