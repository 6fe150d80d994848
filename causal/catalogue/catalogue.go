// Package catalogue is Polylane's catalogue of error families: the ways real
// tools (package managers, container builds and registries, git, curl,
// Kubernetes tools, test runners, hosted services) word their failures, each
// with the mechanism category it signals, patterns tested against real lines
// that must and must not match, and the public threads where that wording
// was diagnosed. The families are data (families/*.yaml, embedded); the
// causal stage reads them to recognise a failure it has no specific rule
// for, and the report cites their sources as "Known elsewhere".
//
// The package is pure: it reads its embedded files once, and matching is a
// function of the text.
package catalogue

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Family is one error family of one tool.
type Family struct {
	// ID is "tool/what", unique in the catalogue.
	ID string `yaml:"id"`
	// Tool names the program or service that prints the wording.
	Tool string `yaml:"tool"`
	// Category is the mechanism category the wording signals (contracts.md
	// §2).
	Category string `yaml:"category"`
	// Rule is the id of the mechanism rule that the family feeds (its
	// endpoint checks, producer and fix apply); empty for the category's
	// catalogue rule.
	Rule string `yaml:"rule,omitempty"`
	// What says in a few words what the wording means ("yarn's download of a
	// package timed out"), for summaries.
	What string `yaml:"what"`
	// Patterns are RE2 expressions; the family matches a line one of them
	// matches.
	Patterns []string `yaml:"patterns"`
	// Requires, when set, must match some line of the failure as well (the
	// tool's own context, such as its name).
	Requires []string `yaml:"requires,omitempty"`
	// Not are patterns that, matching any line of the failure, rule the
	// family out.
	Not []string `yaml:"not,omitempty"`
	// Generic marks a broad family, tried after every specific one.
	Generic bool `yaml:"generic,omitempty"`
	// Fix names the fix recipe that the maintainers of such failures
	// apply, when one exists.
	Fix string `yaml:"fix,omitempty"`
	// Match and NoMatch are real failure excerpts (from the sources) that
	// must and must not match, one or more lines each (separated by
	// newlines, so that a family with Requires can show its context): the
	// catalogue's loader checks them.
	Match   []string `yaml:"match"`
	NoMatch []string `yaml:"nomatch"`
	// Sources are the public threads, fixes or docs where the wording was
	// diagnosed.
	Sources []string `yaml:"sources"`
	// Cases are the corpus cases (repository/case) the family was written
	// from, so that a benchmark can leave them out when it scores them.
	Cases []string `yaml:"cases,omitempty"`

	// File is the catalogue file that declares the family.
	File string `yaml:"-"`

	patterns, requires, not []*regexp.Regexp
}

// Catalogue is an ordered set of families: specific ones first, then the
// generic ones, each group in file and declaration order.
type Catalogue struct {
	families []*Family
	// left are the corpus cases (or repositories) Without left out; fix
	// recipes written from them are left out too (LeavesOut).
	left []string
}

//go:embed families/*.yaml
var files embed.FS

// Default is the catalogue Polylane ships. Loading it cannot fail at run
// time: TestCatalogue loads every file and fails on a bad entry.
var Default = mustLoad(files)

func mustLoad(fsys fs.FS) *Catalogue {
	c, err := Load(fsys)
	if err != nil {
		panic(err)
	}
	return c
}

