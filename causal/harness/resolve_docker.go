package harness

import (
	"path"
	"strconv"
	"strings"
)

// An image build runs its Dockerfile's RUN instructions: what fetches,
// installs or compiles is there, not in the command that starts the build.
// The resolver models `docker build` (and buildx, podman, buildah),
// `docker compose build|up|run|create` and the docker/build-push-action step
// as a Dockerfile node whose stages hold the RUN instructions a build of
// the target runs, each with its commands as children. `docker run` follows
// a script the container runs from a mounted repository directory.

// containerCall resolves the container tools' subcommands that run harness
// files: image builds, Compose and docker run.
func (rs *resolver) containerCall(parent *Node, tool string, args []string, dir string, depth int) {
	if tool == "docker-compose" {
		rs.composeCall(parent, args, dir, depth)
		return
	}
	args = skipGlobalFlags(args)
	if len(args) == 0 {
		return
	}
	sub, rest := args[0], args[1:]
	switch {
	case sub == "build" || sub == "bud" && tool == "buildah":
		rs.buildCall(parent, rest, dir, depth)
	case sub == "buildx" || sub == "image" || sub == "builder":
		for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
			if rest[0] == "--builder" && len(rest) > 1 {
				rest = rest[1:]
			}
			rest = rest[1:]
		}
		if len(rest) > 0 && rest[0] == "build" {
			rs.buildCall(parent, rest[1:], dir, depth)
		}
	case sub == "compose" && tool != "buildah":
		rs.composeCall(parent, rest, dir, depth)
	case sub == "run" && tool != "buildah":
		rs.runCall(parent, rest, dir, depth)
	}
}

// skipGlobalFlags drops the container CLI's flags before its subcommand.
func skipGlobalFlags(args []string) []string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "--context", "-c", "-H", "--host", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey":
			if len(args) > 1 {
				args = args[1:]
			}
		}
		args = args[1:]
	}
	return args
}

// buildBoolFlags are the image build flags that take no value; every other
// flag written without "=" takes the next word.
var buildBoolFlags = map[string]bool{
	"--push": true, "--load": true, "--pull": true, "--no-cache": true, "-q": true, "--quiet": true, "--rm": true,
	"--force-rm": true, "--squash": true, "--compress": true, "--disable-content-trust": true, "--check": true,
	"--layers": true, "--no-hosts": true, "--omit-history": true, "--sbom": true, "--provenance": true,
}

// buildCall resolves `docker build [flags] CONTEXT`: the Dockerfile (-f,
// else CONTEXT/Dockerfile) and the --target stage.
func (rs *resolver) buildCall(parent *Node, args []string, dir string, depth int) {
	file, target, context := "", "", ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || a == "--file":
			if i+1 < len(args) {
				file, i = args[i+1], i+1
			}
		case strings.HasPrefix(a, "--file="):
			file = strings.TrimPrefix(a, "--file=")
		case a == "--target":
			if i+1 < len(args) {
				target, i = args[i+1], i+1
			}
		case strings.HasPrefix(a, "--target="):
			target = strings.TrimPrefix(a, "--target=")
		case strings.HasPrefix(a, "-"):
			if !strings.Contains(a, "=") && !buildBoolFlags[a] && i+1 < len(args) {
				i++
			}
		default:
			context = a
		}
	}
	context = parent.ExpandVars(context)
	if context == "" || context == "-" || strings.Contains(context, "://") || strings.HasPrefix(context, "git@") {
		return
	}
	ctx := path.Join(dir, context)
	df := path.Join(ctx, "Dockerfile")
	if file = parent.ExpandVars(file); file != "" && file != "-" {
		df = path.Join(dir, file)
	}
	rs.dockerBuild(parent, df, ctx, parent.ExpandVars(target), depth)
}

// buildAction resolves a docker/build-push-action step: its context:, file:
// and target: inputs.
func (rs *resolver) buildAction(parent *Node, with map[string]string, dir string, depth int) {
	context := strings.TrimSpace(with["context"])
	if context == "" || strings.HasPrefix(context, "{{") {
		context = "." // the action's Git context is the repository
	}
	file := strings.TrimSpace(with["file"])
	if strings.Contains(context, "${{") || strings.Contains(file, "${{") || strings.Contains(context, "://") {
		parent.Note = "the build's context or Dockerfile is an expression the model cannot evaluate"
		return
	}
	ctx := rs.inRepo(path.Join(dir, context))
	df := path.Join(ctx, "Dockerfile")
	if file != "" {
		df = rs.inRepo(path.Join(dir, file))
	}
	rs.dockerBuild(parent, df, ctx, strings.TrimSpace(with["target"]), depth)
}

