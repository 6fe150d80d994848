package causal

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// A recipe is the fix that the maintainers of a tool apply to one of its
// error families: a catalogue family names it in its fix: field, and when
// the cause line belongs to that family the recipe is tried before the
// matched rule's own fix shape. Each recipe says where maintainers applied
// it.
type recipe struct {
	fix fixFunc
	// sources are public fixes that applied it.
	sources []string
	// cases are the corpus cases (owner/repo/case) whose miss led to
	// writing it, left out when the benchmark scores those cases.
	cases []string
}

// recipes are the fix recipes by the name catalogue families use.
// TestCatalogue checks that every name a family gives is here.
var recipes = map[string]recipe{
	"golangci-lint-timeout": {fix: fixGolangciTimeout, sources: []string{
		"https://github.com/golangci/golangci-lint-action/issues/308",
		"https://github.com/containerd/containerd/pull/5616",
		"https://github.com/uber-go/nilaway/pull/85",
	}, cases: []string{"wtfutil/wtf"}},
	"cypress-verify-timeout": {fix: fixCypressVerifyTimeout, sources: []string{
		"https://docs.cypress.io/app/references/troubleshooting#Run-the-Binary-verification-with-a-longer-timeout",
		"https://github.com/cypress-io/cypress/issues/4624",
	}, cases: []string{"opensearch-project/security-dashboards-plugin"}},
	"python-for-node-gyp": {fix: fixPythonForNodeGyp, sources: []string{
		"https://github.com/nodejs/node-gyp/issues/2869",
		"https://github.com/eclipse-thingweb/node-wot/pull/1155",
	}, cases: []string{"eclipse-thingweb/node-wot"}},
	"ghcr-packages-write": {fix: fixGHCRPackagesWrite, sources: []string{
		"https://docs.github.com/en/packages/managing-github-packages-using-github-actions-workflows/publishing-and-installing-a-package-with-github-actions",
		"https://github.blog/changelog/2023-02-02-github-actions-updating-the-default-github_token-permissions-to-read-only/",
		"https://github.com/macbre/push-to-ghcr/pull/31",
	}, cases: []string{"hyperledger/firefly-signer"}},
	"playwright-install": {fix: fixPlaywrightInstall, sources: []string{
		"https://github.com/microsoft/playwright/issues/19837",
		"https://github.com/apify/apify-sdk-js/pull/495",
		"https://github.com/github-samples/copilot-workshops/pull/96",
	}, cases: []string{"iTwin/presentation-rules-editor"}},
	"kustomize-go-install": {fix: fixKustomizeGoInstall, sources: []string{
		"https://github.com/kubernetes-sigs/kubebuilder/issues/2822",
		"https://github.com/kubernetes-sigs/kubebuilder/pull/3398",
		"https://github.com/metallb/frr-k8s/pull/17",
		"https://github.com/kubernetes-sigs/kwok/pull/729",
		"https://github.com/perses/perses-operator/pull/368",
	}, cases: []string{"mondoohq/mondoo-operator"}},
}

// nodeGypLine is a line node-gyp prints while it builds an addon.
var nodeGypLine = regexp.MustCompile(`\bgyp (info|ERR!|WARN)\b|\bnode-gyp\b`)

// fixPythonForNodeGyp gives node-gyp a Python that still has distutils:
// actions/setup-python puts 3.11 first on PATH, where node-gyp looks for
// python3, before the step that builds the addon. Upgrading node-gyp to 10
// (which no longer imports distutils) is the lasting fix; it comes with the
// npm or the dependency that bundles it, so the rationale names it.
func fixPythonForNodeGyp(x *fixContext) (*fixPlan, error) {
	if x.step == nil || x.wf == nil || x.job == nil {
		return nil, noFix("the failing step was not located")
	}
	gyp := false
	for _, l := range x.log.Lines {
		if nodeGypLine.MatchString(l.Text) {
			gyp = true
			break
		}
	}
	if !gyp {
		return nil, noFix("the missing distutils is not node-gyp's: the project's own Python code needs setuptools or a Python before 3.12")
	}
	for _, s := range x.job.Steps {
		if strings.HasPrefix(s.Uses, "actions/setup-python@") {
			return nil, noFix("the job already sets up Python with actions/setup-python; its python-version is the one to lower below 3.12")
		}
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	out, err := patch.InsertStep(content, stepSpan(x.step), []string{
		"name: Set up Python 3.11 for node-gyp", "uses: actions/setup-python@v5", "with:", "  python-version: '3.11'"})
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("node-gyp failed to import distutils%s: the gyp that node-gyp 9 and older bundle imports it, and Python 3.12 removed it (PEP 632), so the runner image's newer python3 breaks every native addon build. "+
		"The patch sets up Python 3.11 before the step, which node-gyp then finds first on PATH; nothing that is built changes. Moving to node-gyp 10 or later, which no longer needs distutils, makes the step unnecessary.",
		cite(x.ids["cause"]...))
	return &fixPlan{Title: "Give node-gyp a Python that has distutils", Rationale: rationale,
		Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}}, nil
}

