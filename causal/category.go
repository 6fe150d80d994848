package causal

// Category is a mechanism category (contracts.md §2). Everything said about
// a category lives in one row of the categories table below, so adding a
// category is one row (and a check in TestEveryCategory).
type Category string

// Mechanism categories (contracts.md §2).
const (
	RolloutRace        Category = "rollout-race"
	Ordering           Category = "ordering"
	TransientNetwork   Category = "transient-network"
	RateLimit          Category = "rate-limit"
	ResourceExhaustion Category = "resource-exhaustion"
	Timeout            Category = "timeout"
	PortConflict       Category = "port-conflict"
	Dependency         Category = "dependency"
	Credentials        Category = "credentials"
	TestFailure        Category = "test-failure"
	BuildFailure       Category = "build-failure"
	Unknown            Category = "unknown"
)

// categoryInfo is what Polylane says about a category.
type categoryInfo struct {
	// Plain names the category in a few words, without an article
	// ("fixed port that is already taken").
	Plain string
	// Clause says what happened as a clause ("a fixed port was already in
	// use"), for explanations and the narrator's facts.
	Clause string
	// Words are plain words that say the category: a narrated wording
	// must use the category's name or one of them.
	Words []string
	// Literal is set when the category's name reads as a claim wherever it
	// appears in a wording (plain words such as "timeout" do not).
	Literal bool
	// NoPatch says why no patch is proposed when the matched rule has no
	// fix shape ("" for the generic sentence).
	NoPatch string
}

// categories describes every category but Unknown.
var categories = map[Category]categoryInfo{
	RolloutRace: {Plain: "readiness gate that passes while a rollout is still under way",
		Clause:  "a readiness gate passed while a rollout or restart was still under way, so a later call hit a restarting server",
		Words:   []string{"rollout", "roll out", "rolling out", "rolls out", "rolled out", "restart"},
		Literal: true},
	Ordering: {Plain: "resource that is used or awaited before it exists or is ready",
		Clause: "a resource was used or waited on before it existed or was ready",
		Words:  []string{"order", "before it exist", "before they exist", "not yet ready", "not ready", "before it was ready", "before they were ready", "not exist yet", "did not exist"}},
	TransientNetwork: {Plain: "transient network error on a call that nothing retries",
		Clause:  "a transient network error on a call that nothing retries",
		Words:   []string{"network", "connection", "transient", "reset by peer", "econnreset", "dns"},
		Literal: true},
	RateLimit: {Plain: "remote service that rate-limits the job",
		Clause:  "a remote service rate-limited the job",
		Words:   []string{"rate limit", "rate-limit", "rate-limited", "throttl", "too many requests"},
		Literal: true},
	ResourceExhaustion: {Plain: "runner that runs out of memory, disk, processes or file watches",
		Clause:  "the runner ran out of memory, disk, processes or file watches",
		Words:   []string{"memory", "disk", "out of space", "exhaust", "oom", "file watch", "processes", "inotify"},
		Literal: true},
	Timeout: {Plain: "step or command that runs out of time",
		Clause: "a step or command ran out of time",
		Words:  []string{"timeout", "timed out", "time out", "times out", "ran out of time", "deadline", "time limit"}},
	PortConflict: {Plain: "fixed port that is already taken",
		Clause:  "a fixed port was already in use",
		Words:   []string{"port conflict", "port in use", "port is in use", "port already", "port was taken", "port is taken", "same port", "already in use", "address in use", "bind"},
		Literal: true},
	Dependency: {Plain: "dependency that fails to resolve, pin or verify",
		Clause:  "a dependency failed to resolve, pin or verify",
		Words:   []string{"dependenc", "resolve", "resolution", "checksum", "pinn", "version"},
		NoPatch: "A dependency that no longer resolves needs a deliberate pin or upgrade; Polylane proposes no patch rather than choose versions."},
	Credentials: {Plain: "credential that is missing or refused",
		Clause:  "a credential was missing or refused",
		Words:   []string{"credential", "token", "auth", "permission", "unauthori", "forbidden", "login", "secret"},
		NoPatch: "Missing credentials or permissions are a configuration decision for the repository's owners (which secret, which token scope); Polylane proposes no patch."},
	TestFailure: {Plain: "test that fails", Clause: "a test failed", Words: []string{"test"}, Literal: true},
	BuildFailure: {Plain: "build that fails", Clause: "the build failed", Words: []string{"build", "compil"}, Literal: true,
		NoPatch: "A build error is fixed in the code; Polylane proposes no harness patch."},
}

// Categories lists the known categories in the contract's order, Unknown
// last.
func Categories() []Category {
	return []Category{RolloutRace, Ordering, TransientNetwork, RateLimit, ResourceExhaustion, Timeout,
		PortConflict, Dependency, Credentials, TestFailure, BuildFailure, Unknown}
}

// Known reports whether c names a mechanism (not empty, not Unknown).
func (c Category) Known() bool { _, ok := categories[c]; return ok }

// Plain describes the category in a few plain words, without an article;
// an unknown category reads as "mechanism Polylane could not name".
func (c Category) Plain() string {
	if i, ok := categories[c]; ok {
		return i.Plain
	}
	return "mechanism Polylane could not name"
}

// Clause says as a clause what happened in a failure of the category.
func (c Category) Clause() string {
	if i, ok := categories[c]; ok {
		return i.Clause
	}
	return "Polylane could not name the mechanism"
}

// Words are the plain words that say the category.
func (c Category) Words() []string { return categories[c].Words }

// Literal reports whether the category's name reads as a claim wherever it
// appears in a wording.
func (c Category) Literal() bool { return categories[c].Literal }

// PlainMechanism describes a mechanism category in a few plain words ("fixed
// port that is already taken"), without an article; an unknown category
// reads as "mechanism Polylane could not name".
func PlainMechanism(c Category) string { return c.Plain() }

// noPatchNote says why no patch is proposed for a category whose rule has no
// fix shape.
func noPatchNote(c Category) string {
	if n := categories[c].NoPatch; n != "" {
		return n
	}
	return "No fix shape fits this mechanism; Polylane proposes no patch."
}
