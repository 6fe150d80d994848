package impact

import (
	"fmt"
	"path"
	"strings"
)

// kustomization is the part of a kustomization file that says what it
// deploys.
type kustomization struct {
	file   string
	dir    string
	refs   []string // resources, bases, components, patches (repo paths)
	images []string
}

// readKustomization reads one kustomization file.
func (g *graph) readKustomization(file string) *kustomization {
	docs := readYAML(g.fsys, file)
	k := &kustomization{file: file, dir: path.Dir(file)}
	if len(docs) == 0 {
		return k
	}
	root := docs[0]
	for _, key := range []string{"resources", "bases", "components", "crds", "patchesStrategicMerge"} {
		for _, r := range strs(get(root, key)) {
			if !strings.Contains(r, "://") && !strings.HasPrefix(r, "github.com/") {
				k.refs = append(k.refs, cleanDir(path.Join(k.dir, r)))
			}
		}
	}
	if patches := get(root, "patches"); patches != nil {
		for _, p := range patches.Content {
			if f := str(get(p, "path")); f != "" {
				k.refs = append(k.refs, cleanDir(path.Join(k.dir, f)))
			}
		}
	}
	if imgs := get(root, "images"); imgs != nil {
		for _, im := range imgs.Content {
			name := str(get(im, "newName"))
			if name == "" {
				name = str(get(im, "name"))
			}
			if name != "" {
				k.images = append(k.images, name)
			}
		}
	}
	return k
}

// addManifests adds kustomize roots and plain Kubernetes manifests under
// deploy directories; those under test tooling are noted.
func (g *graph) addManifests() {
	ks := map[string]*kustomization{}
	referenced := map[string]bool{}
	for _, f := range g.files.kustomizations {
		k := g.readKustomization(f)
		ks[k.dir] = k
		for _, r := range k.refs {
			referenced[r] = true
		}
	}
	for _, f := range g.files.kustomizations {
		k := ks[path.Dir(f)]
		switch {
		case referenced[k.dir]:
		case testPath(f):
			g.notes = append(g.notes, fmt.Sprintf("The kustomization in %s serves tests, not a deployment%s.", k.dir, g.usedBy(k.dir)))
		default:
			g.addKustomizeEdge(k, ks)
		}
	}
	g.addPlainManifests()
}

// addKustomizeEdge adds the edge of one kustomize root with everything it
// pulls in.
func (g *graph) addKustomizeEdge(k *kustomization, ks map[string]*kustomization) {
	rules := []rule{dirRule{dir: k.dir, why: "is part of the kustomization " + k.dir}}
	seen := map[string]bool{k.dir: true}
	queue := append([]string(nil), k.refs...)
	for len(queue) > 0 && len(seen) < 200 {
		r := queue[0]
		queue = queue[1:]
		if seen[r] {
			continue
		}
		seen[r] = true
		g.covered[r] = true
		if sub, ok := ks[r]; ok {
			rules = append(rules, dirRule{dir: r, why: "is pulled into the kustomization " + k.dir})
			queue = append(queue, sub.refs...)
			continue
		}
		if _, inside := within(k.dir, r); !inside {
			rules = append(rules, pathRule{path: r, why: "is a resource of the kustomization " + k.dir}, dirRule{dir: r, why: "is pulled into the kustomization " + k.dir})
		}
	}
	g.covered[k.dir] = true
	artifact := "kustomize " + k.dir
	if len(k.images) > 0 {
		artifact = listClip(k.images, 3)
	}
	g.edges = append(g.edges, &deployEdge{Edge: Edge{Source: k.file, Kind: Manifest, Artifact: artifact}, rules: rules})
}

// addPlainManifests groups Kubernetes manifests under deploy directories
// (outside charts and kustomizations) by directory.
func (g *graph) addPlainManifests() {
	type group struct {
		files   []string
		objects []string
		images  []string
	}
	groups := map[string]*group{}
	var order []string
	for _, f := range g.files.yaml {
		if !deployPath(f) || testPath(f) || g.coveredDir(path.Dir(f)) {
			continue
		}
		var objects, imgs []string
		for _, doc := range readYAML(g.fsys, f) {
			kind, name := str(get(doc, "kind")), str(get(get(doc, "metadata"), "name"))
			if kind == "" || str(get(doc, "apiVersion")) == "" {
				continue
			}
			objects = append(objects, kind+"/"+name)
			imgs = images(doc, 0, imgs)
		}
		if len(objects) == 0 {
			continue
		}
		dir := path.Dir(f)
		gr, ok := groups[dir]
		if !ok {
			gr = &group{}
			groups[dir] = gr
			order = append(order, dir)
		}
		gr.files = append(gr.files, f)
		gr.objects = append(gr.objects, objects...)
		for _, im := range imgs {
			gr.images = appendOnce(gr.images, im)
		}
	}
	for _, dir := range order {
		gr := groups[dir]
		artifact := listClip(imageNames(gr.images), 3)
		if artifact == "" {
			artifact = listClip(gr.objects, 3)
		}
		var rules []rule
		for _, f := range gr.files {
			rules = append(rules, pathRule{path: f, why: "is a Kubernetes manifest that is deployed"})
		}
		g.edges = append(g.edges, &deployEdge{Edge: Edge{Source: dir, Kind: Manifest, Artifact: artifact}, rules: rules})
	}
}