// RecipeNames lists the fix recipes catalogue families may name.
func RecipeNames() []string {
	out := make([]string, 0, len(recipes))
	for name := range recipes {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// familyRecipe returns the fix recipe the matched family names, if any.
func familyRecipe(x *fixContext) (fixFunc, bool) {
	if x.family == nil || x.family.Fix == "" {
		return nil, false
	}
	r, ok := recipes[x.family.Fix]
	if !ok || x.leftOut(r.cases) {
		return nil, false
	}
	return r.fix, true
}

// leftOut reports whether a fix written from one of the given corpus cases
// is left out of this diagnosis (a benchmark scoring those cases).
func (x *facts) leftOut(cases []string) bool {
	return len(cases) > 0 && x.in.Catalogue.LeavesOut(cases)
}

// golangci-lint's own deadline: a golangci-lint configuration file sets
// run.timeout; without one, the command gets --timeout.
var golangciConfigs = []string{".golangci.yml", ".golangci.yaml"}

// fixGolangciTimeout gives golangci-lint a longer deadline, in its
// configuration file when the repository has one, else on the command.
func fixGolangciTimeout(x *fixContext) (*fixPlan, error) {
	rationale := func(where string) string {
		return fmt.Sprintf("golangci-lint stopped at its own deadline%s: its default (1 minute in older versions) is too short for a cold cache on a shared runner. "+
			"The patch sets %s to 5 minutes; a linter that finds problems still fails the step.", cite(x.ids["cause"]...), where)
	}
	for _, p := range golangciConfigs {
		content, err := x.repo.ReadFile(p)
		if err != nil {
			continue
		}
		out, err := setYAMLKey(content, "run", "timeout", "5m")
		if err != nil {
			return nil, noFix("%s: %v", p, err)
		}
		plan := &fixPlan{Title: "Give golangci-lint 5 minutes", Rationale: rationale("`run.timeout` in " + p),
			Edits: []patch.FileEdit{{Path: p, Old: content, New: out}}}
		if n := yamlKeyLine(content, "run", "timeout"); n > 0 {
			plan.Setting = &Location{File: p, Line: n, Symbol: "run.timeout"}
		}
		return plan, nil
	}
	if s := x.step; s != nil && x.wf != nil && strings.HasPrefix(s.Uses, "golangci/golangci-lint-action@") {
		return golangciActionTimeout(x, rationale("`--timeout` in the action's args"))
	}
	n := x.fixTarget()
	if n == nil || n.Tool() != "golangci-lint" {
		return nil, noFix("golangci-lint's command was not located and the repository has no golangci-lint configuration file")
	}
	if strings.Contains(n.Text, "--timeout") {
		return nil, noFix("`%s` already sets a timeout", commandName(n))
	}
	site, out, err := x.addArgs(n, subcommandWord(n), []string{"--timeout=5m"})
	if err != nil {
		return nil, err
	}
	return &fixPlan{Title: "Give golangci-lint 5 minutes", Rationale: rationale("`--timeout`"), Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// golangciActionTimeout passes --timeout=5m through golangci-lint-action's
// args input.
func golangciActionTimeout(x *fixContext, rationale string) (*fixPlan, error) {
	args := x.step.With["args"].Text
	if strings.Contains(args, "--timeout") {
		return nil, noFix("the action's args already set a timeout")
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	var out []byte
	if v, ok := x.step.With["args"]; ok && v.Line > 0 {
		out, err = patch.SetKeyValue(content, v.Line, "args", strings.TrimSpace(args+" --timeout=5m"))
	} else {
		out, err = patch.AddStepWith(content, stepSpan(x.step), "args", "--timeout=5m")
	}
	if err != nil {
		return nil, noFix("%v", err)
	}
	return &fixPlan{Title: "Give golangci-lint 5 minutes", Rationale: rationale, Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}}, nil
}

// setYAMLKey sets key: value under the top-level mapping section of a
// YAML file, adding the section when it is missing. It edits lines, so
// comments and the rest of the file stay as written.
func setYAMLKey(content []byte, section, key, value string) ([]byte, error) {
	ls := strings.Split(string(content), "\n")
	sec, at := yamlKey(ls, section, key)
	switch {
	case at >= 0:
		indent := ls[at][:len(ls[at])-len(strings.TrimLeft(ls[at], " "))]
		ls[at] = indent + key + ": " + value
		return []byte(strings.Join(ls, "\n")), nil
	case sec >= 0:
		return []byte(strings.Join(slices.Insert(ls, sec+1, "  "+key+": "+value), "\n")), nil
	case strings.Contains(string(content), section+":"):
		return nil, fmt.Errorf("its %s section is not a plain block mapping", section)
	}
	return []byte(section + ":\n  " + key + ": " + value + "\n" + string(content)), nil
}

// yamlKey finds, in a YAML file's lines, the top-level block mapping
// section and its key: their indexes, -1 when absent.
func yamlKey(ls []string, section, key string) (sec, at int) {
	for i, l := range ls {
		if strings.TrimRight(l, " ") != section+":" {
			continue
		}
		for j := i + 1; j < len(ls) && (strings.HasPrefix(ls[j], " ") || strings.TrimSpace(ls[j]) == ""); j++ {
			if strings.HasPrefix(strings.TrimSpace(ls[j]), key+":") {
				return i, j
			}
		}
		return i, -1
	}
	return -1, -1
}

// yamlKeyLine is the 1-based line of section.key in a YAML file, 0 when the
// file does not set it.
func yamlKeyLine(content []byte, section, key string) int {
	_, at := yamlKey(strings.Split(string(content), "\n"), section, key)
	return at + 1
}

// fixCypressVerifyTimeout gives Cypress's binary verification more time
// with CYPRESS_VERIFY_TIMEOUT in the failing step's env.
func fixCypressVerifyTimeout(x *fixContext) (*fixPlan, error) {
	if x.step == nil || x.wf == nil {
		return nil, noFix("the failing step was not located")
	}
	if _, ok := x.step.Env["CYPRESS_VERIFY_TIMEOUT"]; ok {
		return nil, noFix("the step already sets CYPRESS_VERIFY_TIMEOUT")
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	out, err := patch.AddStepEnv(content, stepSpan(x.step), "CYPRESS_VERIFY_TIMEOUT", "100000")
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("Cypress gave up verifying its binary after its default 30 seconds%s, before any test ran; on a busy runner the first start of the binary takes longer. "+
		"The patch sets CYPRESS_VERIFY_TIMEOUT to 100 seconds for the step; a broken binary still fails.", cite(x.ids["cause"]...))
	return &fixPlan{Title: "Give Cypress time to verify its binary", Rationale: rationale,
		Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}}, nil
}

// gradleRetriesCases is the corpus case whose miss led to the Gradle
// recipe (from gradle/gradle#4629 and #7333).
var gradleRetriesCases = []string{"open-telemetry/opentelemetry-java-instrumentation"}

// gradleRetries are the HTTP settings of Gradle's dependency downloads
// that maintainers raise in gradle.properties.
var gradleRetries = []string{
	"systemProp.org.gradle.internal.http.connectionTimeout=120000",
	"systemProp.org.gradle.internal.http.socketTimeout=120000",
	"systemProp.org.gradle.internal.repository.max.retries=10",
	"systemProp.org.gradle.internal.repository.initial.backoff=500",
}

// fixGradleRetries raises Gradle's download timeouts and retries in the
// repository's gradle.properties.
func fixGradleRetries(x *fixContext) (*fixPlan, error) {
	p := "gradle.properties"
	content, err := x.repo.ReadFile(p)
	if err != nil && !isNotExist(err) {
		return nil, noFix("cannot read %s", p)
	}
	text := string(content)
	if strings.Contains(text, "org.gradle.internal.repository.max.retries") {
		return nil, noFix("%s already sets Gradle's retries", p)
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	out := text + "# Dependency downloads: longer timeouts and more retries for transient network failures.\n" + strings.Join(gradleRetries, "\n") + "\n"
	rationale := fmt.Sprintf("Gradle's download of a dependency failed on the network%s. Gradle retries a failed request only a few times with short timeouts; "+
		"the patch raises its connection and socket timeouts to 2 minutes and its retries to 10 in %s. A dependency that does not exist still fails at once.",
		cite(x.ids["cause"]...), p)
	plan := &fixPlan{Title: "Let Gradle retry dependency downloads", Rationale: rationale,
		Edits: []patch.FileEdit{{Path: p, Old: content, New: []byte(out)}}}
	if len(content) > 0 {
		// the build's settings file, which sets none of the retries: the
		// producer is where they go
		plan.Setting = &Location{File: p, Line: strings.Count(text, "\n") + 1, Symbol: "org.gradle.internal.repository.max.retries"}
	}
	return plan, nil
}

// isNotExist reports whether a harness read failed because the file is
// missing.
func isNotExist(err error) bool { return err != nil && errors.Is(err, fs.ErrNotExist) }

// gradleNode reports whether n runs Gradle.
func gradleNode(n *harness.Node) bool {
	return n != nil && (n.Tool() == "gradle" || n.Tool() == "gradlew")
}

// submoduleRetryCases is the corpus case whose miss led to the submodule
// recipe (from actions/checkout#244 and MeshInspector/MeshLib#5969).
var submoduleRetryCases = []string{"hust-open-atom-club/oh-dsh"}

// submoduleFailure matches git's report of a submodule it could not clone.
var submoduleFailure = regexp.MustCompile(`(?i)submodule|Failed to clone '`)

// checkoutSubmodules reports whether the failing step is actions/checkout
// cloning submodules and the failure names one.
func (x *facts) checkoutSubmodules() bool {
	s := x.step
	if s == nil || !strings.HasPrefix(s.Uses, "actions/checkout@") {
		return false
	}
	v, ok := s.With["submodules"]
	if !ok || v.Text == "false" || v.Text == "" {
		return false
	}
	for _, t := range x.texts {
		if submoduleFailure.MatchString(t.Line.Text) {
			return true
		}
	}
	return false
}

// fixCheckoutSubmodules moves the submodule clone out of actions/checkout,
// which tries each clone only as git does (one immediate retry), into a
// step of its own that retries the update a bounded number of times with a
// growing pause. The checkout's persisted credentials still serve the
// submodules' github.com URLs.
func fixCheckoutSubmodules(x *fixContext) (*fixPlan, error) {
	s := x.step
	if v, ok := s.With["persist-credentials"]; ok && v.Text == "false" {
		return nil, noFix("the checkout does not keep its credentials, so a later `git submodule update` could not fetch private submodules")
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	sub := s.With["submodules"]
	out, err := patch.SetKeyValue(content, sub.Line, "submodules", "false")
	if err != nil {
		return nil, noFix("%v", err)
	}
	recursive := ""
	if sub.Text == "recursive" {
		recursive = " --recursive"
	}
	step := []string{"name: Check out submodules (retried)", "shell: bash"}
	if p, ok := s.With["path"]; ok && p.Text != "" {
		step = append(step, "working-directory: "+patch.YAMLScalar(p.Text))
	}
	step = append(step, "run: |",
		"  for attempt in 1 2 3 4 5; do",
		"    git submodule sync"+recursive,
		"    if git submodule update --init --force"+recursive+"; then",
		"      exit 0",
		"    fi",
		"    echo \"::warning::git submodule update failed (attempt $attempt of 5)\"",
		"    sleep $((attempt * 5))",
		"  done",
		"  exit 1")
	if out, err = patch.InsertStepAfter(out, stepSpan(s), step); err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("actions/checkout cloned the submodules and one clone failed on the network%s; git retries a failed submodule clone once, at once, and the step gives up. "+
		"The patch turns the checkout's submodule clone off and adds a step right after it that updates the submodules up to 5 times, 5 to 20 seconds apart. The same submodules at the same commits are checked out; a submodule that does not exist still fails after the last attempt.",
		cite(x.ids["cause"]...))
	return &fixPlan{Title: "Retry the submodule clone in a step of its own", Rationale: rationale,
		Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}}, nil
}
