package analysis

import (
	"bytes"
	"strings"
)

// signatureText turns a cause line into a signature: the runner marker is
// dropped, volatile tokens are masked and the result is bounded.
func signatureText(text string) string {
	for _, p := range [...]string{"##[error]", "##[warning]"} {
		text = strings.TrimPrefix(text, p)
	}
	// pytest prints the exception of a failed assertion as "E   Error: …"
	if rest, ok := strings.CutPrefix(text, "E "); ok && strings.HasPrefix(rest, " ") {
		text = rest
	}
	return truncateUTF8(strings.TrimSpace(Normalize(text)), maxSignatureBytes)
}

// errorKinds are the failure kinds Analyze reports, most specific first. The
// first element is what is searched (lower case), the second what is reported.
var errorKinds = [][2]string{
	{"connection reset by peer", "connection reset by peer"},
	{"econnreset", "ECONNRESET"},
	{"econnrefused", "ECONNREFUSED"},
	{"etimedout", "ETIMEDOUT"},
	{"eai_again", "EAI_AGAIN"},
	{"enotfound", "ENOTFOUND"},
	{"connection refused", "connection refused"},
	{"tls handshake timeout", "TLS handshake timeout"},
	{"i/o timeout", "i/o timeout"},
	{"context deadline exceeded", "context deadline exceeded"},
	{"unexpected eof", "unexpected EOF"},
	{"no such host", "no such host"},
	{"could not resolve host", "could not resolve host"},
	{"temporary failure in name resolution", "name resolution failure"},
	{"toomanyrequests", "rate limit"},
	{"too many requests", "rate limit"},
	{"rate limit", "rate limit"},
	{"manifest unknown", "manifest unknown"},
	{"no space left on device", "no space left on device"},
	{"out of memory", "out of memory"},
	{"oomkilled", "OOMKilled"},
	{"segmentation fault", "segmentation fault"},
	{"sigsegv", "SIGSEGV"},
	{"command not found", "command not found"},
	{"no such file or directory", "no such file or directory"},
	{"permission denied", "permission denied"},
	{"access denied", "access denied"},
	{"unauthorized", "unauthorized"},
	{"forbidden", "forbidden"},
	{"has timed out", "timeout"},
	{"timed out", "timeout"},
	{"timeout", "timeout"},
	{"syntax error", "syntax error"},
	{"syntaxerror", "syntax error"},
	{"assertionerror", "assertion"},
	{"assertion failed", "assertion"},
	{"not found", "not found"},
	{"canceled", "canceled"},
	{"cancelled", "canceled"},
	{"killed", "killed"},
}

// errorKind names the kind of failure a line reports, or "".
func errorKind(text string) string {
	lc := bytes.ToLower([]byte(text))
	for _, k := range errorKinds {
		if i := bytes.Index(lc, []byte(k[0])); i >= 0 {
			if k[0] == "timeout" || k[0] == "killed" || k[0] == "not found" {
				end := i + len(k[0])
				if i > 0 && (isLetter(lc[i-1]) || lc[i-1] == '?' || lc[i-1] == '&') || end < len(lc) && lc[end] == '=' {
					continue
				}
			}
			return k[1]
		}
	}
	if i := bytes.Index(lc, []byte(": eof")); i >= 0 && (i+5 == len(lc) || !isLetter(lc[i+5])) {
		return "EOF"
	}
	return ""
}

// endpoint returns the remote endpoint a line names: the destination of
// "a->b", the host[:port] of a URL, or the first ip:port.
func endpoint(text string) string {
	if i := strings.LastIndex(text, "->"); i >= 0 {
		if e := hostPort(text[i+2:]); strings.Contains(e, ":") {
			return e
		}
	}
	if i := strings.Index(text, "://"); i >= 0 {
		if e := hostPort(afterUserinfo(text[i+3:])); e != "" {
			return e
		}
	}
	for i := 0; i < len(text); i++ {
		if !boundary(text, i) || !isDigit(text[i]) {
			continue
		}
		if _, n := ipLen(text, i); n > 0 {
			if e := hostPort(text[i:]); strings.Contains(e, ":") {
				return e
			}
			i += n
		}
	}
	return ""
}

// afterUserinfo drops the user information (user:password@) that starts a
// URL's authority, so that the endpoint never holds a credential.
func afterUserinfo(rest string) string {
	end := strings.IndexAny(rest, "/ \t'\"")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
		return rest[at+1:]
	}
	return rest
}

// hostPort reads "host[:port]" at the start of s.
func hostPort(s string) string {
	j := 0
	for j < len(s) && (isAlnum(s[j]) || s[j] == '.' || s[j] == '-' || s[j] == ':' || s[j] == '[' || s[j] == ']') {
		j++
	}
	e := strings.TrimRight(s[:j], ":.")
	if at := strings.LastIndexByte(e, '@'); at >= 0 {
		e = e[at+1:]
	}
	if len(e) < 3 || !strings.ContainsAny(e, ".:") {
		return ""
	}
	return e
}
