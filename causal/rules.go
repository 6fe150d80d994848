package causal

import (
	"regexp"
)

// Producer roles: which harness code a rule names as the producer.
const (
	roleEmitter = "emitter" // the command that printed the cause line
	roleGate    = "gate"    // the readiness gate that passed too early
	roleTrigger = "trigger" // the command that started a rollout nobody waited for
	roleInstall = "install" // the install or start nobody waited for
	roleService = "service" // a workflow service container
	roleStep    = "step"    // the workflow step itself
	roleLimit   = "limit"   // the time limit the run reached
	roleHeap    = "heap"    // the heap setting the JVM ran into
	roleNone    = "none"    // no harness producer (a product regression)
)

// rule is one mechanism rule. Rules are tried in order: specific causes
// above generic ones. A rule matches when one of its Cause patterns matches a
// failure text (only the cause lines unless Wide is set), none of its Not
// patterns does, every group of Events has an event before the cause, the
// endpoint condition holds and its harness predicate (if any) holds.
type rule struct {
	ID        string
	Category  string
	Catalogue int
	Cause     []*regexp.Regexp
	Not       []*regexp.Regexp
	Wide      bool
	// Generic marks a wrapper rule (a test failed, the build failed) that is
	// tried only after every specific rule had its chance on all texts.
	Generic  bool
	Events   [][]string
	Endpoint string
	Harness  string
	// Verdicts restricts the rule to these verdict kinds (any when empty).
	Verdicts []string
	Producer string
	Fix      string
	// Summary is the mechanism sentence; {placeholders} are filled from the
	// facts (see fillSummary).
	Summary string
}

func res(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(p)
	}
	return out
}

// Endpoint conditions.
const (
	endpointLocal  = "local"
	endpointRemote = "remote"
)

var resetLike = []string{
	`(?i)connection reset by peer`, `\bECONNRESET\b`, `(?i)unexpected EOF`, `(?i)http2: client connection lost`,
	`(?i)TLS handshake timeout`, `(?i)connection refused`, `\bECONNREFUSED\b`, `Unable to connect to the server`,
	`The connection to the server \S+ was refused`, `(?i)\bEOF\b`, `(?i)i/o timeout`, `(?i)broken pipe`,
	`(?i)server closed idle connection`, `(?i)no route to host`,
}

