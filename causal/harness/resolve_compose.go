package harness

import (
	"path"
	"strings"
)

// composeValueFlags are Compose flags (global and of its subcommands) that
// take a value.
var composeValueFlags = map[string]bool{
	"-f": true, "--file": true, "-p": true, "--project-name": true, "--project-directory": true, "--profile": true,
	"--env-file": true, "--ansi": true, "--progress": true, "--parallel": true, "-t": true, "--timeout": true,
	"--wait-timeout": true, "--scale": true, "--exit-code-from": true, "--pull": true, "-e": true, "--env": true,
	"-w": true, "--workdir": true, "-u": true, "--user": true, "--entrypoint": true, "--name": true, "-l": true,
	"--label": true, "-v": true, "--volume": true, "--build-arg": true, "--attach": true, "--no-attach": true,
	"--builder": true, "-m": true, "--memory": true, "--ssh": true, "--cap-add": true, "--cap-drop": true,
}

// composeCall resolves `docker compose [flags] build|up|run|create
// [flags] [SERVICE...]`: the services it builds (their Dockerfiles) and
// runs (their command:), or for run the one service.
func (rs *resolver) composeCall(parent *Node, args []string, dir string, depth int) {
	var files []string
	project := ""
	sub := ""
	var positional []string
	noBuild := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || a == "--file":
			if i+1 < len(args) {
				files, i = append(files, parent.ExpandVars(args[i+1])), i+1
			}
		case a == "--project-directory":
			if i+1 < len(args) {
				project, i = parent.ExpandVars(args[i+1]), i+1
			}
		case a == "--no-build":
			noBuild = true
		case strings.HasPrefix(a, "-"):
			if composeValueFlags[a] && i+1 < len(args) {
				i++
			}
		case sub == "":
			sub = a
		default:
			positional = append(positional, a)
			if sub == "run" || sub == "exec" {
				i = len(args) // the rest is the command
			}
		}
	}
	if sub != "build" && sub != "up" && sub != "run" && sub != "create" {
		return
	}
	c := rs.composeFile(parent, files, project, dir)
	if c == nil {
		return
	}
	ctxDir := path.Dir(c.Path)
	if project != "" {
		ctxDir = path.Join(dir, project)
	}
	names := positional
	if len(names) == 0 {
		names = c.Order
	}
	for _, name := range names {
		s, ok := c.Services[name]
		if !ok || rs.full() {
			continue
		}
		rs.service(parent, c, s, ctxDir, sub, noBuild, depth+1)
	}
}

// composeFile finds the Compose file a compose command reads: its first
// -f, else the default names in the project directory.
func (rs *resolver) composeFile(parent *Node, files []string, project, dir string) *Compose {
	var c *Compose
	var err error
	switch {
	case len(files) > 0:
		c, err = rs.repo.Compose(path.Join(dir, files[0]))
	case project != "":
		c, err = rs.repo.FindCompose(path.Join(dir, project))
	default:
		c, err = rs.repo.FindCompose(dir)
	}
	if err != nil || c == nil {
		parent.Note = "Compose file not found"
		return nil
	}
	return c
}

// service adds a Compose service: the image it builds and the command it
// runs.
func (rs *resolver) service(parent *Node, c *Compose, s *ComposeService, ctxDir, sub string, noBuild bool, depth int) {
	key := "compose:" + c.Path + "#" + s.Name
	if rs.active[key] || depth > maxResolveDepth {
		return
	}
	rs.active[key] = true
	defer delete(rs.active, key)
	n := rs.add(parent, &Node{Kind: NodeService, File: c.Path, Line: s.Line, EndLine: s.EndLine,
		Symbol: s.Name, Service: s, Dir: ctxDir})
	if b := s.Build; b != nil && !noBuild {
		ctx := path.Join(ctxDir, firstNonEmpty(b.Context, "."))
		rs.dockerBuild(n, path.Join(ctx, firstNonEmpty(b.Dockerfile, "Dockerfile")), ctx, b.Target, depth)
	}
	for _, v := range s.Volumes {
		if m, ok := volumeMount(v, ctxDir); ok {
			n.Mounts = append(n.Mounts, m)
		}
	}
	if sub == "build" || s.Command.Text == "" {
		return
	}
	dir := containerJoin("/", s.WorkingDir)
	dir = repoDirIn(dir, append(dockerMounts(n), n.Mounts...))
	sh := rs.parse(c.Path, s.Command.Line, s.Command.Text, false)
	if sh.Err == nil {
		rs.commands(n, sh, sh.Commands, dir, depth+1)
	}
}

