package repoconfig

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Paths are where the file is looked for on the default branch, in order.
var Paths = []string{".github/polylane.yml", ".github/polylane.yaml"}

// MaxBytes bounds the file; a larger one is reported and not read.
const MaxBytes = 64 << 10

// DefaultCloseAfterRuns is fix_pull_requests.close_after_runs when unset.
const DefaultCloseAfterRuns = 30

// Config is a repository's configuration, with the defaults filled in.
type Config struct {
	// Workflows and Branches select the failed runs to diagnose; empty
	// selects all.
	Workflows []string
	Branches  []string
	// Window is the number of runs a diagnosis looks at; 0 means the
	// server's default.
	Window int
	// Conclusions start a diagnosis; nil means the server's default.
	Conclusions []string
	// CommentOnPullRequests keeps the assessment comment on pull requests.
	CommentOnPullRequests bool
	// CommentOnDefaultBranch comments on the change that introduced a
	// regression of the default branch.
	CommentOnDefaultBranch bool
	// AutomaticFixes opens and updates fix pull requests without being
	// asked.
	AutomaticFixes bool
	// WorkflowFixes lets a fix pull request change .github/workflows/*;
	// without it such a patch is only shown in the comment.
	WorkflowFixes bool
	// FixLabels are added to every fix pull request.
	FixLabels []string
	// CloseAfterRuns closes a fix pull request whose class has not recurred
	// in this many runs of the default branch; 0 never does.
	CloseAfterRuns int
	// VerifyReruns is how many times the failing job may be re-run on a
	// fix pull request's branch to verify the fix; 0 never does.
	VerifyReruns int
	// Muted are the classes muted by the file.
	Muted []MutedClass
	// LLM opts the repository in to the narrator; LLMLogs lets it see logs.
	LLM     bool
	LLMLogs bool
}

// MutedClass is a class muted by the file.
type MutedClass struct {
	ID     string
	Reason string
}

// Defaults is the configuration of a repository without the file.
func Defaults() Config {
	return Config{CommentOnPullRequests: true, CommentOnDefaultBranch: true, AutomaticFixes: true,
		CloseAfterRuns: DefaultCloseAfterRuns}
}

// file is the decoded shape of the file after validation.
type file struct {
	Workflows   []string `yaml:"workflows"`
	Branches    []string `yaml:"branches"`
	Window      *int     `yaml:"window"`
	Conclusions []string `yaml:"conclusions"`
	Comments    struct {
		PullRequests  *bool `yaml:"pull_requests"`
		DefaultBranch *bool `yaml:"default_branch"`
	} `yaml:"comments"`
	Fix struct {
		Automatic      *bool    `yaml:"automatic"`
		Workflows      *bool    `yaml:"workflows"`
		Labels         []string `yaml:"labels"`
		CloseAfterRuns *int     `yaml:"close_after_runs"`
		VerifyReruns   *int     `yaml:"verify_reruns"`
	} `yaml:"fix_pull_requests"`
	Muted []yaml.Node `yaml:"muted_classes"`
	LLM   struct {
		Enabled     *bool `yaml:"enabled"`
		IncludeLogs *bool `yaml:"include_logs"`
	} `yaml:"llm"`
}

var (
	rootOnce   sync.Once
	rootSchema *schema
	rootErr    error
)

// root returns the loaded embedded schema.
func root() (*schema, error) {
	rootOnce.Do(func() { rootSchema, rootErr = loadSchema(schemaJSON) })
	return rootSchema, rootErr
}

