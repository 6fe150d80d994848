package causal

import "regexp"

// A mechanism rule says how one kind of failure happens. Each rule is a
// typed declaration in the file of its family (mech_*.go): the failure
// texts it recognises, the harness predicate it needs, the producer role it
// names, the fix shape it proposes and the values its summary sentence uses.
// rules lists them in the order they are tried. docs/architecture.md walks
// through adding one.

// role names which harness code a rule blames as the producer.
type role string

// Producer roles.
const (
	roleEmitter role = "emitter" // the command that printed the cause line
	roleGate    role = "gate"    // the readiness gate that passed too early
	roleTrigger role = "trigger" // the command that started a rollout nobody waited for
	roleInstall role = "install" // the install or start nobody waited for
	roleStep    role = "step"    // the workflow step itself
	roleLimit   role = "limit"   // the time limit the run reached
	roleHeap    role = "heap"    // the heap setting the JVM ran into
	// roleRunner is the command on the runner that used up a resource of
	// the runner: the emitter, or the image build or container it ran in.
	roleRunner role = "runner"
)

// endpointKind is a rule's condition on the endpoint the failure names.
type endpointKind string

// Endpoint conditions.
const (
	endpointAny    endpointKind = ""
	endpointLocal  endpointKind = "local"
	endpointRemote endpointKind = "remote"
)

// predicate is a harness condition a rule needs: it reports whether the
// harness and the log show the rule's shape, and what it found.
type predicate func(x *explainer) (finding, bool)

// summaryValue fills one {placeholder} of a rule's summary.
type summaryValue func(x *explainer) string

// rule is one mechanism rule. Rules are tried in order: specific causes
// above generic ones. A rule matches when one of its Cause patterns matches a
// failure text (only the cause lines unless Wide is set), none of its Not
// patterns does, every group of Events has an event before the cause, the
// endpoint condition holds and its harness predicate (if any) holds.
type rule struct {
	ID       string
	Category Category
	// Catalogue is the mechanism's number in ../shared/docs/mechanisms.md
	// (0: not catalogued there).
	Catalogue int
	Cause     []*regexp.Regexp
	Not       []*regexp.Regexp
	Wide      bool
	// Generic marks a wrapper rule (a test failed, the build failed) that is
	// tried only after every specific rule had its chance on all texts.
	Generic  bool
	Events   [][]string
	Endpoint endpointKind
	Harness  predicate
	// Verdicts restricts the rule to these verdict kinds (any when empty).
	Verdicts []string
	Producer role
	// Fix is the fix shape (nil: no harness patch fits the mechanism).
	Fix fixFunc
	// Transient marks a fix that only helps a failure that comes and goes
	// (a retry): it is not proposed for a failure that persists.
	Transient bool
	// Summary is the mechanism sentence; its {placeholders} are filled from
	// Values, then from the values every rule may use (commonValues).
	Summary string
	Values  map[string]summaryValue
	// Catalogued makes the rule also match the catalogue's families that
	// name it, and, for a category's catalogue rule (see catalogued), the
	// families of its category that name no rule.
	Catalogued bool
	// fallback marks a category's catalogue rule.
	fallback bool
	// ExplainsTests marks a mechanism that makes tests fail as a
	// consequence (the runner killed them for memory, the disk filled, the
	// Docker daemon or a registry refused their containers): it may hold on
	// a context line even when the failing tool reported a test failure.
	// Other specific rules then need a cause line of their own.
	ExplainsTests bool
	// Cases are the real-corpus cases whose miss led to the rule; the
	// benchmark's leave-one-repository-out run drops the rule for them.
	Cases []string
}

func res(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(p)
	}
	return out
}

// rules is the ordered rule set: specific mechanisms first, in the order
// that decides between rules matching the same line, then the generic
// wrappers.
var rules = []*rule{
	&ruleGatePassedOnOldPods, &ruleNoWaitAfterChange,
	&ruleJVMHeap, &ruleOOM, &ruleDisk, &ruleInotify,
	&ruleNodePortAllocated, &ruleAddressInUse,
	&ruleDockerDaemon,
	&ruleRegistryRateLimit, &ruleGitHubRateLimit, &ruleGitHubAnonymousScript,
	&ruleImageMoved, &ruleDeprecatedAction, &ruleArtifactNameCollision,
	&ruleDpkgLock, &ruleTerraformStateLock, &ruleTextFileBusy,
	&ruleShallowClone,
	&ruleCRDNotEstablished, &ruleWaitBeforeCreate, &ruleWebhookCANotInjected, &ruleNotYetServing, &ruleConflict, &ruleLeftoverState,
	&ruleKindCreate, &ruleWaitTooShort, &ruleGoTestTimeout, &ruleJobLimit,
	&ruleEtcdSlow,
	&ruleCertificate,
	&ruleAptStaleIndex, &ruleAptNetwork, &ruleFetchNetwork, &ruleLocalNetwork,
	&ruleDenied,
	&ruleResolution,
	&ruleCataloguedRateLimit, &ruleCataloguedResourceExhaustion, &ruleCataloguedTimeout,
	&ruleTests,
	&ruleCompile, &ruleCataloguedBuildFailure,
}

// RuleIDs lists the ids of the mechanism rules in the order they are tried.
func RuleIDs() []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.ID
	}
	return out
}
