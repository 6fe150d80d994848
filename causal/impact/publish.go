package impact

import (
	"path"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"go.yaml.in/yaml/v3"
)

// imageBuild is an image build found in a workflow job or harness command.
type imageBuild struct {
	dockerfile string
	context    string
	target     string
	tags       []string
	what       string
	// file and line locate the build (a workflow step or a harness command);
	// symbol names the task or target it is in.
	file   string
	line   int
	symbol string
	wf     *harness.Workflow
	job    *harness.Job
}

// publication is one way a workflow job publishes an artifact.
type publication struct {
	kind      string
	artifacts []string
	wf        *harness.Workflow
	job       *harness.Job
	file      string
	line      int
	what      string
	// build is the Dockerfile build behind an oci-image publication.
	build    *imageBuild
	goSource bool
	// chartsDir is the charts directory chart-releaser publishes.
	chartsDir string
	// rules and source say which files a deploy ships.
	rules  []rule
	source string
}

// stepTree is a workflow step with its resolved execution tree.
type stepTree struct {
	wf   *harness.Workflow
	job  *harness.Job
	step *harness.Step
	tree *harness.Node
}

// jobScan collects what one job builds, pushes and publishes.
type jobScan struct {
	wf     *harness.Workflow
	job    *harness.Job
	env    map[string]string
	meta   map[string][]string // metadata-action images by step id
	builds []*imageBuild
	pushes []string
	pushed bool // a push whose image is unknown or a push action
	pubs   []*publication
	trees  []stepTree
	// testCluster is set when the job creates a throwaway cluster, so its
	// deploys are tests.
	testCluster bool
}

// scanJob reads the steps of one job.
func scanJob(repo *harness.Repo, wf *harness.Workflow, job *harness.Job, repository string) *jobScan {
	js := &jobScan{wf: wf, job: job, env: map[string]string{}, meta: map[string][]string{}}
	for k, v := range wf.Env {
		js.env[k] = v.Text
	}
	for k, v := range job.Env {
		js.env[k] = v.Text
	}
	for _, step := range job.Steps {
		st := stepTree{wf: wf, job: job, step: step}
		if step.Run != "" {
			st.tree = repo.ResolveStep(wf, job, step)
			js.commands(st.tree, repository)
		}
		if step.Uses != "" {
			js.action(step, repository)
		}
		js.trees = append(js.trees, st)
	}
	js.pairBuilds()
	js.dropTestDeploys(repo)
	return js
}

// dropTestDeploys removes deploys that target tests: the job creates a
// throwaway cluster, the deployed files sit under test tooling, the job or
// workflow is named as a test, or the workflow runs only for pull requests.
func (js *jobScan) dropTestDeploys(repo *harness.Repo) {
	testJob := js.testCluster || testName(path.Base(js.wf.Path)) || testName(js.wf.Name) || testName(js.job.ID) ||
		testName(js.job.Name) || pullRequestOnly(repo, js.wf.Path)
	kept := js.pubs[:0]
	for _, p := range js.pubs {
		if p.kind == Manifest && (testJob || (p.source != "" && p.source != "." && testPath(p.source+"/x"))) {
			continue
		}
		kept = append(kept, p)
	}
	js.pubs = kept
}

// testName reports whether a workflow or job name says it runs tests.
func testName(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for _, w := range words {
		switch w {
		case "test", "tests", "testing", "e2e", "integration", "smoke", "kind", "conformance":
			return true
		}
	}
	return false
}

// pullRequestOnly reports whether a workflow runs only for pull requests
// (or merge queues), where nothing is deployed to production.
func pullRequestOnly(repo *harness.Repo, wfPath string) bool {
	data, err := repo.ReadFile(wfPath)
	if err != nil {
		return false
	}
	var doc struct {
		On  yaml.Node `yaml:"on"`
		Alt yaml.Node `yaml:"true"` // YAML 1.1 reads a bare on: key as true
	}
	if harness.CheckYAML(wfPath, data) != nil || yaml.Unmarshal(data, &doc) != nil {
		return false
	}
	on := &doc.On
	if on.Kind == 0 {
		on = &doc.Alt
	}
	var events []string
	switch on.Kind {
	case yaml.ScalarNode:
		events = []string{on.Value}
	case yaml.SequenceNode:
		events = strs(on)
	case yaml.MappingNode:
		pairs(on, func(k string, _ *yaml.Node) { events = append(events, k) })
	}
	if len(events) == 0 {
		return false
	}
	for _, e := range events {
		if e != "pull_request" && e != "pull_request_target" && e != "merge_group" {
			return false
		}
	}
	return true
}

