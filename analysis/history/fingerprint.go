package history

import (
	"slices"
	"strings"

	"github.com/polylane/polylane/analysis"
)

// Error families a failure can belong to. Environmental families (the failure
// depends on something outside the code under test: the network, a rate limit,
// the machine, a clock) group by family and endpoint, because the wording of
// one such failure varies with the client that met it; the others group by the
// text of their signature.
const (
	FamilyNetwork     = "network"
	FamilyRateLimit   = "rate-limit"
	FamilyResource    = "resource"
	FamilyPort        = "port"
	FamilyTimeout     = "timeout"
	FamilyOrdering    = "ordering"
	FamilyCredentials = "credentials"
	FamilyDependency  = "dependency"
	FamilyTest        = "test"
	FamilyBuild       = "build"
)

// familyRule maps lower-cased phrases to a family. Rules are ordered: the more
// specific families come first, so "429 too many requests" is a rate limit and
// "could not resolve host" is the network, not dependency resolution.
type familyRule struct {
	family  string
	phrases []string
	tokens  []string // whole words (split on non-alphanumerics)
}

var familyRules = []familyRule{
	{FamilyRateLimit, []string{"rate limit", "ratelimit", "too many requests", "toomanyrequests", "secondary rate", "abuse detection"}, []string{"429"}},
	{FamilyResource, []string{"no space left", "enospc", "out of memory", "oomkilled", "oom-kill", "cannot allocate memory", "signal: killed", "exit code 137", "too many open files", "emfile", "inotify", "disk quota", "resource temporarily unavailable", "heap out of memory", "memory limit"}, []string{"killed", "enospc", "oom"}},
	{FamilyPort, []string{"address already in use", "eaddrinuse", "port is already allocated", "bind: address"}, nil},
	{FamilyCredentials, []string{"unauthorized", "authentication failed", "authentication required", "bad credentials", "permission denied (publickey)", "403 forbidden", "access denied", "invalid token", "token expired", "requested access to the resource is denied", "could not read username"}, []string{"401"}},
	{FamilyDependency, []string{"eresolve", "etarget", "eintegrity", "no matching version", "checksum mismatch", "unable to resolve dependency", "could not resolve dependencies", "version solving failed", "unknown revision", "integrity checksum failed", "could not find a version", "no matching distribution"}, nil},
	{FamilyNetwork, []string{"connection reset", "econnreset", "esockettimedout", "broken pipe", "epipe", "unexpected eof", "etimedout", "i/o timeout", "connection refused", "econnrefused", "no such host", "enotfound", "eai_again", "could not resolve host", "temporary failure in name resolution", "name or service not known", "network is unreachable", "enetunreach", "ehostunreach", "no route to host", "tls handshake", "socket hang up", "connection timed out", "unable to connect", "failed to connect", "connection closed", "connection aborted", "econnaborted", "network aborted", "remote end closed", "server closed", "goaway", "bad gateway", "service unavailable", "gateway timeout", "gateway time-out", "curl: (", "network request to", "network error", "connection broken by", "newconnectionerror", "connecttimeouterror", "readtimeouterror", "max retries exceeded",
		"hash sum mismatch", "mirror sync in progress", "e: failed to fetch"}, []string{"eof"}},
	{FamilyTimeout, []string{"timed out", "deadline exceeded", "timeout expired", "timeout waiting", "exceeded the timeout", "timeout of", "has exceeded the maximum execution time", "operation was canceled"}, nil},
	{FamilyOrdering, []string{"(notfound)", "no matches for kind", "ensure crds are installed", "could not find the requested resource", "no matching resources found", "no resources found", "is not ready", "not yet ready", "resource mapping not found", "doesn't have a resource type", "does not have a resource type", "not established"}, nil},
	{FamilyTest, []string{"--- fail", "assert", "expected", "✕", "●", "test failed", "tests failed", "failing test", "fail ", "failures:", "panic: test"}, nil},
	{FamilyBuild, []string{"error ts", "error[e", "compilation failed", "compile error", "cannot find symbol", "undefined reference", "syntax error", "build failed", "undefined:", "cannot find module", "cannot find package", "type error", "typeerror"}, nil},
}

