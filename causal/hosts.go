package causal

import (
	"net/url"
	"regexp"
	"strings"
)

// githubAPIHost is the only host a fix sends the workflow's token to by name.
const githubAPIHost = "api.github.com"

// workflowAPIURL is the host label of a URL built from ${{ github.api_url }}:
// the API of the GitHub that runs the workflow (api.github.com, or a GitHub
// Enterprise Server's /api/v3), which no step can change.
const workflowAPIURL = "the workflow's own GitHub API (github.api_url)"

// apiURLExpr matches a word that starts with the github.api_url expression.
var apiURLExpr = regexp.MustCompile(`^["']?\$\{\{\s*github\.api_url\s*\}\}(["']?)(/|$)`)

// literalURLHost reads the host of a URL written as one shell word. It
// returns ok only when the scheme is https and the whole authority is
// literal text (no variable, substitution, escape or curl glob before the
// path starts) and holds no user information, percent escape, trailing
// dot or port other than 443. The host is lower-cased: DNS names are not
// case-sensitive. Everything else is an unknown host.
func literalURLHost(word string) (string, bool) {
	lit, whole := literalPrefix(word)
	scheme, rest, ok := strings.Cut(lit, "://")
	if !ok || !strings.EqualFold(scheme, "https") {
		return "", false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		if !whole {
			return "", false
		}
		end = len(rest)
	}
	authority := rest[:end]
	if authority == "" || strings.ContainsAny(authority, "@%\\[]{}") {
		return "", false
	}
	u, err := url.Parse("https://" + authority + "/")
	if err != nil || u.User != nil || u.Hostname() == "" {
		return "", false
	}
	if p := u.Port(); p != "" && p != "443" {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	if strings.HasSuffix(host, ".") {
		return "", false
	}
	for _, c := range host {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return "", false
		}
	}
	return host, true
}

// literalPrefix removes shell quotes from a word up to the first character
// whose meaning depends on the shell or on curl (a $ expansion, a
// backquote, a backslash escape, a curl glob); whole reports that the word
// was literal to its end.
func literalPrefix(word string) (string, bool) {
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(word); i++ {
		c := word[i]
		switch {
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote != 0 && c == quote:
			quote = 0
		case c == '$' || c == '`' || c == '\\' || c == '{' || c == '}' || c == '[' || c == ']':
			return b.String(), false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), quote == 0
}

// curlShortArg lists curl's one-letter options that take a value.
const curlShortArg = "AbcCdDeEFHmoPQrtTuUwXyYz"

// curlLongArg lists curl's long options that take a value and do not
// change where the request goes.
var curlLongArg = map[string]bool{
	"--header": true, "--data": true, "--data-raw": true, "--data-binary": true, "--data-ascii": true,
	"--data-urlencode": true, "--json": true, "--output": true, "--output-dir": true, "--user": true,
	"--request": true, "--user-agent": true, "--referer": true, "--cookie": true, "--cookie-jar": true,
	"--form": true, "--form-string": true, "--max-time": true, "--connect-timeout": true, "--retry": true,
	"--retry-delay": true, "--retry-max-time": true, "--write-out": true, "--upload-file": true,
	"--cacert": true, "--capath": true, "--cert": true, "--key": true, "--cert-type": true, "--key-type": true,
	"--max-filesize": true, "--limit-rate": true, "--range": true, "--continue-at": true, "--dump-header": true,
	"--stderr": true, "--trace": true, "--trace-ascii": true, "--speed-limit": true, "--speed-time": true,
	"--max-redirs": true, "--oauth2-bearer": true, "--url-query": true, "--time-cond": true,
	"--create-file-mode": true, "--parallel-max": true, "--keepalive-time": true, "--tls-max": true,
	"--ciphers": true, "--hsts": true, "--alt-svc": true, "--etag-save": true, "--etag-compare": true,
}

// curlUnsafe lists curl options after which a request's destination or its
// protection cannot be read from the command: another host for the same
// name, a proxy, options from a file, a new URL set, redirects that keep
// the header, URLs built from variables, or no certificate check.
var curlUnsafe = map[string]bool{
	"-K": true, "--config": true, "--resolve": true, "--connect-to": true, "-x": true, "--proxy": true,
	"--preproxy": true, "--socks5": true, "--socks5-hostname": true, "--dns-servers": true, "--doh-url": true,
	"--location-trusted": true, "-:": true, "--next": true, "--expand-url": true, "--variable": true,
	"-k": true, "--insecure": true, "--unix-socket": true, "--abstract-unix-socket": true, "--interface": true,
}

// curlHosts returns the hosts a curl command's requests go to: every URL
// it names must be literal (or, in a workflow file, start with
// ${{ github.api_url }}). ok is false when any URL or option leaves the
// destination unknown. args are the command's words after the program.
func curlHosts(args []string, inWorkflow bool) (hosts []string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case a == "--":
			continue
		case curlUnsafe[name]:
			return nil, false
		case name == "--url":
			if !hasValue {
				if i+1 >= len(args) {
					return nil, false
				}
				i++
				a = args[i]
			} else {
				a = a[len("--url="):]
			}
		case strings.HasPrefix(a, "--"):
			if curlLongArg[name] && !hasValue {
				i++
			}
			continue
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// A cluster of short options: the first that takes a value
			// takes the rest of the word, or the next word.
			for j := 1; j < len(a); j++ {
				if curlUnsafe["-"+a[j:j+1]] {
					return nil, false
				}
				if strings.IndexByte(curlShortArg, a[j]) >= 0 {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
			continue
		}
		host, known := requestHost(a, inWorkflow)
		if !known {
			return nil, false
		}
		hosts = appendOnce(hosts, host)
	}
	return hosts, len(hosts) > 0
}

// requestHost is literalURLHost, with the github.api_url expression known in
// a workflow file.
func requestHost(word string, inWorkflow bool) (string, bool) {
	if m := apiURLExpr.FindStringSubmatch(word); m != nil {
		if !inWorkflow {
			return "", false
		}
		return workflowAPIURL, true
	}
	return literalURLHost(word)
}

// gitHubAPI reports whether every host is GitHub's API.
func gitHubAPI(hosts []string) bool {
	for _, h := range hosts {
		if h != githubAPIHost && h != workflowAPIURL {
			return false
		}
	}
	return len(hosts) > 0
}

// dockerHubRegistries are the names of Docker Hub's registry.
var dockerHubRegistries = map[string]bool{"docker.io": true, "index.docker.io": true, "registry-1.docker.io": true}

// imageRegistry returns the registry host of a literal image reference,
// "docker.io" for Docker Hub. ok is false when the reference is not
// literal.
func imageRegistry(ref string) (string, bool) {
	lit, whole := literalPrefix(ref)
	if !whole || lit == "" || strings.HasPrefix(lit, "-") {
		return "", false
	}
	first, _, hasSlash := strings.Cut(lit, "/")
	if !hasSlash || !strings.ContainsAny(first, ".:") && first != "localhost" {
		return "docker.io", true
	}
	host := strings.ToLower(first)
	if dockerHubRegistries[host] {
		return "docker.io", true
	}
	return host, true
}
