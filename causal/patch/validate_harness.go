package patch

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// checkWorkflow validates a GitHub Actions workflow: it parses; it keeps its
// top-level keys and jobs; every job keeps its steps in order; it adds no
// continue-on-error and no `if: false`. It returns the run: blocks of both
// versions for the shell checks.
func checkWorkflow(p string, old, new []byte) ([]fragment, []fragment, error) {
	oldDocs, newDocs, err := parseBoth(p, old, new)
	if err != nil {
		return nil, nil, err
	}
	if len(newDocs) == 0 {
		return nil, nil, &ValidationError{Path: p, Rule: RuleStructure, Msg: "the patched workflow is empty"}
	}
	nw := newDocs[0]
	if len(oldDocs) == 0 {
		return nil, workflowRuns(nw), nil
	}
	ow := oldDocs[0]
	if missing := missingKeys(ow, nw); len(missing) > 0 {
		return nil, nil, structureError(p, "top-level keys", missing)
	}
	oj, nj := mapGet(ow, "jobs"), mapGet(nw, "jobs")
	if missing := missingKeys(oj, nj); len(missing) > 0 {
		return nil, nil, structureError(p, "jobs", missing)
	}
	for _, id := range mapKeys(oj) {
		if lost := lostSteps(mapGet(mapGet(oj, id), "steps"), mapGet(mapGet(nj, id), "steps")); lost != "" {
			return nil, nil, &ValidationError{Path: p, Rule: RuleStructure,
				Msg: fmt.Sprintf("the patch removes or reorders step %s of job %s", lost, id)}
		}
	}
	if countTruthy(nw, "continue-on-error") > countTruthy(ow, "continue-on-error") {
		return nil, nil, &ValidationError{Path: p, Rule: RuleContinueOnError, Msg: "the patch adds continue-on-error"}
	}
	if countDisabledIfs(nw) > countDisabledIfs(ow) {
		return nil, nil, &ValidationError{Path: p, Rule: RuleTestSkipped, Msg: "the patch disables a job or step with if: false"}
	}
	return workflowRuns(ow), workflowRuns(nw), nil
}

// stepKey identifies a step across versions: its name, id, or action; all
// unnamed run steps share one key, so only their number matters.
func stepKey(step *yaml.Node) string {
	if v := mapGet(step, "name"); v != nil {
		return "name " + v.Value
	}
	if v := mapGet(step, "id"); v != nil {
		return "id " + v.Value
	}
	if v := mapGet(step, "uses"); v != nil {
		action, _, _ := strings.Cut(v.Value, "@")
		if retryActions[strings.ToLower(action)] {
			return "run" // a retry action runs a command: it stands in for a run step
		}
		return "uses " + action
	}
	return "run"
}

// retryActions run a shell command (with.command) with a bounded number of
// attempts; they are a valid way to wrap a run step.
var retryActions = map[string]bool{
	"nick-fields/retry": true, "wandalen/wretry.action": true, "nick-invision/retry": true,
}

// stepScript returns a step's shell: its run:, or the command of a retry
// action.
func stepScript(s *yaml.Node) *yaml.Node {
	if run := mapGet(s, "run"); run != nil {
		return run
	}
	uses := mapGet(s, "uses")
	if uses == nil {
		return nil
	}
	action, _, _ := strings.Cut(strings.ToLower(uses.Value), "@")
	if !retryActions[action] {
		return nil
	}
	return mapGet(mapGet(s, "with"), "command")
}

// lostSteps returns the first old step key that new does not keep in order
// (new may add steps anywhere), or "".
func lostSteps(old, new *yaml.Node) string {
	if old == nil {
		return ""
	}
	var newKeys []string
	if new != nil {
		for _, s := range new.Content {
			newKeys = append(newKeys, stepKey(deref(s)))
		}
	}
	j := 0
	for _, s := range old.Content {
		key := stepKey(deref(s))
		for j < len(newKeys) && newKeys[j] != key {
			j++
		}
		if j == len(newKeys) {
			return strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(key, "name "), "id "), "uses ")
		}
		j++
	}
	return ""
}

