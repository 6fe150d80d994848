package impact

import (
	"path"
	"strings"
)

// testSegments are directory names that hold tests, fixtures, examples or
// developer tooling rather than anything deployed.
var testSegments = map[string]bool{
	"test": true, "tests": true, "e2e": true, "testdata": true, "test-data": true, "fixtures": true,
	"hack": true, "examples": true, "example": true, "samples": true, "sample": true,
	".devcontainer": true, "integration": true, "__tests__": true, "spec": true, "testing": true,
}

// deploySegments are directory names under which Kubernetes manifests are
// taken to be deployed.
var deploySegments = map[string]bool{
	"deploy": true, "deployment": true, "deployments": true, "config": true, "manifests": true,
	"k8s": true, "kubernetes": true, "kustomize": true, "overlays": true, "base": true,
	"infra": true, "ops": true, "gitops": true, "argocd": true, "flux": true, "clusters": true,
	"environments": true, "production": true, "prod": true, "staging": true, "helm": true,
	"charts": true, "chart": true,
}

// segments returns the directory names of p.
func segments(p string) []string {
	dir := path.Dir(p)
	if dir == "." {
		return nil
	}
	return strings.Split(dir, "/")
}

// testPath reports whether p lies under a test-like directory or is named
// like a test-only file (Dockerfile.test, docker-compose.e2e.yml).
func testPath(p string) bool {
	for _, s := range segments(p) {
		if testSegments[strings.ToLower(s)] {
			return true
		}
	}
	words := strings.FieldsFunc(strings.ToLower(path.Base(p)), func(r rune) bool {
		return r == '.' || r == '-' || r == '_'
	})
	for _, w := range words {
		switch w {
		case "test", "tests", "e2e", "ci", "dev", "local", "override", "integration":
			return true
		}
	}
	return false
}

// deployPath reports whether p lies under a deploy-like directory.
func deployPath(p string) bool {
	for _, s := range segments(p) {
		l := strings.ToLower(s)
		if deploySegments[l] || strings.HasPrefix(l, "deploy") {
			return true
		}
	}
	return false
}

// isDockerfile reports whether a file name is a Dockerfile or Containerfile.
func isDockerfile(p string) bool {
	base := path.Base(p)
	lower := strings.ToLower(base)
	switch {
	case strings.HasSuffix(lower, ".dockerignore"):
		return false
	case lower == "dockerfile" || lower == "containerfile":
		return true
	case strings.HasPrefix(lower, "dockerfile.") || strings.HasPrefix(lower, "containerfile."):
		return true
	case strings.HasSuffix(lower, ".dockerfile") || strings.HasSuffix(lower, ".containerfile"):
		return true
	}
	return false
}

// harnessFile reports whether p is CI or developer harness rather than
// product source: Makefiles, Taskfiles, justfiles, shell scripts, workflows.
func harnessFile(p string) bool {
	base := path.Base(p)
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	switch {
	case strings.HasPrefix(p, ".github/"):
		return true
	case lower == "makefile" || lower == "gnumakefile" || ext == ".mk":
		return true
	case strings.HasPrefix(lower, "taskfile") && (ext == ".yml" || ext == ".yaml"):
		return true
	case lower == "justfile" || lower == ".justfile":
		return true
	case ext == ".sh" || ext == ".bash":
		return true
	}
	return false
}

// docFile reports whether p is documentation.
func docFile(p string) bool {
	lower := strings.ToLower(path.Base(p))
	ext := path.Ext(lower)
	return ext == ".md" || ext == ".rst" || ext == ".adoc" || strings.HasPrefix(lower, "license") ||
		strings.HasPrefix(p, "docs/")
}

// productSource reports whether p is product source: not harness, not a
// test, not documentation.
func productSource(p string) bool {
	if harnessFile(p) || docFile(p) || testPath(p) {
		return false
	}
	lower := strings.ToLower(path.Base(p))
	for _, suffix := range []string{"_test.go", ".test.ts", ".test.js", ".spec.ts", ".spec.js", ".test.tsx", ".spec.tsx"} {
		if strings.HasSuffix(lower, suffix) {
			return false
		}
	}
	return !strings.HasPrefix(lower, "test_")
}

// sourceLanguages names the language of common source extensions.
var sourceLanguages = map[string]string{
	".go": "Go", ".ts": "TypeScript", ".tsx": "TypeScript", ".js": "JavaScript", ".jsx": "JavaScript",
	".mjs": "JavaScript", ".py": "Python", ".rb": "Ruby", ".java": "Java", ".kt": "Kotlin", ".rs": "Rust",
	".c": "C", ".cc": "C++", ".cpp": "C++", ".h": "C", ".cs": "C#", ".php": "PHP", ".swift": "Swift",
	".scala": "Scala", ".ex": "Elixir", ".exs": "Elixir", ".html": "HTML", ".css": "CSS", ".scss": "CSS",
	".vue": "Vue", ".svelte": "Svelte",
}

// role says in a phrase what a changed file is.
func role(p string) string {
	base := path.Base(p)
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	switch {
	case strings.HasPrefix(p, ".github/workflows/"):
		return "a GitHub Actions workflow"
	case strings.HasPrefix(p, ".github/"):
		return "GitHub configuration"
	case strings.HasPrefix(lower, "taskfile") && (ext == ".yml" || ext == ".yaml"):
		return "the go-task harness definition (the tasks developers and CI run)"
	case lower == "makefile" || lower == "gnumakefile" || ext == ".mk":
		return "a Makefile of developer and CI entry points"
	case lower == "justfile":
		return "a justfile of developer and CI recipes"
	case ext == ".sh" || ext == ".bash":
		return "a shell script"
	case isDockerfile(p):
		return "a Dockerfile"
	case lower == ".dockerignore" || strings.HasSuffix(lower, ".dockerignore"):
		return "a .dockerignore"
	case lower == "chart.yaml" || lower == "values.yaml":
		return "Helm chart configuration"
	case strings.HasPrefix(lower, "kustomization."):
		return "a kustomization"
	case strings.Contains(lower, "goreleaser"):
		return "the goreleaser release configuration"
	case strings.Contains(lower, "compose") && (ext == ".yml" || ext == ".yaml"):
		return "a Compose file"
	case ext == ".yml" || ext == ".yaml":
		return "a YAML file"
	case docFile(p):
		return "documentation"
	}
	if lang, ok := sourceLanguages[ext]; ok {
		return lang + " source"
	}
	switch ext {
	case ".conf", ".ini", ".toml", ".json", ".cfg", ".properties", ".env":
		return "a configuration file"
	}
	return "a repository file"
}
