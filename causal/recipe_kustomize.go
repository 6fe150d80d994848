package causal

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// kustomize's hack/install_kustomize.sh asks the GitHub API which release
// to download, without a token, so on a shared runner IP address it runs
// into the unauthenticated limit. From kustomize 4.5.2 the command installs
// with `go install sigs.k8s.io/kustomize/kustomize/vN@VERSION`, which goes
// through the Go module proxy and asks GitHub nothing; kubebuilder's
// Makefile scaffold moved to it (kubernetes-sigs/kubebuilder#2822, #3398),
// and so did operators that hit the limit (metallb/frr-k8s#17,
// kubernetes-sigs/kwok#729, perses/perses-operator#368).

// kustomizeGoInstallSince is the first kustomize release that go install
// builds (kubernetes-sigs/kustomize#3618).
var kustomizeGoInstallSince = [3]int{4, 5, 2}

var semverIn = regexp.MustCompile(`(\d+)\.(\d+)\.(\d+)`)

// fixKustomizeGoInstall replaces `curl …/install_kustomize.sh | bash -s --
// VERSION DIR` with `go install` of the same version into the same
// directory.
func fixKustomizeGoInstall(x *fixContext) (*fixPlan, error) {
	fetch, shell := kustomizeInstallPipe(x.fixTarget())
	if fetch == nil {
		return nil, noFix("the command that runs kustomize's install script was not located")
	}
	if !x.usesGo() {
		return nil, noFix("the repository is not a Go module and the job sets up no Go, so `go install` of kustomize may not run there")
	}
	args := scriptArgs(shell)
	version, dir := "", ""
	if len(args) > 0 {
		version = args[0]
	}
	if len(args) > 1 {
		dir = args[1]
	}
	major, at := "5", "@latest"
	if version != "" {
		v := semverIn.FindStringSubmatch(shell.ExpandVars(version))
		if v == nil {
			return nil, noFix("the kustomize version `%s` could not be read, so the module path of its major version is unknown", version)
		}
		nums := [3]int{}
		for i := range nums {
			nums[i], _ = strconv.Atoi(v[i+1])
		}
		if nums[0] < kustomizeGoInstallSince[0] || nums[0] == kustomizeGoInstallSince[0] && (nums[1] < kustomizeGoInstallSince[1] ||
			nums[1] == kustomizeGoInstallSince[1] && nums[2] < kustomizeGoInstallSince[2]) {
			return nil, noFix("kustomize %s predates `go install` support (4.5.2), so the install script stays; a token for its GitHub API call is the other fix", v[0])
		}
		major = v[1]
		at = "@v" + strings.TrimPrefix(version, "v")
	}
	site, err := x.siteOf(fetch)
	if err != nil {
		return nil, err
	}
	gobin := `"$(pwd)"`
	switch {
	case site.Host == patch.HostMakefile && dir != "":
		gobin = "$(abspath " + dir + ")"
	case site.Host == patch.HostMakefile:
		gobin = "$(CURDIR)"
	case strings.HasPrefix(dir, "/") || strings.HasPrefix(shell.ExpandVars(dir), "/"):
		gobin = dir
	case dir != "":
		gobin = `"$(pwd)/` + strings.TrimPrefix(strings.Trim(dir, `"`), "./") + `"`
	}
	install := fmt.Sprintf("GOBIN=%s go install sigs.k8s.io/kustomize/kustomize/v%s%s", gobin, major, at)
	out, err := replaceSpan(site, fetch.Cmd.Raw, shell.Cmd.Raw, install)
	if err != nil {
		return nil, err
	}
	rationale := fmt.Sprintf("kustomize's install script asks the GitHub API for the release without a token, and the runner's IP address had used up the unauthenticated quota%s. "+
		"`go install` builds the same kustomize version from the Go module proxy and calls no GitHub API, which is how kubebuilder's Makefile scaffold installs it since 2023; "+
		"the binary lands in the same directory.", cite(x.ids["cause"]...))
	return &fixPlan{Title: "Install kustomize with go install", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// kustomizeInstallPipe finds, in the statement of n, a curl or wget that
// fetches install_kustomize.sh piped into a shell.
func kustomizeInstallPipe(n *harness.Node) (fetch, shell *harness.Node) {
	if n == nil || n.Cmd == nil || n.Parent == nil {
		return nil, nil
	}
	sibs := n.Parent.Children
	for i, c := range sibs {
		if c.Cmd == nil || c.Cmd.Script != n.Cmd.Script || (c.Tool() != "curl" && c.Tool() != "wget") ||
			!strings.Contains(c.ExpandVars(c.Cmd.Text), "install_kustomize.sh") {
			continue
		}
		for _, next := range sibs[i+1:] {
			if next.Cmd == nil || next.Cmd.Substituted {
				continue // a $(…) in the arguments is parsed as its own command
			}
			if next.Cmd.PipeIndex == c.Cmd.PipeIndex+1 && (next.Tool() == "bash" || next.Tool() == "sh") {
				return c, next
			}
			break
		}
	}
	return nil, nil
}

// scriptArgs returns the arguments a shell reading its script from standard
// input passes to it: the words after `-s --` or `-s`.
func scriptArgs(shell *harness.Node) []string {
	args := shell.Cmd.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		done := args[0] == "--"
		args = args[1:]
		if done {
			break
		}
	}
	return args
}

// usesGo reports whether go is there for the failing job: the repository
// is a Go module or the job sets Go up.
func (x *facts) usesGo() bool {
	if _, err := x.repo.ReadFile("go.mod"); err == nil {
		return true
	}
	if x.job != nil {
		for _, s := range x.job.Steps {
			if strings.HasPrefix(s.Uses, "actions/setup-go@") {
				return true
			}
		}
	}
	return false
}

// replaceSpan replaces, within the site's lines, the text from the first
// command's source to the end of the last one's with repl.
func replaceSpan(site patch.Site, from, to, repl string) ([]byte, error) {
	ls := strings.Split(string(site.Content), "\n")
	if site.Line < 1 || site.EndLine > len(ls) || site.EndLine < site.Line {
		return nil, noFix("the lines of %s to change are out of range", site.Path)
	}
	block := strings.Join(ls[site.Line-1:site.EndLine], "\n")
	i := strings.Index(block, from)
	if i < 0 {
		return nil, noFix("the command's text was not found in %s", site.Path)
	}
	j := strings.Index(block[i:], to)
	if j < 0 {
		return nil, noFix("the command's text was not found in %s", site.Path)
	}
	block = block[:i] + repl + block[i+j+len(to):]
	out := append(append(append([]string{}, ls[:site.Line-1]...), strings.Split(block, "\n")...), ls[site.EndLine:]...)
	return []byte(strings.Join(out, "\n")), nil
}
