package causal

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/polylane/polylane/causal/patch"
)

// Gradle runs the build, and tasks such as R8 or the Kotlin compiler, in a
// daemon whose heap org.gradle.jvmargs caps (512 MB when unset). A heap too
// small for the build fails it with "Java heap space" whatever the runner's
// memory; the fix raises the cap where the repository sets it.

// heapSetting is where a Gradle build sets its daemon's heap.
type heapSetting struct {
	file  string // gradle.properties of the build
	line  int    // 1-based line of org.gradle.jvmargs, 0 when absent
	value string // the setting's value
	xmx   string // the -Xmx flag in it, "" when absent
	mb    int    // the heap in megabytes, 0 when not set
}

var (
	xmxFlag    = regexp.MustCompile(`-Xmx(\d+)([gGmMkK]?)\b`)
	jvmArgsKey = regexp.MustCompile(`^\s*org\.gradle\.jvmargs\s*[=:]\s*(.*)$`)
)

// gradleBuild reports whether the failing command runs Gradle.
func (x *facts) gradleBuild() bool {
	switch x.em.Node.Tool() {
	case "gradle", "gradlew", "gradlew.bat":
		return true
	}
	return false
}

// gradleHeap finds gradle.properties of the failing Gradle build (next to
// the wrapper it runs, in the step's working directory, or at the root) and
// its org.gradle.jvmargs line.
func (x *facts) gradleHeap() (heapSetting, bool) {
	if x.em.Node == nil || !x.gradleBuild() {
		return heapSetting{}, false
	}
	var dirs []string
	if w := programWord(x.em.Node); strings.Contains(w, "/") {
		dirs = append(dirs, path.Clean(path.Dir(w)))
	}
	if x.step != nil && x.step.WorkingDirectory != "" {
		dirs = append(dirs, path.Clean(x.step.WorkingDirectory))
	}
	dirs = append(dirs, ".")
	for _, dir := range dirs {
		file := path.Join(dir, "gradle.properties")
		data, err := x.repo.ReadFile(file)
		if err != nil {
			continue
		}
		h := heapSetting{file: file}
		for i, l := range strings.Split(string(data), "\n") {
			m := jvmArgsKey.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			h.line, h.value = i+1, strings.TrimSpace(m[1])
			if f := xmxFlag.FindStringSubmatch(h.value); f != nil {
				h.xmx, h.mb = f[0], megabytes(f[1], f[2])
			}
		}
		return h, true
	}
	return heapSetting{}, false
}

// megabytes converts a JVM memory size to megabytes.
func megabytes(n, unit string) int {
	v, err := strconv.Atoi(n)
	if err != nil || v <= 0 {
		return 0
	}
	switch strings.ToLower(unit) {
	case "g":
		return v * 1024
	case "m":
		return v
	case "k":
		return v / 1024
	}
	return v / (1024 * 1024)
}

// heapNote says what caps the heap that ran out, for the mechanism summary.
func (x *facts) heapNote() string {
	h, ok := x.gradleHeap()
	switch {
	case !ok:
		return "Nothing in the harness sets the JVM's heap for it, so the default applies."
	case h.mb > 0:
		return fmt.Sprintf("The Gradle daemon's heap is capped at %s by org.gradle.jvmargs in %s (line %d), too small for this build.", strings.TrimPrefix(h.xmx, "-Xmx"), h.file, h.line)
	case h.line > 0:
		return fmt.Sprintf("org.gradle.jvmargs in %s (line %d) sets no -Xmx, so the Gradle daemon keeps its 512 MB default heap.", h.file, h.line)
	}
	return fmt.Sprintf("%s does not set org.gradle.jvmargs, so the Gradle daemon keeps its 512 MB default heap.", h.file)
}

// heapProducer is the setting that caps the heap, when there is one.
func (x *facts) heapProducer() (Producer, bool) {
	h, ok := x.gradleHeap()
	if !ok || h.line == 0 {
		return Producer{}, false
	}
	return Producer{File: h.file, Line: h.line, Symbol: "org.gradle.jvmargs"}, true
}

// fixJVMHeap raises the Gradle daemon's heap in gradle.properties; other
// JVM builds fall back to capping the emitter's parallelism or heap.
func fixJVMHeap(x *fixContext) (*fixPlan, error) {
	h, ok := x.gradleHeap()
	if !ok {
		return fixCapParallelism(x)
	}
	old, err := x.repo.ReadFile(h.file)
	if err != nil {
		return nil, noFix("cannot read %s", h.file)
	}
	const target = "-Xmx4g"
	lines := strings.SplitAfter(string(old), "\n")
	var what string
	switch {
	case h.mb >= 6*1024:
		return nil, noFix("the Gradle daemon already has %s of heap; the build needs a larger runner or less work per build", strings.TrimPrefix(h.xmx, "-Xmx"))
	case h.mb >= 4*1024:
		lines[h.line-1] = strings.Replace(lines[h.line-1], h.xmx, "-Xmx6g", 1)
		what = fmt.Sprintf("raises org.gradle.jvmargs's heap from %s to 6g", strings.TrimPrefix(h.xmx, "-Xmx"))
	case h.mb > 0:
		lines[h.line-1] = strings.Replace(lines[h.line-1], h.xmx, target, 1)
		what = fmt.Sprintf("raises org.gradle.jvmargs's heap from %s to 4g", strings.TrimPrefix(h.xmx, "-Xmx"))
	case h.line > 0:
		l := lines[h.line-1]
		body := strings.TrimRight(l, "\r\n")
		lines[h.line-1] = body + " " + target + l[len(body):]
		what = "adds -Xmx4g to org.gradle.jvmargs"
	default:
		nl := ""
		if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
			nl = "\n"
		}
		lines = append(lines, nl+"org.gradle.jvmargs="+target+" -Dfile.encoding=UTF-8\n")
		what = "sets org.gradle.jvmargs to -Xmx4g"
	}
	out := []byte(strings.Join(lines, ""))
	rationale := fmt.Sprintf("The Gradle daemon ran out of heap%s. The patch %s in %s. Hosted Linux runners have 16 GB of memory, so a 4 GB daemon fits with room for the build's workers; local builds get the same larger cap, and nothing that is built changes.",
		cite(append(x.ids["cause"], x.ids["emitter"]...)...), what, h.file)
	return &fixPlan{Title: "Give the Gradle daemon more heap", Rationale: rationale,
		Edits: []patch.FileEdit{{Path: h.file, Old: old, New: out}}}, nil
}
