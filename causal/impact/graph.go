package impact

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// graph is what a repository deploys and how its files get there.
type graph struct {
	fsys       fs.FS
	repo       *harness.Repo
	repository string
	files      *repoFiles
	edges      []*deployEdge
	notes      []string
	assumed    []string
	steps      []stepTree
	// covered holds the Dockerfiles and chart directories a publishing
	// workflow already accounts for.
	covered map[string]bool
	// testBuilds are image builds that nothing pushes.
	testBuilds []*imageBuild
	// goreleaserVia is the workflow that runs goreleaser, if any.
	goreleaserVia string
}

// buildGraph scans the repository for deploy edges.
func buildGraph(fsys fs.FS, repository string) *graph {
	g := &graph{fsys: fsys, repo: harness.NewRepo(fsys), repository: repository, covered: map[string]bool{}}
	g.files = scanFiles(fsys)
	g.scanWorkflows()
	g.addGoreleaser()
	g.addCompose()
	g.addDockerfiles()
	g.addCharts()
	g.addManifests()
	return g
}

// scanWorkflows reads every workflow, turns its publications into edges and
// keeps its step trees.
func (g *graph) scanWorkflows() {
	var scans []*jobScan
	for _, wf := range g.repo.Workflows() {
		for _, job := range wf.Jobs {
			js := scanJob(g.repo, wf, job, g.repository)
			scans = append(scans, js)
			g.steps = append(g.steps, js.trees...)
			g.testBuilds = append(g.testBuilds, js.builds...)
		}
	}
	callers := reusableCallers(g.repo.Workflows())
	for _, js := range scans {
		for _, p := range js.pubs {
			g.addPublication(p, js, callers[js.wf.Path])
		}
	}
}

// reusableCallers maps a reusable workflow's path to the jobs that call it.
func reusableCallers(wfs []*harness.Workflow) map[string][]jobRule {
	out := map[string][]jobRule{}
	for _, wf := range wfs {
		for _, job := range wf.Jobs {
			if !strings.HasPrefix(job.Uses, "./") {
				continue
			}
			callee := strings.TrimPrefix(path.Clean(job.Uses), "./")
			callee, _, _ = strings.Cut(callee, "@")
			out[callee] = append(out[callee], workflowRule(wf, map[string]bool{job.ID: true}))
		}
	}
	return out
}

// workflowRule builds the jobRule of a workflow for its publishing jobs.
func workflowRule(wf *harness.Workflow, publishing map[string]bool) jobRule {
	r := jobRule{file: wf.Path, name: wf.Path, publish: publishing}
	for i, job := range wf.Jobs {
		to := 1 << 30
		if i+1 < len(wf.Jobs) {
			to = wf.Jobs[i+1].Line - 1
		}
		r.spans = append(r.spans, jobSpan{id: job.ID, from: job.Line, to: to})
	}
	return r
}

// addPublication turns one publication into deploy edges.
func (g *graph) addPublication(p *publication, js *jobScan, callers []jobRule) {
	rules := []rule{workflowRule(p.wf, map[string]bool{p.job.ID: true})}
	for _, c := range callers {
		rules = append(rules, c)
	}
	var trees []*harness.Node
	for _, st := range js.trees {
		trees = append(trees, st.tree)
	}
	rules = append(rules, treeRule{repo: g.repo, trees: trees, job: p.job.ID, wf: p.wf.Path})
	base := Edge{Kind: p.kind, Via: p.wf.Path, Job: p.job.ID, Line: p.line}
	switch {
	case p.build != nil:
		g.addImageEdges(p, base, rules)
		return
	case p.chartsDir != "":
		g.addReleasedCharts(p, base, rules)
		return
	case p.goSource:
		base.Source = "Go source"
		g.goreleaserVia = p.wf.Path
		rules = append(rules, goSourceRule{})
		for _, cfg := range g.files.goreleaser {
			rules = append(rules, pathRule{path: cfg, why: "configures the goreleaser release"})
			g.covered[cfg] = true
			if docs := readYAML(g.fsys, cfg); len(docs) > 0 && str(get(docs[0], "project_name")) != "" && strings.Contains(p.what, "goreleaser") {
				p.artifacts = []string{str(get(docs[0], "project_name"))}
			}
		}
	case p.kind == Manifest:
		base.Source = p.source
		if base.Source == "" || base.Source == "." {
			base.Source = p.wf.Path
		}
		rules = append(append([]rule(nil), p.rules...), rules...)
	default:
		base.Source = "repository source"
		rules = append(rules, sourceRule{})
	}
	for _, a := range p.artifacts {
		e := base
		e.Artifact = a
		g.edges = append(g.edges, &deployEdge{Edge: e, rules: rules})
	}
}

// addReleasedCharts adds one edge per chart under the directory a
// chart-releaser publication releases.
func (g *graph) addReleasedCharts(p *publication, base Edge, rules []rule) {
	g.covered[p.chartsDir] = true
	found := false
	for _, dir := range g.files.charts {
		if _, ok := within(p.chartsDir, dir); !ok {
			continue
		}
		found = true
		e := base
		e.Source, e.Artifact = dir, g.chartName(dir)
		chartRules := append([]rule{dirRule{dir: dir, why: "is part of the Helm chart " + e.Artifact + ", which " + p.wf.Path + " releases"}}, rules...)
		g.edges = append(g.edges, &deployEdge{Edge: e, rules: chartRules})
	}
	if !found {
		base.Source, base.Artifact = p.chartsDir, "Helm charts under "+p.chartsDir
		rules = append([]rule{dirRule{dir: p.chartsDir, why: "is under the charts directory " + p.wf.Path + " releases"}}, rules...)
		g.edges = append(g.edges, &deployEdge{Edge: base, rules: rules})
	}
}