// Parse reads the file's content. It never fails: what cannot be used is
// described in the warnings (one line each, naming the YAML line and the
// key) and replaced by its default. An empty file is the defaults.
func Parse(data []byte) (Config, []string) {
	cfg := Defaults()
	if len(data) > MaxBytes {
		return cfg, []string{fmt.Sprintf("the file is %d bytes, more than the %d Polylane reads; the defaults are used", len(data), MaxBytes)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return cfg, []string{"the file is not valid YAML (" + oneLine(err.Error()) + "); the defaults are used"}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return cfg, nil
	}
	top := doc.Content[0]
	if top.Kind == yaml.ScalarNode && top.ShortTag() == "!!null" {
		return cfg, nil
	}
	s, err := root()
	if err != nil {
		return cfg, []string{err.Error()}
	}
	v := &validator{}
	if !v.check(top, s, "") {
		return cfg, append(v.strings(), "the defaults are used")
	}
	var f file
	if err := top.Decode(&f); err != nil {
		return cfg, append(v.strings(), "the file could not be read ("+oneLine(err.Error())+"); the defaults are used")
	}
	f.apply(&cfg)
	return cfg, v.strings()
}

// strings renders the problems, each saying that the default is used.
func (v *validator) strings() []string {
	out := make([]string, 0, len(v.problems))
	for _, p := range v.problems {
		out = append(out, p.String()+"; ignored")
	}
	return out
}

// apply copies the keys the file sets into cfg.
func (f *file) apply(cfg *Config) {
	cfg.Workflows, cfg.Branches, cfg.Conclusions = f.Workflows, f.Branches, f.Conclusions
	setInt(&cfg.Window, f.Window)
	setBool(&cfg.CommentOnPullRequests, f.Comments.PullRequests)
	setBool(&cfg.CommentOnDefaultBranch, f.Comments.DefaultBranch)
	setBool(&cfg.AutomaticFixes, f.Fix.Automatic)
	setBool(&cfg.WorkflowFixes, f.Fix.Workflows)
	cfg.FixLabels = f.Fix.Labels
	setInt(&cfg.CloseAfterRuns, f.Fix.CloseAfterRuns)
	setInt(&cfg.VerifyReruns, f.Fix.VerifyReruns)
	setBool(&cfg.LLM, f.LLM.Enabled)
	setBool(&cfg.LLMLogs, f.LLM.IncludeLogs)
	for _, n := range f.Muted {
		var m MutedClass
		if n.Kind == yaml.ScalarNode {
			m.ID = n.Value
		} else {
			var obj struct {
				ID     string `yaml:"id"`
				Reason string `yaml:"reason"`
			}
			if n.Decode(&obj) != nil {
				continue
			}
			m = MutedClass{ID: obj.ID, Reason: obj.Reason}
		}
		cfg.Muted = append(cfg.Muted, m)
	}
}

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

// oneLine keeps a message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// WatchesWorkflow reports whether failures of a workflow (its file path and
// its name) are diagnosed.
func (c Config) WatchesWorkflow(file, name string) bool {
	if len(c.Workflows) == 0 {
		return true
	}
	for _, w := range c.Workflows {
		switch {
		case w == file, w == path.Base(file), strings.EqualFold(w, name):
			return true
		case strings.Contains(w, "*"):
			if ok, _ := path.Match(w, file); ok {
				return true
			}
		}
	}
	return false
}

// WatchesBranch reports whether failures on a branch are diagnosed.
func (c Config) WatchesBranch(branch string) bool {
	if len(c.Branches) == 0 {
		return true
	}
	for _, b := range c.Branches {
		if b == branch {
			return true
		}
		if ok, _ := path.Match(b, branch); ok && strings.Contains(b, "*") {
			return true
		}
	}
	return false
}

// Counts reports whether a conclusion starts a diagnosis, given the
// server's default list.
func (c Config) Counts(conclusion string, serverDefault []string) bool {
	list := c.Conclusions
	if list == nil {
		list = serverDefault
	}
	for _, x := range list {
		if x == conclusion {
			return true
		}
	}
	return false
}

// MutedClasses returns the classes the file mutes, each with its reason.
func (c Config) MutedClasses() map[string]string {
	out := make(map[string]string, len(c.Muted))
	for _, m := range c.Muted {
		if _, seen := out[m.ID]; !seen {
			out[m.ID] = m.Reason
		}
	}
	return out
}

// MutedReason reports whether the file mutes a class, and why.
func (c Config) MutedReason(classID string) (string, bool) {
	for _, m := range c.Muted {
		if m.ID == classID {
			return m.Reason, true
		}
	}
	return "", false
}
