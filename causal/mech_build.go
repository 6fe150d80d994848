package causal

// Mechanisms of build failures: shallow clones and compiler errors.

var ruleShallowClone = rule{ID: "build-failure/shallow-clone", Category: BuildFailure, Catalogue: 32,
	Cause:    res(`fatal: No names found, cannot describe anything`, `fatal: No tags can describe`, `fatal: ambiguous argument '[^']+': unknown revision`),
	Producer: roleEmitter, Fix: fixFetchDepth,
	Summary: "{emitter_desc} needs git history or tags that the shallow checkout does not have: '{cause_short}'{cause_cite}. actions/checkout fetches a single commit by default."}

var ruleCompile = rule{ID: "build-failure/compile", Category: BuildFailure, Catalogue: 0, Generic: true,
	Cause: res(`^error\[E\d+\]: `, `:\d+:\d+: (fatal )?error: `, `\bundefined: `, `cannot find symbol`, `SyntaxError`, `error TS\d{4}:`,
		`(?i)compilation failed`, `error CS\d{4}:`, `BUILD FAILURE`, `\.go:\d+:\d+: `, `(?i)build failed`),
	Producer: roleEmitter,
	Summary:  "The build in {emitter_desc} failed: '{cause_short}'{cause_cite}."}