// environmental reports whether failures of the family group by family (and,
// for the network and rate limits, endpoint) rather than by text.
func environmental(family string) bool {
	switch family {
	case FamilyNetwork, FamilyRateLimit, FamilyResource, FamilyPort, FamilyTimeout, FamilyOrdering:
		return true
	}
	return false
}

// endpointBound reports whether two failures of the family must name
// compatible endpoints to be one class: a reset from one host and a timeout
// from another are two problems, while a full disk is one whatever it names.
func endpointBound(family string) bool {
	return family == FamilyNetwork || family == FamilyRateLimit
}

// fingerprint is what clustering compares between two exact-signature classes:
// the error family, the endpoints and the masked text of the signature.
type fingerprint struct {
	family    string
	endpoints []string // sorted, distinct
	text      string   // masked, lower-cased signature text, bounded length
	grams     ngrams
}

// maxFingerprintText bounds the text compared by edit distance.
const maxFingerprintText = 400

// tailReach is how many lines before the exit line count as the failure's
// last words.
const tailReach = 12

// fingerprintOf builds the fingerprint of an occurrence. The family comes
// from the last lines printed before the failing exit line when one of them
// states an environmental failure (a harness usually dies of the last error it
// printed, while an earlier error may have been retried away), else from the
// cause lines, then any tail line, the signature and the engine's error kind. Endpoints come from the line that
// gave the family only (other URLs in a log, such as documentation links, are
// not the party that failed), plus the engine's endpoint when the family came
// from the cause lines.
func fingerprintOf(o *Occurrence) fingerprint {
	fp := fingerprint{}
	causes := causeTexts(o.Lines)
	line, fromTail := "", false
	if t, family := tailFamily(o, true); family != "" {
		fp.family, line, fromTail = family, t, true
	}
	for _, t := range causes {
		if fp.family != "" {
			break
		}
		if fp.family = familyOf(t); fp.family != "" {
			line = t
		}
	}
	if fp.family == "" {
		if t, family := tailFamily(o, false); family != "" {
			fp.family, line, fromTail = family, t, true
		}
	}
	if fp.family == "" {
		if fp.family = familyOf(o.Signature); fp.family != "" {
			line = o.Signature
		}
	}
	if fp.family == "" {
		fp.family = familyOf(o.ErrorKind)
	}
	if line == "" && len(causes) > 0 {
		line = causes[0]
	}
	eps := appendEndpoints(nil, line)
	if !fromTail && o.Endpoint != "" {
		eps = appendEndpoints(eps, o.Endpoint)
	}
	fp.endpoints = dedupe(eps)
	text := o.Signature
	if text == "" && len(causes) > 0 {
		text = causes[0]
	}
	fp.text = maskText(text)
	fp.grams = ngramCounts(fp.text)
	return fp
}

// tailFamily returns the line closest before the exit line (within
// tailReach) that has a family, and that family; with envOnly, only an
// environmental family counts (a test runner's closing "--- FAIL" line says
// which test failed, not why, so it must not hide the cause line).
func tailFamily(o *Occurrence, envOnly bool) (string, string) {
	if o.ExitLine <= 0 {
		return "", ""
	}
	best, text, family := 0, "", ""
	for _, l := range o.Lines {
		if l.N >= o.ExitLine || l.N < o.ExitLine-tailReach || l.N <= best {
			continue
		}
		if f := familyOf(l.Text); f != "" && (!envOnly || environmental(f)) {
			best, text, family = l.N, l.Text, f
		}
	}
	return text, family
}

// causeTexts returns the texts of the cause lines, or of every line when none
// is marked as a cause.
func causeTexts(lines []analysis.Line) []string {
	var out []string
	for _, l := range lines {
		if l.Role == analysis.RoleCause {
			out = append(out, l.Text)
		}
	}
	if len(out) == 0 {
		for _, l := range lines {
			out = append(out, l.Text)
		}
	}
	return out
}

