package worker

import (
	"context"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/server/report"
)

// commandSpec is one command people can give: whether it changes anything
// (and so needs write permission) and what it does.
type commandSpec struct {
	mutates bool
	run     func(w *Worker, ctx context.Context, c *conversation, args string) (text, outcome string, err error)
}

// commands are the commands Polylane answers; any other word gets the
// usage.
var commands = map[string]commandSpec{
	"help":    {run: (*Worker).help},
	"explain": {run: (*Worker).explain},
	"why":     {run: (*Worker).why},
	"fix":     {mutates: true, run: (*Worker).requestFix},
	"rerun":   {mutates: true, run: (*Worker).rerun},
	"mute": {mutates: true, run: func(w *Worker, ctx context.Context, c *conversation, args string) (string, string, error) {
		return w.mute(ctx, c, args, true)
	}},
	"unmute": {mutates: true, run: func(w *Worker, ctx context.Context, c *conversation, args string) (string, string, error) {
		return w.mute(ctx, c, args, false)
	}},
}

// usage lists the commands.
func usage(handle string) string {
	h := "@" + handle
	rows := []struct{ cmd, what string }{
		{"help", "this list"},
		{"explain", "the whole causal chain of this pull request's latest diagnosis, with every piece of evidence"},
		{"why <question>", "an answer from the diagnosis and its evidence (it says what is not known)"},
		{"fix", "open or refresh the fix pull request for the failure class (needs write access)"},
		{"rerun", "re-run the failed jobs of the diagnosed run (needs write access)"},
		{"mute <class-id> [reason]", "stop full comments and fix pull requests for a failure class (needs write access)"},
		{"unmute <class-id>", "resume them (needs write access)"},
	}
	var b strings.Builder
	b.WriteString("Polylane answers these commands, each on a line of its own at the start of a comment (not in a quote or a code block):\n\n")
	b.WriteString("| command | what it does |\n|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s %s` | %s |\n", h, r.cmd, r.what)
	}
	b.WriteString("\nRepository settings live in `.github/polylane.yml` on the default branch.\n")
	return b.String()
}

// unknownCommand says that a word is not a command; the word was checked
// to hold only letters, digits, "-" and "_".
func unknownCommand(name string) string {
	if name == "?" || name == "" {
		return "That is not a command Polylane knows. "
	}
	return "`" + name + "` is not a command Polylane knows. "
}

// refusal answers a mutating command from someone without write access.
func refusal(name, permission string) string {
	if permission == "" {
		permission = "none"
	}
	return fmt.Sprintf("Sorry, `%s` changes the repository or its CI, so it needs write access, and your permission here is `%s`. "+
		"Nothing was changed. Someone with write access can give the command; `help`, `explain` and `why` work for everyone.\n", name, permission)
}

func (w *Worker) help(_ context.Context, c *conversation, _ string) (string, string, error) {
	return usage(handleOf(c.bot)), "usage", nil
}

// noDiagnosis is the answer when the pull request has no diagnosis.
const noDiagnosis = "There is no Polylane diagnosis for this pull request yet: Polylane diagnoses a pull request when one of its workflow runs fails. Nothing was changed.\n"

// reportOptions of a reply: the links and the handle.
func (w *Worker) replyOptions(ctx context.Context, pub *published) report.Options {
	opts := w.reportOptions(ctx, pub)
	opts.Muted, opts.ConfigWarnings = false, nil
	return opts
}

func (w *Worker) explain(ctx context.Context, c *conversation, _ string) (string, string, error) {
	pub, ok, err := w.diagnosisOf(ctx, c)
	if err != nil || !ok {
		return noDiagnosis, "no diagnosis", err
	}
	text, err := report.Explain(pub.doc, w.replyOptions(ctx, pub))
	if err != nil {
		return "", "", permanent{err}
	}
	return text, "explained", nil
}

