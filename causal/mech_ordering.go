package causal

import "fmt"

// Mechanisms of ordering: a daemon, CRD, object or server used before it was there.

var ruleDockerDaemon = rule{ExplainsTests: true, ID: "ordering/docker-daemon", Category: Ordering, Catalogue: 6, Wide: true,
	// A socket the runner's user may not open ("connect: permission
	// denied") is a running daemon, not one that is late.
	Cause:    res(`Cannot connect to the Docker daemon`, `Is the docker daemon running\?`, `dial unix /var/run/docker\.sock: connect: (?:no such file or directory|connection refused)`, `error during connect: .*docker`),
	Producer: roleEmitter, Fix: fixDockerReady,
	Summary: "{emitter_desc} ran before the Docker daemon was reachable: '{cause_short}'{cause_cite}. Nothing in the harness waits for the daemon to answer first."}

// removedAPIVersion matches a built-in API version that Kubernetes stopped
// serving (1.16, 1.22, 1.25): a manifest that uses one is out of date, no
// CRD that is late.
const removedAPIVersion = `no matches for kind "\w+" in version "(?:extensions/v1beta1|apps/v1beta[12]|apiextensions\.k8s\.io/v1beta1|rbac\.authorization\.k8s\.io/v1beta1|admissionregistration\.k8s\.io/v1beta1|networking\.k8s\.io/v1beta1|policy/v1beta1|batch/v1beta1|autoscaling/v2beta[12]|storage\.k8s\.io/v1beta1|scheduling\.k8s\.io/v1beta1|certificates\.k8s\.io/v1beta1|coordination\.k8s\.io/v1beta1|discovery\.k8s\.io/v1beta1|events\.k8s\.io/v1beta1|flowcontrol\.apiserver\.k8s\.io/v1beta[12])"`

var ruleCRDNotEstablished = rule{ID: "ordering/crd-not-established", Category: Ordering, Catalogue: 17,
	Cause:    res(`no matches for kind`, `ensure CRDs are installed first`, `resource mapping not found`, `the server doesn't have a resource type`),
	Not:      res(removedAPIVersion),
	Producer: roleEmitter, Fix: fixCRDWait,
	Summary: "{emitter_desc} used a custom resource before its CustomResourceDefinition was established: '{cause_short}'{cause_cite}. Nothing waits for the CRD in between."}

var ruleWaitBeforeCreate = rule{ID: "ordering/wait-before-create", Category: Ordering, Catalogue: 18,
	Cause:    res(`no matching resources found`, `Error from server \(NotFound\)`),
	Harness:  emitterIsWait,
	Producer: roleEmitter, Fix: fixWaitForCreate,
	Summary: "{emitter_desc} waited on objects that did not exist yet: '{cause_short}'{cause_cite}. `kubectl wait` fails at once when nothing matches instead of waiting for the objects to be created."}

var ruleNotYetServing = rule{ID: "ordering/not-yet-serving", Category: Ordering, Catalogue: 8,
	Cause: res(`failed calling webhook`, `no endpoints available for service`, `(?i)connection refused`, `\bECONNREFUSED\b`,
		`could not connect to server`, `(?i)Connection refused`, `(?i)the database system is starting up`),
	Endpoint: endpointLocal, Harness: (*explainer).startedWithoutWait, Producer: roleInstall, Fix: fixReadiness,
	Summary: "{installer} starts {started} and the harness goes on without waiting until it serves{install_cite}. {emitter_desc} then reached {endpoint} before anything listened there and failed with '{cause_short}'{cause_cite}.",
	Values:  map[string]summaryValue{"installer": valueInstaller, "started": valueStarted, "install_cite": valueInstallCite}}

var ruleConflict = rule{ID: "ordering/conflict", Category: Ordering, Catalogue: 19,
	Cause:    res(`the object has been modified; please apply your changes`, `Operation cannot be fulfilled on`),
	Producer: roleEmitter, Fix: fixRetryEmitter, Transient: true,
	Summary: "{emitter_desc} wrote an object that a controller changed at the same time and lost the optimistic-concurrency check: '{cause_short}'{cause_cite}. The write is not retried."}

var ruleLeftoverState = rule{ID: "ordering/leftover-state", Category: Ordering, Catalogue: 11,
	Cause: res(`already exist for a cluster with the name`, `is already in use by container`, `cannot re-use a name that is still in use`,
		`another operation \(install/upgrade/rollback\) is in progress`, `because it is being terminated`),
	Producer: roleEmitter, Fix: fixCleanupFirst,
	Summary: "{emitter_desc} found state left over by an earlier or aborted run: '{cause_short}'{cause_cite}. The harness creates it without removing what may already exist."}

// Summary values of ordering/not-yet-serving: who started what.

func valueInstaller(x *explainer) string {
	if s := x.find.Service; s != nil {
		return fmt.Sprintf("The job's service container %q", s.Name)
	}
	return capitalize(describe(x.find.Install))
}

func valueStarted(x *explainer) string {
	if x.find.Service != nil {
		return "before the job's steps"
	}
	return "what the next commands use"
}

func valueInstallCite(x *explainer) string { return cite(x.ids["install"]...) }

// Harness predicates of the ordering rules.

func emitterIsWait(x *explainer) (finding, bool) {
	return finding{}, x.em.Node != nil && subcommand(x.em.Node) == "wait"
}
