package patch

import (
	"fmt"
	"strings"
)

// StepSpan locates a workflow step: the line of its first key (the "- " line),
// the 1-based column of that key, and its last line.
type StepSpan struct {
	Line    int
	EndLine int
	Column  int
}

func (s StepSpan) keyIndent() string {
	if s.Column < 1 {
		return ""
	}
	return strings.Repeat(" ", s.Column-1)
}

// InsertStep inserts a new step before the step at before. step holds the new
// step's lines relative to its keys: the first line is the first key, the
// others are indented relative to it ("with:" then "  key: value").
func InsertStep(content []byte, before StepSpan, step []string) ([]byte, error) {
	ls := lines(content)
	if before.Line < 1 || before.Line > len(ls) || before.Column < 3 || len(step) == 0 {
		return nil, fmt.Errorf("%w: step position %d:%d", ErrShape, before.Line, before.Column)
	}
	keyInd := before.keyIndent()
	dashInd := keyInd[:len(keyInd)-2]
	var add []string
	for i, l := range step {
		if i == 0 {
			add = append(add, dashInd+"- "+l)
			continue
		}
		add = append(add, keyInd+l)
	}
	// Keep a blank line between steps when the file separates them so.
	if before.Line >= 2 && strings.TrimSpace(ls[before.Line-2]) == "" {
		add = append(add, "")
	}
	return InsertLines(content, before.Line, add)
}

// InsertStepAfter inserts a new step right after the step at after, in the
// same shape as InsertStep.
func InsertStepAfter(content []byte, after StepSpan, step []string) ([]byte, error) {
	ls := lines(content)
	if after.Line < 1 || after.EndLine < after.Line || after.EndLine > len(ls) || after.Column < 3 || len(step) == 0 {
		return nil, fmt.Errorf("%w: step position %d-%d:%d", ErrShape, after.Line, after.EndLine, after.Column)
	}
	keyInd := after.keyIndent()
	var add []string
	// Keep a blank line between steps when the file separates them so.
	if after.EndLine < len(ls) && strings.TrimSpace(ls[after.EndLine]) == "" {
		add = append(add, "")
	}
	for i, l := range step {
		if i == 0 {
			add = append(add, keyInd[:len(keyInd)-2]+"- "+l)
			continue
		}
		add = append(add, keyInd+l)
	}
	return InsertLines(content, after.EndLine+1, add)
}

// AddStepEnv adds NAME: value to a step's env:, creating the mapping after
// the step's last line when it has none.
func AddStepEnv(content []byte, step StepSpan, name, value string) ([]byte, error) {
	return addStepMapKey(content, step, "env", name, value)
}

// AddStepWith adds name: value to a step's with:, creating the mapping after
// the step's last line when it has none.
func AddStepWith(content []byte, step StepSpan, name, value string) ([]byte, error) {
	return addStepMapKey(content, step, "with", name, value)
}

func addStepMapKey(content []byte, step StepSpan, mapKey, name, value string) ([]byte, error) {
	ls := lines(content)
	if step.Line < 1 || step.EndLine > len(ls) || step.EndLine < step.Line {
		return nil, fmt.Errorf("%w: step lines %d-%d", ErrShape, step.Line, step.EndLine)
	}
	keyInd := step.keyIndent()
	for i := step.Line - 1; i < step.EndLine; i++ {
		l := ls[i]
		t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
		atKey := indentOf(l) == keyInd || (i == step.Line-1 && strings.HasPrefix(strings.TrimSpace(l), "- "))
		if !atKey || !strings.HasPrefix(t, mapKey+":") {
			continue
		}
		if t != mapKey+":" {
			return nil, fmt.Errorf("%w: step %s is not a block mapping", ErrShape, mapKey)
		}
		childInd := keyInd + "  "
		if i+1 < len(ls) && strings.TrimSpace(ls[i+1]) != "" && len(indentOf(ls[i+1])) > len(keyInd) {
			childInd = indentOf(ls[i+1])
		}
		return InsertLines(content, i+2, []string{childInd + name + ": " + value})
	}
	return InsertLines(content, step.EndLine+1, []string{keyInd + mapKey + ":", keyInd + "  " + name + ": " + value})
}

