package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// goTestValueFlags are go test flags whose value is the next word.
var goTestValueFlags = map[string]bool{"-run": true, "-skip": true, "-timeout": true, "-count": true, "-p": true,
	"-parallel": true, "-tags": true, "-coverprofile": true, "-covermode": true, "-coverpkg": true, "-bench": true,
	"-benchtime": true, "-cpu": true, "-shuffle": true, "-o": true, "-exec": true, "-ldflags": true, "-gcflags": true,
	"-mod": true, "-C": true, "-list": true, "-json": false}

// goPackageArg reports whether a go test argument names packages.
func goPackageArg(a string) bool {
	return a == "." || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") || strings.Contains(a, "...") ||
		strings.Contains(a, "{{") || strings.HasPrefix(a, "$")
}

// gotestsumRerun adds `--rerun-fails=2` to a gotestsum command. gotestsum
// only reruns failed tests when the packages come from --packages, so the
// package arguments after "--" move there.
func gotestsumRerun(n *harness.Node, site patch.Site, at, end int) ([]byte, error) {
	words := n.Cmd.Words
	for _, w := range words {
		if strings.HasPrefix(w, "--rerun-fails") {
			return nil, noFix("gotestsum already reruns failed tests, so the test keeps failing on rerun and needs its own fix")
		}
	}
	sep, pkgs, hasPackagesFlag := gotestsumPackages(words)
	if len(pkgs) == 0 && !hasPackagesFlag {
		return nil, noFix("the packages gotestsum tests are not named on its command line, so --rerun-fails cannot be added safely")
	}
	if at != end {
		return nil, noFix("the gotestsum command spans several lines; Polylane only edits single-line commands here")
	}
	ls := strings.Split(string(site.Content), "\n")
	if at < 1 || at > len(ls) {
		return nil, noFix("the gotestsum command is outside %s", site.Path)
	}
	line := ls[at-1]
	cut := strings.Index(line, " -- ")
	if sep >= 0 && cut < 0 {
		return nil, noFix("the \"--\" of the gotestsum command was not found on its line")
	}
	add := " --rerun-fails=2"
	if !hasPackagesFlag {
		add += fmt.Sprintf(" --packages=%q", strings.Join(pkgs, " "))
		tail := line[cut:]
		for _, p := range pkgs {
			tail = removeWord(tail, p)
		}
		line = line[:cut] + strings.TrimRight(tail, " ")
		line = strings.TrimSuffix(line, " --")
	}
	if cut < 0 {
		line += add
	} else {
		line = line[:cut] + add + line[cut:]
	}
	ls[at-1] = line
	return []byte(strings.Join(ls, "\n")), nil
}

// gotestsumPackages finds, in a gotestsum command's words, the index of
// "--" (-1: none), the package arguments after it that go test receives,
// and whether --packages is set.
func gotestsumPackages(words []string) (sep int, pkgs []string, hasPackagesFlag bool) {
	sep = -1
	for i, w := range words {
		if w == "--" {
			sep = i
			break
		}
	}
	for _, w := range words {
		if strings.HasPrefix(w, "--packages") {
			hasPackagesFlag = true
		}
	}
	if sep < 0 {
		return sep, nil, hasPackagesFlag
	}
	for i := sep + 1; i < len(words); i++ {
		w := words[i]
		if goTestValueFlags[w] {
			i++
			continue
		}
		if !strings.HasPrefix(w, "-") && goPackageArg(w) {
			pkgs = append(pkgs, w)
		}
	}
	return sep, pkgs, hasPackagesFlag
}

// removeWord removes the first whole-word occurrence of w (and the blank
// before it) from s.
func removeWord(s, w string) string {
	for i := 0; i+len(w) <= len(s); i++ {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return s
		}
		k := i + j
		end := k + len(w)
		if k > 0 && s[k-1] == ' ' && (end == len(s) || strings.ContainsRune(" \t;|&)'\"", rune(s[end]))) {
			return s[:k-1] + s[end:]
		}
		i = k
	}
	return s
}
