package patch

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// ValidationError says why a proposed file change may not be offered.
type ValidationError struct {
	Path string
	// Line is the 1-based line in the new content the problem is at, 0 when
	// the problem is not tied to one line.
	Line int
	// Rule names the check that failed, such as "test-removed".
	Rule string
	Msg  string
}

// Error implements error.
func (e *ValidationError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s (%s)", e.Path, e.Line, e.Msg, e.Rule)
	}
	return fmt.Sprintf("%s: %s (%s)", e.Path, e.Msg, e.Rule)
}

// Validation rules.
const (
	RulePath            = "path"
	RuleParse           = "parse"
	RuleStructure       = "structure"
	RuleContinueOnError = "continue-on-error"
	RuleTestRemoved     = "test-removed"
	RuleTestSkipped     = "test-skipped"
	RuleUnboundedRetry  = "unbounded-retry"
)

// fileKind is the kind of file a change touches, which decides the checks.
type fileKind int

const (
	kindOther fileKind = iota
	kindWorkflow
	kindTaskfile
	kindYAML
	kindMakefile
	kindShell
	kindDockerfile
)

// Validate checks one proposed file change before it is offered. Every kind
// of file gets the path checks and the skipped-test checks; on top of that a
// workflow must parse and keep its top-level keys, jobs and steps; a Taskfile
// its tasks; a Makefile its targets; other YAML its documents and top-level
// keys; and every shell fragment (run: blocks, task cmds, recipes, scripts)
// must still parse, keep its test commands and add no unbounded retry loop.
// A patched workflow must last pass actionlint: no error its original lacks.
// A nil old means a new file, a nil new a deletion. The error is a
// *ValidationError.
func Validate(p string, old, new []byte) error {
	if err := CheckPath(p); err != nil {
		return err
	}
	content := new
	if content == nil {
		content = old
	}
	if new == nil && isTestFile(p) {
		return &ValidationError{Path: p, Rule: RuleTestRemoved, Msg: "the patch deletes a test file"}
	}
	if err := checkTestMarkers(p, old, new); err != nil {
		return err
	}
	if new == nil {
		return nil
	}
	var frOld, frNew []fragment
	var err error
	kind := kindOf(p, content)
	switch kind {
	case kindWorkflow:
		frOld, frNew, err = checkWorkflow(p, old, new)
	case kindTaskfile:
		frOld, frNew, err = checkTaskfile(p, old, new)
	case kindYAML:
		err = checkYAMLDocs(p, old, new)
	case kindMakefile:
		frOld, frNew, err = checkMakefile(p, old, new)
	case kindShell:
		frOld, frNew = scriptFragments(old), scriptFragments(new)
	case kindDockerfile:
		frOld, frNew, err = checkDockerfile(p, old, new)
	}
	if err != nil {
		return err
	}
	if err := compareFragments(p, frOld, frNew); err != nil {
		return err
	}
	if kind == kindWorkflow {
		return checkActionlint(p, old, new)
	}
	return nil
}

// CheckPath rejects paths that could escape the repository or name git's own
// files: empty, absolute, unclean or ".." paths, backslashes, control
// characters, and anything under .git/.
func CheckPath(p string) error {
	bad := func(msg string) error { return &ValidationError{Path: p, Rule: RulePath, Msg: msg} }
	switch {
	case p == "":
		return bad("empty path")
	case strings.HasPrefix(p, "/"):
		return bad("absolute path")
	case strings.ContainsRune(p, '\\'):
		return bad("backslash in path")
	case !fs.ValidPath(p) || path.Clean(p) != p || p == ".":
		return bad("path is not a clean relative path inside the repository")
	case strings.EqualFold(strings.SplitN(p, "/", 2)[0], ".git"):
		return bad("path inside .git")
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return bad("control character in path")
		}
	}
	return nil
}

// CheckPathIn is CheckPath plus a walk of the repository: no directory on the
// way and not the file itself may be a symbolic link, so a write cannot land
// outside the tree. Components that do not exist yet are fine.
func CheckPathIn(repo fs.FS, p string) error {
	if err := CheckPath(p); err != nil {
		return err
	}
	parts := strings.Split(p, "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		info, err := fs.Lstat(repo, prefix)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("check path %s: %w", p, err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return &ValidationError{Path: p, Rule: RulePath, Msg: prefix + " is a symbolic link"}
		}
		if i < len(parts)-1 && !info.IsDir() {
			return &ValidationError{Path: p, Rule: RulePath, Msg: prefix + " is not a directory"}
		}
	}
	return nil
}

// kindOf classifies a file by name and, for YAML, by content.
func kindOf(p string, content []byte) fileKind {
	base := path.Base(p)
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	switch {
	case (ext == ".yml" || ext == ".yaml") && strings.HasPrefix(p, ".github/workflows/"):
		return kindWorkflow
	case (ext == ".yml" || ext == ".yaml") && (strings.HasPrefix(lower, "taskfile") || looksLikeTaskfile(content)):
		return kindTaskfile
	case ext == ".yml" || ext == ".yaml":
		return kindYAML
	case lower == "makefile" || lower == "gnumakefile" || ext == ".mk":
		return kindMakefile
	case ext == ".sh" || ext == ".bash":
		return kindShell
	case lower == "dockerfile" || strings.HasPrefix(lower, "dockerfile.") || ext == ".dockerfile" || lower == "containerfile":
		return kindDockerfile
	case ext == "" && shellShebang(content):
		return kindShell
	}
	return kindOther
}

// looksLikeTaskfile reports whether YAML content has the top-level keys of a
// go-task Taskfile.
func looksLikeTaskfile(content []byte) bool {
	hasVersion, hasTasks := false, false
	for _, line := range bytes.Split(content, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte("version:")):
			hasVersion = true
		case bytes.HasPrefix(line, []byte("tasks:")):
			hasTasks = true
		}
	}
	return hasVersion && hasTasks
}

// shellShebang reports whether content starts with a POSIX shell or bash
// shebang.
func shellShebang(content []byte) bool {
	first, _, _ := bytes.Cut(content, []byte("\n"))
	if !bytes.HasPrefix(first, []byte("#!")) {
		return false
	}
	f := strings.Fields(string(first[2:]))
	if len(f) == 0 {
		return false
	}
	interp := path.Base(f[0])
	if interp == "env" && len(f) > 1 {
		interp = f[1]
	}
	switch interp {
	case "sh", "bash", "dash", "ash", "ksh", "mksh":
		return true
	}
	return false
}
