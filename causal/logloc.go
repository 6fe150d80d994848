package causal

import (
	"regexp"
	"strings"
)

// The log names places: the file and line a tool failed at, the make target
// or task or recipe that failed, the build stage a RUN instruction belongs
// to. These are the locations the producer search joins with the harness
// model. Each kind is read from the tool's documented output.

// Location kinds.
const (
	locMake       = "make"       // make[N]: *** [file:line: target] Error N
	locMakeDir    = "make-dir"   // make[N]: Entering directory '/path'
	locTask       = "task"       // task: Failed to run task "name"
	locJust       = "just"       // error: Recipe `name` failed on line N …
	locScript     = "npm-script" // > pkg@1.0.0 test
	locVertex     = "buildkit"   // #N [stage 3/7] RUN …
	locDockerfile = "dockerfile" // Dockerfile:67 (BuildKit's excerpt)
	locSolve      = "solve"      // ERROR: failed to solve: process "/bin/sh -c …"
	locService    = "compose"    // service-1  | …
	locPython     = "python"     // File "x.py", line N
	locPytest     = "pytest"     // FAILED tests/x.py::test_y
	locGo         = "go"         // x_test.go:NN:
	locNode       = "node"       // at fn (/path/x.js:NN:MM)
	locJava       = "java"       // at a.b.C.m(C.java:NN)
	locRust       = "rust"       // --> src/x.rs:NN:MM, panicked at src/x.rs:NN:MM
	locShell      = "shell"      // script.sh: line N:
	locBats       = "bats"       // # (in test file x.bats, line N)
	locAnnotation = "annotation" // ::error file=x,line=N::
	locXtrace     = "xtrace"     // + cmd
)

// loc is one place a log line names.
type loc struct {
	Kind string
	// N is the log line; After is set for lines after the cause line.
	N     int
	After bool
	// File is the path as printed ("" when the line names none), Line its
	// line (0 when not printed).
	File string
	Line int
	// Symbol names the unit: a make target, a task, a just recipe, a
	// package script, a build stage, a Compose service, a test.
	Symbol string
	// Text is the command or instruction the line shows.
	Text string
	// Level is make's recursion level (make[N]), Vertex BuildKit's step.
	Level  int
	Vertex string
	// Service is the Compose service a BuildKit vertex builds for.
	Service string
}

var (
	locMakeErr   = regexp.MustCompile(`^g?make(?:\[(\d+)\])?: \*\*\* \[(?:([^:\]\s]+):(\d+): )?([^\]]+)\] (?:Error \d+|Killed|Segmentation fault|Terminated|Interrupt)`)
	locMakeEnter = regexp.MustCompile("^g?make(?:\\[(\\d+)\\])?: Entering directory [`'\"](.+)['\"]$")
	locTaskFail  = regexp.MustCompile(`^task: Failed to run task "([^"]+)"`)
	locJustFail  = regexp.MustCompile("^error: Recipe `([^`]+)` failed (?:on line (\\d+) )?with exit code")
	locNpmHeader = regexp.MustCompile(`^> ((?:@[\w.-]+/)?[\w.-]+)@(\S+) ([\w:.-]+)(?: (/\S*))?$`)
	locNpmCmd    = regexp.MustCompile(`^> (\S.*)$`)
	locVertexRe  = regexp.MustCompile(`^#(\d+) \[([^\]]*?)\s*(\d+)/(\d+)\] ([A-Z]+) (.*)$`)
	locRecapRe   = regexp.MustCompile(`^\s*> \[([^\]]*?)\s*(\d+)/(\d+)\] ([A-Z]+) (.*):$`)
	locPointer   = regexp.MustCompile(`^\s*([\w./-]*(?:Dockerfile|Containerfile|dockerfile)[\w.-]*):(\d+)\s*$`)
	locSolveRe   = regexp.MustCompile(`(?:failed to solve|executor failed running|ERROR): (?:process )?"?\[?/bin/(?:ba)?sh -c (.+?)\]?"? did not complete successfully|(?:failed to solve|executor failed running) \[/bin/(?:ba)?sh -c (.+)\]: (?:exit code|runc)`)
	locVertexPre = regexp.MustCompile(`^#(\d+) (?:\d+\.\d+ )?`)
	locCompose   = regexp.MustCompile(`^([a-zA-Z0-9][\w.-]*?)(?:[-_]\d+)?\s+\| (.*)$`)
	locPyFrame   = regexp.MustCompile(`^\s*File "([^"]+)", line (\d+)(?:, in (\S+))?`)
	locPytestRe  = regexp.MustCompile(`^(?:FAILED|ERROR) ([^\s:]+\.py)::(\S+)`)
	locPyShort   = regexp.MustCompile(`^([^\s:]+\.py):(\d+): (?:[A-Z]\w*(?:Error|Exception)|in \w+)`)
	locGoTest    = regexp.MustCompile(`^\s+(?:Error Trace:\s+)?(\S+_test\.go):(\d+):?`)
	locGoFail    = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	locGoFile    = regexp.MustCompile(`^(\S+\.go):(\d+):(?:\d+:)? `)
	locNodeFrame = regexp.MustCompile(`^\s+at (?:.+? \()?(?:file://)?((?:[A-Za-z]:[\\/])?[\w@./-][^\s():]*\.(?:[cm]?[jt]sx?)):(\d+):(\d+)\)?$`)
	locJavaFrame = regexp.MustCompile(`^\s+at ([\w$.]+)\.([\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)`)
	locRustSpan  = regexp.MustCompile(`^\s*--> ([^\s:]+\.rs):(\d+):(\d+)`)
	locRustPanic = regexp.MustCompile(`panicked at (?:'.*', )?([^\s:']+\.rs):(\d+):(\d+)`)
	locShellRe   = regexp.MustCompile(`^((?:/|\./|\.\./)?[\w./-]+\.(?:sh|bash|bats)|/[\w./-]+): line (\d+): `)
	locDashRe    = regexp.MustCompile(`^((?:/|\./)?[\w./-]+\.(?:sh|bash)): (\d+): `)
	locBatsRe    = regexp.MustCompile("^#\\s+\\((?:in test file|from function `[^']*' in file|from function `[^']*' in test file) ([^,]+), line (\\d+)")
	locAnnotRe   = regexp.MustCompile(`^::(?:error|warning|notice) ([^:]*)::`)
	locXtraceRe  = regexp.MustCompile(`^\+{1,4} (\S.*)$`)
)

