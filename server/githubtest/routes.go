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
			r.Get("/", s.need(needMetadata, s.handleGetRepo))
			s.actionRoutes(r)
			s.gitRoutes(r)
			s.issueRoutes(r)
		})
	})
	return r
}

// actionRoutes are the Actions endpoints of a repository.
func (s *Server) actionRoutes(r chi.Router) {
	read := func(h http.HandlerFunc) http.HandlerFunc { return s.need(needActionsRead, h) }
	r.Get("/actions/workflows", read(s.handleListWorkflows))
	r.Get("/actions/workflows/{workflow}", read(s.handleGetWorkflow))
	r.Get("/actions/workflows/{workflow}/runs", read(s.handleListRuns))
	r.Get("/actions/runs", read(s.handleListRuns))
	r.Get("/actions/runs/{run}", read(s.handleGetRun))
	r.Get("/actions/runs/{run}/attempts/{attempt}", read(s.handleGetRun))
	r.Get("/actions/runs/{run}/jobs", read(s.handleListJobs))
	r.Get("/actions/runs/{run}/attempts/{attempt}/jobs", read(s.handleListJobs))
	r.Get("/actions/jobs/{job}", read(s.handleGetJob))
	r.Get("/actions/jobs/{job}/logs", read(s.handleJobLogs))
	r.Post("/actions/runs/{run}/rerun", s.need(needActionsWrite, s.handleRerun))
	r.Post("/actions/runs/{run}/rerun-failed-jobs", s.need(needActionsWrite, s.handleRerun))
	r.Post("/actions/jobs/{job}/rerun", s.need(needActionsWrite, s.handleRerunJob))
}

// gitRoutes are the contents, git data, commit and branch endpoints.
func (s *Server) gitRoutes(r chi.Router) {
	read := func(h http.HandlerFunc) http.HandlerFunc { return s.need(needContentsRead, h) }
	write := func(h http.HandlerFunc) http.HandlerFunc { return s.need(needContents, h) }
	r.Get("/contents", read(s.handleContents))
	r.Get("/contents/*", read(s.handleContents))
	r.Get("/git/trees/{sha}", read(s.handleGetTree))
	r.Get("/git/blobs/{sha}", read(s.handleGetBlob))
	r.Get("/git/commits/{sha}", read(s.handleGetGitCommit))
	r.Post("/git/blobs", write(s.handleCreateBlob))
	r.Post("/git/trees", write(s.handleCreateTree))
	r.Post("/git/commits", write(s.handleCreateCommit))
	r.Get("/git/ref/*", read(s.handleGetRef))
	r.Get("/git/refs", read(s.handleListRefs))
	r.Get("/git/refs/*", read(s.handleListRefs))
	r.Get("/git/matching-refs/*", read(s.handleListRefs))
	r.Post("/git/refs", write(s.handleCreateRef))
	r.Patch("/git/refs/*", write(s.handleUpdateRef))
	r.Delete("/git/refs/*", write(s.handleDeleteRef))
	r.Get("/commits/{sha}", read(s.handleGetCommit))
	r.Get("/commits/{sha}/pulls", s.need(needPullsRead, s.handlePullsForCommit))
	r.Get("/commits/{sha}/comments", read(s.handleListCommitComments))
	r.Post("/commits/{sha}/comments", write(s.handleCreateCommitComment))
	r.Get("/branches/*", read(s.handleGetBranch))
	r.Get("/compare/*", read(s.handleCompare))
}

// issueRoutes are the pull request, issue, comment and permission endpoints.
func (s *Server) issueRoutes(r chi.Router) {
	read := func(h http.HandlerFunc) http.HandlerFunc { return s.need(needIssueRead, h) }
	write := func(h http.HandlerFunc) http.HandlerFunc { return s.need(needIssueWrite, h) }
	r.Get("/pulls", s.need(needPullsRead, s.handleListPulls))
	r.Post("/pulls", s.need(needPulls, s.handleCreatePull))
	r.Get("/pulls/{number}", s.need(needPullsRead, s.handleGetPull))
	r.Patch("/pulls/{number}", s.need(needPulls, s.handleUpdatePull))
	r.Get("/issues/{number}", read(s.handleGetIssue))
	r.Get("/issues/{number}/comments", read(s.handleListComments))
	r.Post("/issues/{number}/comments", write(s.handleCreateComment))
	r.Get("/issues/{number}/labels", read(s.handleListLabels))
	r.Post("/issues/{number}/labels", write(s.handleAddLabels))
	r.Get("/issues/comments/{id}", read(s.handleGetComment))
	r.Patch("/issues/comments/{id}", write(s.handleEditComment))
	r.Delete("/issues/comments/{id}", write(s.handleDeleteComment))
	r.Get("/issues/comments/{id}/reactions", read(s.handleListReactions))
	r.Post("/issues/comments/{id}/reactions", write(s.handleCreateReaction))
	r.Get("/collaborators/{user}/permission", s.need(needMetadata, s.handlePermission))
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
