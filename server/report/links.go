package report

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// repoName matches a GitHub owner/name pair; anything else gets no links.
var repoName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// commitSHA matches a full or abbreviated hexadecimal commit id.
var commitSHA = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// linker builds links into github.com for one repository. Links are built
// only from parts that pass strict checks, and paths are percent-encoded, so
// no untrusted text can steer a link elsewhere.
type linker struct {
	repo string // owner/name, empty when it did not pass the check
	sha  string // head commit, empty when it did not pass the check
}

func newLinker(repo, sha string) linker {
	l := linker{}
	if repoName.MatchString(repo) && !strings.Contains(repo, "..") {
		l.repo = repo
	}
	if commitSHA.MatchString(sha) {
		l.sha = sha
	}
	return l
}

// base is https://github.com/<repo>, or empty.
func (l linker) base() string {
	if l.repo == "" {
		return ""
	}
	return "https://github.com/" + l.repo
}

// blob links a file line at the head commit; empty when it cannot.
func (l linker) blob(path string, line int) string {
	p := escapePath(path)
	if l.base() == "" || l.sha == "" || p == "" {
		return ""
	}
	u := l.base() + "/blob/" + l.sha + "/" + p
	if line > 0 {
		u += fmt.Sprintf("#L%d", line)
	}
	return u
}

// run links a workflow run; empty when it cannot.
func (l linker) run(id int64) string {
	if l.base() == "" || id <= 0 {
		return ""
	}
	return fmt.Sprintf("%s/actions/runs/%d", l.base(), id)
}

// job links a job's log, at a step line when the step is known
// (GitHub's #step:<n>:<line> anchors count lines within the step).
func (l linker) job(run, job int64, step, line int) string {
	if l.base() == "" || run <= 0 || job <= 0 {
		return ""
	}
	u := fmt.Sprintf("%s/actions/runs/%d/job/%d", l.base(), run, job)
	if step > 0 {
		u += fmt.Sprintf("#step:%d:%d", step, max(line, 1))
	}
	return u
}

// compare links the commits after from up to to; empty when it cannot.
func (l linker) compare(from, to string) string {
	if l.base() == "" || !commitSHA.MatchString(from) || !commitSHA.MatchString(to) {
		return ""
	}
	return l.base() + "/compare/" + from + "..." + to
}

// pull links a pull request; empty when it cannot.
func (l linker) pull(n int) string {
	if l.base() == "" || n <= 0 {
		return ""
	}
	return fmt.Sprintf("%s/pull/%d", l.base(), n)
}

// commit links a commit; empty when it cannot.
func (l linker) commit(sha string) string {
	if l.base() == "" || !commitSHA.MatchString(sha) {
		return ""
	}
	return l.base() + "/commit/" + sha
}

// maxPath bounds the length of a path that gets a link.
const maxPath = 1024

const hexDigits = "0123456789ABCDEF"

// escapePath percent-encodes a repository path for a URL, keeping only
// unreserved characters and slashes. Paths that climb out of the
// repository, or are empty, give "".
func escapePath(p string) string {
	p = strings.TrimPrefix(p, "./")
	if p == "" || len(p) > maxPath || strings.HasPrefix(p, "/") {
		return ""
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return ""
		}
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '/':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

// safeURL returns u when it is an absolute http(s) URL that can sit inside
// a markdown link destination, else "".
func safeURL(u string) string {
	if u == "" || len(u) > 2000 || strings.ContainsAny(u, " <>()[]`\"'\\\n\r\t") {
		return ""
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" || p.User != nil {
		return ""
	}
	return u
}

// link renders a markdown link with already-rendered label; without a URL
// it renders the label alone.
func link(label, u string) string {
	if u == "" {
		return label
	}
	return "[" + label + "](" + u + ")"
}
