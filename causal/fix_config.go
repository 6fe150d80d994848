package causal

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// fixImageRegistry moves image references off the frozen k8s.gcr.io
// registry to registry.k8s.io, which serves the same images.
func fixImageRegistry(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil || !strings.Contains(n.Text, "k8s.gcr.io") {
		return nil, noFix("the image reference does not point at a registry known to have moved")
	}
	site, err := x.siteOf(n)
	if err != nil {
		return nil, err
	}
	ls := strings.Split(string(site.Content), "\n")
	changed := false
	for i := n.Cmd.Line - 1; i < n.Cmd.EndLine && i < len(ls); i++ {
		if strings.Contains(ls[i], "k8s.gcr.io") {
			ls[i] = strings.ReplaceAll(ls[i], "k8s.gcr.io", "registry.k8s.io")
			changed = true
		}
	}
	if !changed {
		return nil, noFix("the image reference is not written on the command's lines")
	}
	rationale := fmt.Sprintf("The image could not be pulled%s: k8s.gcr.io was frozen in April 2023 and new tags are only published on registry.k8s.io, which also serves the old ones. The patch points the reference at registry.k8s.io.", cite(x.ids["cause"]...))
	return &fixPlan{Title: "Pull Kubernetes images from registry.k8s.io", Rationale: rationale,
		Edits: []patch.FileEdit{{Path: site.Path, Old: site.Content, New: []byte(strings.Join(ls, "\n"))}}}, nil
}

var retiredAction = regexp.MustCompile(`(actions/(?:upload|download)-artifact)@v[123]\b`)

// fixBumpAction moves retired artifact actions of the job to v4.
func fixBumpAction(x *fixContext) (*fixPlan, error) {
	if x.wf == nil || x.job == nil {
		return nil, noFix("the failing job was not located")
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	ls := strings.Split(string(content), "\n")
	var bumped []string
	for _, s := range x.job.Steps {
		if s.UsesLine < 1 || s.UsesLine > len(ls) || !retiredAction.MatchString(s.Uses) {
			continue
		}
		ls[s.UsesLine-1] = retiredAction.ReplaceAllString(ls[s.UsesLine-1], "${1}@v4")
		bumped = append(bumped, s.Uses)
	}
	if len(bumped) == 0 {
		return nil, noFix("no retired artifact action is used by the job")
	}
	rationale := fmt.Sprintf("GitHub no longer runs %s%s. The patch moves them to v4, the supported major; v4 artifacts are immutable per name and exclude hidden files by default, so check jobs that upload under the same name twice.",
		strings.Join(bumped, ", "), cite(x.ids["cause"]...))
	return &fixPlan{Title: "Move artifact actions to v4", Rationale: rationale,
		Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: []byte(strings.Join(ls, "\n"))}}}, nil
}

// fixArtifactName makes an upload's artifact name unique per matrix leg: it
// appends each matrix value the name does not already carry. runner.os in
// the name covers a key that runs-on takes from the matrix.
func fixArtifactName(x *fixContext) (*fixPlan, error) {
	if x.wf == nil || x.job == nil || x.step == nil {
		return nil, noFix("the failing step was not located")
	}
	if !strings.Contains(x.step.Uses, "upload-artifact") {
		return nil, noFix("the failing step is not an upload-artifact step")
	}
	if x.job.MatrixDynamic {
		return nil, noFix("the job's matrix is computed at run time, so its keys are not known here")
	}
	name, ok := x.step.With["name"]
	if !ok || name.Line == 0 {
		return nil, noFix("the step uploads under the default name; give it a name per job")
	}
	var missing []string
	for _, k := range x.job.Matrix {
		if strings.Contains(name.Text, "matrix."+k) {
			continue
		}
		if strings.Contains(x.job.RunsOn, "matrix."+k) && (strings.Contains(name.Text, "runner.os") || strings.Contains(name.Text, "runner.arch")) {
			continue
		}
		missing = append(missing, k)
	}
	if len(missing) == 0 {
		return nil, noFix("the artifact name already carries every matrix value; another job of the run uploads the same name")
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	ls := strings.Split(string(content), "\n")
	if name.Line > len(ls) {
		return nil, noFix("the artifact name is outside %s", x.wf.Path)
	}
	line := ls[name.Line-1]
	at := strings.LastIndex(line, name.Text)
	if name.Text == "" || at < 0 || strings.Contains(name.Text, "\n") {
		return nil, noFix("the artifact name is not written on one line")
	}
	suffix := ""
	for _, k := range missing {
		suffix += "-${{ matrix." + k + " }}"
	}
	end := at + len(name.Text)
	ls[name.Line-1] = line[:end] + suffix + line[end:]
	rationale := fmt.Sprintf("Another job of the run had already uploaded an artifact named %q%s, and upload-artifact v4 keeps one immutable artifact per name. The patch adds the job's matrix values (%s) to the name, so each leg uploads its own artifact; a later step that downloads them by the old name needs the new pattern.",
		name.Text, cite(x.ids["cause"]...), strings.Join(missing, ", "))
	return &fixPlan{Title: "Give each matrix leg its own artifact name", Rationale: rationale,
		Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: []byte(strings.Join(ls, "\n"))}}}, nil
}

