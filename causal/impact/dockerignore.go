package impact

import (
	"path"
	"regexp"
	"strings"
)

// ignoreRule is one .dockerignore line.
type ignoreRule struct {
	pattern string
	re      *regexp.Regexp
	negate  bool
}

// dockerignore decides which build-context paths the Docker client leaves out.
type dockerignore struct {
	file  string
	rules []ignoreRule
}

// maxIgnoreRules bounds the patterns read from one .dockerignore.
const maxIgnoreRules = 2000

// parseDockerignore reads .dockerignore content. Patterns follow Docker's
// rules: paths are relative to the context root (a leading / is dropped), `*`
// and `?` do not cross a slash, `**` matches any number of directories, a
// leading `!` re-includes, and the last matching line wins.
func parseDockerignore(file string, content []byte) *dockerignore {
	di := &dockerignore{file: file}
	for _, line := range strings.Split(string(content), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") || len(di.rules) >= maxIgnoreRules {
			continue
		}
		neg := strings.HasPrefix(line, "!")
		pat := strings.TrimSpace(strings.TrimPrefix(line, "!"))
		pat = strings.TrimPrefix(path.Clean("/"+pat), "/")
		if pat == "" {
			continue
		}
		re, err := regexp.Compile(globRegexp(pat))
		if err != nil {
			continue
		}
		di.rules = append(di.rules, ignoreRule{pattern: line, re: re, negate: neg})
	}
	return di
}

// globRegexp turns a .dockerignore pattern into an anchored regular
// expression.
func globRegexp(pat string) string {
	var sb strings.Builder
	sb.WriteString("^")
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '*' && strings.HasPrefix(pat[i:], "**/"):
			sb.WriteString("(?:.*/)?")
			i += 2
		case c == '*' && strings.HasPrefix(pat[i:], "**"):
			sb.WriteString(".*")
			i++
		case c == '*':
			sb.WriteString("[^/]*")
		case c == '?':
			sb.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(pat[i:], ']')
			if end < 0 {
				sb.WriteString(`\[`)
				continue
			}
			class := pat[i+1 : i+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			sb.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end
		case c == '\\' && i+1 < len(pat):
			i++
			sb.WriteString(regexp.QuoteMeta(string(pat[i])))
		default:
			sb.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	sb.WriteString("$")
	return sb.String()
}

// ignored reports whether rel (relative to the context root) is left out of
// the build context, and the line that decided it. A path is left out when
// it or one of its parent directories matches.
func (di *dockerignore) ignored(rel string) (bool, string) {
	if di == nil {
		return false, ""
	}
	out, why := false, ""
	for _, r := range di.rules {
		if matchSelfOrParent(r.re, rel) {
			out, why = !r.negate, r.pattern
		}
	}
	return out, why
}

// matchSelfOrParent reports whether re matches p or any of its parents.
func matchSelfOrParent(re *regexp.Regexp, p string) bool {
	for cur := p; cur != "." && cur != "/" && cur != ""; cur = path.Dir(cur) {
		if re.MatchString(cur) {
			return true
		}
	}
	return false
}
