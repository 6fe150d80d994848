package patch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/polylane/polylane/causal/harness"
)

// maxYAML bounds the YAML a validation will parse.
const maxYAML = 4 << 20

// parseDocs parses every document of a YAML stream.
func parseDocs(content []byte) ([]*yaml.Node, error) {
	if len(content) > maxYAML {
		return nil, fmt.Errorf("yaml of %d bytes is too large", len(content))
	}
	if err := harness.CheckYAML("the patched file", content); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(content))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		root := &doc
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = root.Content[0]
		}
		docs = append(docs, root)
	}
}

// deref follows an alias.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// mapGet returns the value of key in a mapping node, or nil.
func mapGet(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return deref(n.Content[i+1])
		}
	}
	return nil
}

// mapKeys returns the keys of a mapping node in order.
func mapKeys(n *yaml.Node) []string {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	keys := make([]string, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	return keys
}

// parseBoth parses old and new. A new file that does not parse is an error; an
// old one that does not parse gives nil docs (nothing to compare against).
func parseBoth(p string, old, new []byte) (oldDocs, newDocs []*yaml.Node, err error) {
	newDocs, err = parseDocs(new)
	if err != nil {
		return nil, nil, &ValidationError{Path: p, Rule: RuleParse, Msg: "patched YAML does not parse: " + err.Error()}
	}
	if old != nil {
		oldDocs, _ = parseDocs(old)
	}
	return oldDocs, newDocs, nil
}

// missingKeys returns the keys of old that new lacks.
func missingKeys(old, new *yaml.Node) []string {
	have := make(map[string]bool)
	for _, k := range mapKeys(new) {
		have[k] = true
	}
	var missing []string
	for _, k := range mapKeys(old) {
		if !have[k] {
			missing = append(missing, k)
		}
	}
	return missing
}

// structureError reports lost keys under a label.
func structureError(p, what string, missing []string) error {
	return &ValidationError{Path: p, Rule: RuleStructure,
		Msg: fmt.Sprintf("the patch removes %s %s", what, strings.Join(missing, ", "))}
}

// countTruthy counts the mapping entries named key anywhere under n whose
// value is not literally false (continue-on-error: true, ignore_error: true,
// or an expression that may be true).
func countTruthy(n *yaml.Node, key string) int {
	count := 0
	walkYAML(n, 0, func(m *yaml.Node) {
		if m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				v := strings.TrimSpace(strings.ToLower(deref(m.Content[i+1]).Value))
				if v != "false" && v != "${{ false }}" && v != "no" {
					count++
				}
			}
		}
	})
	return count
}

// countDisabledIfs counts `if:` conditions that are literally false.
func countDisabledIfs(n *yaml.Node) int {
	count := 0
	walkYAML(n, 0, func(m *yaml.Node) {
		if m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value != "if" {
				continue
			}
			v := strings.ReplaceAll(strings.ToLower(deref(m.Content[i+1]).Value), " ", "")
			if v == "false" || v == "${{false}}" || v == "0" || v == "${{0}}" {
				count++
			}
		}
	})
	return count
}

// walkYAML visits every node under n, bounded in depth.
func walkYAML(n *yaml.Node, depth int, visit func(*yaml.Node)) {
	if n == nil || depth > 64 {
		return
	}
	visit(n)
	for _, c := range n.Content {
		walkYAML(c, depth+1, visit)
	}
}

// scalarStart returns the 1-based line where a scalar's text starts: the line
// after a block indicator (| or >), else the node's own line.
func scalarStart(n *yaml.Node) int {
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Line + 1
	}
	return n.Line
}

// checkYAMLDocs validates generic YAML (Kubernetes manifests, compose files,
// configs): it parses, keeps at least as many documents, each document's
// top-level keys, and every Kubernetes object (kind and name).
func checkYAMLDocs(p string, old, new []byte) error {
	oldDocs, newDocs, err := parseBoth(p, old, new)
	if err != nil || oldDocs == nil {
		return err
	}
	if len(newDocs) < len(oldDocs) {
		return &ValidationError{Path: p, Rule: RuleStructure,
			Msg: fmt.Sprintf("the patch drops YAML documents (%d before, %d after)", len(oldDocs), len(newDocs))}
	}
	objects := make(map[string]bool)
	for _, d := range newDocs {
		objects[objectID(d)] = true
	}
	for i, d := range oldDocs {
		if missing := missingKeys(d, newDocs[i]); len(missing) > 0 {
			return structureError(p, "top-level keys", missing)
		}
		if id := objectID(d); id != "" && !objects[id] {
			return &ValidationError{Path: p, Rule: RuleStructure, Msg: "the patch removes the object " + id}
		}
	}
	if countTruthy(docsRoot(newDocs), "continue-on-error") > countTruthy(docsRoot(oldDocs), "continue-on-error") {
		return &ValidationError{Path: p, Rule: RuleContinueOnError, Msg: "the patch adds continue-on-error"}
	}
	return nil
}

// docsRoot wraps documents in one sequence node so they can be walked at once.
func docsRoot(docs []*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: docs}
}

// objectID names a Kubernetes object as kind/namespace/name, or "".
func objectID(doc *yaml.Node) string {
	kind, meta := mapGet(doc, "kind"), mapGet(doc, "metadata")
	if kind == nil || mapGet(doc, "apiVersion") == nil {
		return ""
	}
	id := kind.Value
	if ns := mapGet(meta, "namespace"); ns != nil {
		id += "/" + ns.Value
	}
	if name := mapGet(meta, "name"); name != nil {
		id += "/" + name.Value
	}
	return id
}
