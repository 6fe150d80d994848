package patch

import (
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// checkDockerfile validates a Dockerfile: the patched file keeps its stages
// (same number of FROM lines and the same stage names) and every RUN in shell
// form is checked like any other shell.
func checkDockerfile(p string, old, new []byte) ([]fragment, []fragment, error) {
	oi, ni := harness.DockerInstructions(old), harness.DockerInstructions(new)
	if old != nil && stageSignature(oi) != stageSignature(ni) {
		return nil, nil, &ValidationError{Path: p, Rule: RuleStructure, Msg: "the patch changes the Dockerfile's build stages"}
	}
	return runFragments(oi), runFragments(ni), nil
}

// stageSignature lists the stage names in order (unnamed stages as "-").
func stageSignature(ins []harness.DockerInstruction) string {
	var names []string
	for _, in := range ins {
		if in.Cmd != "FROM" {
			continue
		}
		f := strings.Fields(in.Args)
		name := "-"
		for j := 0; j+1 < len(f); j++ {
			if strings.EqualFold(f[j], "as") {
				name = strings.ToLower(f[j+1])
			}
		}
		names = append(names, name)
	}
	return strings.Join(names, ",")
}

// runFragments returns the shell-form RUN instructions, flags stripped.
func runFragments(ins []harness.DockerInstruction) []fragment {
	var out []fragment
	for _, in := range ins {
		if in.Cmd != "RUN" {
			continue
		}
		args := in.Args
		for strings.HasPrefix(args, "--") {
			_, rest, _ := strings.Cut(args, " ")
			args = strings.TrimSpace(rest)
		}
		if strings.HasPrefix(args, "[") || strings.Contains(args, "<<") {
			continue
		}
		out = append(out, fragment{where: "RUN", line: in.Line, text: args})
	}
	return out
}

// scriptFragments returns a whole shell script as one fragment.
func scriptFragments(content []byte) []fragment {
	if content == nil {
		return nil
	}
	return []fragment{{where: "script", line: 1, text: string(content)}}
}
