package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// resolveProducer picks the producer for the matched rule's role.
//
// With no rule, the producer is the command that printed the cause line,
// when the log located it without doubt: where the failing command is
// issued is where a reader starts.
func (x *explainer) resolveProducer() {
	if x.regression() {
		return
	}
	if x.rule == nil {
		if x.em.Node != nil && !x.em.Ambiguous {
			x.producer = liftOutOfPackage(x.em.Node)
		}
		return
	}
	switch x.rule.Producer {
	case roleGate:
		x.producer = x.find.Gate
	case roleTrigger:
		x.producer = x.find.Trigger
	case roleInstall:
		x.producer = x.find.Install
	case roleEmitter, roleLimit, roleHeap:
		x.producer = x.em.Node
	case roleRunner:
		x.producer = liftOutOfBuild(x.em.Node)
	}
	x.producer = liftOutOfPackage(x.producer)
}

// liftOutOfBuild returns, for a command inside an image build's RUN
// instruction or a Compose service's command, the command on the runner
// that builds or starts it.
func liftOutOfBuild(n *harness.Node) *harness.Node {
	for x := n; x != nil; x = x.Parent {
		if x.Kind != harness.NodeDockerfile && x.Kind != harness.NodeService {
			continue
		}
		for p := x.Parent; p != nil; p = p.Parent {
			if p.Kind == harness.NodeCommand || p.Kind == harness.NodeStep {
				return liftOutOfBuild(p)
			}
		}
	}
	return n
}

// liftOutOfPackage returns, for a command inside a package.json script, the
// harness command that runs that script: package.json is part of the
// product, and the CI-side call is where the harness decides how it runs.
func liftOutOfPackage(n *harness.Node) *harness.Node {
	if n == nil || n.Nearest(harness.NodePackage) == nil {
		return n
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Kind == harness.NodeCommand && p.Nearest(harness.NodePackage) == nil {
			return p
		}
	}
	return n
}

// producerOf returns the chain's producer entry.
func (x *explainer) producerOf() Producer {
	if x.regression() {
		if o, ok := x.outgrownLimit(); ok {
			return o.Producer
		}
		return Producer{}
	}
	if x.rule != nil && x.rule.Producer == roleLimit {
		if v, what := x.timeLimit(); v.Line > 0 {
			return Producer{File: x.wf.Path, Line: v.Line, Symbol: what}
		}
	}
	if p, ok := x.dockerRunProducer(); ok {
		return p
	}
	if x.rule != nil && x.rule.Producer == roleHeap {
		if p, ok := x.heapProducer(); ok {
			return p
		}
	}
	if x.rule != nil && x.rule.Producer == roleInstall && x.find.Service != nil {
		s := x.find.Service
		return Producer{File: x.wf.Path, Line: s.Line, Symbol: "services." + s.Name}
	}
	if n := x.producer; n != nil {
		p := Producer{File: n.File, Line: n.Line, Symbol: symbolOf(n), Gap: gapOf(n)}
		if n == x.em.Node && x.em.Ambiguous {
			p.Ambiguous = true
			for _, c := range x.em.Candidates {
				p.Candidates = append(p.Candidates, Location{File: c.File, Line: c.Line, Symbol: symbolOf(c)})
			}
		}
		return p
	}
	if x.rule != nil && x.rule.Producer == roleStep && x.step == nil && x.job != nil {
		for _, s := range x.job.Steps {
			if retiredAction.MatchString(s.Uses) {
				return Producer{File: x.wf.Path, Line: s.UsesLine, Symbol: s.DisplayName()}
			}
		}
	}
	if s := x.serviceInCause(); s != nil && x.step == nil {
		return Producer{File: x.wf.Path, Line: s.Line, Symbol: "services." + s.Name}
	}
	if x.step != nil && x.wf != nil {
		line := x.step.Line
		if x.step.RunKeyLine > 0 {
			line = x.step.RunKeyLine
		}
		return Producer{File: x.wf.Path, Line: line, Symbol: x.step.DisplayName(), Gap: gapOf(x.tree)}
	}
	return Producer{}
}

// gapOf says why the trace could not go below n: n's own note, the note
// of a file n calls that yielded no commands (missing, unparseable, cut),
// or that n's script was reached only from the log.
func gapOf(n *harness.Node) string {
	if n == nil {
		return ""
	}
	if n.Note != "" {
		return n.Note
	}
	for _, c := range n.Children {
		if c.Kind != harness.NodeCommand && c.Note != "" && len(descendants(c)) == 0 {
			return c.Note
		}
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if strings.HasPrefix(p.Note, "reached from the log") {
			return p.Symbol + " was " + p.Note
		}
	}
	return ""
}

// serviceInCause returns the job's service container whose image the
// failure texts name (or the only service), for failures outside any step.
func (x *explainer) serviceInCause() *harness.Service {
	if x.job == nil || len(x.job.Services) == 0 {
		return nil
	}
	// The service whose image the line nearest before the cause names.
	best, bestN := (*harness.Service)(nil), -1
	for _, s := range x.job.Services {
		img := s.Image.Text
		if img == "" {
			continue
		}
		for _, t := range x.texts {
			n := t.Line.N
			if x.cause.N > 0 && n > x.cause.N {
				n = -n // after the cause: only when nothing before names one
			}
			if strings.Contains(t.Line.Text, img) && (best == nil || n > bestN) {
				best, bestN = s, n
			}
		}
	}
	if best != nil {
		return best
	}
	if len(x.job.Services) == 1 {
		return x.job.Services[0]
	}
	return nil
}