// fixAptLock lets apt wait for the package lock.
func fixAptLock(x *fixContext) (*fixPlan, error) {
	return aptOption(x.facts, "DPkg::Lock::Timeout=300", "Let apt wait for the package lock",
		"apt found the package lock held by another process%s. The patch sets DPkg::Lock::Timeout=300 on the apt commands of %s, so apt waits up to 5 minutes for the lock instead of failing at once; the lock files are never removed.")
}

// aptOption adds -o option to every apt command of the emitter's unit.
func aptOption(x *facts, option, title, why string) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil || (n.Tool() != "apt-get" && n.Tool() != "apt") {
		return nil, noFix("the failing command is not an apt command")
	}
	site, err := x.siteOf(n)
	if err != nil {
		return nil, err
	}
	out, changed := aptAddOption(n, site, option)
	if changed == 0 {
		return nil, noFix("the apt commands already set %s", option)
	}
	rationale := fmt.Sprintf(why, cite(append(x.ids["cause"], x.ids["emitter"]...)...), unitLabel(n))
	return &fixPlan{Title: title, Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// fixStateLock lets terraform wait for the state lock.
func fixStateLock(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil || (n.Tool() != "terraform" && n.Tool() != "tofu") {
		return nil, noFix("the failing command is not terraform")
	}
	site, out, err := x.addArgs(n, subcommandWord(n), []string{"-lock-timeout=10m"})
	if err != nil {
		return nil, err
	}
	rationale := fmt.Sprintf("Another run held the state lock%s. With -lock-timeout=10m, `%s` waits up to 10 minutes for the lock instead of failing at once. Runs that write the same state should also share one concurrency group.",
		cite(x.ids["cause"]...), commandName(n))
	return &fixPlan{Title: "Wait for the Terraform state lock", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// fixFetchDepth checks out the full history the build needs.
func fixFetchDepth(x *fixContext) (*fixPlan, error) {
	if x.wf == nil || x.job == nil {
		return nil, noFix("the failing job was not located")
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	for _, s := range x.job.Steps {
		if !strings.HasPrefix(s.Uses, "actions/checkout@") {
			continue
		}
		var out []byte
		if v, ok := s.With["fetch-depth"]; ok {
			if strings.TrimSpace(v.Text) == "0" {
				return nil, noFix("the checkout already fetches the full history")
			}
			out, err = patch.SetKeyValue(content, v.Line, "fetch-depth", "0")
		} else {
			out, err = patch.AddStepWith(content, stepSpan(s), "fetch-depth", "0")
		}
		if err != nil {
			return nil, noFix("%v", err)
		}
		rationale := fmt.Sprintf("The build needs tags or history that a shallow checkout lacks%s. With fetch-depth: 0, actions/checkout fetches all history and tags, so version commands such as `git describe` find what they look for.", cite(x.ids["cause"]...))
		return &fixPlan{Title: "Check out the full history", Rationale: rationale,
			Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}}, nil
	}
	return nil, noFix("the job does not use actions/checkout")
}

// aptAddOption adds -o option to every apt command of n's unit that stands
// in n's file, and returns the new content and how many commands changed (a
// command that already sets the option is left as it is).
func aptAddOption(n *harness.Node, site patch.Site, option string) ([]byte, int) {
	out := site.Content
	changed := 0
	for _, c := range descendants(unitNodeOf(n)) {
		if (c.Tool() != "apt-get" && c.Tool() != "apt") || c.File != n.File {
			continue
		}
		line, end := c.Cmd.Line, c.Cmd.EndLine
		if site.Host == patch.HostMakefile {
			if r := c.Nearest(harness.NodeRecipe); r != nil {
				line, end = r.Line, r.EndLine
			}
		}
		if next, err := patch.AddArgs(out, line, end, programWord(c), []string{"-o", option}); err == nil {
			out = next
			changed++
		}
	}
	return out, changed
}
