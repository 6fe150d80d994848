// Package worker runs Polylane's queued jobs (River): diagnose a run, publish
// the report, open or update a fix pull request, answer "@polylane"
// commands, mark assessments stale when a pull request moves, record how fix
// pull requests end and close those whose class stopped on its own.
//
// Every job reads the repository's .github/polylane.yml from the head of
// the default branch (package repoconfig; cached by commit): which runs are
// diagnosed, the window, where Polylane comments, whether fix pull requests
// open on their own, muted classes and the narrator opt-in. A mention job
// acknowledges the comment with 👀, checks write permission through the API
// before fix, rerun, mute and unmute, and answers each command once per
// comment (recorded in the store; a retry finds a reply whose recording was
// lost). The narrator, when configured and opted in, only words text: its
// output is never parsed for commands.
//
// A diagnose job (jobs.DiagnoseArgs) brings the history cache up to date
// with few GitHub calls (a conditional listing of the first page of runs,
// jobs and logs only for runs not seen before, the trigger's tree by commit
// and files by blob name, fetched when the causal stage reads them), runs the
// pure pipeline of causal/diagnosis, and stores the diagnosis, occurrences
// and classes; the publish job is enqueued in the transaction that stores the
// diagnosis. The publish job keeps one sticky assessment comment per pull
// request, comments on the change that introduced a regression, and enqueues
// the fix job for a default-branch failure with a patch. The fix job keeps
// one pull request per failure class on polylane/fix-<class>.
//
// Runs of a fix pull request's own branch are its verification (verify.go):
// a success or cancelled run comes as a verify job (jobs.VerifyArgs), a
// failure is diagnosed and its publish job records it, with its cause line
// and class, instead of posting an assessment. Each edits the Verification
// section of the fix pull request's description and assessment; with
// fix_pull_requests.verify_reruns the verify job re-runs the class's
// failing job on the branch, spaced out and within the rate budget.
//
// Every job reads before it writes (comments by stored id, then by marker and
// the bot's authorship; branches and pull requests before creating them; a
// 422 "already exists" means re-read), so a job interrupted anywhere, or
// retried after a lost answer, converges to the same end state. Mutations of
// one repository are serialised by the store's repository lock. A delivery
// ends diagnosed, or failed with the reason in the store.
package worker