// SetOptions appends options to a service's options: value, or adds the key
// after the service's image line. serviceKeyColumn is the 1-based column of
// the service name; imageLine the line of its image: key.
func SetOptions(content []byte, serviceLine, serviceEnd, serviceKeyColumn, imageLine int, options string) ([]byte, error) {
	ls := lines(content)
	if serviceLine < 1 || serviceEnd > len(ls) || imageLine < serviceLine || imageLine > serviceEnd {
		return nil, fmt.Errorf("%w: service lines %d-%d", ErrShape, serviceLine, serviceEnd)
	}
	childInd := indentOf(ls[imageLine-1])
	for i := serviceLine; i < serviceEnd; i++ {
		l := ls[i]
		t := strings.TrimSpace(l)
		if indentOf(l) != childInd || !strings.HasPrefix(t, "options:") {
			continue
		}
		val := strings.TrimSpace(strings.TrimPrefix(t, "options:"))
		if val == "" || strings.ContainsAny(val[:1], `|>'"`) {
			return nil, fmt.Errorf("%w: service options is not a plain scalar", ErrShape)
		}
		ls[i] = childInd + "options: " + val + " " + options
		return join(ls), nil
	}
	_ = serviceKeyColumn
	return InsertLines(content, imageLine+1, []string{childInd + "options: >-", childInd + "  " + options})
}

// SetKeyValue replaces the scalar value of key on line (key: value).
func SetKeyValue(content []byte, line int, key, value string) ([]byte, error) {
	ls := lines(content)
	if line < 1 || line > len(ls) {
		return nil, fmt.Errorf("%w: line %d out of range", ErrShape, line)
	}
	l := ls[line-1]
	i := strings.Index(l, key+":")
	if i < 0 {
		return nil, fmt.Errorf("%w: no %s: on line %d", ErrShape, key, line)
	}
	rest := l[i+len(key)+1:]
	comment := ""
	if j := strings.Index(rest, " #"); j >= 0 {
		comment = rest[j:]
	}
	ls[line-1] = l[:i] + key + ": " + value + comment
	return join(ls), nil
}

// AddStepKey adds key: value as a new key of a step, after its last line.
func AddStepKey(content []byte, step StepSpan, key, value string) ([]byte, error) {
	ls := lines(content)
	if step.Line < 1 || step.Line > len(ls) {
		return nil, fmt.Errorf("%w: step line %d", ErrShape, step.Line)
	}
	for i := step.Line - 1; i < step.EndLine && i < len(ls); i++ {
		if strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ls[i]), "- ")), key+":") {
			return nil, fmt.Errorf("%w: step already has %s", ErrShape, key)
		}
	}
	return InsertLines(content, step.EndLine+1, []string{step.keyIndent() + key + ": " + value})
}

// SetJobPermission grants scope the access level in the permissions of the
// job whose key is on line jobLine: it adds the key to the job's own
// permissions map, or, when the job has none, inserts a block with base
// (the scopes the job needs besides, "contents: read" say) and the scope.
// A permissions value that is not a map (read-all, write-all) is left to
// the maintainers.
func SetJobPermission(content []byte, jobLine int, base []string, scope, level string) ([]byte, error) {
	ls := lines(content)
	if jobLine < 1 || jobLine > len(ls) {
		return nil, fmt.Errorf("%w: job line %d", ErrShape, jobLine)
	}
	jobInd := indentOf(ls[jobLine-1])
	end, childInd := len(ls), ""
	for i := jobLine; i < len(ls); i++ {
		l := ls[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		ind := indentOf(l)
		if len(ind) <= len(jobInd) {
			end = i
			break
		}
		if childInd == "" {
			childInd = ind
		}
	}
	if childInd == "" {
		return nil, fmt.Errorf("%w: the job has no keys", ErrShape)
	}
	for i := jobLine; i < end; i++ {
		l := ls[i]
		if indentOf(l) != childInd || !strings.HasPrefix(strings.TrimSpace(l), "permissions:") {
			continue
		}
		if v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "permissions:")); v != "" && !strings.HasPrefix(v, "#") {
			return nil, fmt.Errorf("%w: the job's permissions are %q, not a map", ErrShape, v)
		}
		inner := ""
		for j := i + 1; j < end; j++ {
			if strings.TrimSpace(ls[j]) == "" {
				continue
			}
			ind := indentOf(ls[j])
			if len(ind) <= len(childInd) {
				break
			}
			if inner == "" {
				inner = ind
			}
			if k, _, ok := strings.Cut(strings.TrimSpace(ls[j]), ":"); ok && k == scope {
				out := append([]string{}, ls...)
				out[j] = inner + scope + ": " + level
				return join(out), nil
			}
		}
		if inner == "" {
			inner = childInd + "  "
		}
		out := append(append(append([]string{}, ls[:i+1]...), inner+scope+": "+level), ls[i+1:]...)
		return join(out), nil
	}
	block := []string{childInd + "permissions:"}
	for _, b := range base {
		block = append(block, childInd+"  "+b)
	}
	block = append(block, childInd+"  "+scope+": "+level)
	out := append(append(append([]string{}, ls[:jobLine]...), block...), ls[jobLine:]...)
	return join(out), nil
}