// chartName reads a chart's name from its Chart.yaml, or returns the
// directory.
func (g *graph) chartName(dir string) string {
	if docs := readYAML(g.fsys, path.Join(dir, "Chart.yaml")); len(docs) > 0 && str(get(docs[0], "name")) != "" {
		return str(get(docs[0], "name"))
	}
	return dir
}

// addImageEdges adds one oci-image edge per image name of a Dockerfile build.
func (g *graph) addImageEdges(p *publication, base Edge, rules []rule) {
	b := p.build
	df := b.dockerfile
	if df == "" {
		df = path.Join(b.context, "Dockerfile")
	}
	df = cleanDir(df)
	g.covered[df] = true
	base.Source, base.Context = df, b.context
	if content, err := g.repo.ReadFile(df); err == nil {
		db := &dockerBuild{df: parseDockerfile(df, content), context: b.context, target: b.target, repo: g.repo,
			ignore: g.dockerignoreFor(df, b.context)}
		rules = append([]rule{dockerRule{db}}, rules...)
	} else {
		rules = append([]rule{pathRule{path: df, why: "is the Dockerfile the image is built from"}}, rules...)
	}
	names := p.artifacts
	if len(names) == 0 {
		names = []string{"image built from " + df}
	}
	for _, name := range names {
		e := base
		e.Artifact = name
		g.edges = append(g.edges, &deployEdge{Edge: e, rules: rules})
	}
}

// dockerignoreFor returns the ignore file of a build: <Dockerfile>.dockerignore
// next to the Dockerfile when present, else .dockerignore at the context root.
func (g *graph) dockerignoreFor(dockerfile, context string) *dockerignore {
	for _, p := range []string{dockerfile + ".dockerignore", path.Join(context, ".dockerignore")} {
		p = cleanDir(p)
		if content, err := g.repo.ReadFile(p); err == nil {
			return parseDockerignore(p, content)
		}
	}
	return nil
}

// addDockerfiles accounts for Dockerfiles no publishing workflow builds:
// those built only by tests or under test tooling are noted; the rest count
// as deployed, since something outside the repository may build them.
func (g *graph) addDockerfiles() {
	tested := map[string][]string{}
	for _, b := range g.testBuilds {
		df := b.dockerfile
		if df == "" {
			df = path.Join(b.context, "Dockerfile")
		}
		df = cleanDir(df)
		tested[df] = appendOnce(tested[df], describeBuild(b))
	}
	for _, df := range g.files.dockerfiles {
		switch {
		case len(tested[df]) > 0 && g.covered[df]:
			g.notes = append(g.notes, fmt.Sprintf("A test build of %s, without a push, runs in %s; that build is not deployed.", df, strings.Join(tested[df], "; ")))
		case len(tested[df]) > 0:
			g.notes = append(g.notes, fmt.Sprintf("%s is built only for tests (%s); nothing pushes that image.", df, strings.Join(tested[df], "; ")))
		case g.covered[df]:
		case testPath(df):
			g.notes = append(g.notes, fmt.Sprintf("%s sits under test or developer tooling and no workflow builds it.", df))
		default:
			g.addUnpublishedImage(df, path.Dir(df))
		}
	}
}

// addUnpublishedImage counts a Dockerfile nobody in the repository pushes as
// deployed, with its directory as the build context.
func (g *graph) addUnpublishedImage(df, context string) {
	content, err := g.repo.ReadFile(df)
	if err != nil {
		return
	}
	g.covered[df] = true
	db := &dockerBuild{df: parseDockerfile(df, content), context: cleanDir(context), repo: g.repo,
		ignore: g.dockerignoreFor(df, cleanDir(context))}
	g.edges = append(g.edges, &deployEdge{
		Edge:  Edge{Source: df, Kind: OCIImage, Artifact: "image built from " + df, Context: cleanDir(context)},
		rules: []rule{dockerRule{db}},
	})
	g.assumed = append(g.assumed, fmt.Sprintf("No workflow in the repository pushes the image of %s; it may be built by an outside service, so it is counted as deployed.", df))
}

// describeBuild says where an unpushed build happens.
func describeBuild(b *imageBuild) string {
	if b.wf != nil && b.file == b.wf.Path && b.job != nil {
		return fmt.Sprintf("job %s of %s (line %d)", b.job.ID, b.wf.Path, b.line)
	}
	where := b.file
	if b.line > 0 {
		where = fmt.Sprintf("%s:%d", b.file, b.line)
	}
	if b.symbol != "" {
		where = fmt.Sprintf("%s (%s)", b.symbol, where)
	}
	if b.wf != nil && b.file != b.wf.Path {
		name := b.wf.Name
		if name == "" {
			name = b.wf.Path
		}
		where += " in the " + name + " workflow"
	}
	return where
}