// releaseActions are actions that publish a release, with what they publish.
var releaseActions = map[string]string{
	"softprops/action-gh-release":                "GitHub release assets",
	"ncipollo/release-action":                    "GitHub release assets",
	"actions/create-release":                     "GitHub release assets",
	"actions/upload-release-asset":               "GitHub release assets",
	"svenstaro/upload-release-action":            "GitHub release assets",
	"marvinpinto/action-automatic-releases":      "GitHub release assets",
	"pypa/gh-action-pypi-publish":                "Python package",
	"js-devtools/npm-publish":                    "npm package",
	"r0adkll/upload-google-play":                 "Android app on Google Play",
	"maierj/fastlane-action":                     "mobile app release",
	"apple-actions/upload-testflight-build":      "mobile app release",
	"wzieba/firebase-distribution-github-action": "mobile app release",
}

// action reads one `uses:` step.
func (js *jobScan) action(step *harness.Step, repository string) {
	name, _, _ := strings.Cut(strings.ToLower(step.Uses), "@")
	with := func(k string) string { return js.expand(step.With[k].Text, repository) }
	pub := func(kind, artifact, what string) *publication {
		p := &publication{kind: kind, artifacts: []string{artifact}, wf: js.wf, job: js.job,
			file: js.wf.Path, line: step.Line, what: what}
		js.pubs = append(js.pubs, p)
		return p
	}
	if testClusterActions[name] {
		js.testCluster = true
	}
	if artifact, ok := deployActions[name]; ok {
		pub(Manifest, artifact, name)
		return
	}
	if artifact, ok := releaseActions[name]; ok {
		pub(Release, artifact, name)
		return
	}
	switch name {
	case "docker/metadata-action", "crazy-max/ghaction-docker-meta":
		if step.ID != "" {
			js.meta[step.ID] = listValues(with("images"))
		}
	case "docker/build-push-action":
		ctx := cleanDir(with("context"))
		b := &imageBuild{context: ctx, dockerfile: with("file"), target: with("target"), wf: js.wf, job: js.job,
			tags: js.tags(step.With["tags"].Text, repository), what: "docker/build-push-action", file: js.wf.Path, line: step.Line}
		if push := strings.TrimSpace(with("push")); push != "" && push != "false" {
			p := pub(OCIImage, "", "docker/build-push-action with push: "+push)
			p.build, p.artifacts = b, imageNames(b.tags)
		} else {
			js.builds = append(js.builds, b)
		}
	case "redhat-actions/buildah-build":
		js.builds = append(js.builds, &imageBuild{context: cleanDir(with("context")), dockerfile: firstListValue(with("containerfiles")),
			tags: js.tags(with("image"), repository), what: "buildah-build", file: js.wf.Path, line: step.Line, wf: js.wf, job: js.job})
	case "redhat-actions/push-to-registry":
		js.pushed = true
		js.pushes = append(js.pushes, with("image"))
	case "docker/bake-action":
		if push := with("push"); push != "" && push != "false" {
			pub(OCIImage, "images of the bake file", "docker/bake-action with push")
		}
	case "goreleaser/goreleaser-action":
		if args := with("args"); !strings.Contains(args, "--snapshot") && !strings.Contains(args, "check") && !strings.HasPrefix(strings.TrimSpace(args), "build") {
			pub(Release, "release binaries (goreleaser)", "goreleaser-action").goSource = true
		}
	case "helm/chart-releaser-action":
		dir := with("charts_dir")
		if dir == "" {
			dir = "charts"
		}
		pub(Chart, "Helm charts under "+dir, name).chartsDir = cleanDir(dir)
	}
}

