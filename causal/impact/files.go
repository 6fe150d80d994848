package impact

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/polylane/polylane/causal/harness"
)

// Bounds of a repository scan.
const (
	maxScanEntries = 20000
	maxYAMLBytes   = 512 << 10
)

// skipDirs are directories a scan never enters.
var skipDirs = map[string]bool{
	".git": true, "node_modules": true, "vendor": true, ".venv": true, "venv": true, "__pycache__": true,
	".terraform": true, "bower_components": true, ".cache": true, "dist": true, "target": true, ".next": true,
}

// repoFiles are the build and deploy files of a repository, sorted by path.
type repoFiles struct {
	dockerfiles    []string
	compose        []string
	charts         []string // chart directories (holding Chart.yaml)
	kustomizations []string
	goreleaser     []string
	yaml           []string // other YAML outside .github, candidate manifests
}

// scanFiles walks the repository, bounded in entries.
func scanFiles(fsys fs.FS) *repoFiles {
	rf := &repoFiles{}
	n := 0
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		n++
		if n > maxScanEntries {
			return fs.SkipAll
		}
		if err != nil {
			return nil // unreadable parts of the tree are skipped
		}
		if d.IsDir() {
			if p != "." && (skipDirs[d.Name()] || strings.HasPrefix(p, ".github/")) && p != ".github/workflows" {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rf.classify(p)
		return nil
	})
	for _, list := range [][]string{rf.dockerfiles, rf.compose, rf.charts, rf.kustomizations, rf.goreleaser, rf.yaml} {
		sort.Strings(list)
	}
	return rf
}

// classify files one path.
func (rf *repoFiles) classify(p string) {
	base := path.Base(p)
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	isYAML := ext == ".yml" || ext == ".yaml"
	switch {
	case isDockerfile(p):
		rf.dockerfiles = append(rf.dockerfiles, p)
	case strings.HasPrefix(p, ".github/"):
	case lower == "chart.yaml" || lower == "chart.yml":
		rf.charts = append(rf.charts, path.Dir(p))
	case lower == "kustomization.yaml" || lower == "kustomization.yml" || base == "Kustomization":
		rf.kustomizations = append(rf.kustomizations, p)
	case isYAML && strings.Contains(lower, "goreleaser"):
		rf.goreleaser = append(rf.goreleaser, p)
	case isYAML && (strings.HasPrefix(lower, "docker-compose") || strings.HasPrefix(lower, "compose")):
		rf.compose = append(rf.compose, p)
	case isYAML:
		rf.yaml = append(rf.yaml, p)
	}
}

// readYAML parses every document of a YAML file, bounded in size.
func readYAML(fsys fs.FS, p string) []*yaml.Node {
	info, err := fs.Stat(fsys, p)
	if err != nil || info.Size() > maxYAMLBytes {
		return nil
	}
	content, err := fs.ReadFile(fsys, p)
	if err != nil || harness.CheckYAML(p, content) != nil {
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(content))
	var docs []*yaml.Node
	for len(docs) < 200 {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if !errors.Is(err, io.EOF) {
				return docs // keep what parsed before the error
			}
			break
		}
		if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
			docs = append(docs, doc.Content[0])
		}
	}
	return docs
}

// get returns the value of key in a mapping node, following aliases.
func get(n *yaml.Node, key string) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// str returns a scalar's value, or "".
func str(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// strs returns the scalars of a sequence (or a single scalar).
func strs(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for _, c := range n.Content {
		if c.Kind == yaml.ScalarNode {
			out = append(out, c.Value)
		}
	}
	return out
}

// pairs calls fn for every key/value of a mapping node.
func pairs(n *yaml.Node, fn func(key string, value *yaml.Node)) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		fn(n.Content[i].Value, n.Content[i+1])
	}
}

// images collects the values of every `image:` key under n.
func images(n *yaml.Node, depth int, out []string) []string {
	if n == nil || depth > 40 || len(out) > 50 {
		return out
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "image" && n.Content[i+1].Kind == yaml.ScalarNode && n.Content[i+1].Value != "" {
				out = appendOnce(out, n.Content[i+1].Value)
			}
		}
	}
	for _, c := range n.Content {
		out = images(c, depth+1, out)
	}
	return out
}
