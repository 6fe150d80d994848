package causal

// Mechanisms of resource exhaustion: memory, heap, disk, file watches and a slow etcd.

var ruleJVMHeap = rule{ExplainsTests: true, ID: "resource-exhaustion/jvm-heap", Category: ResourceExhaustion, Catalogue: 12, Wide: true,
	Cause: res(`(?i)\bjava heap space\b`, `JVM heap space is exhausted`, `GC overhead limit exceeded`, `OutOfMemoryError: Metaspace`,
		`java\.lang\.OutOfMemoryError`),
	Producer: roleHeap, Fix: fixJVMHeap,
	Summary: "{emitter_desc} ran out of Java heap: '{cause_short}'{cause_cite}. {heap_note}",
	Values:  map[string]summaryValue{"heap_note": valueHeapNote}}

var ruleOOM = rule{ExplainsTests: true, ID: "resource-exhaustion/oom", Category: ResourceExhaustion, Catalogue: 12, Wide: true, Catalogued: true,
	Cause: res(`exit code 137\b`, `^Killed$`, `signal: killed`, `OOMKilled`, `(?i)JavaScript heap out of memory`,
		`java\.lang\.OutOfMemoryError`, `fatal error: runtime: out of memory`, `Killed signal terminated program`,
		`(?i)Out of memory: Killed process`, `(?i)cannot allocate memory`, `Gradle build daemon disappeared unexpectedly`,
		`The runner has received a shutdown signal`, `lost communication with the server`,
		`(?i)CUDA out of memory`, `MemoryError`, `\(signal: 9, SIGKILL: kill\)`, `terminated with signal 9\b`,
		`(?i)\bsignal 9 \[Killed\]`,
		// the linker's output is written through mmap, so memory or disk
		// pressure surfaces as SIGBUS (alphaonedev/ai-memory-mcp#3453,
		// astrid-runtime/astrid#954, faiscadev/fakecloud#828)
		`\bld terminated with signal 7 \[Bus error\]`),
	Producer: roleEmitter, Fix: fixCapParallelism,
	Summary: "{emitter_desc} ran out of memory on the runner and was killed: '{cause_short}'{cause_cite}. {parallel_note}",
	Values:  map[string]summaryValue{"parallel_note": valueParallelNote}}

var ruleDisk = rule{ExplainsTests: true, ID: "resource-exhaustion/disk", Category: ResourceExhaustion, Catalogue: 13, Wide: true, Catalogued: true,
	Cause:    res(`(?i)no space left on device`, `You are running out of disk space`, `\bENOSPC\b: no space`, `(?i)DiskPressure`, `ephemeral-storage`),
	Not:      res(`file watchers`),
	Producer: roleRunner, Fix: fixFreeDisk,
	Summary: "The runner's disk filled up while {emitter_desc} ran and the write failed with '{cause_short}'{cause_cite}. A hosted runner only guarantees about 14 GB free, and nothing in the job frees space before the heavy work."}

var ruleInotify = rule{ExplainsTests: true, ID: "resource-exhaustion/inotify", Category: ResourceExhaustion, Catalogue: 28, Wide: true,
	Cause:    res(`System limit for number of file watchers reached`, `failed to create fsnotify watcher: too many open files`, `(?i)too many open files`),
	Producer: roleEmitter, Fix: fixInotify,
	Summary: "{emitter_desc} exhausted the runner's inotify or open-file limits: '{cause_short}'{cause_cite}. The defaults are too low for what the job starts."}

var ruleEtcdSlow = rule{ID: "resource-exhaustion/etcd-slow", Category: ResourceExhaustion, Catalogue: 24,
	Cause:    res(`etcdserver: request timed out`, `etcdserver: leader changed`, `apply request took too long`, `slow fdatasync`),
	Producer: roleEmitter,
	Summary:  "The test cluster's etcd could not keep up with the runner's disk: '{cause_short}'{cause_cite}. Several clusters or heavy builds share one slow disk."}

func valueHeapNote(x *explainer) string     { return x.heapNote() }
func valueParallelNote(x *explainer) string { return capitalize(parallelNote(x.em.Node)) }
