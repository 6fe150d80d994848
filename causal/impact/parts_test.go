package impact

import (
	"slices"
	"strings"
	"testing"
)

func TestDockerignore(t *testing.T) {
	t.Parallel()
	di := parseDockerignore(".dockerignore", []byte("# comment\n/bin\ndocs/\n**/*.md\n!README.md\ntmp*\nvendor/**/testdata\n[abc].txt\n"))
	tests := []struct {
		path string
		out  bool
	}{
		{"bin/app", true},
		{"cmd/bin/app", false},
		{"docs/guide/intro.txt", true},
		{"pkg/notes.md", true},
		{"notes.md", true},
		{"README.md", false},
		{"tmpfile", true},
		{"src/tmpfile", false},
		{"vendor/x/y/testdata/a", true},
		{"a.txt", true},
		{"d.txt", false},
		{"main.go", false},
	}
	for _, tc := range tests {
		if got, why := di.ignored(tc.path); got != tc.out {
			t.Errorf("ignored(%q) = %v (%q), want %v", tc.path, got, why, tc.out)
		}
	}
	var none *dockerignore
	if got, _ := none.ignored("x"); got {
		t.Error("a nil dockerignore ignores files")
	}
}

func TestDockerfileFeedingStages(t *testing.T) {
	t.Parallel()
	src := "ARG BASE=alpine:3\n" +
		"FROM golang:1.22 AS deps\nCOPY go.mod ./\n" +
		"FROM deps AS build\nCOPY cmd/ cmd/\nRUN --mount=type=bind,source=hack,target=/hack make build\n" +
		"FROM ${BASE} AS assets\nCOPY web/ /web\n" +
		"FROM node:20 AS unused\nCOPY ui/ /ui\n" +
		"FROM ${BASE}\nCOPY --from=build /out/app /app\nRUN --mount=type=bind,from=assets,source=/web,target=/w cp -r /w /srv\n" +
		"COPY [\"conf/a b.json\", \"/etc/\"]\n"
	df := parseDockerfile("Dockerfile", []byte(src))
	if len(df.stages) != 5 {
		t.Fatalf("parsed %d stages, want 5", len(df.stages))
	}
	final := df.final("")
	var labels []string
	for _, s := range df.feeding(final) {
		labels = append(labels, s.label())
	}
	if want := []string{"deps", "build", "assets", "stage 4"}; !slices.Equal(labels, want) {
		t.Errorf("feeding stages = %q, want %q", labels, want)
	}
	if got := df.stages[4].base; got != "alpine:3" {
		t.Errorf("final base = %q, want the ARG default alpine:3", got)
	}
	if got := df.final("build").label(); got != "build" {
		t.Errorf("final(target build) = %s, want build", got)
	}
	if got := final.copies[1].srcs; !slices.Equal(got, []string{"conf/a b.json"}) {
		t.Errorf("JSON-form COPY sources = %q", got)
	}
	b := &dockerBuild{df: df, context: "."}
	for _, tc := range []struct {
		path string
		hit  bool
	}{
		{"hack/gen.sh", true},
		{"web/index.html", true},
		{"ui/app.ts", false},
		{"cmd/app/main.go", true},
		{"README", false},
		{"conf/a b.json", true},
	} {
		if hit, why := b.reach(Change{Path: tc.path}); hit != tc.hit {
			t.Errorf("reach(%s) = %v (%s), want %v", tc.path, hit, why, tc.hit)
		}
	}
}

func TestSourceMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src, rel string
		want     bool
	}{
		{".", "a/b", true},
		{"./", "a/b", true},
		{"cmd/", "cmd/app/main.go", true},
		{"/cmd", "cmd/app/main.go", true},
		{"cmd", "cmdx/main.go", false},
		{"package*.json", "package-lock.json", true},
		{"src/*.ts", "src/a.ts", true},
		{"src/*.ts", "lib/a.ts", false},
		{"${DIR}", "anything", true},
		{"a/b/c", "a/b", false},
	}
	for _, tc := range tests {
		if got := sourceMatches(tc.src, tc.rel); got != tc.want {
			t.Errorf("sourceMatches(%q, %q) = %v, want %v", tc.src, tc.rel, got, tc.want)
		}
	}
}

func TestClassifyCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd       string
		build     string // dockerfile:context of a build
		push      string
		publishes string // kind
	}{
		{cmd: "docker build -t ghcr.io/a/b:1 -f build/Dockerfile --build-arg X=1 .", build: "build/Dockerfile:."},
		{cmd: "docker buildx build --platform linux/amd64 --push -t ghcr.io/a/b:1 ctx", build: ":ctx", push: "ghcr.io/a/b:1", publishes: OCIImage},
		{cmd: "docker buildx build -o type=registry -t r/x .", build: ":.", push: "r/x", publishes: OCIImage},
		{cmd: "podman push quay.io/a/b:2", push: "quay.io/a/b:2"},
		{cmd: "ko build ./cmd/app", publishes: OCIImage},
		{cmd: "ko build --local ./cmd/app"},
		{cmd: "goreleaser release --clean", publishes: Release},
		{cmd: "goreleaser release --snapshot --clean"},
		{cmd: "gh release create v1 dist/*", publishes: Release},
		{cmd: "npm publish --access public", publishes: Release},
		{cmd: "npm publish --dry-run"},
		{cmd: "helm push chart-1.2.0.tgz oci://ghcr.io/a", publishes: Chart},
		{cmd: "twine upload dist/*", publishes: Release},
		{cmd: "docker run --rm app npm test"},
		{cmd: "kubectl apply -f deploy/", publishes: Manifest},
		{cmd: "kubectl get pods"},
		{cmd: "helm upgrade --install web ./charts/web -n prod -f deploy/values.yaml", publishes: Manifest},
		{cmd: "terraform apply -auto-approve", publishes: Manifest},
		{cmd: "terraform plan"},
	}
	for _, tc := range tests {
		act := classifyCommand(strings.Fields(tc.cmd), ".")
		var build, push, kind string
		if act != nil {
			if act.build != nil {
				build = act.build.dockerfile + ":" + act.build.context
			}
			push = strings.Join(act.push, ",")
			if act.publishes {
				kind = act.kind
			}
		}
		if build != tc.build || push != tc.push || kind != tc.publishes {
			t.Errorf("classifyCommand(%q) = build %q push %q publishes %q, want %q %q %q",
				tc.cmd, build, push, kind, tc.build, tc.push, tc.publishes)
		}
	}
}

func TestImageName(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"ghcr.io/acme/web:1.2":                        "ghcr.io/acme/web",
		"localhost:5000/app":                          "localhost:5000/app",
		"localhost:5000/app:dev":                      "localhost:5000/app",
		"ghcr.io/a/b@sha256:abc":                      "ghcr.io/a/b",
		"ghcr.io/acme/webshop:${{ github.ref_name }}": "ghcr.io/acme/webshop",
	}
	for in, want := range tests {
		if got := imageName(in); got != want {
			t.Errorf("imageName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestChangesFromDiff(t *testing.T) {
	t.Parallel()
	diff := "diff --git a/Taskfile.yaml b/Taskfile.yaml\n--- a/Taskfile.yaml\n+++ b/Taskfile.yaml\n" +
		"@@ -94,3 +94,5 @@\n ctx\n ctx\n+new one\n+new two\n ctx\n" +
		"@@ -120,2 +122,1 @@\n-gone\n ctx\n" +
		"diff --git a/hack/new.sh b/hack/new.sh\nnew file mode 100644\n--- /dev/null\n+++ b/hack/new.sh\n@@ -0,0 +1,2 @@\n+a\n+b\n" +
		"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -3,0 +4,1 @@\n+after three\n"
	got := ChangesFromDiff(diff)
	want := []Change{{Path: "Taskfile.yaml", Lines: []int{95, 96, 120}}, {Path: "hack/new.sh"}, {Path: "x", Lines: []int{3, 4}}}
	if len(got) != len(want) {
		t.Fatalf("ChangesFromDiff = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Path != want[i].Path || !slices.Equal(got[i].Lines, want[i].Lines) {
			t.Errorf("change %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