func (w *Worker) why(ctx context.Context, c *conversation, question string) (string, string, error) {
	if strings.TrimSpace(question) == "" {
		return "Ask a question after `why`, for example `@" + handleOf(c.bot) + " why is this not a regression?`\n", "no question", nil
	}
	pub, ok, err := w.diagnosisOf(ctx, c)
	if err != nil || !ok {
		return noDiagnosis, "no diagnosis", err
	}
	ans := w.answer(ctx, pub, question)
	text := ans.Markdown(pub.doc) + "\n\n"
	switch {
	case ans.Narrated:
		text += "_Worded by an LLM from this diagnosis and its evidence; facts checked._\n"
	default:
		text += "_Answered from the diagnosis and its evidence._\n"
	}
	outcome := "answered"
	if !ans.Grounded {
		outcome = "answered: not known from the evidence"
	}
	return text, outcome, nil
}

func (w *Worker) requestFix(ctx context.Context, c *conversation, _ string) (string, string, error) {
	pub, ok, err := w.diagnosisOf(ctx, c)
	if err != nil || !ok {
		return noDiagnosis, "no diagnosis", err
	}
	class := pub.doc.TriggerClass
	if pub.doc.Patch == nil || pub.doc.Patch.Diff == "" || class == "" {
		return fmt.Sprintf("The diagnosis proposes no harness patch (verdict `%s`), so there is no fix pull request to open. Nothing was changed.\n",
			clipText(inertCode(pub.doc.Verdict.Kind), 40)), "no patch", nil
	}
	res, err := w.fixPull(ctx, jobs.FixArgs{DeliveryGUID: c.a.DeliveryGUID, InstallationID: c.a.InstallationID, RepositoryID: c.repo.ID,
		ClassID: class, RunID: pub.rec.RunID, Attempt: pub.rec.Attempt, Requested: true})
	if err != nil {
		return "", "", err
	}
	if res.withheld != "" {
		if res.withheld == report.WithheldWorkflowsPermission {
			pub.installURL = w.installationURL(ctx, c.a.InstallationID)
		}
		return pub.withheldReply(res.withheld), "withheld: " + res.withheld, nil
	}
	text, outcome := fixReply(res, class)
	if forkRun(pub.repo, pub.p.Run) {
		text += "This pull request comes from a fork, so the fix was built from the default branch's files " +
			"(`" + clipText(inertCode(pub.repo.DefaultBranch), 120) + "` at its head), never from the fork's.\n"
	}
	return text, outcome, nil
}

// fixReply says what a requested fix did.
func fixReply(res fixResult, class string) (text, outcome string) {
	switch {
	case res.notApplied != "":
		return "The patch no longer applies to the default branch, so no fix pull request was opened: " + inert(res.notApplied) + "\n", "not applied"
	case res.noPatch:
		return "On the default branch's files the diagnosis proposes no harness patch, so no fix pull request was opened.\n", "no patch"
	case res.number == 0:
		return "No fix pull request was opened.\n", "none"
	case res.opened:
		return fmt.Sprintf("Opened the fix pull request #%d for the failure class `%s`.\n", res.number, clipText(inertCode(class), 120)), "opened"
	}
	return fmt.Sprintf("The fix pull request #%d for the failure class `%s` is up to date with this diagnosis.\n", res.number, clipText(inertCode(class), 120)), "refreshed"
}

func (w *Worker) rerun(ctx context.Context, c *conversation, _ string) (string, string, error) {
	pub, ok, err := w.diagnosisOf(ctx, c)
	if err != nil || !ok {
		return noDiagnosis, "no diagnosis", err
	}
	run := pub.rec.RunID
	state, err := c.gh.GetRunState(ctx, run)
	if err != nil {
		return "", "", err
	}
	label := fmt.Sprintf("run #%d", pub.doc.Run.Number)
	switch {
	case state.Status != "completed":
		return fmt.Sprintf("%s is running (attempt %d); nothing was re-run.\n", label, state.Attempt), "running", nil
	case state.Attempt > pub.rec.Attempt:
		return fmt.Sprintf("%s was already re-run (it is at attempt %d); nothing was re-run again.\n", label, state.Attempt), "already re-run", nil
	case state.Conclusion == "success":
		return fmt.Sprintf("%s passed; there are no failed jobs to re-run.\n", label), "passed", nil
	}
	if err := c.gh.RerunFailedJobs(ctx, run); err != nil {
		return "", "", err
	}
	return fmt.Sprintf("Re-running the failed jobs of %s (attempt %d). Polylane will diagnose the new attempt if it fails.\n", label, state.Attempt+1), "re-run", nil
}

