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
}
