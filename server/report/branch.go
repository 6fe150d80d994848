package report

import "strings"

// FixBranchPrefix starts the name of every fix branch; runs on these
// branches never start a new fix pull request.
const FixBranchPrefix = "polylane/fix-"

// maxBranchID bounds the class part of a fix branch name.
const maxBranchID = 80

// FixBranch is the branch of the fix pull request for a class:
// "polylane/fix-<class-id>", with the id lower-cased and reduced to
// letters, digits, ".", "_" and single "-", so that the name is always a
// valid git ref (no "..", no "@{", no ".lock" suffix, no control
// characters). An id with nothing usable gives "polylane/fix-class".
func FixBranch(classID string) string {
	var b strings.Builder
	dash := true // no leading dash
	for _, r := range strings.ToLower(classID) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
			dash = false
		case r == '.':
			if !dash && !strings.HasSuffix(b.String(), ".") {
				b.WriteRune(r)
			}
		default:
			if !dash {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	id := b.String()
	if len(id) > maxBranchID {
		id = id[:maxBranchID]
	}
	id = strings.Trim(id, "-.")
	for strings.HasSuffix(id, ".lock") {
		id = strings.Trim(strings.TrimSuffix(id, ".lock"), "-.")
	}
	if id == "" {
		id = "class"
	}
	return FixBranchPrefix + id
}
