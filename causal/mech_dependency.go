package causal

// Mechanisms of dependencies: moved images, retired actions, unresolvable versions.

var ruleImageMoved = rule{ID: "dependency/image-moved", Category: Dependency, Catalogue: 7,
	Cause:    res(`manifest unknown`, `manifest for \S+ not found`, `k8s\.gcr\.io`, `repository does not exist or may require`),
	Producer: roleEmitter, Fix: fixImageRegistry,
	Summary: "{emitter_desc} asked for an image the registry no longer serves: '{cause_short}'{cause_cite}. The reference points at a tag or registry that moved."}

var ruleDeprecatedAction = rule{ID: "dependency/deprecated-action", Category: Dependency, Catalogue: 16, Wide: true,
	Cause:    res(`uses a deprecated version of .actions/(upload|download)-artifact`, `deprecated version of .actions/[a-z-]+: v\d`),
	Producer: roleStep, Fix: fixBumpAction,
	Summary: "GitHub refused the step because the action version it uses is retired: '{cause_short}'{cause_cite}."}

var ruleResolution = rule{ID: "dependency/resolution", Category: Dependency, Catalogue: 15, Catalogued: true,
	Cause: res(`npm ERR! code ERESOLVE`, `npm error code ERESOLVE`,
		`ERR_PNPM_(?:OUTDATED_LOCKFILE|FROZEN_LOCKFILE_WITH_OUTDATED_LOCKFILE|NO_MATCHING_VERSION|PEER_DEP_ISSUES|TARBALL_INTEGRITY)\b`, `Could not find a version that satisfies`, `No matching distribution found`,
		`ResolutionImpossible`, `go: \S+ requires go >=`, `cannot import name`, `checksum mismatch`, `SECURITY ERROR`,
		`\bEINTEGRITY\b`, `Could not resolve dependencies for project`, `version solving failed`, `(?i)command not found`,
		`deprecated version of .actions/(upload|download)-artifact`, `The engine "node" is incompatible`, `ModuleNotFoundError`),
	// pip says "from versions: none" when it could not reach the index at
	// all; the retries before it tell a network failure from a pin.
	Not:      res(`after connection broken by`, `Failed to establish a new connection`, `(?i)Network is unreachable`, `Temporary failure in name resolution`),
	Producer: roleEmitter,
	Summary:  "{emitter_desc} could not resolve or run what it depends on: '{cause_short}'{cause_cite}. A version or tool it expects is not what the job got."}