// familyOf returns the first family whose phrase or word occurs in text.
func familyOf(text string) string {
	if text == "" {
		return ""
	}
	lower := strings.ToLower(text)
	var words []string
	for _, r := range familyRules {
		for _, p := range r.phrases {
			if strings.Contains(lower, p) {
				return r.family
			}
		}
		if len(r.tokens) == 0 {
			continue
		}
		if words == nil {
			words = strings.FieldsFunc(lower, func(c rune) bool { return !isAlnum(c) })
		}
		for _, t := range r.tokens {
			if slices.Contains(words, t) {
				return r.family
			}
		}
	}
	return ""
}

func isAlnum(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// maskText lower-cases text, replaces digit runs by one '0' and long hex runs
// by 'h', collapses white space and bounds the length, so that two failures
// of one class that differ only in volatile tokens compare equal.
func maskText(text string) string {
	var b strings.Builder
	lower := strings.ToLower(text)
	space := false
	for i := 0; i < len(lower) && b.Len() < maxFingerprintText; {
		c := lower[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			space = b.Len() > 0
			i++
			continue
		case c == ':' && strings.HasPrefix(lower[i:], "://"):
			// a URL: keep its host, mask its path and query, which name
			// the package, tarball or object that happened to be fetched
			end := i + 3 + urlPartLen(lower[i+3:], "/?#")
			b.WriteString(lower[i:end])
			if i = end + urlPartLen(lower[end:], ""); i > end {
				b.WriteString("/p")
			}
			continue
		case isHexRunStart(lower, i):
			i = skipHex(lower, i)
			c = 'h'
		case randomTokenLen(lower, i) > 0:
			i += randomTokenLen(lower, i)
			c = 'r'
		case c >= '0' && c <= '9':
			for i < len(lower) && lower[i] >= '0' && lower[i] <= '9' {
				i++
			}
			c = '0'
		default:
			i++
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// isHexRunStart reports whether a run of at least 8 hex digits containing a
// digit starts at i (commit shas, object ids, container ids).
func isHexRunStart(s string, i int) bool {
	if i > 0 && isHexByte(s[i-1]) {
		return false
	}
	end := skipHex(s, i)
	if end-i < 8 {
		return false
	}
	for j := i; j < end; j++ {
		if s[j] >= '0' && s[j] <= '9' {
			return true
		}
	}
	return false
}

func skipHex(s string, i int) int {
	for i < len(s) && isHexByte(s[i]) {
		i++
	}
	return i
}

func isHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
}

func dedupe(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// urlPartLen returns the length of the URL part at the start of s: up to
// white space, a quote, a closing bracket, a colon that ends the URL (": ")
// or one of stops.
func urlPartLen(s, stops string) int {
	for j := 0; j < len(s); j++ {
		c := s[j]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == ')' || c == '>' || c == ']' || c == ',':
			return j
		case c == ':' && (j+1 == len(s) || s[j+1] == ' '):
			return j
		case strings.IndexByte(stops, c) >= 0:
			return j
		}
	}
	return len(s)
}

// randomTokenLen returns the length of a random-looking token starting at i
// (a name or id a test generated: "8fk2m9qz"), else 0: at least six letters
// and digits that switch between letters and digits at least four times.
// Words with a version or a size ("sha256", "v1alpha1") switch less often.
func randomTokenLen(s string, i int) int {
	if i > 0 && isAlnum(rune(s[i-1])) {
		return 0
	}
	j, switches := i, 0
	for ; j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9'); j++ {
		if j > i && (s[j] >= '0' && s[j] <= '9') != (s[j-1] >= '0' && s[j-1] <= '9') {
			switches++
		}
	}
	if j-i < 6 || switches < 4 || j < len(s) && s[j] == '_' {
		return 0
	}
	return j - i
}