// Load reads every families/*.yaml file of fsys, checks each family (fields,
// patterns, test lines) and returns the catalogue.
func Load(fsys fs.FS) (*Catalogue, error) {
	names, err := fs.Glob(fsys, "families/*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	c := &Catalogue{}
	seen := map[string]string{}
	var errs []error
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var fams []*Family
		if err := yaml.Unmarshal(data, &fams); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		for _, f := range fams {
			f.File = path.Base(name)
			if other, dup := seen[f.ID]; dup {
				errs = append(errs, fmt.Errorf("%s: family %s is also declared in %s", name, f.ID, other))
				continue
			}
			seen[f.ID] = name
			if err := f.compile(); err != nil {
				errs = append(errs, fmt.Errorf("%s: family %s: %w", name, f.ID, err))
				continue
			}
			c.families = append(c.families, f)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.SliceStable(c.families, func(i, j int) bool { return !c.families[i].Generic && c.families[j].Generic })
	return c, nil
}

// compile checks a family's fields and compiles its patterns.
func (f *Family) compile() error {
	switch {
	case f.ID == "" || !strings.Contains(f.ID, "/"):
		return errors.New(`id must read "tool/what"`)
	case f.Tool == "" || f.Category == "" || f.What == "":
		return errors.New("tool, category and what are required")
	case len(f.Patterns) == 0:
		return errors.New("no patterns")
	case len(f.Match) == 0 || len(f.NoMatch) == 0:
		return errors.New("every family needs real lines that match (match) and near misses that must not (nomatch)")
	case len(f.Sources) == 0:
		return errors.New("no public source")
	}
	for _, s := range f.Sources {
		if !strings.HasPrefix(s, "https://") {
			return fmt.Errorf("source %q is not an https URL", s)
		}
	}
	var err error
	if f.patterns, err = compileAll(f.Patterns); err != nil {
		return err
	}
	if f.requires, err = compileAll(f.Requires); err != nil {
		return err
	}
	if f.not, err = compileAll(f.Not); err != nil {
		return err
	}
	for _, l := range f.Match {
		if !f.MatchLines(strings.Split(l, "\n")) {
			return fmt.Errorf("its match example %q does not match", l)
		}
	}
	for _, l := range f.NoMatch {
		if f.MatchLines(strings.Split(l, "\n")) {
			return fmt.Errorf("its nomatch example %q matches", l)
		}
	}
	return nil
}

func compileAll(ps []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(ps))
	for _, p := range ps {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", p, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// MatchLine reports whether one of the family's patterns matches line
// (without the Requires and Not conditions, which need the whole failure).
func (f *Family) MatchLine(line string) bool {
	for _, re := range f.patterns {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}

// MatchLines reports whether the family matches a failure whose lines are
// given: a pattern matches one line, every Requires pattern some line, and
// no Not pattern any line.
func (f *Family) MatchLines(lines []string) bool {
	hit := false
	for _, l := range lines {
		for _, re := range f.not {
			if re.MatchString(l) {
				return false
			}
		}
		hit = hit || f.MatchLine(l)
	}
	if !hit {
		return false
	}
	for _, re := range f.requires {
		if !slices.ContainsFunc(lines, re.MatchString) {
			return false
		}
	}
	return true
}

// Cites reports whether the family with the given id lists url among its
// sources.
func (c *Catalogue) Cites(id, url string) bool {
	for _, f := range c.families {
		if f.ID == id {
			return slices.Contains(f.Sources, url)
		}
	}
	return false
}

// Families returns the families in matching order.
func (c *Catalogue) Families() []*Family { return c.families }

// Len is the number of families.
func (c *Catalogue) Len() int { return len(c.families) }

// Without returns the catalogue without the families written from any of
// the given corpus cases (matched by prefix, so "owner/repo" leaves out
// every case of a repository).
func (c *Catalogue) Without(cases ...string) *Catalogue {
	out := &Catalogue{left: append(append([]string{}, c.left...), cases...)}
	for _, f := range c.families {
		if !f.writtenFrom(cases) {
			out.families = append(out.families, f)
		}
	}
	return out
}

// LeavesOut reports whether anything written from one of the given corpus
// cases (a fix recipe, say) must be left out with this catalogue.
func (c *Catalogue) LeavesOut(writtenFrom []string) bool {
	return c != nil && (&Family{Cases: writtenFrom}).writtenFrom(c.left)
}

func (f *Family) writtenFrom(cases []string) bool {
	for _, own := range f.Cases {
		for _, c := range cases {
			if own == c || strings.HasPrefix(own, c+"/") {
				return true
			}
		}
	}
	return false
}

// Match returns the first family, in matching order, that a failure's
// primary lines show (a pattern matches one of primary), where Requires and
// Not are checked against all the lines given (primary and context); nil
// when none does. accept, when not nil, filters the families considered.
func (c *Catalogue) Match(primary, context []string, accept func(*Family) bool) *Family {
	if c == nil {
		return nil
	}
	all := append(append([]string{}, primary...), context...)
	for _, f := range c.families {
		if accept != nil && !accept(f) {
			continue
		}
		if !slices.ContainsFunc(primary, f.MatchLine) {
			continue
		}
		if f.MatchLines(all) {
			return f
		}
	}
	return nil
}
