package history

import (
	"strings"
)

// appendEndpoints adds to eps the remote endpoints named in text: the host
// (and explicit port) of URLs, and host:port tokens. In a connection tuple
// "a:p->b:q" only the remote side b:q counts, so ephemeral source ports never
// make two failures look different. User information in URLs is dropped.
func appendEndpoints(eps []string, text string) []string {
	if len(eps) > 32 {
		return eps
	}
	fields := strings.FieldsFunc(text, func(c rune) bool {
		return c == ' ' || c == '\t' || c == '"' || c == '\'' || c == ',' || c == '(' || c == ')' || c == '[' || c == ']' || c == '<' || c == '`'
	})
	for k, f := range fields {
		if i := strings.LastIndex(f, "->"); i >= 0 {
			f = f[i+2:]
		}
		if ep, ok := endpointOf(f); ok && !(strings.Contains(f, "://") && pointer(fields[max(0, k-2):k], ep)) {
			eps = append(eps, ep)
		}
	}
	return eps
}

// pointer reports whether a URL only points the reader to documentation
// ("Learn more: https://github.blog/…", "see https://docs.example.com/…"):
// it names no endpoint the failing command talked to.
func pointer(before []string, host string) bool {
	for _, w := range before {
		switch strings.ToLower(strings.TrimRight(w, ":.,")) {
		case "more", "see", "visit", "docs", "documentation", "details", "info", "guide", "refer":
			return true
		}
	}
	for _, p := range []string{"docs.", "help.", "learn.", "support."} {
		if strings.HasPrefix(host, p) {
			return true
		}
	}
	return host == "github.blog" || host == "aka.ms"
}

// endpointOf extracts host[:port] from a URL or a host:port token.
func endpointOf(tok string) (string, bool) {
	if i := strings.Index(tok, "://"); i >= 0 {
		tok = tok[i+3:]
		if j := strings.IndexAny(tok, "/?#"); j >= 0 {
			tok = tok[:j]
		}
		if j := strings.LastIndexByte(tok, '@'); j >= 0 {
			tok = tok[j+1:]
		}
		tok = strings.TrimRight(tok, ".:;")
		host, port, _ := strings.Cut(tok, ":")
		if !validHost(host) || !validPort(port, true) {
			return "", false
		}
		return joinHostPort(strings.ToLower(host), port), true
	}
	tok = strings.TrimRight(tok, ".:;")
	host, port, ok := strings.Cut(tok, ":")
	if !ok || !validHost(host) || !validPort(port, false) || !bareHost(host) {
		return "", false
	}
	return joinHostPort(strings.ToLower(host), port), true
}

func joinHostPort(host, port string) string {
	if port == "" {
		return host
	}
	return host + ":" + port
}

// validHost accepts DNS names and IPv4 addresses: letters, digits, '-' and
// '.', not starting or ending with a dot, with at least one letter or dot.
func validHost(h string) bool {
	if h == "" || len(h) > 253 || h[0] == '.' || h[len(h)-1] == '.' || h[0] == '-' {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func validPort(p string, optional bool) bool {
	if p == "" {
		return optional
	}
	if len(p) > 5 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	return true
}

// endpointsCompatible reports whether two endpoint sets can describe the same
// remote party: either set is empty (the failure did not name its endpoint),
// or some pair has the same host and the same port (or no port on one side).
// With service set, hosts of one domain are one party (a registry's rate
// limit met on its token and on its blob endpoint is one limit).
func endpointsCompatible(a, b []string, service bool) bool {
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	for _, x := range a {
		hx, px, _ := strings.Cut(x, ":")
		for _, y := range b {
			hy, py, _ := strings.Cut(y, ":")
			if service && hx != hy && sameDomain(hx, hy) {
				return true
			}
			if hx == hy && (px == "" || py == "" || px == py) {
				return true
			}
		}
	}
	return false
}

// sourceExtensions are file-name suffixes that make "name.ext:N" a source
// position (file:line), not a host:port.
var sourceExtensions = map[string]bool{
	"go": true, "ts": true, "tsx": true, "js": true, "jsx": true, "mjs": true, "cjs": true,
	"py": true, "rb": true, "java": true, "kt": true, "rs": true, "c": true, "h": true,
	"cc": true, "cpp": true, "hpp": true, "cs": true, "php": true, "swift": true, "scala": true,
	"sh": true, "bash": true, "yaml": true, "yml": true, "json": true, "toml": true, "xml": true,
	"txt": true, "md": true, "html": true, "css": true, "mod": true, "sum": true, "lock": true,
	"tf": true, "proto": true, "sql": true, "ex": true, "exs": true, "erl": true, "lua": true,
	"vue": true, "svelte": true, "dart": true, "gradle": true, "mk": true, "log": true,
}

// bareHost accepts, for a host:port token outside a URL, "localhost", a
// dotted IPv4 address, or a DNS name whose last label is alphabetic and is not
// a source-file extension.
func bareHost(h string) bool {
	if h == "localhost" {
		return true
	}
	labels := strings.Split(h, ".")
	if len(labels) < 2 {
		return false
	}
	if isIPv4(labels) {
		return true
	}
	last := strings.ToLower(labels[len(labels)-1])
	if len(last) < 2 || sourceExtensions[last] {
		return false
	}
	for i := 0; i < len(last); i++ {
		if last[i] < 'a' || last[i] > 'z' {
			return false
		}
	}
	return true
}

func isIPv4(labels []string) bool {
	if len(labels) != 4 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 3 {
			return false
		}
		for i := 0; i < len(l); i++ {
			if l[i] < '0' || l[i] > '9' {
				return false
			}
		}
	}
	return true
}

// sameDomain reports whether two DNS names share their last two labels
// (registry-1.docker.io and auth.docker.io); addresses never do.
func sameDomain(a, b string) bool {
	la, lb := strings.Split(a, "."), strings.Split(b, ".")
	if len(la) < 2 || len(lb) < 2 || isIPv4(la) || isIPv4(lb) {
		return false
	}
	return la[len(la)-1] == lb[len(lb)-1] && la[len(la)-2] == lb[len(lb)-2]
}
