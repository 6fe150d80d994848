package causal

import "regexp"

// Mechanisms of dependencies: moved images, retired actions, unresolvable versions.

var ruleImageMoved = rule{ID: "dependency/image-moved", Category: Dependency, Catalogue: 7,
	Cause:    res(`manifest unknown`, `manifest for \S+ not found`, `k8s\.gcr\.io`, `repository does not exist or may require`),
	Producer: roleEmitter, Fix: fixImageRegistry,
	Summary: "{emitter_desc} asked for an image the registry no longer serves: '{cause_short}'{cause_cite}. The reference points at a tag or registry that moved."}

// ruleAptStaleIndex is apt installing from the package index the runner
// image was built with. The mirror has since replaced the package versions
// that index names, so apt asks for a file that is gone and gets 404; a
// retry asks for the same file. apt itself says "maybe run apt-get update",
// GitHub's runner docs say to always run it before installing
// (actions/runner-images#6039), and maintainers fix it that way
// (elastic/beats#34772, inokawa/lang-box#5, cloudflare/ebpf_exporter#538,
// eventlet/eventlet#1102). When the step refreshed the index first, a 404
// is a mirror caught mid-sync, which transient-network/apt covers.
var ruleAptStaleIndex = rule{ID: "dependency/apt-stale-index", Category: Dependency, Catalogue: 14,
	Cause:    res(`E: Failed to fetch \S+\s+404\s+Not Found`),
	Harness:  aptIndexNotRefreshed,
	Producer: roleEmitter, Fix: fixAptUpdate,
	Summary: "{emitter_desc} installed packages from the index the runner image shipped with, without refreshing it: '{cause_short}'{cause_cite}. The mirror has replaced the package versions that index names, so every run on that image asks for files that are gone until the index is refreshed."}

// ruleArtifactNameCollision is upload-artifact v4 refusing a second upload
// under a name the run already has. v4 made artifacts immutable: the legs of
// a matrix that used to add files to one artifact now collide, and the first
// leg to upload wins (actions/upload-artifact#478). Maintainers make the
// name unique per leg with the matrix values (nextstrain/nextclade#1399).
var ruleArtifactNameCollision = rule{ID: "dependency/artifact-name-collision", Category: Dependency, Catalogue: 16,
	Cause:    res(`an artifact with this name already exists on the workflow run`),
	Producer: roleStep, Fix: fixArtifactName, Cases: []string{"SlicerDMRI/whitematteranalysis"},
	Summary: "{emitter_desc} uploaded an artifact under a name another job of the run already used: '{cause_short}'{cause_cite}. upload-artifact v4 keeps one immutable artifact per name, so the legs of a matrix that share a name now collide."}

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

var (
	aptUpdateCmd    = regexp.MustCompile(`\bapt(-get)?\s+(-\S+\s+)*update\b`)
	aptIndexFetched = regexp.MustCompile(`^(Hit|Get|Ign):\d+ \S+ .*\b(InRelease|Release)\b`)
)

// aptIndexNotRefreshed holds when nothing refreshed the apt index before the
// failing install: no index fetch in the step's log before the cause, and no
// earlier step of the job that runs apt update.
func aptIndexNotRefreshed(x *explainer) (finding, bool) {
	for i, l := range x.log.Lines {
		if x.log.Cause >= 0 && i >= x.log.Cause {
			break
		}
		if aptIndexFetched.MatchString(l.Text) {
			return finding{}, false
		}
	}
	if x.job != nil && x.step != nil {
		for _, st := range x.job.Steps {
			if st.Index >= x.step.Index {
				break
			}
			if aptUpdateCmd.MatchString(st.Run) {
				return finding{}, false
			}
		}
	}
	return finding{}, true
}
