package impact

import (
	"fmt"
	"path"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"go.yaml.in/yaml/v3"
)

// addGoreleaser adds the release (and image) edges of goreleaser configs
// that no workflow already accounts for, and the images every config's
// dockers section builds.
func (g *graph) addGoreleaser() {
	for _, cfg := range g.files.goreleaser {
		docs := readYAML(g.fsys, cfg)
		if len(docs) == 0 {
			continue
		}
		root := docs[0]
		rules := []rule{pathRule{path: cfg, why: "configures the goreleaser release"}, goSourceRule{}}
		if !g.covered[cfg] {
			name := str(get(root, "project_name"))
			if name == "" {
				name = "release binaries (goreleaser)"
			}
			g.edges = append(g.edges, &deployEdge{Edge: Edge{Source: cfg, Kind: Release, Artifact: name}, rules: rules})
			g.assumed = append(g.assumed, fmt.Sprintf("No workflow runs goreleaser with %s; its release is counted as deployed.", cfg))
		}
		dockers := get(root, "dockers")
		if dockers == nil {
			continue
		}
		for _, d := range dockers.Content {
			df := str(get(d, "dockerfile"))
			if df == "" {
				df = "Dockerfile"
			}
			dockerRules := append([]rule{pathRule{path: df, why: "is the Dockerfile goreleaser builds the image from"}}, rules...)
			for _, extra := range strs(get(d, "extra_files")) {
				dockerRules = append(dockerRules, pathRule{path: path.Clean(extra), why: "is copied into the goreleaser image build"})
			}
			g.covered[df] = true
			via := g.goreleaserVia
			if via == "" {
				via = cfg
			}
			for _, name := range imageNames(strs(get(d, "image_templates"))) {
				g.edges = append(g.edges, &deployEdge{Edge: Edge{Source: df, Kind: OCIImage, Artifact: name, Via: via}, rules: dockerRules})
			}
		}
	}
}

// addCompose adds the images Compose files build, when the file is not test
// tooling and either sits under a deploy directory or builds from this
// repository. Test Compose files only record their builds.
func (g *graph) addCompose() {
	for _, file := range g.files.compose {
		docs := readYAML(g.fsys, file)
		if len(docs) == 0 {
			continue
		}
		dir := path.Dir(file)
		builds := false
		pairs(get(docs[0], "services"), func(_ string, svc *yaml.Node) { builds = builds || get(svc, "build") != nil })
		deployed := !testPath(file) && (deployPath(file) || builds)
		var pulled []string
		pairs(get(docs[0], "services"), func(name string, svc *yaml.Node) {
			image := str(get(svc, "image"))
			b := get(svc, "build")
			if b == nil {
				if image != "" {
					pulled = append(pulled, image)
				}
				return
			}
			ctx, df := str(b), ""
			if b.Kind == yaml.MappingNode {
				ctx, df = str(get(b, "context")), str(get(b, "dockerfile"))
			}
			ctx = cleanDir(path.Join(dir, ctx))
			if df == "" {
				df = "Dockerfile"
			}
			df = cleanDir(path.Join(ctx, df))
			if !deployed {
				g.testBuilds = append(g.testBuilds, &imageBuild{dockerfile: df, context: ctx, file: file, symbol: "service " + name, what: "compose build"})
				return
			}
			g.addComposeBuild(file, name, image, df, ctx)
		})
		switch {
		case deployed && deployPath(file) && len(pulled) > 0:
			g.edges = append(g.edges, &deployEdge{
				Edge:  Edge{Source: file, Kind: Manifest, Artifact: listClip(imageNames(pulled), 4), Via: file},
				rules: []rule{pathRule{path: file, why: "is the Compose file that runs these images"}},
			})
		case !deployed:
			g.notes = append(g.notes, fmt.Sprintf("%s is a Compose file for tests or local development, not a deployment.", file))
		}
	}
}

// addComposeBuild adds the image edge of one Compose service with build:.
func (g *graph) addComposeBuild(file, service, image, df, ctx string) {
	content, err := g.repo.ReadFile(df)
	if err != nil {
		return
	}
	g.covered[df] = true
	artifact := imageName(image)
	if artifact == "" {
		artifact = "image of compose service " + service
	}
	db := &dockerBuild{df: parseDockerfile(df, content), context: ctx, repo: g.repo, ignore: g.dockerignoreFor(df, ctx)}
	g.edges = append(g.edges, &deployEdge{
		Edge:  Edge{Source: df, Kind: OCIImage, Artifact: artifact, Via: file, Context: ctx},
		rules: []rule{dockerRule{db}, pathRule{path: file, why: "is the Compose file that builds the image"}},
	})
}

// addCharts adds every Helm chart not under test tooling; charts a workflow
// releases are already edges.
func (g *graph) addCharts() {
	for _, dir := range g.files.charts {
		if g.coveredDir(dir) {
			continue
		}
		if testPath(dir + "/Chart.yaml") {
			g.notes = append(g.notes, fmt.Sprintf("The Helm chart in %s sits under test tooling%s.", dir, g.usedBy(dir)))
			continue
		}
		name := g.chartName(dir)
		g.covered[dir] = true
		g.edges = append(g.edges, &deployEdge{
			Edge:  Edge{Source: dir, Kind: Chart, Artifact: name},
			rules: []rule{dirRule{dir: dir, why: "is part of the Helm chart " + name}},
		})
	}
}

// coveredDir reports whether dir or a parent is already covered.
func (g *graph) coveredDir(dir string) bool {
	for d := dir; d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if g.covered[d] {
			return true
		}
	}
	return g.covered["."]
}

// usedBy names, as a clause, the harness commands that mention dir.
func (g *graph) usedBy(dir string) string {
	var who []string
	for _, st := range g.steps {
		if st.tree == nil {
			continue
		}
		st.tree.Walk(func(n *harness.Node) bool {
			if n.Kind != harness.NodeCommand || n.Cmd == nil || len(who) >= 2 {
				return len(who) < 2
			}
			for _, a := range n.Cmd.Args {
				a = strings.TrimSuffix(strings.TrimPrefix(n.ExpandVars(a), "./"), "/")
				if a == dir || strings.HasSuffix(a, "/"+dir) {
					where := fmt.Sprintf("%s:%d", n.File, n.Line)
					if owner := n.Nearest(harness.NodeTask, harness.NodeTarget); owner != nil {
						where = owner.Symbol + " (" + where + ")"
					}
					who = appendOnce(who, where)
					break
				}
			}
			return true
		})
	}
	if len(who) == 0 {
		return ""
	}
	return "; the harness uses it in " + strings.Join(who, " and ")
}
