package report

// GitHubLinks builds the github.com URLs that Polylane's comments link to
// for one repository and head commit: the repository, its runs, a job's
// log, commits and files at the head commit. Each URL is empty when its
// parts do not pass the same strict checks the comment's own links pass,
// so other packages (the narrator) can tell a link Polylane built from one
// that untrusted text holds.
type GitHubLinks struct{ l linker }

// NewGitHubLinks returns the links of repo (owner/name) at headSHA.
func NewGitHubLinks(repo, headSHA string) GitHubLinks {
	return GitHubLinks{l: newLinker(repo, headSHA)}
}

// Repository is https://github.com/<repo>, or empty.
func (g GitHubLinks) Repository() string { return g.l.base() }

// Run links a workflow run.
func (g GitHubLinks) Run(id int64) string { return g.l.run(id) }

// Job links a job's log without a step anchor.
func (g GitHubLinks) Job(run, job int64) string { return g.l.job(run, job, 0, 0) }

// Commit links a commit.
func (g GitHubLinks) Commit(sha string) string { return g.l.commit(sha) }

// File links a file at the head commit without a line anchor.
func (g GitHubLinks) File(path string) string { return g.l.blob(path, 0) }