// workflowRuns returns the run: blocks of every job whose shell is a POSIX
// shell or bash.
func workflowRuns(w *yaml.Node) []fragment {
	var out []fragment
	jobs := mapGet(w, "jobs")
	for _, id := range mapKeys(jobs) {
		job := mapGet(jobs, id)
		jobShell := mapGet(mapGet(mapGet(job, "defaults"), "run"), "shell")
		steps := mapGet(job, "steps")
		if steps == nil {
			continue
		}
		for i, s := range steps.Content {
			s = deref(s)
			run := stepScript(s)
			if run == nil || run.Kind != yaml.ScalarNode {
				continue
			}
			shell := mapGet(s, "shell")
			if shell == nil {
				shell = jobShell
			}
			if shell != nil && !posixShell(shell.Value) {
				continue
			}
			where := fmt.Sprintf("job %s step %d", id, i+1)
			if name := mapGet(s, "name"); name != nil {
				where = fmt.Sprintf("job %s step %q", id, name.Value)
			}
			out = append(out, fragment{where: where, line: scalarStart(run), text: run.Value})
		}
	}
	return out
}

// posixShell reports whether a workflow shell: value runs a POSIX shell.
func posixShell(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return true
	}
	switch f[0] {
	case "bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash":
		return true
	}
	return false
}

// checkTaskfile validates a go-task Taskfile: it parses, keeps its top-level
// keys and its tasks, and adds no ignore_error. It returns every task command
// (and every task call, as `task NAME`) for the shell checks.
func checkTaskfile(p string, old, new []byte) ([]fragment, []fragment, error) {
	oldDocs, newDocs, err := parseBoth(p, old, new)
	if err != nil {
		return nil, nil, err
	}
	if len(newDocs) == 0 {
		return nil, nil, &ValidationError{Path: p, Rule: RuleStructure, Msg: "the patched Taskfile is empty"}
	}
	nt := newDocs[0]
	if len(oldDocs) == 0 {
		return nil, taskCommands(nt), nil
	}
	ot := oldDocs[0]
	if missing := missingKeys(ot, nt); len(missing) > 0 {
		return nil, nil, structureError(p, "top-level keys", missing)
	}
	if missing := missingKeys(mapGet(ot, "tasks"), mapGet(nt, "tasks")); len(missing) > 0 {
		return nil, nil, structureError(p, "tasks", missing)
	}
	if countTruthy(nt, "ignore_error") > countTruthy(ot, "ignore_error") {
		return nil, nil, &ValidationError{Path: p, Rule: RuleContinueOnError, Msg: "the patch adds ignore_error"}
	}
	return taskCommands(ot), taskCommands(nt), nil
}

// taskCommands returns the shell commands and task calls of every task.
func taskCommands(tf *yaml.Node) []fragment {
	var out []fragment
	tasks := mapGet(tf, "tasks")
	for _, name := range mapKeys(tasks) {
		task := mapGet(tasks, name)
		where := "task " + name
		if task != nil && task.Kind == yaml.ScalarNode {
			out = append(out, fragment{where: where, line: scalarStart(task), text: task.Value})
			continue
		}
		if cmd := mapGet(task, "cmd"); cmd != nil && cmd.Kind == yaml.ScalarNode {
			out = append(out, fragment{where: where, line: scalarStart(cmd), text: cmd.Value})
		}
		for _, list := range []string{"cmds", "deps"} {
			seq := mapGet(task, list)
			if seq == nil {
				continue
			}
			for _, item := range seq.Content {
				out = append(out, taskItem(where, deref(item))...)
			}
		}
	}
	return out
}

// taskItem turns one cmds/deps entry into fragments: a command string, a
// {cmd: …} or {defer: …} mapping, or a {task: …} call.
func taskItem(where string, item *yaml.Node) []fragment {
	if item == nil {
		return nil
	}
	if item.Kind == yaml.ScalarNode {
		return []fragment{{where: where, line: scalarStart(item), text: item.Value}}
	}
	var out []fragment
	for _, key := range []string{"cmd", "defer"} {
		if v := mapGet(item, key); v != nil && v.Kind == yaml.ScalarNode {
			out = append(out, fragment{where: where, line: scalarStart(v), text: v.Value})
		}
	}
	if v := mapGet(item, "task"); v != nil && v.Kind == yaml.ScalarNode {
		out = append(out, fragment{where: where, line: v.Line, text: "task " + shellQuote(v.Value)})
	}
	return out
}

// shellQuote single-quotes s for a shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