// commands reads the commands of a run: step's execution tree.
func (js *jobScan) commands(tree *harness.Node, repository string) {
	tree.Walk(func(n *harness.Node) bool {
		if n.Kind != harness.NodeCommand || n.Cmd == nil {
			return true
		}
		args := n.EffectiveArgs()
		for i := range args {
			args[i] = js.expand(n.ExpandVars(args[i]), repository)
		}
		if len(args) > 0 && testClusterCommand(path.Base(args[0]), args[1:]) {
			js.testCluster = true
		}
		act := classifyCommand(args, cleanDir(n.Dir))
		if act == nil {
			return true
		}
		if act.build != nil {
			act.build.file, act.build.line, act.build.wf, act.build.job = n.File, n.Line, js.wf, js.job
			if owner := n.Nearest(harness.NodeTask, harness.NodeTarget); owner != nil {
				act.build.symbol = owner.Symbol
			}
			if act.build.dockerfile != "" {
				act.build.dockerfile = cleanDir(path.Join(n.Dir, act.build.dockerfile))
			}
			if act.build.context != "." {
				act.build.context = cleanDir(path.Join(n.Dir, act.build.context))
			} else {
				act.build.context = cleanDir(n.Dir)
			}
			js.builds = append(js.builds, act.build)
		}
		js.pushes = append(js.pushes, act.push...)
		if act.publishes && act.build == nil {
			js.pubs = append(js.pubs, &publication{kind: act.kind, artifacts: []string{act.artifact}, wf: js.wf, job: js.job,
				file: n.File, line: n.Line, what: act.what, goSource: act.goSource, rules: act.rules, source: act.source})
		}
		return true
	})
}

// pairBuilds turns the job's builds into publications when the job pushes
// their image (or pushes something it cannot name).
func (js *jobScan) pairBuilds() {
	pushed := map[string]bool{}
	for _, p := range js.pushes {
		pushed[imageName(p)] = true
	}
	var unpushed []*imageBuild
	for _, b := range js.builds {
		hit := js.pushed && len(b.tags) == 0
		for _, t := range b.tags {
			hit = hit || pushed[imageName(t)]
		}
		if !hit && len(js.pushes) > 0 && (len(b.tags) == 0 || strings.Contains(strings.Join(b.tags, " "), "$")) {
			hit = true
		}
		if !hit {
			unpushed = append(unpushed, b)
			continue
		}
		js.pubs = append(js.pubs, &publication{kind: OCIImage, artifacts: imageNames(b.tags), wf: js.wf, job: js.job,
			file: b.file, line: b.line, what: b.what + " and push", build: b})
	}
	js.builds = unpushed
}

// tags reads a tags value: a list, or the tags output of a metadata-action
// step (which stands for its images).
func (js *jobScan) tags(raw, repository string) []string {
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, "${{") && strings.Contains(raw, "steps.") && strings.Contains(raw, ".outputs.") {
		id := between(raw, "steps.", ".outputs")
		if images, ok := js.meta[id]; ok {
			return images
		}
	}
	return listValues(js.expand(raw, repository))
}

// expand substitutes the GitHub expressions whose value is known here: env
// values, the repository and its owner.
func (js *jobScan) expand(s, repository string) string {
	if !strings.Contains(s, "${{") {
		return s
	}
	owner, _, _ := strings.Cut(repository, "/")
	known := map[string]string{}
	if repository != "" {
		known["github.repository"] = strings.ToLower(repository)
		known["github.repository_owner"] = strings.ToLower(owner)
		known["github.event.repository.name"] = path.Base(repository)
	}
	for k, v := range js.env {
		known["env."+k] = v
	}
	out := s
	for guard := 0; guard < 20 && strings.Contains(out, "${{"); guard++ {
		i := strings.Index(out, "${{")
		j := strings.Index(out[i:], "}}")
		if j < 0 {
			break
		}
		expr := strings.TrimSpace(out[i+3 : i+j])
		v, ok := known[expr]
		if !ok {
			break
		}
		out = out[:i] + v + out[i+j+2:]
	}
	return out
}

// listValues splits a newline- or comma-separated list; metadata-action
// entries of the form name=…,enable=… give their name.
func listValues(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if v, ok := strings.CutPrefix(line, "name="); ok {
			name, _, _ := strings.Cut(v, ",")
			out = append(out, name)
			continue
		}
		for _, part := range strings.Split(line, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// firstListValue returns the first entry of a list value.
func firstListValue(s string) string {
	if v := listValues(s); len(v) > 0 {
		return v[0]
	}
	return ""
}

// imageNames returns the distinct image names of a list of references.
func imageNames(refs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range refs {
		n := imageName(r)
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// between returns the text between the first a and the following b.
func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	rest := s[i+len(a):]
	j := strings.Index(rest, b)
	if j < 0 {
		return ""
	}
	return rest[:j]
}

// cleanDir cleans a repository-relative directory ("" and "./" are ".").
func cleanDir(d string) string {
	d = strings.TrimSpace(d)
	if d == "" || strings.Contains(d, "${{") {
		return "."
	}
	if d = strings.TrimPrefix(path.Clean("/"+d), "/"); d == "" {
		return "."
	}
	return d
}