// maxLocs bounds the locations read from one log.
const maxLocs = 2000

// scanLocations reads the locations the lines name. causeN is the cause
// line's number: locations after it are marked After.
func scanLocations(lines []logLine, causeN int) []loc {
	var out []loc
	npm := -1 // index in out of the last npm header, for its command line
	for _, l := range lines {
		if len(out) >= maxLocs {
			break
		}
		text := strings.TrimPrefix(l.Text, "##[error]")
		after := causeN > 0 && l.N > causeN
		add := func(x loc) {
			x.N, x.After = l.N, after
			out = append(out, x)
		}
		if npm >= 0 && npm == len(out)-1 && out[npm].N == l.N-1 {
			if m := locNpmCmd.FindStringSubmatch(text); m != nil {
				out[npm].Text = m[1]
				continue
			}
		}
		if m := locVertexPre.FindStringSubmatch(text); m != nil {
			if v := readVertex(text); v != nil {
				add(*v)
				continue
			}
			text = text[len(m[0]):]
		}
		if m := locCompose.FindStringSubmatch(text); m != nil && !strings.Contains(m[1], "/") {
			add(loc{Kind: locService, Symbol: m[1]})
			text = m[2]
		}
		before := len(out)
		readLocation(text, add)
		if len(out) > before && out[len(out)-1].Kind == locScript {
			npm = len(out) - 1
		}
	}
	return out
}

// readVertex reads a BuildKit vertex header: "#12 [api builder 3/7] RUN …".
func readVertex(text string) *loc {
	m := locVertexRe.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	service, stage := splitVertexName(m[2])
	return &loc{Kind: locVertex, Vertex: m[1], Symbol: stage, Service: service, Text: m[5] + " " + m[6]}
}

// splitVertexName splits the name part of a vertex into Compose service
// and build stage: "compiler" is a stage, "api builder" a service's stage.
func splitVertexName(s string) (service, stage string) {
	f := strings.Fields(s)
	switch len(f) {
	case 0:
		return "", ""
	case 1:
		return "", f[0]
	}
	return f[0], f[len(f)-1]
}

