package narrator

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/report"
)

// Narrated text may link only to URLs Polylane builds itself from the
// structured fields of a diagnosis: the repository's GitHub pages of the
// runs, the failing job, the commits and the cited files at the head
// commit, and the run URL GitHub's API gave. URLs that appear only in text
// (a log line, a repository file, a signature) may be named as inert text
// but never linked: a hostile job can print any URL it likes.

// linkFragment matches the anchors Polylane's links carry: file lines and
// job-log step lines.
var linkFragment = regexp.MustCompile(`^(?:l[0-9]{1,9}(?:-l[0-9]{1,9})?|step:[0-9]{1,4}:[0-9]{1,9})$`)

// addLinks records the URLs Polylane builds for the diagnosis, with the
// report's link builder.
func (g *grounds) addLinks(d *diagnosis.Diagnosis) {
	g.links = map[string]bool{}
	if u, err := url.Parse(d.Run.HTMLURL); err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil {
		g.addLink(d.Run.HTMLURL)
	}
	gh := report.NewGitHubLinks(d.Repository, d.Run.HeadSHA)
	g.addLink(gh.Repository())
	runs := append([]int64{d.Run.ID}, d.UnknownRuns...)
	for _, c := range d.Clusters {
		runs = append(runs, c.Runs...)
	}
	for _, id := range runs {
		g.addLink(gh.Run(id))
	}
	g.addLink(gh.Job(d.Run.ID, d.Failure.Job.ID))
	commits := []string{d.Run.HeadSHA}
	if d.Verdict.FirstBadSHA != nil {
		commits = append(commits, *d.Verdict.FirstBadSHA)
	}
	for _, c := range d.Clusters {
		commits = append(commits, c.FirstSHA)
	}
	for _, sha := range commits {
		g.addLink(gh.Commit(sha))
	}
	for _, p := range linkedFiles(d) {
		g.addLink(gh.File(p))
	}
}

// linkedFiles lists the repository files the structured fields cite.
func linkedFiles(d *diagnosis.Diagnosis) []string {
	var files []string
	if d.Lint != nil {
		files = append(files, d.Lint.File)
	}
	if c := d.Chain; c != nil {
		files = append(files, c.SurfacingSite.File, c.Producer.File)
		for _, ls := range [][]causal.Location{c.Producer.Candidates, c.BlastRadius.Callers} {
			for _, l := range ls {
				files = append(files, l.File)
			}
		}
		for _, e := range c.Evidence {
			if e.Kind != "log" {
				files = append(files, e.File)
			}
		}
	}
	if d.Patch != nil {
		for _, f := range d.Patch.Files {
			files = append(files, f.Path)
		}
	}
	if im := d.Impact; im != nil {
		for _, e := range im.DeployEdges {
			files = append(files, e.Source, e.Via)
		}
	}
	return files
}

// addLink records one built URL; empty ones are skipped.
func (g *grounds) addLink(u string) {
	if u != "" {
		g.links[strings.TrimRight(strings.ToLower(u), "/")] = true
	}
}

// canLink reports whether u is a URL Polylane built for the diagnosis,
// with at most a line or step anchor added.
func (g *grounds) canLink(u string) bool {
	u = strings.ToLower(trimURL(u))
	if i := strings.IndexByte(u, '#'); i >= 0 {
		if !linkFragment.MatchString(u[i+1:]) {
			return false
		}
		u = u[:i]
	}
	u = strings.TrimRight(u, "/")
	return u != "" && g.links[u]
}
