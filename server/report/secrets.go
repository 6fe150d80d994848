package report

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/analysis/redact"
)

// maxSecretKinds and maxSecretLines bound the credential note.
const (
	maxSecretKinds = 4
	maxSecretLines = 3
)

// secretNote is one line telling the maintainers that the job log printed
// a credential GitHub did not mask: its kind and where, never its value.
// Polylane shows it redacted; the credential itself should be rotated,
// since anyone who can read the log has it.
func (r *renderer) secretNote(b *strings.Builder) {
	secrets := r.d.RedactedSecrets
	if len(secrets) == 0 {
		return
	}
	var kinds []string
	lines := map[string][]int{}
	for _, s := range secrets {
		if _, seen := lines[s.Kind]; !seen {
			kinds = append(kinds, s.Kind)
			lines[s.Kind] = nil
		}
		if s.Line > 0 {
			lines[s.Kind] = append(lines[s.Kind], s.Line)
		}
	}
	var parts []string
	for i, k := range kinds {
		if i == maxSecretKinds {
			parts = append(parts, fmt.Sprintf("%d more", len(kinds)-i))
			break
		}
		parts = append(parts, article(k)+" "+r.t(k)+r.secretLines(lines[k]))
	}
	fmt.Fprintf(b, "**Credential in the job log.** The log of this run printed %s that GitHub did not mask. "+
		"Polylane shows it as %s and never repeats it; rotate it, since anyone who can read the log has it.\n\n",
		joinAnd(parts), code(redact.Marker(kinds[0]), 0))
}

// secretLines renders " (log line N, …)" with links to the job log.
func (r *renderer) secretLines(ns []int) string {
	if len(ns) == 0 {
		return ""
	}
	var refs []string
	for i, n := range ns {
		if i == maxSecretLines {
			refs = append(refs, fmt.Sprintf("%d more", len(ns)-i))
			break
		}
		refs = append(refs, r.logRef(r.d.Run.ID, r.d.Failure.Job.ID, n))
	}
	return " (" + strings.Join(refs, ", ") + ")"
}

// article is "an" before a vowel sound of the kinds Polylane names, else "a".
func article(kind string) string {
	if kind != "" && strings.ContainsRune("AEIOUaeiou", rune(kind[0])) {
		return "an"
	}
	return "a"
}

// joinAnd joins "a", "a and b", "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
