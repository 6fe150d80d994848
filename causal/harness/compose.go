package harness

import (
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Compose is a Compose file: its services with what they build and run.
type Compose struct {
	Path     string
	Services map[string]*ComposeService
	// Order lists the service names in source order.
	Order []string
}

// ComposeService is one service of a Compose file.
type ComposeService struct {
	Name    string
	Line    int
	EndLine int
	Image   string
	// Build is what the service builds, nil when it only pulls an image.
	Build *ComposeBuild
	// Command is the service's command: as one shell line, with the line
	// it is on; Entrypoint likewise.
	Command    Value
	Entrypoint Value
	WorkingDir string
	// Volumes are the short-syntax bind mounts ("./src:/app").
	Volumes []string
}

// ComposeBuild is a service's build: its context and Dockerfile, relative
// to the Compose file's directory and to the context.
type ComposeBuild struct {
	Context    string
	Dockerfile string
	Target     string
	Line       int
}

// composeNames are the files `docker compose` reads in a directory, in the
// order it looks for them.
var composeNames = []string{"compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"}

// ParseCompose parses a Compose file.
func ParseCompose(p string, data []byte) (*Compose, error) {
	root, err := parseYAML(p, data)
	if err != nil {
		return nil, err
	}
	c := &Compose{Path: p, Services: map[string]*ComposeService{}}
	for _, kv := range pairs(lookup(root, "services")) {
		s := parseComposeService(kv.Key, deref(kv.Value))
		if _, dup := c.Services[s.Name]; !dup {
			c.Order = append(c.Order, s.Name)
		}
		c.Services[s.Name] = s
	}
	return c, nil
}

func parseComposeService(key, n *yaml.Node) *ComposeService {
	s := &ComposeService{Name: key.Value, Line: key.Line, EndLine: lastLine(n)}
	if n == nil || n.Kind != yaml.MappingNode {
		return s
	}
	s.Image = scalar(lookup(n, "image"))
	s.WorkingDir = scalar(lookup(n, "working_dir"))
	s.Command = commandValue(lookup(n, "command"))
	s.Entrypoint = commandValue(lookup(n, "entrypoint"))
	for _, v := range items(lookup(n, "volumes")) {
		if v.Kind == yaml.ScalarNode {
			s.Volumes = append(s.Volumes, v.Value)
		}
	}
	b := deref(lookup(n, "build"))
	switch {
	case b == nil:
	case b.Kind == yaml.ScalarNode:
		s.Build = &ComposeBuild{Context: b.Value, Line: b.Line}
	case b.Kind == yaml.MappingNode:
		s.Build = &ComposeBuild{Context: scalar(lookup(b, "context")), Dockerfile: scalar(lookup(b, "dockerfile")),
			Target: scalar(lookup(b, "target")), Line: b.Line}
	}
	return s
}

// commandValue renders a command: or entrypoint: (a string or a list of
// words) as one shell line.
func commandValue(n *yaml.Node) Value {
	n = deref(n)
	if n == nil {
		return Value{}
	}
	if n.Kind == yaml.ScalarNode {
		return Value{Text: n.Value, Line: n.Line}
	}
	var words []string
	for _, w := range scalarList(n) {
		words = append(words, shellQuote(w))
	}
	return Value{Text: strings.Join(words, " "), Line: n.Line}
}

// Compose returns the parsed Compose file at p.
func (r *Repo) Compose(p string) (*Compose, error) {
	return parsed(r, r.composes, p, ParseCompose)
}

// FindCompose returns the Compose file docker compose reads in dir.
func (r *Repo) FindCompose(dir string) (*Compose, error) {
	for _, n := range composeNames {
		if p := path.Join(dir, n); r.Exists(p) {
			return r.Compose(p)
		}
	}
	return nil, errNotFound("Compose file", dir)
}
