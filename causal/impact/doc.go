// Package impact finds the deploy edges of a repository (Dockerfiles and the paths
// that reach their final stage, workflows that build and push images or publish
// releases and charts, Helm charts, Kubernetes manifests, kustomize, goreleaser)
// and says whether the files a patch changes reach any deployed artifact. The
// package is pure: the repository arrives as an fs.FS.
package impact

// Impact is the production-impact assessment of a patch. Field names are part of
// the polylane.diagnosis/v1 contract.
type Impact struct {
	CIOnly      bool   `json:"ci_only"`
	Summary     string `json:"summary"`
	DeployEdges []Edge `json:"deploy_edges"`
	// Affected lists the artifacts that a changed file reaches.
	Affected []string `json:"affected"`
	// CheckedNotAffected lists what was checked and found not affected.
	CheckedNotAffected []string `json:"checked_not_affected,omitempty"`
	// Observability says where the changed step is visible and what it prints.
	Observability []string `json:"observability,omitempty"`
	// Files says, for every changed file, what it is, where it runs and why it
	// does or does not reach each deploy edge.
	Files []FileVerdict `json:"files,omitempty"`
	// Notes lists build and deploy files that were found but are not deployed
	// (a Dockerfile only a test workflow builds, a kustomization under hack/).
	Notes []string `json:"notes,omitempty"`
	// Assumed lists deploy edges counted as deployed without proof in the
	// repository (an image no workflow pushes, a goreleaser configuration no
	// workflow runs): they are kept so that a change reaching them is not
	// called CI-only.
	Assumed []string `json:"assumed,omitempty"`
	// Credentials lists the credentials and secrets the patch adds or
	// moves, what receives each and where it is sent. A patch with any is
	// not CI-only.
	Credentials []Credential `json:"credentials,omitempty"`
}

// FileVerdict is the assessment of one changed file.
type FileVerdict struct {
	Path string `json:"path"`
	// Role says in a phrase what the file is ("the go-task harness definition").
	Role string `json:"role"`
	// RunsIn lists the workflow steps that execute the file, as
	// "workflow name › step name".
	RunsIn []string `json:"runs_in,omitempty"`
	// Affected lists the artifacts the file reaches.
	Affected []string `json:"affected,omitempty"`
	// Reasons says, per deploy edge, why the file reaches it or not.
	Reasons []string `json:"reasons,omitempty"`
}

// Edge kinds.
const (
	OCIImage = "oci-image"
	Chart    = "helm-chart"
	Manifest = "manifest"
	Release  = "release"
)

// Edge is one way a repository's files reach something deployed.
type Edge struct {
	Source   string `json:"source"`
	Kind     string `json:"kind"`
	Artifact string `json:"artifact"`
	// Via is the workflow or file that publishes the artifact, when known.
	Via string `json:"via,omitempty"`
	// Job is the publishing job of Via, when Via is a workflow.
	Job string `json:"job,omitempty"`
	// Context is the Docker build context of an oci-image edge.
	Context string `json:"context,omitempty"`
	// Line is the line of Via (or of Source) where the edge is declared.
	Line int `json:"line,omitempty"`
}
