package history

import (
	"cmp"
	"fmt"
	"strings"
	"unicode"
)

// Cadence says how often the trigger's class happens, in words built from the
// data: "5 provisioning failures in the last 100 main E2E runs (2026-10-07 to
// 2026-11-04)". The noun comes from the step name (see StepNoun); when none can
// be derived the sentence names the step: "3 failures in “Run ./ci.sh” in ...".
func Cadence(count int, step, workflow string, w Window) string {
	what := plural(count, "failure", "failures")
	if noun := StepNoun(step); noun != "" {
		what = noun + " " + what
	} else if step != "" {
		what += " in “" + step + "”"
	}
	scope := strings.TrimSpace(strings.Join([]string{w.Branch, WorkflowNoun(workflow)}, " "))
	if scope != "" {
		scope += " "
	}
	return fmt.Sprintf("%d %s in the last %d %s%s (%s)", count, what, w.Runs, scope, plural(w.Runs, "run", "runs"), dateRange(w))
}

func dateRange(w Window) string {
	from, to := w.From.UTC().Format("2006-01-02"), w.To.UTC().Format("2006-01-02")
	if from == to {
		return "on " + from
	}
	return from + " to " + to
}

// ciVerbs are verbs that open CI step names. A step opening with one of them
// is named by its gerund ("provisioning") or, with a one-word object, by
// object and verb ("dependency install").
var ciVerbs = map[string]bool{
	"install": true, "build": true, "compile": true, "test": true, "lint": true, "check": true,
	"deploy": true, "provision": true, "publish": true, "upload": true, "download": true,
	"fetch": true, "pull": true, "push": true, "login": true, "configure": true, "prepare": true,
	"generate": true, "verify": true, "validate": true, "bootstrap": true, "cache": true,
	"restore": true, "save": true, "clone": true, "package": true, "release": true, "sign": true,
	"scan": true, "format": true, "apply": true, "migrate": true, "seed": true, "create": true,
	"start": true, "launch": true, "wait": true, "boot": true, "init": true, "initialize": true,
	"upgrade": true, "update": true, "sync": true, "render": true, "bundle": true, "archive": true,
	"analyze": true, "analyse": true, "audit": true, "benchmark": true, "clean": true,
	"destroy": true, "teardown": true, "collect": true, "export": true, "import": true,
	"merge": true, "tag": true, "resolve": true, "mount": true, "authenticate": true,
	"provide": true, "spin": true, "bring": true, "tear": true, "deliver": true, "smoke": true,
	"typecheck": true, "vet": true, "measure": true, "profile": true, "preview": true,
}

// verbNouns are CI verbs whose noun is another word: "Migrate database" is
// named "database migration", "Verify" "verification".
var verbNouns = map[string]string{
	"migrate": "migration", "initialize": "initialization", "verify": "verification", "validate": "validation",
	"configure": "configuration", "prepare": "preparation", "compile": "compilation", "generate": "generation",
	"authenticate": "authentication", "analyze": "analysis", "analyse": "analysis", "provision": "provisioning",
	"publish": "publishing", "deliver": "delivery", "create": "creation",
}

// nounVerbs are CI verbs that are nouns as they stand ("Build" -> "build").
var nounVerbs = map[string]bool{
	"install": true, "build": true, "test": true, "lint": true, "check": true, "deploy": true, "upload": true,
	"download": true, "fetch": true, "pull": true, "push": true, "login": true, "cache": true, "restore": true,
	"clone": true, "release": true, "scan": true, "start": true, "launch": true, "boot": true, "upgrade": true,
	"update": true, "sync": true, "bundle": true, "audit": true, "benchmark": true, "export": true, "import": true,
	"merge": true, "typecheck": true, "smoke": true, "init": true, "seed": true, "preview": true,
}

// runnerSteps are the steps the runner adds to every job.
var runnerSteps = map[string]string{"set up job": "job set-up", "complete job": "job completion"}

// genericVerbs say nothing about what a step does ("Run X", "Set up X").
var genericVerbs = map[string]bool{
	"run": true, "execute": true, "exec": true, "do": true, "perform": true, "invoke": true,
	"call": true, "use": true, "set": true, "setup": true, "get": true, "make": true, "step": true,
}

