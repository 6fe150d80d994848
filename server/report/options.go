package report

// MaxChars is GitHub's limit on the body of a comment or pull request.
// Every text the package renders is shorter, counted in bytes (which is
// never less than the count in characters).
const MaxChars = 65536

// Options say how to render a diagnosis for one place on GitHub.
type Options struct {
	// Stale is set when the pull request's head moved after the diagnosed
	// run: the assessment is for an older commit until the next run.
	Stale bool
	// CurrentHead is the pull request's head commit, shown with Stale.
	CurrentHead string
	// ConfigWarnings are problems found in .github/polylane.yml; they are
	// shown visibly at the top.
	ConfigWarnings []string
	// Muted is set when the failure class is muted: the comment is short.
	Muted bool
	// MuteReason is the reason given when the class was muted.
	MuteReason string
	// DashboardURL links the diagnosis page of the dashboard when set.
	DashboardURL string
	// BotLogin is the login people mention to talk to Polylane
	// ("polylane", or the app's "<slug>[bot]"); default "polylane".
	BotLogin string
	// RepoID is the repository's numeric id, used in the marker instead of
	// its name when set.
	RepoID int64
	// NarratedSummary and NarratedWhyFix replace the summary paragraph and
	// the reasoning paragraph of "Why this fix" with the narrator's wording
	// (narrator.Wording.Markdown: validated against the diagnosis and
	// already inert markdown). Each is shown with a visible note that an
	// LLM worded it; empty keeps Polylane's own text.
	NarratedSummary string
	NarratedWhyFix  string
	// FixWithheld lists why the patch is shown here and not opened as a
	// fix pull request (WithheldWorkflows, WithheldCredential); the fix
	// section says so, and how to allow it.
	FixWithheld []string
	// LogSteps locate steps inside job logs, so that log citations link to
	// the exact line of GitHub's step view. Without them a citation of the
	// failing job links to the start of the failing step.
	LogSteps []LogStep
	// Verification is what the repository's own CI said of the fix pull
	// request's branch; nil leaves the section out.
	Verification *Verification
}

// Reasons a patch is not opened as a fix pull request.
const (
	// WithheldWorkflows: the patch changes .github/workflows/* and the
	// repository has not set fix_pull_requests.workflows.
	WithheldWorkflows = "workflows"
	// WithheldWorkflowsPermission: the patch changes .github/workflows/*
	// and the app's installation does not hold workflows: write, without
	// which GitHub refuses the branch.
	WithheldWorkflowsPermission = "workflows-permission"
	// WithheldCredential: the patch passes a credential, so it is opened
	// only when someone with write access asks.
	WithheldCredential = "credential"
)

// LogStep is where one step starts in a job's raw log.
type LogStep struct {
	JobID  int64
	Number int
	// FirstLine is the 1-based raw log line of the step's "##[group]Run"
	// header, which GitHub's step view shows as the step's line 1.
	FirstLine int
}

// handle is the name people mention, without "@" and "[bot]".
func (o Options) handle() string {
	h := o.BotLogin
	if len(h) > 5 && h[len(h)-5:] == "[bot]" {
		h = h[:len(h)-5]
	}
	if h == "" || !repoName.MatchString("x/"+h) || len(h) > 39 {
		return "polylane"
	}
	return h
}