// describe names a command for sentences: "`kubectl apply` in
// hack/e2e/patch-cluster-secret.sh (line 22)".
func describe(n *harness.Node) string {
	if n == nil {
		return "the failing step"
	}
	what := commandName(n)
	where := n.File
	if u := unitOf(n); u != nil && u.Kind != harness.NodeScript {
		where = fmt.Sprintf("%s %s", kindWord(u), u.Symbol)
		return fmt.Sprintf("`%s` in %s (%s:%d)", what, where, n.File, n.Line)
	}
	return fmt.Sprintf("`%s` in %s (line %d)", what, where, n.Line)
}

func kindWord(n *harness.Node) string {
	switch n.Kind {
	case harness.NodeTask:
		return "task"
	case harness.NodeTarget:
		return "make target"
	case harness.NodeJustRecipe:
		return "just recipe"
	case harness.NodeInstruction:
		return "the RUN instruction of build stage"
	case harness.NodeService:
		return "Compose service"
	case harness.NodePackage:
		return "package script"
	case harness.NodeStep:
		return "step"
	}
	return n.Kind
}

// commandName is the program and subcommand of a command, as the reader
// would say it ("kubectl apply", "npm ci").
func commandName(n *harness.Node) string {
	tool := n.Tool()
	if tool == "" {
		return firstLineOf(n.Text)
	}
	sc := subcommand(n)
	if sc == "" || len(sc) >= 30 || containsAny(sc, "{}$/=") || !withSubcommands[tool] {
		return tool
	}
	if nestedGroups[sc] {
		if next := argAfter(n, sc); next != "" && len(next) < 30 && !containsAny(next, "{}$/=.") {
			return tool + " " + sc + " " + next
		}
	}
	return tool + " " + sc
}

// withSubcommands are programs whose first argument is a subcommand.
var withSubcommands = map[string]bool{
	"kubectl": true, "oc": true, "karmadactl": true, "helm": true, "helmfile": true, "kustomize": true, "kind": true,
	"k3d": true, "minikube": true, "docker": true, "podman": true, "docker-compose": true, "buildah": true,
	"git": true, "gh": true, "go": true, "npm": true, "yarn": true, "pnpm": true, "bun": true, "npx": true,
	"pip": true, "pip3": true, "poetry": true, "uv": true, "pipenv": true, "mvn": true, "mvnw": true, "gradle": true,
	"gradlew": true, "cargo": true, "dotnet": true, "composer": true, "bundle": true, "gem": true, "terraform": true,
	"tofu": true, "apt-get": true, "apt": true, "brew": true, "aws": true, "gcloud": true, "az": true, "task": true,
	"make": true, "gmake": true, "skaffold": true, "tilt": true, "flux": true, "argocd": true, "vault": true,
	"ginkgo": true, "playwright": true, "cypress": true, "clusterctl": true, "chainsaw": true, "kuttl": true,
}

// nestedGroups are subcommands that take a subcommand of their own.
var nestedGroups = map[string]bool{"mod": true, "repo": true, "rollout": true, "compose": true, "config": true,
	"dependency": true, "buildx": true, "cluster": true, "image": true, "container": true, "secret": true, "run": true}

// argAfter returns the first non-flag argument after word.
func argAfter(n *harness.Node, word string) string {
	args := n.EffectiveArgs()
	for i, a := range args {
		if a != word {
			continue
		}
		for _, b := range args[i+1:] {
			if !strings.HasPrefix(b, "-") {
				return b
			}
		}
		return ""
	}
	return ""
}

func containsAny(s, chars string) bool {
	for _, c := range chars {
		for _, d := range s {
			if c == d {
				return true
			}
		}
	}
	return false
}

// outgrown is the limit of the harness that a change outgrew: from a
// commit on, every run is killed for memory or stopped by a time bound, so
// the change made the job need more than the harness gives it. The limit
// (the runner's memory, chosen by runs-on; a wait's bound on its command)
// is the harness's side of that, and maintainers answer it there as often
// as in the code (broadinstitute/gene-hints moved a job to a runner with
// more memory; sfbrigade/datasci-earthquake raised a compose wait). The
// choice is theirs, so no patch goes with it.
type outgrown struct {
	Producer Producer
	// what the change now needs more of, the limit as written, and why the
	// change itself may be wrong
	need, limit, doubt string
}

func (x *explainer) outgrownLimit() (outgrown, bool) {
	if x.rule == nil || x.wf == nil {
		return outgrown{}, false
	}
	switch {
	case x.rule.ID == ruleOOM.ID && x.job != nil && x.job.RunsOnLine > 0:
		return outgrown{Producer: Producer{File: x.wf.Path, Line: x.job.RunsOnLine, Symbol: "runs-on: " + x.job.RunsOn},
			need: "memory", doubt: "more memory may be a leak", limit: fmt.Sprintf("its runner (`runs-on: %s`, %s:%d)", x.job.RunsOn, x.wf.Path, x.job.RunsOnLine)}, true
	case x.rule.Category == Timeout && x.em.Node != nil && !x.em.Ambiguous:
		// the bound is on the command that waits: the emitter, or the
		// command above it that started what it waits for (compose's
		// --wait-timeout above a service's command)
		var n *harness.Node
		word := ""
		for c := x.em.Node; c != nil && word == ""; c = c.Parent {
			if c.Kind == harness.NodeCommand {
				if w, _ := timeoutFlag(c); w != "" {
					n, word = c, w
				}
			}
		}
		if n == nil {
			return outgrown{}, false
		}
		return outgrown{Producer: Producer{File: n.File, Line: n.Line, Symbol: symbolOf(n)},
			need: "time", doubt: "a slower start may be a bug", limit: fmt.Sprintf("the bound `%s` of `%s` (%s:%d)", word, commandName(n), n.File, n.Line)}, true
	}
	return outgrown{}, false
}
