package causal

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal/patch"
)

// Setting org.gradle.jvmargs replaces the Gradle daemon's default JVM
// arguments, -XX:MaxMetaspaceSize=384m among them, so a value without a
// metaspace bound leaves it unbounded and the daemon can grow until the
// runner kills it ("Gradle build daemon disappeared unexpectedly")
// (gradle/gradle#19750; android/nowinandroid#191 removed the CI override
// that dropped it). A CI job often copies its own gradle.properties into
// ~/.gradle, where it overrides the project's.

var gradleHomeCopy = regexp.MustCompile(`\bcp\s+(?:-\S+\s+)*(\S+)\s+(?:~|\$HOME|\$\{HOME\}|"\$HOME")/\.gradle/gradle\.properties\b`)

// gradleJVMArgs returns the gradle.properties whose org.gradle.jvmargs the
// failing Gradle build uses: a file an earlier step of the job copies into
// ~/.gradle (it overrides the project's), else the project's.
func (x *facts) gradleJVMArgs() (heapSetting, bool) {
	if x.job != nil && x.step != nil {
		for _, s := range x.job.Steps {
			if s == x.step {
				break
			}
			if m := gradleHomeCopy.FindStringSubmatch(s.Run); m != nil {
				file := path.Clean(strings.Trim(m[1], `"'`))
				if h, ok := x.heapIn(file); ok {
					return h, true
				}
			}
		}
	}
	return x.gradleHeap()
}

// heapIn reads org.gradle.jvmargs from one properties file.
func (x *facts) heapIn(file string) (heapSetting, bool) {
	data, err := x.repo.ReadFile(file)
	if err != nil {
		return heapSetting{}, false
	}
	h := heapSetting{file: file}
	for i, l := range strings.Split(string(data), "\n") {
		if m := jvmArgsKey.FindStringSubmatch(l); m != nil {
			h.line, h.value = i+1, strings.TrimSpace(m[1])
			if f := xmxFlag.FindStringSubmatch(h.value); f != nil {
				h.xmx, h.mb = f[0], megabytes(f[1], f[2])
			}
		}
	}
	return h, true
}

// fixGradleMetaspace bounds the daemon's metaspace where org.gradle.jvmargs
// dropped Gradle's default bound.
func fixGradleMetaspace(x *fixContext) (*fixPlan, error) {
	if x.em.Node == nil || !x.gradleBuild() || !strings.Contains(x.cause.Text, "daemon disappeared") || x.leftOut([]string{"android/nowinandroid"}) {
		return nil, noFix("not a Gradle daemon that disappeared")
	}
	h, ok := x.gradleJVMArgs()
	if !ok || h.line == 0 {
		return nil, noFix("org.gradle.jvmargs is not set, so the daemon keeps Gradle's default metaspace bound")
	}
	if strings.Contains(h.value, "MaxMetaspaceSize") {
		return nil, noFix("org.gradle.jvmargs in %s already bounds the metaspace", h.file)
	}
	old, err := x.repo.ReadFile(h.file)
	if err != nil {
		return nil, noFix("cannot read %s", h.file)
	}
	lines := strings.SplitAfter(string(old), "\n")
	l := lines[h.line-1]
	body := strings.TrimRight(l, "\r\n")
	lines[h.line-1] = body + " -XX:MaxMetaspaceSize=1g" + l[len(body):]
	rationale := fmt.Sprintf("The Gradle daemon disappeared%s: org.gradle.jvmargs in %s (line %d) replaces Gradle's default JVM arguments, its 384 MB metaspace bound among them, so the daemon's metaspace grew without limit until the runner killed it. "+
		"The patch bounds it again (-XX:MaxMetaspaceSize=1g) where the job sets it; the heap setting is kept.", cite(x.ids["cause"]...), h.file, h.line)
	return &fixPlan{Title: "Bound the Gradle daemon's metaspace", Rationale: rationale,
		Edits:   []patch.FileEdit{{Path: h.file, Old: old, New: []byte(strings.Join(lines, ""))}},
		Setting: &Location{File: h.file, Line: h.line, Symbol: "org.gradle.jvmargs"}}, nil
}
