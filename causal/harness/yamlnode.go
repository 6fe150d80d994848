package harness

import (
	"bytes"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// MaxFileBytes is the largest harness file the model reads. Larger files are
// refused rather than parsed, so hostile input cannot exhaust memory.
const MaxFileBytes = 4 << 20

// maxAliasDepth bounds how many alias hops a lookup follows.
const maxAliasDepth = 8

// ErrTooLarge is returned for files above MaxFileBytes.
var ErrTooLarge = errors.New("file exceeds the harness size limit")

// parseYAML decodes one YAML document into its root mapping node.
func parseYAML(path string, data []byte) (*yaml.Node, error) {
	if err := CheckYAML(path, data); err != nil {
		return nil, err
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	root = deref(root)
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("parse %s: top level is not a mapping", path)
	}
	return root, nil
}

// CheckYAML returns a LimitError when a YAML file is too large or nests too
// deeply to parse safely. Every parse of repository YAML goes through it.
func CheckYAML(path string, data []byte) error {
	if len(data) > MaxFileBytes {
		return &LimitError{File: path, What: "size", Limit: MaxFileBytes, Found: len(data)}
	}
	if d, line := YAMLNesting(data, MaxNesting); d > MaxNesting {
		return checkNesting(path, d, line)
	}
	return nil
}

// CheckJSON is CheckYAML for JSON files.
func CheckJSON(path string, data []byte) error {
	if len(data) > MaxFileBytes {
		return &LimitError{File: path, What: "size", Limit: MaxFileBytes, Found: len(data)}
	}
	if d, line := JSONNesting(data, MaxNesting); d > MaxNesting {
		return checkNesting(path, d, line)
	}
	return nil
}

// deref follows alias nodes, bounded.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxAliasDepth; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// pair is one key/value entry of a mapping node.
type pair struct {
	Key   *yaml.Node
	Value *yaml.Node
}

// pairs lists the entries of a mapping node in source order. Merge keys (<<)
// contribute the entries of the merged mapping after the explicit ones.
func pairs(n *yaml.Node) []pair {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out, merged []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		if v == nil {
			continue
		}
		if k.Value == "<<" && k.Tag == "!!merge" {
			if v.Kind == yaml.MappingNode {
				for j := 0; j+1 < len(v.Content); j += 2 {
					if mv := deref(v.Content[j+1]); mv != nil {
						merged = append(merged, pair{v.Content[j], mv})
					}
				}
			}
			continue
		}
		out = append(out, pair{k, v})
	}
	for _, m := range merged {
		if lookup(n, m.Key.Value) == nil {
			out = append(out, m)
		}
	}
	return out
}

// lookup returns the value of key in a mapping node, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i].Tag != "!!merge" {
			return deref(n.Content[i+1])
		}
	}
	return nil
}

// scalar returns the value of a scalar node, or "".
func scalar(n *yaml.Node) string {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// items returns the elements of a sequence node.
func items(n *yaml.Node) []*yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.Node, 0, len(n.Content))
	for _, c := range n.Content {
		if c = deref(c); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// scalarList reads a scalar or a sequence of scalars.
func scalarList(n *yaml.Node) []string {
	n = deref(n)
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		if n.Value == "" {
			return nil
		}
		return []string{n.Value}
	}
	var out []string
	for _, c := range items(n) {
		if c.Kind == yaml.ScalarNode {
			out = append(out, c.Value)
		}
	}
	return out
}

// stringMap reads a mapping of scalars with the line of each value.
func stringMap(n *yaml.Node) map[string]Value {
	ps := pairs(n)
	if len(ps) == 0 {
		return nil
	}
	out := make(map[string]Value, len(ps))
	for _, p := range ps {
		v := p.Value
		text := v.Value
		if v.Kind == yaml.MappingNode {
			// Taskfile dynamic vars: {sh: "..."}; keep the command text.
			text = scalar(lookup(v, "sh"))
		}
		out[p.Key.Value] = Value{Text: text, Line: p.Key.Line}
	}
	return out
}

// Value is a scalar with the 1-based line it was defined on.
type Value struct {
	Text string
	Line int
}

// blockStartLine returns the 1-based line where the text of a scalar starts:
// for literal and folded blocks the line after the indicator, otherwise the
// scalar's own line.
func blockStartLine(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Line + 1
	}
	return n.Line
}