// readLocation reads the location one line names, if any, through add.
func readLocation(text string, add func(loc)) {
	switch {
	case strings.HasPrefix(text, "make") || strings.HasPrefix(text, "gmake"):
		if m := locMakeErr.FindStringSubmatch(text); m != nil {
			add(loc{Kind: locMake, Level: atoiBounded(m[1]), File: m[2], Line: atoiBounded(m[3]), Symbol: m[4]})
		} else if m := locMakeEnter.FindStringSubmatch(text); m != nil {
			add(loc{Kind: locMakeDir, Level: atoiBounded(m[1]), File: m[2]})
		}
		return
	case strings.HasPrefix(text, "task: "):
		if m := locTaskFail.FindStringSubmatch(text); m != nil {
			add(loc{Kind: locTask, Symbol: m[1]})
		}
		return
	case strings.HasPrefix(text, "error: Recipe `"):
		if m := locJustFail.FindStringSubmatch(text); m != nil {
			add(loc{Kind: locJust, Symbol: m[1], Line: atoiBounded(m[2])})
		}
		return
	case strings.HasPrefix(strings.TrimLeft(text, " "), "> "):
		if m := locNpmHeader.FindStringSubmatch(text); m != nil {
			add(loc{Kind: locScript, Service: m[1], Symbol: m[3], File: m[4]})
		} else if m := locRecapRe.FindStringSubmatch(text); m != nil {
			service, stage := splitVertexName(m[1])
			add(loc{Kind: locVertex, Symbol: stage, Service: service, Text: m[4] + " " + m[5]})
		}
		return
	case strings.HasPrefix(text, "Step "):
		if m := classicStep.FindStringSubmatch(text); m != nil {
			add(loc{Kind: locVertex, Text: m[1]})
		}
		return
	case strings.HasPrefix(text, "+"):
		if m := locXtraceRe.FindStringSubmatch(text); m != nil {
			add(loc{Kind: locXtrace, Text: m[1]})
		}
		return
	case strings.HasPrefix(text, "::"):
		if m := locAnnotRe.FindStringSubmatch(text); m != nil {
			p := annotationParams(m[1])
			add(loc{Kind: locAnnotation, File: p["file"], Line: atoiBounded(p["line"])})
		}
		return
	}
	for _, r := range lineReaders {
		if m := r.re.FindStringSubmatch(text); m != nil {
			add(r.read(m))
			return
		}
	}
}

// lineReaders read the locations of tools that name a file and line.
var lineReaders = []struct {
	re   *regexp.Regexp
	read func([]string) loc
}{
	{locPointer, func(m []string) loc { return loc{Kind: locDockerfile, File: m[1], Line: atoiBounded(m[2])} }},
	{locSolveRe, func(m []string) loc { return loc{Kind: locSolve, Text: firstNonEmptyStr(m[1], m[2])} }},
	{locBatsRe, func(m []string) loc { return loc{Kind: locBats, File: m[1], Line: atoiBounded(m[2])} }},
	{locShellRe, func(m []string) loc { return loc{Kind: locShell, File: m[1], Line: atoiBounded(m[2])} }},
	{locDashRe, func(m []string) loc { return loc{Kind: locShell, File: m[1], Line: atoiBounded(m[2])} }},
	{locPyFrame, func(m []string) loc { return loc{Kind: locPython, File: m[1], Line: atoiBounded(m[2]), Symbol: m[3]} }},
	{locPytestRe, func(m []string) loc { return loc{Kind: locPytest, File: m[1], Symbol: m[1] + "::" + m[2]} }},
	{locPyShort, func(m []string) loc { return loc{Kind: locPython, File: m[1], Line: atoiBounded(m[2])} }},
	{locGoFail, func(m []string) loc { return loc{Kind: locGo, Symbol: m[1]} }},
	{locGoTest, func(m []string) loc { return loc{Kind: locGo, File: m[1], Line: atoiBounded(m[2])} }},
	{locGoFile, func(m []string) loc { return loc{Kind: locGo, File: m[1], Line: atoiBounded(m[2])} }},
	{locRustSpan, func(m []string) loc { return loc{Kind: locRust, File: m[1], Line: atoiBounded(m[2])} }},
	{locRustPanic, func(m []string) loc { return loc{Kind: locRust, File: m[1], Line: atoiBounded(m[2])} }},
	{locJavaFrame, func(m []string) loc {
		return loc{Kind: locJava, File: javaPath(m[1], m[3]), Line: atoiBounded(m[4]), Symbol: m[1] + "." + m[2]}
	}},
	{locNodeFrame, func(m []string) loc { return loc{Kind: locNode, File: m[1], Line: atoiBounded(m[2])} }},
}

// javaPath turns a frame's class and file name into the source path under
// its package: a.b.C$Inner + C.java → a/b/C.java.
func javaPath(class, file string) string {
	i := strings.LastIndexByte(class, '.')
	if i < 0 {
		return file
	}
	pkg := class[:i]
	if j := strings.IndexByte(pkg, '$'); j >= 0 {
		pkg = pkg[:j]
	}
	// a nested class (a.b.C.Inner) keeps its outer class out of the path.
	parts := strings.Split(pkg, ".")
	for len(parts) > 0 && parts[len(parts)-1] != "" && parts[len(parts)-1][0] >= 'A' && parts[len(parts)-1][0] <= 'Z' {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(append(parts, file), "/")
}

// annotationParams reads a workflow command's "file=x,line=3" parameters.
func annotationParams(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if ok {
			out[k] = v
		}
	}
	return out
}