// dockerMounts returns the mounts of the image builds under n.
func dockerMounts(n *Node) []Mount {
	var out []Mount
	for _, c := range n.Children {
		if c.Kind == NodeDockerfile {
			out = append(out, c.Mounts...)
		}
	}
	return out
}

// volumeMount reads a short-syntax bind mount "SRC:DST[:MODE]" whose source
// is a repository directory, relative to base.
func volumeMount(v, base string) (Mount, bool) {
	parts := strings.Split(v, ":")
	if len(parts) < 2 || !strings.HasPrefix(parts[1], "/") {
		return Mount{}, false
	}
	src := parts[0]
	switch src {
	case "$(pwd)", "`pwd`", "${PWD}", "$PWD", "${{ github.workspace }}", "$GITHUB_WORKSPACE", "${GITHUB_WORKSPACE}":
		src = "."
	}
	if strings.ContainsAny(src, "$`{}~") || path.IsAbs(src) || !strings.HasPrefix(src, ".") && !strings.Contains(src, "/") {
		return Mount{}, false // a named volume or a path outside the repository
	}
	repo := cleanDir(path.Join(base, src))
	if repo == "" {
		return Mount{}, false
	}
	return Mount{Container: path.Clean(parts[1]), Repo: repo}, true
}

// runValueFlags are docker run flags that take a value.
var runValueFlags = map[string]bool{
	"-v": true, "--volume": true, "-e": true, "--env": true, "-w": true, "--workdir": true, "--name": true,
	"-p": true, "--publish": true, "--network": true, "--net": true, "--platform": true, "--entrypoint": true,
	"-u": true, "--user": true, "--mount": true, "--env-file": true, "-l": true, "--label": true, "--add-host": true,
	"--cpus": true, "-m": true, "--memory": true, "--shm-size": true, "--gpus": true, "--ulimit": true,
	"--device": true, "--cap-add": true, "--cap-drop": true, "--security-opt": true, "--tmpfs": true,
	"--restart": true, "--pull": true, "-h": true, "--hostname": true, "--ipc": true, "--pid": true,
	"--log-driver": true, "--log-opt": true, "--dns": true, "--link": true, "--volumes-from": true, "--cidfile": true,
	"--health-cmd": true, "--stop-timeout": true, "--memory-swap": true, "--runtime": true, "--group-add": true,
}

// runCall resolves `docker run [flags] IMAGE [CMD...]` when CMD runs a
// script of the repository mounted into the container (-v "$(pwd)":/src
// … bash /src/ci/build.sh), or an inline script (bash -c '…').
func (rs *resolver) runCall(parent *Node, args []string, dir string, depth int) {
	var mounts []Mount
	workdir := "/"
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			break
		}
		name, value, eq := strings.Cut(a, "=")
		if !eq && runValueFlags[a] && i+1 < len(args) {
			value, i = args[i+1], i+1
		}
		switch name {
		case "-v", "--volume":
			if m, ok := volumeMount(value, dir); ok {
				mounts = append(mounts, m)
			}
		case "-w", "--workdir":
			workdir = containerJoin("/", value)
		}
	}
	parent.Mounts = append(parent.Mounts, mounts...)
	if i+1 >= len(args) || len(mounts) == 0 {
		return
	}
	cmd := unwrapArgs(args[i+1:])
	if len(cmd) == 0 {
		return
	}
	wd := repoDirIn(workdir, mounts)
	switch base := path.Base(cmd[0]); {
	case base == "bash" || base == "sh":
		if file := firstFileArg(cmd[1:]); file != "" {
			rs.containerScript(parent, file, wd, mounts, depth)
		} else {
			rs.inlineScript(parent, cmd[1:], wd, depth)
		}
	case looksLikeScript(cmd[0]) || strings.HasPrefix(cmd[0], "/"):
		rs.containerScript(parent, cmd[0], wd, mounts, depth)
	}
}

// containerScript follows a script a container runs: an absolute path
// inside a mount, or a path relative to the container's working directory.
func (rs *resolver) containerScript(parent *Node, file, wd string, mounts []Mount, depth int) {
	file = parent.ExpandVars(file)
	if strings.HasPrefix(file, "/") {
		p := repoDirIn(path.Clean(file), mounts)
		if inContainer(p) {
			return
		}
		rs.script(parent, p, ".", depth, false)
		return
	}
	if !inContainer(wd) {
		rs.script(parent, file, wd, depth, false)
	}
}
