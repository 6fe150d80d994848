package analysis

import "bytes"

// A package manager that cannot reach its index retries the connection and
// then reports that no version of the package exists: pip's "WARNING:
// Retrying (Retry(total=0, …)) after connection broken by …" lines end in
// "ERROR: No matching distribution found for X". The resolution error is a
// consequence; the connection failure the tool gave up on is the cause.

// resolutionPhrases mark a lower-cased line that says a package or version
// could not be found.
var resolutionPhrases = []string{"no matching distribution", "could not find a version that satisfies", "from versions: none",
	"no matching version", "no versions available", "could not resolve dependencies", "could not resolve all ",
	"unable to resolve dependency", "failed to resolve"}

// connectionPhrases name a broken connection in words the infra vocabulary
// does not hold.
var connectionPhrases = []string{"connection broken", "connection aborted", "connection error", "newconnectionerror",
	"connecttimeouterror", "readtimeouterror", "max retries exceeded", "remote end closed", "ssl error"}

// exhaustedRetry returns the last retry notice about a broken connection
// printed in b before its cause line, when the cause line only says that a
// package could not be resolved.
func exhaustedRetry(b *block) (storedLine, bool) {
	cause := b.lines[b.best]
	lc := lowerASCII(nil, []byte(cause.text))
	if !resolutionSet.any(lc) || isInfra(cause.feat.found) {
		return storedLine{}, false
	}
	for i := b.best - 1; i >= 0; i-- {
		l := b.lines[i]
		ll := lowerASCII(lc[:0], []byte(l.text))
		if retryNotice(ll) && (isInfra(l.feat.found) || connectionSet.any(ll)) && !bytes.Contains(ll, []byte("${")) {
			return l, true
		}
	}
	return storedLine{}, false
}
