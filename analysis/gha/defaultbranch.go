package gha

import "strings"

// defaultBranchEvents are the events whose runs can be runs of the default
// branch: only the base repository can push to its branch, schedule its
// workflows or dispatch them.
var defaultBranchEvents = map[string]bool{"push": true, "schedule": true, "workflow_dispatch": true}

// OnDefaultBranch reports whether r is a run of base's default branch: a
// push, schedule or workflow_dispatch run whose head branch is the default
// branch and whose head repository is base. A pull request's run is never
// one, whatever its branch is called: a fork's "main" is not the base's.
// A run that does not name its head repository (an older stored run, a
// scenario without the field) is judged by its event and branch alone,
// since those three events are started only in the base repository.
//
// Every decision that a run is "on the default branch" (checking fix pull
// requests after a success, counting the runs since a class was last seen,
// opening a fix pull request) goes through this function.
func OnDefaultBranch(r Run, base Repository, defaultBranch string) bool {
	if defaultBranch == "" || r.HeadBranch != defaultBranch || !defaultBranchEvents[r.Event] {
		return false
	}
	return !HeadFromFork(r, base)
}

// HeadFromFork reports whether r names a head repository other than base:
// the run of a fork's pull request. A run that names none is not judged
// one here.
func HeadFromFork(r Run, base Repository) bool {
	if r.HeadRepository == nil {
		return false
	}
	same, known := sameRepository(*r.HeadRepository, base)
	return known && !same
}

// SameHeadRepository reports whether two runs come from the same head
// repository; when either does not name one, it reports true.
func SameHeadRepository(a, b Run) bool {
	if a.HeadRepository == nil || b.HeadRepository == nil {
		return true
	}
	same, known := sameRepository(*a.HeadRepository, *b.HeadRepository)
	return same || !known
}

// sameRepository compares two repositories by id when both have one, else
// by owner/name (case-insensitively); known is false when neither can be
// compared.
func sameRepository(a, b Repository) (same, known bool) {
	switch {
	case a.ID != 0 && b.ID != 0:
		return a.ID == b.ID, true
	case a.FullName != "" && b.FullName != "":
		return strings.EqualFold(a.FullName, b.FullName), true
	}
	return false, false
}
