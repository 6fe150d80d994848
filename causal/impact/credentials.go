package impact

import (
	"fmt"
	"regexp"
	"strings"
)

// Credential is a credential or secret that a patch adds or moves: who
// receives it and where it is sent. A patch with one is never CI-only.
type Credential struct {
	// Secret is the reference as the patch writes it, without the
	// expression braces: "github.token", "secrets.DOCKERHUB_TOKEN",
	// "$GITHUB_TOKEN".
	Secret string `json:"secret"`
	// File and Line locate the first added line that holds the reference.
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Command is what receives it ("curl", "docker/login-action@v3"); empty
	// when Polylane did not establish it.
	Command string `json:"command,omitempty"`
	// Hosts are where the command sends it, when established.
	Hosts []string `json:"hosts,omitempty"`
	// Exposure says in a sentence what the patch exposes to which command
	// and host.
	Exposure string `json:"exposure"`
}

// secretRefs find credential references in an added line: an expression
// naming a secret or the workflow's token, or a shell use of a token
// variable.
var secretRefs = []*regexp.Regexp{
	regexp.MustCompile(`\$\{\{[^}]*?\b(secrets\.[A-Za-z_][A-Za-z0-9_-]*|github\.token)\b[^}]*\}\}`),
	regexp.MustCompile(`(\$\{?(?:GITHUB_TOKEN|GH_TOKEN)\b)`),
}

// addedLine is a line a diff adds, with its number in the new file.
type addedLine struct {
	Path string
	Line int
	Text string
}

// diffAdditions reads the added lines of a unified diff.
func diffAdditions(diff string) []addedLine {
	var out []addedLine
	path, newLine, oldLeft, newLeft := "", 0, 0, 0
	for _, l := range strings.Split(diff, "\n") {
		if path != "" && (oldLeft > 0 || newLeft > 0) {
			switch {
			case strings.HasPrefix(l, "+"):
				out = append(out, addedLine{Path: path, Line: newLine, Text: l[1:]})
				newLine++
				newLeft--
			case strings.HasPrefix(l, "-"):
				oldLeft--
			case strings.HasPrefix(l, `\`):
			default:
				newLine++
				oldLeft--
				newLeft--
			}
			continue
		}
		switch {
		case strings.HasPrefix(l, "diff --git "):
			path = ""
		case strings.HasPrefix(l, "+++ "):
			path = diffPath(l[4:], "b/")
		case strings.HasPrefix(l, "@@ "):
			f := strings.Fields(l)
			if len(f) < 3 {
				continue
			}
			_, oldLeft = hunkRange(f[1])
			newLine, newLeft = hunkRange(f[2])
		}
	}
	return out
}

// ScanCredentials lists the credential references a diff adds, one per
// file and reference, each with a plain exposure sentence.
func ScanCredentials(diff string) []Credential {
	var out []Credential
	seen := map[string]bool{}
	for _, a := range diffAdditions(diff) {
		for _, re := range secretRefs {
			for _, m := range re.FindAllStringSubmatch(a.Text, -1) {
				ref := strings.TrimLeft(m[1], "${")
				key := a.Path + "\x00" + ref
				if seen[key] {
					continue
				}
				seen[key] = true
				out = append(out, Credential{Secret: ref, File: a.Path, Line: a.Line,
					Exposure: fmt.Sprintf("adds a reference to %s in %s line %d; Polylane did not establish which command and host receive it", ref, a.Path, a.Line)})
			}
		}
	}
	return out
}

// mergeCredentials keeps the credentials a fix described and adds every
// reference the diff holds in a file none of them covers; a described one
// takes the line of the first reference in its file.
func mergeCredentials(described, scanned []Credential) []Credential {
	out := make([]Credential, 0, len(described)+len(scanned))
	covered := map[string]bool{}
	for _, c := range described {
		for _, s := range scanned {
			if s.File == c.File && c.Line == 0 {
				c.Line = s.Line
			}
		}
		covered[c.File] = true
		out = append(out, c)
	}
	for _, s := range scanned {
		if !covered[s.File] {
			out = append(out, s)
		}
	}
	return out
}

// credentialSentence says in the summary what the patch's credentials
// expose.
func credentialSentence(creds []Credential) string {
	parts := make([]string, 0, len(creds))
	for _, c := range creds {
		parts = append(parts, strings.TrimSuffix(c.Exposure, "."))
	}
	return "It is not a CI-only change: the patch " + strings.Join(parts, "; it ") + ". Review who receives the credential before merging."
}