// mute mutes or unmutes a class named in the arguments.
func (w *Worker) mute(ctx context.Context, c *conversation, args string, muted bool) (string, string, error) {
	verb := map[bool]string{true: "mute", false: "unmute"}[muted]
	id, reason, _ := strings.Cut(strings.TrimSpace(args), " ")
	if id == "" {
		return fmt.Sprintf("Name the failure class: `@%s %s <class-id>`. The class id is in Polylane's comment.\n", handleOf(c.bot), verb), "no class", nil
	}
	cls, err := w.st.GetClass(ctx, c.repo.ID, id)
	if isNotFound(err) {
		return fmt.Sprintf("There is no failure class `%s` in this repository. Nothing was changed.\n", clipText(inertCode(id), 120)), "unknown class", nil
	}
	if err != nil {
		return "", "", err
	}
	reason = clipText(strings.TrimSpace(reason), 300)
	if err := w.st.MuteClass(ctx, c.repo.ID, cls.ID, muted, reason); err != nil {
		return "", "", err
	}
	if muted {
		return fmt.Sprintf("Muted the failure class `%s`: its comments are cut to one line and it gets no fix pull request. `@%s unmute %s` brings them back.\n",
			inertCode(cls.ID), handleOf(c.bot), inertCode(cls.ID)), "muted", nil
	}
	text := fmt.Sprintf("Unmuted the failure class `%s`.", inertCode(cls.ID))
	if pub, ok, err := w.diagnosisOf(ctx, c); err == nil && ok {
		if _, inFile := pub.set.MutedReason(cls.ID); inFile {
			text += " It is still muted by `" + pub.set.source() + "` on the default branch."
		}
	}
	return text + "\n", "unmuted", nil
}

// inertCode keeps text inside a code span: backticks and line breaks go.
func inertCode(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "`", "'")), " ")
}

// inert renders a message of Polylane's own that may quote repository
// paths as a code span.
func inert(s string) string { return "`" + clipText(inertCode(s), 600) + "`" }

// installationURL is the installation's settings page, "" when GitHub does
// not say (the reply then names the page without a link).
func (w *Worker) installationURL(ctx context.Context, id int64) string {
	u, err := w.gh.InstallationURL(ctx, id)
	if err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Int64("installation", id).Msg("installation settings page not found")
		return ""
	}
	return u
}

// lacksPermission answers a command GitHub refused because the app's
// installation lacks a permission: which one (as GitHub named it in
// X-Accepted-GitHub-Permissions), and how an owner grants it. Retrying
// cannot help until someone does, so the command ends here.
func (w *Worker) lacksPermission(ctx context.Context, c *conversation, name, accepted string) string {
	need := "a permission this needs"
	if accepted != "" {
		var alts []string
		for _, alt := range strings.Split(accepted, ";") {
			var all []string
			for _, one := range strings.Split(alt, ",") {
				perm, level, _ := strings.Cut(strings.TrimSpace(one), "=")
				all = append(all, "`"+clipText(inertCode(perm), 40)+": "+clipText(inertCode(level), 10)+"`")
			}
			alts = append(alts, strings.Join(all, " and "))
		}
		need = "the " + strings.Join(alts, " or ") + " permission"
	}
	where := "the installation's settings"
	if u := w.installationURL(ctx, c.a.InstallationID); u != "" {
		where = "the installation's settings (" + u + ")"
	}
	return fmt.Sprintf("Polylane could not carry out `%s`: GitHub refused because Polylane's GitHub App lacks %s on this repository. "+
		"To allow it, the app's owner adds the permission to the GitHub App's settings, and an owner of this account accepts it in %s. Nothing was changed.\n",
		name, need, where)
}
