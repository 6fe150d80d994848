package repoconfig

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// schemaJSON is the JSON Schema of the file, published as
// docs/polylane.schema.json (a test keeps the two equal).
//
//go:embed polylane.schema.json
var schemaJSON []byte

// Schema returns the JSON Schema (draft 2020-12) of .github/polylane.yml.
func Schema() []byte { return append([]byte(nil), schemaJSON...) }

// schema is the subset of JSON Schema the file's schema uses, which the
// validator below implements. Keywords it does not know make the embedded
// schema fail to load (a test checks it loads), so that the Go rules and
// the published ones cannot drift apart.
type schema struct {
	Type                 string             `json:"type"`
	Properties           map[string]*schema `json:"properties"`
	AdditionalProperties *bool              `json:"additionalProperties"`
	Required             []string           `json:"required"`
	Items                *schema            `json:"items"`
	OneOf                []*schema          `json:"oneOf"`
	Enum                 []any              `json:"enum"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	MinLength            *int               `json:"minLength"`
	MaxLength            *int               `json:"maxLength"`
	MinItems             *int               `json:"minItems"`
	MaxItems             *int               `json:"maxItems"`
	UniqueItems          bool               `json:"uniqueItems"`
	Default              any                `json:"default"`
	Description          string             `json:"description"`
	Title                string             `json:"title"`
	SchemaURI            string             `json:"$schema"`
	ID                   string             `json:"$id"`
}

// loadSchema parses the embedded schema, refusing keywords the validator
// does not implement.
func loadSchema(data []byte) (*schema, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var s schema
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("load the configuration schema: %w", err)
	}
	return &s, nil
}

// problem is one rule a value breaks, with its YAML line.
type problem struct {
	line int
	path string
	msg  string
}

func (p problem) String() string {
	where := "the file"
	if p.path != "" {
		where = p.path
	}
	if p.line > 0 {
		return fmt.Sprintf("line %d: %s %s", p.line, where, p.msg)
	}
	return where + " " + p.msg
}

// validator checks a YAML tree against the schema. It prunes what breaks a
// rule (a key with a bad value, a bad list item) so that the rest can be
// decoded, and collects the problems.
type validator struct {
	problems []problem
}

func (v *validator) fail(n *yaml.Node, path, format string, args ...any) bool {
	v.problems = append(v.problems, problem{line: n.Line, path: path, msg: fmt.Sprintf(format, args...)})
	return false
}

// check validates n against s at path and reports whether n may stay.
func (v *validator) check(n *yaml.Node, s *schema, path string) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return v.fail(n, path, "uses a YAML anchor or alias, which Polylane does not read")
	}
	if len(s.OneOf) > 0 {
		return v.oneOf(n, s, path)
	}
	if len(s.Enum) > 0 {
		return v.enum(n, s, path)
	}
	switch s.Type {
	case "object":
		return v.object(n, s, path)
	case "array":
		return v.array(n, s, path)
	case "string":
		return v.str(n, s, path)
	case "integer":
		return v.integer(n, s, path)
	case "boolean":
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			return v.fail(n, path, "must be true or false, not %s", describe(n))
		}
		return true
	}
	return true
}

// oneOf accepts a value that matches exactly one alternative; the problem
// reported is the closest alternative's (the one of the value's kind).
func (v *validator) oneOf(n *yaml.Node, s *schema, path string) bool {
	var best *schema
	for _, alt := range s.OneOf {
		trial := &validator{}
		if trial.check(clone(n), alt, path) && len(trial.problems) == 0 {
			return v.check(n, alt, path)
		}
		if best == nil || kindMatches(n, alt) {
			best = alt
		}
	}
	return v.check(n, best, path)
}

// clone copies a node tree, so that a trial check may prune it.
func clone(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, child := range n.Content {
		c.Content[i] = clone(child)
	}
	return &c
}

// kindMatches reports whether a node is of the kind a schema expects.
func kindMatches(n *yaml.Node, s *schema) bool {
	switch s.Type {
	case "object":
		return n.Kind == yaml.MappingNode
	case "array":
		return n.Kind == yaml.SequenceNode
	}
	return n.Kind == yaml.ScalarNode
}

func (v *validator) enum(n *yaml.Node, s *schema, path string) bool {
	var want []string
	for _, e := range s.Enum {
		w := fmt.Sprint(e)
		if f, ok := e.(float64); ok && f == math.Trunc(f) {
			w = strconv.FormatInt(int64(f), 10)
		}
		if n.Kind == yaml.ScalarNode && n.Value == w {
			return true
		}
		want = append(want, w)
	}
	return v.fail(n, path, "must be one of %s, not %s", strings.Join(want, ", "), describe(n))
}

// object checks a mapping: known keys only, no key twice, required keys
// present once the keys whose values break a rule are removed.
func (v *validator) object(n *yaml.Node, s *schema, path string) bool {
	if n.Kind != yaml.MappingNode {
		return v.fail(n, path, "must be a mapping of keys to values, not %s", describe(n))
	}
	seen := map[string]bool{} // keys given, for "given twice"
	present := map[string]bool{}
	kept := n.Content[:0:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		key := k.Value
		sub := join(path, key)
		prop := s.Properties[key]
		switch {
		case k.Kind != yaml.ScalarNode:
			v.fail(k, path, "has a key that is not a plain name")
			continue
		case seen[key]:
			v.fail(k, sub, "is given twice; the first one is used")
			continue
		case prop == nil && s.AdditionalProperties != nil && !*s.AdditionalProperties:
			v.fail(k, sub, "is not a known key (%s)", knownKeys(s))
			continue
		}
		seen[key] = true
		if prop != nil && !v.check(val, prop, sub) {
			continue
		}
		present[key] = true
		kept = append(kept, k, val)
	}
	n.Content = kept
	for _, r := range s.Required {
		if !present[r] {
			return v.fail(n, path, "needs the key %s", r)
		}
	}
	return true
}

// array checks a sequence: bad items are dropped (duplicates too, when
// items must be unique); the bounds on the count apply to what is left.
func (v *validator) array(n *yaml.Node, s *schema, path string) bool {
	if n.Kind != yaml.SequenceNode {
		return v.fail(n, path, "must be a list, not %s", describe(n))
	}
	seen := map[string]bool{}
	kept := n.Content[:0:0]
	for i, item := range n.Content {
		sub := fmt.Sprintf("%s[%d]", path, i)
		if s.Items != nil && !v.check(item, s.Items, sub) {
			continue
		}
		if s.UniqueItems && item.Kind == yaml.ScalarNode {
			if seen[item.Value] {
				v.fail(item, sub, "repeats %q; it is used once", item.Value)
				continue
			}
			seen[item.Value] = true
		}
		kept = append(kept, item)
	}
	n.Content = kept
	if s.MaxItems != nil && len(kept) > *s.MaxItems {
		return v.fail(n, path, "has %d entries, more than the %d allowed", len(kept), *s.MaxItems)
	}
	if s.MinItems != nil && len(kept) < *s.MinItems {
		return v.fail(n, path, "needs at least %d valid entries", *s.MinItems)
	}
	return true
}

func (v *validator) str(n *yaml.Node, s *schema, path string) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return v.fail(n, path, "must be a text, not %s", describe(n))
	}
	l := utf8.RuneCountInString(n.Value)
	if s.MinLength != nil && l < *s.MinLength {
		return v.fail(n, path, "must not be empty")
	}
	if s.MaxLength != nil && l > *s.MaxLength {
		return v.fail(n, path, "is %d characters long, more than the %d allowed", l, *s.MaxLength)
	}
	return true
}

func (v *validator) integer(n *yaml.Node, s *schema, path string) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		return v.fail(n, path, "must be a whole number, not %s", describe(n))
	}
	i, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		return v.fail(n, path, "must be a whole number, not %s", describe(n))
	}
	if s.Minimum != nil && float64(i) < *s.Minimum {
		return v.fail(n, path, "must be at least %v, not %d", *s.Minimum, i)
	}
	if s.Maximum != nil && float64(i) > *s.Maximum {
		return v.fail(n, path, "must be at most %v, not %d", *s.Maximum, i)
	}
	return true
}

// describe names a node's value for a message, briefly.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.ShortTag() == "!!null" {
		return "an empty value"
	}
	val := n.Value
	if utf8.RuneCountInString(val) > 40 {
		val = string([]rune(val)[:40]) + "…"
	}
	return strconv.Quote(val)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// knownKeys lists the keys a mapping may have.
func knownKeys(s *schema) string {
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return "known: " + strings.Join(keys, ", ")
}
