package githubtest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"
)

// routes builds the router for every endpoint the simulator serves. Paths
// are relative to the API root; the pipeline strips /api/v3 first.
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	r.NotFound(func(w http.ResponseWriter, _ *http.Request) { notFound(w) })
	r.MethodNotAllowed(func(w http.ResponseWriter, _ *http.Request) { notFound(w) })

	r.Get("/rate_limit", s.handleRateLimit)
	r.Get("/app", requireApp(s.handleGetApp))
	r.Get("/app/installations", requireApp(s.handleListInstallations))
	r.Get("/app/installations/{id}", requireApp(s.handleGetInstallation))
	r.Post("/app/installations/{id}/access_tokens", requireApp(s.handleAccessToken))
	r.Post("/app-manifests/{code}/conversions", s.handleManifestConversion)
	r.Get("/installation/repositories", s.handleInstallationRepos)
	r.Get("/user", requireUser(s.handleUser))
	r.Get("/user/installations", requireUser(s.handleUserInstallations))
	r.Get("/user/installations/{id}/repositories", requireUser(s.handleUserInstallationRepos))

	r.Get("/login/oauth/authorize", s.handleAuthorize)
	r.Post("/login/oauth/access_token", s.handleAccessTokenExchange)
	r.Post("/settings/apps/new", s.handleNewApp)
	r.Post("/organizations/{org}/settings/apps/new", s.handleNewApp)
	r.Get("/_blob/joblogs/{ticket}", s.handleLogBlob)
	r.Get("/_raw/{owner}/{repo}/{ref}/*", s.handleRawFile)

	r.Route("/repos/{owner}/{repo}", func(r chi.Router) {
		r.Get("/installation", requireApp(s.handleRepoInstallation))
		r.Group(func(r chi.Router) {
			r.Use(s.repoAccess)
			r.Get("/", s.handleGetRepo)
			s.actionRoutes(r)
			s.gitRoutes(r)
			s.issueRoutes(r)
		})
	})
	return r
}

// actionRoutes are the Actions endpoints of a repository.
func (s *Server) actionRoutes(r chi.Router) {
	r.Get("/actions/workflows", s.handleListWorkflows)
	r.Get("/actions/workflows/{workflow}", s.handleGetWorkflow)
	r.Get("/actions/workflows/{workflow}/runs", s.handleListRuns)
	r.Get("/actions/runs", s.handleListRuns)
	r.Get("/actions/runs/{run}", s.handleGetRun)
	r.Get("/actions/runs/{run}/attempts/{attempt}", s.handleGetRun)
	r.Get("/actions/runs/{run}/jobs", s.handleListJobs)
	r.Get("/actions/runs/{run}/attempts/{attempt}/jobs", s.handleListJobs)
	r.Get("/actions/jobs/{job}", s.handleGetJob)
	r.Get("/actions/jobs/{job}/logs", s.handleJobLogs)
	r.Post("/actions/runs/{run}/rerun", s.handleRerun)
	r.Post("/actions/runs/{run}/rerun-failed-jobs", s.handleRerun)
}

// gitRoutes are the contents, git data, commit and branch endpoints.
func (s *Server) gitRoutes(r chi.Router) {
	r.Get("/contents", s.handleContents)
	r.Get("/contents/*", s.handleContents)
	r.Get("/git/trees/{sha}", s.handleGetTree)
	r.Get("/git/blobs/{sha}", s.handleGetBlob)
	r.Get("/git/commits/{sha}", s.handleGetGitCommit)
	r.Post("/git/blobs", s.handleCreateBlob)
	r.Post("/git/trees", s.handleCreateTree)
	r.Post("/git/commits", s.handleCreateCommit)
	r.Get("/git/ref/*", s.handleGetRef)
	r.Get("/git/refs", s.handleListRefs)
	r.Get("/git/refs/*", s.handleListRefs)
	r.Get("/git/matching-refs/*", s.handleListRefs)
	r.Post("/git/refs", s.handleCreateRef)
	r.Patch("/git/refs/*", s.handleUpdateRef)
	r.Delete("/git/refs/*", s.handleDeleteRef)
	r.Get("/commits/{sha}", s.handleGetCommit)
	r.Get("/compare/*", s.handleCompare)
	r.Get("/commits/{sha}/pulls", s.handlePullsForCommit)
	r.Get("/commits/{sha}/comments", s.handleListCommitComments)
	r.Post("/commits/{sha}/comments", s.handleCreateCommitComment)
	r.Get("/branches/*", s.handleGetBranch)
}

// issueRoutes are the pull request, issue, comment and permission endpoints.
func (s *Server) issueRoutes(r chi.Router) {
	r.Get("/pulls", s.handleListPulls)
	r.Post("/pulls", s.handleCreatePull)
	r.Get("/pulls/{number}", s.handleGetPull)
	r.Patch("/pulls/{number}", s.handleUpdatePull)
	r.Get("/issues/{number}", s.handleGetIssue)
	r.Get("/issues/{number}/comments", s.handleListComments)
	r.Post("/issues/{number}/comments", s.handleCreateComment)
	r.Get("/issues/{number}/labels", s.handleListLabels)
	r.Post("/issues/{number}/labels", s.handleAddLabels)
	r.Get("/issues/comments/{id}", s.handleGetComment)
	r.Patch("/issues/comments/{id}", s.handleEditComment)
	r.Delete("/issues/comments/{id}", s.handleDeleteComment)
	r.Get("/issues/comments/{id}/reactions", s.handleListReactions)
	r.Post("/issues/comments/{id}/reactions", s.handleCreateReaction)
	r.Get("/collaborators/{user}/permission", s.handlePermission)
}

// repoAccess resolves the repository of a /repos/{owner}/{repo} route and
// checks the caller may use it: 401 without valid credentials, 404 when the
// repository is unknown or outside the caller's installation, as GitHub
// hides repositories it will not show.
func (s *Server) repoAccess(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := principalOf(r)
		if unauthenticated(w, p) {
			return
		}
		if p.kind == kindApp {
			writeError(w, http.StatusForbidden, "Resource not accessible by integration")
			return
		}
		s.mu.Lock()
		repo := s.repo(urlParam(r, "owner"), urlParam(r, "repo"))
		ok := repo != nil && s.canAccess(p, repo)
		s.mu.Unlock()
		if !ok {
			notFound(w)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxRepo, repo)))
	})
}

// wildcard returns the decoded remainder a "/*" route matched.
func wildcard(r *http.Request) string { return urlParam(r, "*") }
