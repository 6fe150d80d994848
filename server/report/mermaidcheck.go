package report

import (
	"fmt"
	"regexp"
	"strings"
)

// The restricted Mermaid subset Polylane emits: a "flowchart TD" header,
// then node definitions id["label"], then edges "a --> b" or "a -.-> b"
// between defined nodes, one statement per line.
var (
	mermaidNode  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*)\["([^"]*)"\]$`)
	mermaidEdge  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*) (-->|-\.->) ([A-Za-z][A-Za-z0-9_]*)$`)
	mermaidCode  = regexp.MustCompile(`#(?:[a-z]+|[0-9]{1,7});`)
	mermaidWords = map[string]bool{
		"end": true, "graph": true, "flowchart": true, "subgraph": true, "style": true,
		"classdef": true, "class": true, "click": true, "linkstyle": true, "direction": true,
		"call": true, "href": true, "default": true,
	}
)

// maxLabelBytes bounds one label after escaping.
const maxLabelBytes = 600

// ValidateFlowchart checks that src is in the Mermaid subset the package
// emits: the header, quoted labels free of characters with a meaning to
// Mermaid (they must be written as entity codes), simple ids that are not
// keywords, no duplicate node, and edges only between defined nodes.
func ValidateFlowchart(src string) error {
	defined := map[string]bool{}
	header := false
	for i, raw := range strings.Split(src, "\n") {
		line := strings.TrimSpace(raw)
		n := i + 1
		switch {
		case line == "":
			continue
		case !header:
			if line != "flowchart TD" {
				return fmt.Errorf("line %d: want the header \"flowchart TD\", got %q", n, line)
			}
			header = true
		case mermaidNode.MatchString(line):
			m := mermaidNode.FindStringSubmatch(line)
			if err := checkNode(m[1], m[2], defined); err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
			defined[m[1]] = true
		case mermaidEdge.MatchString(line):
			m := mermaidEdge.FindStringSubmatch(line)
			for _, id := range []string{m[1], m[3]} {
				if !defined[id] {
					return fmt.Errorf("line %d: edge uses node %q before it is defined", n, id)
				}
			}
		default:
			return fmt.Errorf("line %d: not a node or edge of the subset: %q", n, line)
		}
	}
	if !header {
		return fmt.Errorf("no \"flowchart TD\" header")
	}
	if len(defined) == 0 {
		return fmt.Errorf("the flowchart has no node")
	}
	return nil
}

// checkNode checks one node definition.
func checkNode(id, label string, defined map[string]bool) error {
	if mermaidWords[strings.ToLower(id)] {
		return fmt.Errorf("node id %q is a Mermaid keyword", id)
	}
	if defined[id] {
		return fmt.Errorf("node %q is defined twice", id)
	}
	if label == "" || len(label) > maxLabelBytes {
		return fmt.Errorf("node %q: label of %d bytes (want 1 to %d)", id, len(label), maxLabelBytes)
	}
	rest := mermaidCode.ReplaceAllString(label, "")
	if i := strings.IndexAny(rest, "\"#`<>&[](){}|;%\\\n\r\t"); i >= 0 {
		return fmt.Errorf("node %q: label holds %q unescaped", id, rest[i])
	}
	return nil
}
