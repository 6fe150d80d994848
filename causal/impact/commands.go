package impact

import (
	"path"
	"strings"
)

// cliAction is what one shell command does for deployment.
type cliAction struct {
	// build is set for an image build from a Dockerfile.
	build *imageBuild
	// push lists images pushed (docker push, buildah push, crane push).
	push []string
	// publishes is set for a command that publishes by itself, with its kind
	// and artifact.
	publishes bool
	kind      string
	artifact  string
	what      string
	goSource  bool
	// rules say which files a deploy command ships; source names them.
	rules  []rule
	source string
}

// dockerValueFlags are docker build flags that take a value.
var dockerValueFlags = map[string]bool{
	"-t": true, "--tag": true, "-f": true, "--file": true, "--target": true, "--platform": true,
	"--build-arg": true, "--label": true, "--cache-from": true, "--cache-to": true, "--secret": true,
	"--ssh": true, "-o": true, "--output": true, "--progress": true, "--network": true,
	"--iidfile": true, "--metadata-file": true, "--builder": true, "--build-context": true,
	"--annotation": true, "--attest": true, "--shm-size": true, "--ulimit": true, "--add-host": true,
	"-m": true, "--memory": true, "--cpu-quota": true, "--allow": true, "--sbom": true, "--provenance": true,
}

// classifyCommand reads one command's arguments (wrappers removed, variables
// expanded), run from the repository directory dir, and says what it does
// for deployment, or nil.
func classifyCommand(args []string, dir string) *cliAction {
	if len(args) == 0 {
		return nil
	}
	tool := strings.ToLower(path.Base(args[0]))
	rest := args[1:]
	switch tool {
	case "docker", "podman", "nerdctl", "buildah":
		return containerCommand(tool, rest)
	case "skopeo", "crane", "regctl", "oras":
		if sub := firstWord(rest); sub == "copy" || sub == "push" || sub == "cp" {
			return &cliAction{push: []string{lastWord(rest)}}
		}
	case "ko":
		return koCommand(rest)
	case "goreleaser":
		if sub := firstWord(rest); (sub == "" || sub == "release") && !hasFlag(rest, "--snapshot") && !hasFlag(rest, "--skip=publish") {
			return &cliAction{publishes: true, kind: Release, artifact: "release binaries (goreleaser)", what: "goreleaser release", goSource: true}
		}
	case "gh":
		if len(rest) >= 2 && rest[0] == "release" && (rest[1] == "create" || rest[1] == "upload") {
			return &cliAction{publishes: true, kind: Release, artifact: "GitHub release assets", what: "gh release " + rest[1]}
		}
	case "npm", "yarn", "pnpm":
		if firstWord(rest) == "publish" && !hasFlag(rest, "--dry-run") {
			return &cliAction{publishes: true, kind: Release, artifact: "npm package", what: tool + " publish"}
		}
	case "twine", "flit", "uv", "poetry":
		if sub := firstWord(rest); sub == "upload" || sub == "publish" {
			return &cliAction{publishes: true, kind: Release, artifact: "Python package", what: tool + " " + sub}
		}
	case "cargo":
		if firstWord(rest) == "publish" && !hasFlag(rest, "--dry-run") {
			return &cliAction{publishes: true, kind: Release, artifact: "crate", what: "cargo publish"}
		}
	case "helm":
		if firstWord(rest) == "push" {
			return &cliAction{publishes: true, kind: Chart, artifact: chartName(wordAfter(rest, "push")), what: "helm push"}
		}
		return deployAction(tool, rest, dir)
	case "cr":
		if firstWord(rest) == "upload" {
			return &cliAction{publishes: true, kind: Chart, artifact: "Helm charts (chart-releaser)", what: "cr upload"}
		}
	case "mvn", "mvnw", "gradle", "gradlew":
		for _, a := range rest {
			if a == "deploy" || a == "publish" {
				return &cliAction{publishes: true, kind: Release, artifact: "Maven artifacts", what: tool + " " + a}
			}
		}
	default:
		return deployAction(tool, rest, dir)
	}
	return nil
}