// rules is the ordered rule set; see mechanisms.md for the numbers.
var rules = []rule{
	{ID: "rollout-race/gate-passed-on-old-pods", Category: RolloutRace, Catalogue: 9,
		Cause: res(resetLike...), Events: [][]string{{evWorkloadChanged, evPodDeleted, evRelease}, {evGatePassed}},
		Endpoint: endpointLocal, Harness: "gate-after-change", Producer: roleGate, Fix: "rollout-status",
		Summary: "{changer} changes the pod templates of {workloads}, so they roll out again{changes_cite}. The gate `{gate_cmd}` then passes at once{gate_cite}: a Deployment is Available while its old pods still serve, so the gate says nothing about the rollout. The next call, {emitter_desc}, reached {endpoint} while the server behind it was restarting and failed with '{cause_short}'{cause_cite}."},
	{ID: "rollout-race/no-wait-after-change", Category: RolloutRace, Catalogue: 9,
		Cause: res(resetLike...), Events: [][]string{{evWorkloadChanged, evPodDeleted, evRelease}},
		Endpoint: endpointLocal, Harness: "change-without-wait", Producer: roleTrigger, Fix: "rollout-status",
		Summary: "{changer} restarts {workloads}{changes_cite} and nothing waits for the rollout to finish. The next call, {emitter_desc}, reached {endpoint} while the pods were being replaced and failed with '{cause_short}'{cause_cite}."},
	{ID: "resource-exhaustion/jvm-heap", Category: ResourceExhaustion, Catalogue: 12, Wide: true,
		Cause: res(`(?i)\bjava heap space\b`, `JVM heap space is exhausted`, `GC overhead limit exceeded`, `OutOfMemoryError: Metaspace`,
			`java\.lang\.OutOfMemoryError`),
		Producer: roleHeap, Fix: "jvm-heap",
		Summary: "{emitter_desc} ran out of Java heap: '{cause_short}'{cause_cite}. {heap_note}"},
	{ID: "resource-exhaustion/oom", Category: ResourceExhaustion, Catalogue: 12, Wide: true,
		Cause: res(`exit code 137\b`, `^Killed$`, `signal: killed`, `OOMKilled`, `(?i)JavaScript heap out of memory`,
			`java\.lang\.OutOfMemoryError`, `fatal error: runtime: out of memory`, `Killed signal terminated program`,
			`(?i)Out of memory: Killed process`, `(?i)cannot allocate memory`, `Gradle build daemon disappeared unexpectedly`,
			`The runner has received a shutdown signal`, `lost communication with the server`,
			`(?i)CUDA out of memory`, `MemoryError`, `\(signal: 9, SIGKILL: kill\)`, `terminated with signal 9\b`,
			`(?i)\bsignal 9 \[Killed\]`),
		Producer: roleEmitter, Fix: "cap-parallelism",
		Summary: "{emitter_desc} ran out of memory on the runner and was killed: '{cause_short}'{cause_cite}. {parallel_note}"},
	{ID: "resource-exhaustion/disk", Category: ResourceExhaustion, Catalogue: 13, Wide: true,
		Cause:    res(`(?i)no space left on device`, `You are running out of disk space`, `\bENOSPC\b: no space`, `(?i)DiskPressure`, `ephemeral-storage`),
		Not:      res(`file watchers`),
		Producer: roleEmitter, Fix: "free-disk",
		Summary: "The runner's disk filled up while {emitter_desc} ran and the write failed with '{cause_short}'{cause_cite}. A hosted runner only guarantees about 14 GB free, and nothing in the job frees space before the heavy work."},
	{ID: "resource-exhaustion/inotify", Category: ResourceExhaustion, Catalogue: 28, Wide: true,
		Cause:    res(`System limit for number of file watchers reached`, `failed to create fsnotify watcher: too many open files`, `(?i)too many open files`),
		Producer: roleEmitter, Fix: "inotify",
		Summary: "{emitter_desc} exhausted the runner's inotify or open-file limits: '{cause_short}'{cause_cite}. The defaults are too low for what the job starts."},
	{ID: "port-conflict/address-in-use", Category: PortConflict, Catalogue: 27, Wide: true,
		Cause:    res(`(?i)address already in use`, `\bEADDRINUSE\b`, `port is already allocated`, `(?i)Only one usage of each socket address`, `Unable to listen on port \d+`),
		Producer: roleEmitter, Fix: "free-port",
		Summary: "{emitter_desc} could not bind its port because something else already held it: '{cause_short}'{cause_cite}. {port_note}"},
	{ID: "ordering/docker-daemon", Category: Ordering, Catalogue: 6, Wide: true,
		Cause:    res(`Cannot connect to the Docker daemon`, `Is the docker daemon running\?`, `dial unix /var/run/docker\.sock: connect`, `error during connect: .*docker`),
		Producer: roleEmitter, Fix: "docker-ready",
		Summary: "{emitter_desc} ran before the Docker daemon was reachable: '{cause_short}'{cause_cite}. Nothing in the harness waits for the daemon to answer first."},
	{ID: "rate-limit/registry", Category: RateLimit, Catalogue: 7, Wide: true,
		Cause:    res(`toomanyrequests`, `(?i)pull rate limit`, `(?i)429 Too Many Requests`, `(?i)status code 429`, `(?i)rate limit exceeded.*(docker|registry|pull)`),
		Producer: roleEmitter, Fix: "registry-auth",
		Summary: "{emitter_desc} hit the container registry's pull rate limit: '{cause_short}'{cause_cite}. The pull is anonymous, and anonymous pulls share a small quota per runner IP address."},
	{ID: "rate-limit/github-api", Category: RateLimit, Catalogue: 22, Wide: true,
		Cause:    res(`API rate limit exceeded`, `(?i)secondary rate limit`, `(?i)rate limit exceeded for`),
		Producer: roleEmitter, Fix: "github-token",
		Summary: "{emitter_desc} called the GitHub API without a token and hit the unauthenticated rate limit: '{cause_short}'{cause_cite}. That quota is shared by every job on the runner's IP address."},
	{ID: "dependency/image-moved", Category: Dependency, Catalogue: 7,
		Cause:    res(`manifest unknown`, `manifest for \S+ not found`, `k8s\.gcr\.io`, `repository does not exist or may require`),
		Producer: roleEmitter, Fix: "image-registry",
		Summary: "{emitter_desc} asked for an image the registry no longer serves: '{cause_short}'{cause_cite}. The reference points at a tag or registry that moved."},
	{ID: "dependency/deprecated-action", Category: Dependency, Catalogue: 16, Wide: true,
		Cause:    res(`uses a deprecated version of .actions/(upload|download)-artifact`, `deprecated version of .actions/[a-z-]+: v\d`),
		Producer: roleStep, Fix: "bump-action",
		Summary: "GitHub refused the step because the action version it uses is retired: '{cause_short}'{cause_cite}."},
	{ID: "ordering/dpkg-lock", Category: Ordering, Catalogue: 30, Wide: true,
		Cause:    res(`Could not get lock /var/lib/dpkg/lock`, `Unable to acquire the dpkg frontend lock`, `Could not get lock /var/lib/apt/lists/lock`),
		Producer: roleEmitter, Fix: "apt-lock",
		Summary: "{emitter_desc} ran while another apt process (usually unattended-upgrades on a fresh machine) held the package lock: '{cause_short}'{cause_cite}. apt does not wait for the lock by default."},
	{ID: "ordering/terraform-state-lock", Category: Ordering, Catalogue: 23,
		Cause:    res(`Error acquiring the state lock`, `ConditionalCheckFailedException`),
		Producer: roleEmitter, Fix: "state-lock",
		Summary: "{emitter_desc} could not take the state lock because another run held it: '{cause_short}'{cause_cite}. Terraform gives up at once unless told to wait."},
	{ID: "ordering/text-file-busy", Category: Ordering, Catalogue: 34,
		Cause:    res(`(?i)text file busy`, `\bETXTBSY\b`),
		Producer: roleEmitter, Fix: "retry-exec",
		Summary: "{emitter_desc} ran a binary that was still open for writing: '{cause_short}'{cause_cite}. The write and the exec race."},
	{ID: "build-failure/shallow-clone", Category: BuildFailure, Catalogue: 32,
		Cause:    res(`fatal: No names found, cannot describe anything`, `fatal: No tags can describe`, `fatal: ambiguous argument '[^']+': unknown revision`),
		Producer: roleEmitter, Fix: "fetch-depth",
		Summary: "{emitter_desc} needs git history or tags that the shallow checkout does not have: '{cause_short}'{cause_cite}. actions/checkout fetches a single commit by default."},
	{ID: "ordering/crd-not-established", Category: Ordering, Catalogue: 17,
		Cause:    res(`no matches for kind`, `ensure CRDs are installed first`, `resource mapping not found`, `the server doesn't have a resource type`),
		Producer: roleEmitter, Fix: "crd-wait",
		Summary: "{emitter_desc} used a custom resource before its CustomResourceDefinition was established: '{cause_short}'{cause_cite}. Nothing waits for the CRD in between."},
	{ID: "ordering/wait-before-create", Category: Ordering, Catalogue: 18,
		Cause:    res(`no matching resources found`, `Error from server \(NotFound\)`),
		Harness:  "emitter-is-wait",
		Producer: roleEmitter, Fix: "wait-for-create",
		Summary: "{emitter_desc} waited on objects that did not exist yet: '{cause_short}'{cause_cite}. `kubectl wait` fails at once when nothing matches instead of waiting for the objects to be created."},
	{ID: "ordering/not-yet-serving", Category: Ordering, Catalogue: 8,
		Cause: res(`failed calling webhook`, `no endpoints available for service`, `(?i)connection refused`, `\bECONNREFUSED\b`,
			`could not connect to server`, `(?i)Connection refused`, `(?i)the database system is starting up`),
		Endpoint: endpointLocal, Harness: "started-without-wait", Producer: roleInstall, Fix: "readiness",
		Summary: "{installer} starts {started} and the harness goes on without waiting until it serves{install_cite}. {emitter_desc} then reached {endpoint} before anything listened there and failed with '{cause_short}'{cause_cite}."},
	{ID: "ordering/conflict", Category: Ordering, Catalogue: 19,
		Cause:    res(`the object has been modified; please apply your changes`, `Operation cannot be fulfilled on`),
		Producer: roleEmitter, Fix: "retry",
		Summary: "{emitter_desc} wrote an object that a controller changed at the same time and lost the optimistic-concurrency check: '{cause_short}'{cause_cite}. The write is not retried."},
	{ID: "ordering/leftover-state", Category: Ordering, Catalogue: 11,
		Cause: res(`already exist for a cluster with the name`, `is already in use by container`, `cannot re-use a name that is still in use`,
			`another operation \(install/upgrade/rollback\) is in progress`, `because it is being terminated`),
		Producer: roleEmitter, Fix: "cleanup-first",
		Summary: "{emitter_desc} found state left over by an earlier or aborted run: '{cause_short}'{cause_cite}. The harness creates it without removing what may already exist."},
	{ID: "timeout/kind-create", Category: Timeout, Catalogue: 35, Wide: true,
		Cause: res(`failed to create cluster`, `failed to init node with kubeadm`, `timed out waiting for the condition`,
			`could not find a log line that matches`, `couldn't initialize a Kubernetes cluster`),
		Harness: "emitter-is-kind-create", Producer: roleEmitter, Fix: "kind-recreate",
		Summary: "{emitter_desc} could not bring the kind control plane up: '{cause_short}'{cause_cite}. kubeadm waited for the kubelet and the API server and gave up; on a busy runner the node containers can start too slowly, and kind deletes them after the failure."},
	{ID: "timeout/wait-too-short", Category: Timeout, Catalogue: 10, Wide: true,
		Cause: res(`timed out waiting for the condition`, `(INSTALLATION|UPGRADE) FAILED: (timed out|context deadline exceeded)`,
			`failed (pre|post)-install: timed out`, `timed out waiting for`, `context deadline exceeded`),
		Not:      res(`CrashLoopBackOff`),
		Producer: roleEmitter, Fix: "raise-timeout",
		Summary: "{emitter_desc} gave up after {timeout_value}: '{cause_short}'{cause_cite}. On a cold CI cluster that bound is too tight for images to pull and pods to start."},
	{ID: "timeout/go-test", Category: Timeout, Catalogue: 4, Wide: true,
		Cause:    res(`panic: test timed out after`),
		Producer: roleEmitter, Fix: "go-test-timeout",
		Summary: "{emitter_desc} ran past its test timeout and go test aborted it: '{cause_short}'{cause_cite}."},
	{ID: "timeout/job-limit", Category: Timeout, Catalogue: 4, Wide: true,
		Cause: res(`has exceeded the maximum execution time of \d+ minutes`, `The action '?.*'? has timed out after \d+ minutes`,
			`The operation was canceled`, `execution took longer than`),
		Producer: roleLimit, Fix: "raise-job-timeout",
		Summary: "The run reached its time limit and was cancelled while {emitter_desc} was running: '{cause_short}'{cause_cite}."},
	{ID: "resource-exhaustion/etcd-slow", Category: ResourceExhaustion, Catalogue: 24,
		Cause:    res(`etcdserver: request timed out`, `etcdserver: leader changed`, `apply request took too long`, `slow fdatasync`),
		Producer: roleEmitter, Fix: "",
		Summary: "The test cluster's etcd could not keep up with the runner's disk: '{cause_short}'{cause_cite}. Several clusters or heavy builds share one slow disk."},
	{ID: "credentials/certificate", Category: Credentials, Catalogue: 31,
		Cause:    res(`x509: certificate has expired or is not yet valid`, `SSL certificate problem`, `certificate verify failed`, `server certificate verification failed`),
		Not:      res(`failed calling webhook`),
		Producer: roleEmitter, Fix: "",
		Summary: "{emitter_desc} did not trust the server's certificate: '{cause_short}'{cause_cite}. The CA bundle, the certificate or the clock is wrong; turning verification off is not a fix."},
	{ID: "transient-network/apt", Category: TransientNetwork, Catalogue: 14,
		Cause: res(`Hash Sum mismatch`, `Mirror sync in progress`, `E: Failed to fetch`, `Some index files failed to download`,
			`Unable to fetch some archives`, `Temporary failure resolving`),
		Producer: roleEmitter, Fix: "apt-retries",
		Summary: "{emitter_desc} fetched from an apt mirror that answered inconsistently or not at all: '{cause_short}'{cause_cite}. apt tried only its default number of times."},
	{ID: "transient-network/fetch", Category: TransientNetwork, Catalogue: 3,
		Cause: append(res(resetLike...), res(`\bETIMEDOUT\b`, `\bEAI_AGAIN\b`, `ReadTimeoutError`, `Read timed out`,
			`Could not transfer artifact`, `Transfer failed for`, `Could not (GET|HEAD) '?https?://`,
			`Client\.Timeout exceeded`, `Could not resolve host`, `Temporary failure in name resolution`,
			`no such host`, `server misbehaving`, `curl: \((6|7|18|28|35|52|56)\)`, `SSL_ERROR_SYSCALL`,
			`transfer closed with outstanding read data`, `the remote end hung up unexpectedly`, `early EOF`,
			`RPC failed`, `HTTP/2 stream \d+ was not closed cleanly`, `\b(502 Bad Gateway|503 Service Unavailable|504 Gateway Time-?out)\b`,
			`npm ERR! network`, `(?i)network request to .* failed`, `Retrying \(Retry\(total=`, `Connection aborted`,
			`received unexpected HTTP status: 5\d\d`, `(?i)\b(500|502|503|504)\b.*(registry|proxy|repository)`,
			`reading https://proxy\.golang\.org`, `verifying module:`, `Failed to download archive`,
			`The requested URL returned error: 5\d\d`, `Empty reply from server`, `Failed to connect to \S+ port \d+`,
			`(?i)error: RPC failed`, `(?i)Connection timed out`, `(?i)Network is unreachable`,
			`error NU1301:`, `Unable to load the service index for source`)...),
		Endpoint: endpointRemote, Producer: roleEmitter, Fix: "network-retry",
		Summary: "{emitter_desc} fetched from {endpoint} and the transfer failed with a transient network error: '{cause_short}'{cause_cite}. {retry_note}"},
	{ID: "transient-network/local", Category: TransientNetwork, Catalogue: 2,
		Cause: res(resetLike...), Producer: roleEmitter, Fix: "network-retry",
		Summary: "{emitter_desc} lost its connection to {endpoint} with '{cause_short}'{cause_cite}, and the log shows no restart the harness caused. {retry_note}"},
	{ID: "credentials/denied", Category: Credentials, Catalogue: 5,
		Cause: res(`Resource not accessible by integration`, `Bad credentials`, `HttpError: 40[13]`, `unauthorized: authentication required`,
			`denied: requested access to the resource is denied`, `could not read Username`, `Input required and not supplied`,
			`Credentials could not be loaded`, `\b401 Unauthorized\b`, `\b403 Forbidden\b`, `required env var \S+ is not set`,
			`(?i)permission denied \(publickey\)`, `invalid reference format`, `(?i)authentication failed`,
			`(?i)username and password required`, `Cannot perform an interactive login from a non TTY device`,
			`unauthorized: incorrect username or password`),
		Producer: roleEmitter, Fix: "",
		Summary: "{emitter_desc} was refused for lack of credentials or permissions: '{cause_short}'{cause_cite}. A secret, token scope or variable the step needs is missing in this context.{secret_note}"},
	{ID: "dependency/resolution", Category: Dependency, Catalogue: 15,
		Cause: res(`npm ERR! code ERESOLVE`, `npm error code ERESOLVE`, `ERR_PNPM_`, `Could not find a version that satisfies`, `No matching distribution found`,
			`ResolutionImpossible`, `go: \S+ requires go >=`, `cannot import name`, `checksum mismatch`, `SECURITY ERROR`,
			`\bEINTEGRITY\b`, `Could not resolve dependencies for project`, `version solving failed`, `(?i)command not found`,
			`deprecated version of .actions/(upload|download)-artifact`, `The engine "node" is incompatible`, `ModuleNotFoundError`),
		// pip says "from versions: none" when it could not reach the index at
		// all; the retries before it tell a network failure from a pin.
		Not:      res(`after connection broken by`, `Failed to establish a new connection`, `(?i)Network is unreachable`, `Temporary failure in name resolution`),
		Producer: roleEmitter, Fix: "",
		Summary: "{emitter_desc} could not resolve or run what it depends on: '{cause_short}'{cause_cite}. A version or tool it expects is not what the job got."},
	{ID: "test-failure/tests", Category: TestFailure, Catalogue: 1, Generic: true,
		Cause: res(`^--- FAIL: `, `^FAIL\s`, `^FAILED \S+`, `\bAssertionError\b`, `Tests:\s+\d+ failed`, `^\s*● `, `✕`,
			`Exceeded timeout of \d+ ?ms for a (test|hook)`, `Timeout of \d+ms exceeded`, `Test timeout of \d+ms exceeded`,
			`Timed out retrying after \d+ms`, `Tests run: \d+, Failures: [1-9]`, `\[FAILED\]`, `WARNING: DATA RACE`,
			`^panic: `, `(?i)^\s*\d+ failing$`, `\b\d+ failed, \d+ passed`, `=+ \d+ failed`, `expected .* (to|but) `, `Error: expect\(`,
			`^=== FAIL: `, `^DONE \d+ tests(, \d+ skipped)?, \d+ failures?`, `<<< (FAILURE|ERROR)!`, `There are test failures`,
			`AssertionFailedError`, `^\s*Failure/Error: `, `^\d+ examples?, [1-9]\d* failures?`, `^Failed examples:`,
			`^\d+ (tests|properties|doctests)(, \d+ \w+)*, [1-9]\d* failures?`, `^\s*FAILED\s+Tests\\`,
			`^test result: FAILED\.`, `error: test failed, to rerun pass`, `^thread '[^']+' panicked at `,
			`Timed out \d+ms waiting for expect\(`, `^\s*✘\s+\d+ \[`, `^\s*\d+\) \[[\w-]+\] › `),
		Producer: roleEmitter, Fix: "test-rerun",
		Summary: "A test failed in {emitter_desc}: '{cause_short}'{cause_cite}.{flaky_note}"},
	{ID: "build-failure/compile", Category: BuildFailure, Catalogue: 0, Generic: true,
		Cause: res(`^error\[E\d+\]: `, `:\d+:\d+: (fatal )?error: `, `\bundefined: `, `cannot find symbol`, `SyntaxError`, `error TS\d{4}:`,
			`(?i)compilation failed`, `error CS\d{4}:`, `BUILD FAILURE`, `\.go:\d+:\d+: `, `(?i)build failed`),
		Producer: roleEmitter, Fix: "",
		Summary: "The build in {emitter_desc} failed: '{cause_short}'{cause_cite}."},
}