// dockerBuild adds the Dockerfile at file, built with context ctx, and the
// stages a build of target runs.
func (rs *resolver) dockerBuild(parent *Node, file, ctx, target string, depth int) {
	file = cleanPath(file)
	if strings.ContainsAny(file, "$`{}") || depth > maxResolveDepth || rs.full() {
		return
	}
	if file == "" || !rs.repo.Exists(file) {
		parent.Note = "the Dockerfile " + file + " is not in the repository"
		return
	}
	key := "docker:" + file + "#" + target
	if rs.active[key] {
		parent.Note = "recursion cut at " + file
		return
	}
	rs.active[key] = true
	defer delete(rs.active, key)
	df, err := rs.repo.Dockerfile(file)
	if err != nil {
		parent.Note = err.Error()
		return
	}
	dn := rs.add(parent, &Node{Kind: NodeDockerfile, File: file, Line: 1, Symbol: file, Dockerfile: df, Dir: ctx})
	if n := len(df.Stages); n > 0 {
		dn.EndLine = df.Stages[n-1].EndLine
	}
	for _, st := range df.BuildOrder(target) {
		if rs.full() {
			return
		}
		rs.stage(dn, df, st, ctx, depth+1)
	}
}

// stageName names a stage as BuildKit does: its AS name or "stage-N".
func stageName(st *DockerStage) string {
	if st.Name != "" {
		return st.Name
	}
	return "stage-" + strconv.Itoa(st.Index)
}

// stage adds a build stage and its RUN instructions. The stage's WORKDIR and
// the directories its COPY instructions bring in from the context are
// followed, so that a RUN that runs a copied script resolves it.
func (rs *resolver) stage(parent *Node, df *Dockerfile, st *DockerStage, ctx string, depth int) {
	sn := rs.add(parent, &Node{Kind: NodeStage, File: df.Path, Line: st.Line, EndLine: st.EndLine,
		Symbol: stageName(st), Dockerfile: df, Dir: ctx})
	workdir := "/"
	for i := range st.Instructions {
		in := &st.Instructions[i]
		switch in.Cmd {
		case "WORKDIR":
			workdir = containerJoin(workdir, strings.Trim(in.Args, `"'`))
		case "COPY", "ADD":
			if m, ok := copyMount(in.Args, workdir, ctx); ok {
				sn.Mounts = append(sn.Mounts, m)
			}
		case "RUN":
			rs.instruction(sn, df, st, in, repoDirIn(workdir, sn.Mounts), depth)
		}
	}
	parent.Mounts = append(parent.Mounts, sn.Mounts...)
}

// instruction adds a RUN instruction and its commands.
func (rs *resolver) instruction(parent *Node, df *Dockerfile, st *DockerStage, in *DockerInstruction, dir string, depth int) {
	n := rs.add(parent, &Node{Kind: NodeInstruction, File: df.Path, Line: in.Line, EndLine: in.EndLine,
		Symbol: parent.Symbol, Text: "RUN " + in.Args, Dockerfile: df, Instruction: in, Dir: dir})
	if !st.ShellIsPOSIX(in.Line) {
		n.Note = "the instruction runs in a shell the model does not parse"
		return
	}
	src, line, ok := df.RunScript(*in)
	if !ok {
		return
	}
	sh := rs.parse(df.Path, line, src, false)
	n.Script = sh
	if sh.Err != nil {
		n.Note = sh.Err.Error()
		return
	}
	rs.commands(n, sh, sh.Commands, dir, depth+1)
}

// containerJoin joins a container path onto a working directory.
func containerJoin(wd, p string) string {
	if p == "" || strings.ContainsAny(p, "$") {
		return wd
	}
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	return path.Join(wd, p)
}

// copyMount reads `COPY [--flags] SRC... DST` as a mount of a context
// directory: one literal source (no glob, not from a stage or a URL) copied
// to a directory.
func copyMount(args, workdir, ctx string) (Mount, bool) {
	flags, rest := instructionFlags(args)
	for _, f := range flags {
		if strings.HasPrefix(f, "--from=") {
			return Mount{}, false
		}
	}
	words := strings.Fields(rest)
	if len(words) != 2 || strings.HasPrefix(rest, "[") || strings.ContainsAny(rest, "*?[$") || strings.Contains(words[0], "://") {
		return Mount{}, false
	}
	src, dst := words[0], words[1]
	return Mount{Container: containerJoin(workdir, dst), Repo: cleanDir(path.Join(ctx, src))}, true
}

// cleanDir is cleanPath for a directory: "." for the repository root, ""
// for a path outside it.
func cleanDir(p string) string {
	if path.Clean(p) == "." {
		return "."
	}
	return cleanPath(p)
}

// repoDirIn maps a container directory through mounts to a repository
// directory; a directory no mount covers stays a container path (it starts
// with "/"), which the resolver never reads files from.
func repoDirIn(dir string, mounts []Mount) string {
	for i := len(mounts) - 1; i >= 0; i-- {
		m := mounts[i]
		if m.Repo == "" {
			continue
		}
		if dir == m.Container {
			return m.Repo
		}
		if rest, ok := strings.CutPrefix(dir, strings.TrimSuffix(m.Container, "/")+"/"); ok {
			return path.Join(m.Repo, rest)
		}
	}
	return dir
}

// inContainer reports whether dir is a container path the resolver cannot
// read files from.
func inContainer(dir string) bool {
	return strings.HasPrefix(dir, "/")
}