// containerCommand handles docker/podman/nerdctl/buildah subcommands.
func containerCommand(tool string, rest []string) *cliAction {
	sub := firstWord(rest)
	switch {
	case sub == "push":
		return &cliAction{push: []string{wordAfter(rest, "push")}}
	case sub == "build" || sub == "bud" || (sub == "image" && wordAfter(rest, "image") == "build"):
		return buildAction(tool, rest[indexOf(rest, "build", "bud")+1:])
	case sub == "buildx":
		next := wordAfter(rest, "buildx")
		switch next {
		case "build", "b":
			return buildAction(tool+" buildx", rest[indexOf(rest, next)+1:])
		case "bake":
			if hasFlag(rest, "--push") {
				return &cliAction{publishes: true, kind: OCIImage, artifact: "images of the bake file", what: "docker buildx bake --push"}
			}
		}
	case sub == "compose" && wordAfter(rest, "compose") == "push":
		return &cliAction{publishes: true, kind: OCIImage, artifact: "images of the Compose file", what: tool + " compose push"}
	}
	return nil
}

// buildAction parses the arguments after `docker build`.
func buildAction(tool string, args []string) *cliAction {
	b := &imageBuild{what: tool + " build"}
	push := false
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "-") {
			positional = append(positional, a)
			continue
		}
		if !hasValue && dockerValueFlags[name] && i+1 < len(args) {
			i++
			value = args[i]
		}
		switch name {
		case "-t", "--tag":
			b.tags = append(b.tags, value)
		case "-f", "--file":
			b.dockerfile = value
		case "--target":
			b.target = value
		case "--push":
			push = true
		case "-o", "--output":
			push = push || strings.Contains(value, "registry") || strings.Contains(value, "push=true")
		}
	}
	b.context = "."
	if len(positional) > 0 {
		b.context = positional[0]
	}
	act := &cliAction{build: b}
	if push {
		act.push = append(act.push, b.tags...)
		act.publishes, act.kind, act.artifact = true, OCIImage, strings.Join(imageNames(b.tags), ", ")
	}
	return act
}

// koCommand handles ko build/publish/resolve/apply, which push by default.
func koCommand(rest []string) *cliAction {
	sub := firstWord(rest)
	if sub != "build" && sub != "publish" && sub != "resolve" && sub != "apply" && sub != "create" {
		return nil
	}
	if hasFlag(rest, "--local") || hasFlag(rest, "-L") || hasFlag(rest, "--push=false") {
		return nil
	}
	return &cliAction{publishes: true, kind: OCIImage, artifact: "images built by ko", what: "ko " + sub, goSource: true}
}

// firstWord returns the first argument that is not a flag.
func firstWord(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// wordAfter returns the first non-flag argument after the first occurrence
// of word.
func wordAfter(args []string, word string) string {
	i := indexOf(args, word)
	if i < 0 {
		return ""
	}
	return firstWord(args[i+1:])
}

// lastWord returns the last non-flag argument.
func lastWord(args []string) string {
	for i := len(args) - 1; i >= 0; i-- {
		if !strings.HasPrefix(args[i], "-") {
			return args[i]
		}
	}
	return ""
}

// indexOf returns the index of the first argument equal to any of words.
func indexOf(args []string, words ...string) int {
	for i, a := range args {
		for _, w := range words {
			if a == w {
				return i
			}
		}
	}
	return -1
}

// hasFlag reports whether flag (or flag=...) is among args.
func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// chartName turns a chart package path (chart-1.2.3.tgz) into a chart name.
func chartName(pkg string) string {
	base := strings.TrimSuffix(path.Base(pkg), ".tgz")
	if i := strings.LastIndexByte(base, '-'); i > 0 {
		base = base[:i]
	}
	if base == "" || base == "." {
		return "Helm chart"
	}
	return base
}

// imageName strips the tag and digest from an image reference.
func imageName(ref string) string {
	ref = strings.TrimSpace(ref)
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		ref = ref[:i]
	}
	slash := strings.LastIndexByte(ref, '/')
	if colon := strings.LastIndexByte(ref, ':'); colon > slash {
		ref = ref[:colon]
	}
	return ref
}