// StepNoun derives a short noun for a step name: the gerund of a CI verb
// ("Provision Kind + Karmada environment" -> "provisioning"), object and noun
// for a one-word object ("Install dependencies" -> "dependency install",
// "Migrate database" -> "database migration"), the verb's noun alone
// ("Build" -> "build", "Verify" -> "verification"), or a
// short noun phrase in the singular ("Unit tests" -> "unit test", "Run Chainsaw
// e2e suites" -> "Chainsaw e2e suite"). It returns "" when no good noun can be
// derived (commands, paths, long names).
func StepNoun(step string) string {
	if noun, ok := runnerSteps[strings.ToLower(strings.TrimSpace(step))]; ok {
		return noun
	}
	words := strings.Fields(step)
	if len(words) == 0 {
		return ""
	}
	first := strings.ToLower(words[0])
	if ciVerbs[first] {
		noun := verbNouns[first]
		if noun == "" && nounVerbs[first] {
			noun = first
		}
		switch {
		case len(words) == 1 && noun != "":
			return noun
		case len(words) == 2 && plainWord(words[1]):
			return caseWord(singular(words[1]), 1) + " " + cmp.Or(noun, first)
		}
		return gerund(first)
	}
	rest, offset := words, 0
	if genericVerbs[first] {
		rest, offset = words[1:], 1
		if len(rest) > 0 && strings.EqualFold(rest[0], "up") {
			rest, offset = rest[1:], 2
		}
	}
	if len(rest) == 0 || len(rest) > 3 {
		return ""
	}
	out := make([]string, len(rest))
	for i, w := range rest {
		if !plainWord(w) {
			return ""
		}
		if i == len(rest)-1 {
			w = singular(w)
		}
		out[i] = caseWord(w, i+offset)
	}
	return strings.Join(out, " ")
}

// plainWord accepts words of letters, digits and inner hyphens.
func plainWord(w string) bool {
	if w == "" || w[0] == '-' || w[len(w)-1] == '-' {
		return false
	}
	for _, c := range w {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '-' {
			return false
		}
	}
	return true
}

// caseWord lower-cases a sentence-case word at the start of the step name and
// keeps proper nouns and acronyms elsewhere.
func caseWord(w string, pos int) string {
	upper := 0
	for _, c := range w {
		if unicode.IsUpper(c) {
			upper++
		}
	}
	if upper == 0 || pos == 0 && upper == 1 && unicode.IsUpper([]rune(w)[0]) {
		return strings.ToLower(w)
	}
	return w
}

// singular turns a regular English plural into its singular.
func singular(w string) string {
	lower := strings.ToLower(w)
	switch {
	case len(w) > 4 && strings.HasSuffix(lower, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(lower, "sses"), strings.HasSuffix(lower, "ches"), strings.HasSuffix(lower, "shes"), strings.HasSuffix(lower, "xes"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(lower, "s") && !strings.HasSuffix(lower, "ss") && !strings.HasSuffix(lower, "us") && !strings.HasSuffix(lower, "is"):
		return w[:len(w)-1]
	}
	return w
}

// gerund forms the -ing form of a verb with the regular spelling rules.
func gerund(v string) string {
	switch {
	case strings.HasSuffix(v, "ie"):
		return v[:len(v)-2] + "ying"
	case strings.HasSuffix(v, "e") && !strings.HasSuffix(v, "ee") && !strings.HasSuffix(v, "ye") && !strings.HasSuffix(v, "oe") && len(v) > 2:
		return v[:len(v)-1] + "ing"
	case shortCVC(v):
		return v + v[len(v)-1:] + "ing"
	}
	return v + "ing"
}

// shortCVC reports a one-syllable word ending consonant-vowel-consonant whose
// last consonant doubles before -ing (run, set, scan, tag).
func shortCVC(v string) bool {
	if len(v) < 3 || len(v) > 4 {
		return false
	}
	vowel := func(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }
	n := len(v)
	last := v[n-1]
	if vowel(last) || last == 'w' || last == 'x' || last == 'y' || !vowel(v[n-2]) || vowel(v[n-3]) {
		return false
	}
	return n == 3 || !vowel(v[0])
}

// WorkflowNoun shortens a workflow name for the cadence sentence by dropping a
// trailing generic word ("E2E Tests" -> "E2E", "Release workflow" -> "Release").
func WorkflowNoun(name string) string {
	words := strings.Fields(name)
	if len(words) > 1 {
		switch strings.ToLower(words[len(words)-1]) {
		case "tests", "test", "workflow", "pipeline", "checks":
			switch strings.ToLower(words[len(words)-2]) {
			case "and", "&", "+", "/", "-", "or":
			default:
				words = words[:len(words)-1]
			}
		}
	}
	return strings.Join(words, " ")
}
