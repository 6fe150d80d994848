package redact

import (
	"regexp"
	"strings"
)

// value is a credential after a key, flag or header: quoted, or up to the
// next blank or separator.
const value = `(?:"[^"\n]*"|'[^'\n]*'|[^\s"',;&]+)`

// table is the one redaction table: documented token formats first, then
// credentials told by their place, then values told by their key's name.
// Order matters: a specific form leaves its marker, which the generic rows
// below it leave alone.
var table = []pattern{
	// Private key blocks, also when the END line was cut off: RFC 7468
	// (https://www.rfc-editor.org/rfc/rfc7468), labels "PRIVATE KEY",
	// "RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", ...
	{kind: "private key", needles: []string{"private key"},
		re: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)`)},
	// GitHub tokens: a prefix per type (ghp_ personal, gho_ OAuth, ghu_
	// user-to-server, ghs_ server-to-server, ghr_ refresh) and characters
	// [A-Za-z0-9_], up to 255 long:
	// https://github.blog/changelog/2021-03-31-authentication-token-format-updates-are-generally-available/
	{kind: "GitHub token", needles: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, re: githubToken},
	// GitHub fine-grained personal access tokens, "github_pat_":
	// https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/managing-your-personal-access-tokens
	{kind: "GitHub token", needles: []string{"github_pat_"},
		re: regexp.MustCompile(`github_pat_[A-Za-z0-9_]{22,}`)},
	// GitLab personal access tokens, "glpat-":
	// https://docs.gitlab.com/ee/user/admin_area/settings/account_and_limit_settings.html#personal-access-token-prefix
	{kind: "GitLab token", needles: []string{"glpat-"},
		re: regexp.MustCompile(`glpat-[A-Za-z0-9_-]{20,}`)},
	// AWS access key ids: a four-letter prefix (AKIA long-term, ASIA
	// temporary, ...) and 16 more, as the unique ID prefixes of the IAM
	// identifiers reference list them; AKIA and ASIA are described in
	// https://docs.amazonaws.cn/goto/WebAPI/sts-2011-06-15/GetAccessKeyInfo
	{kind: "AWS access key", needles: []string{"akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "aroa", "apka"},
		re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b`)},
	// AWS secret access keys (40 characters of base64), given by their name
	// (the same STS page shows the pair).
	{kind: "AWS secret key", needles: []string{"secret"},
		re: regexp.MustCompile(`(?i)(?P<keep>aws_?secret_?access_?key["']?[ \t]*[=:][ \t]*["']?)[A-Za-z0-9/+=]{20,80}`)},
	// Slack tokens, xoxb- (bot), xoxp- (user), ...:
	// https://api.slack.com/authentication/token-types
	{kind: "Slack token", needles: []string{"xox"},
		re: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	// Slack incoming webhooks: the URL is the credential,
	// https://hooks.slack.com/services/T…/B…/…:
	// https://api.slack.com/messaging/webhooks
	{kind: "Slack webhook URL", needles: []string{"hooks.slack.com"},
		re: regexp.MustCompile(`(?P<keep>https://hooks\.slack\.com/)(?:services|workflows|triggers)/[A-Za-z0-9_/-]+`)},
	// npm access tokens, "npm_" and 36 characters:
	// https://github.blog/2021-09-23-announcing-npms-new-access-token-format/
	{kind: "npm token", needles: []string{"npm_"},
		re: regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`)},
	// PyPI API tokens, "pypi-": https://pypi.org/help/#apitoken
	{kind: "PyPI token", needles: []string{"pypi-"},
		re: regexp.MustCompile(`\bpypi-[A-Za-z0-9_-]{50,}`)},
	// Google API keys, "AIza" and 35 more:
	// https://cloud.google.com/docs/authentication/api-keys
	{kind: "Google API key", needles: []string{"aiza"},
		re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`)},
	// Stripe secret and restricted keys, sk_live_, rk_test_, ...:
	// https://docs.stripe.com/keys
	{kind: "Stripe key", needles: []string{"k_live_", "k_test_"},
		re: regexp.MustCompile(`\b[rs]k_(?:live|test)_[0-9A-Za-z]{10,}`)},
	// OpenAI-style secret keys, sk- and sk-proj-. OpenAI's reference does
	// not state the prefix; a summary of the forms:
	// https://vibekit.bot/openai-api-key-format
	{kind: "API key", needles: []string{"sk-"}, accept: tokenish,
		re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`)},
	// JSON Web Tokens: three base64url parts joined by dots, the first two
	// JSON objects ("eyJ" is the encoding of `{"`): RFC 7519
	// (https://www.rfc-editor.org/info/rfc7519) and the compact form of
	// RFC 7515 section 3.1.
	{kind: "JSON Web Token", needles: []string{"eyj"},
		re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	// Docker Hub personal access tokens, "dckr_pat_":
	// https://docs.docker.com/reference/api/hub/latest/operations/AuthCreateAccessToken/
	{kind: "Docker Hub token", needles: []string{"dckr_pat_"},
		re: regexp.MustCompile(`\bdckr_pat_[A-Za-z0-9_-]{10,}`)},
	// User information in a URL (user:password@host), deprecated by RFC 3986
	// section 3.2.1 (https://www.rfc-editor.org/rfc/rfc3986#section-3.2.1)
	// and still common in clone and registry URLs. A user name alone is a
	// secret only when it looks like a token.
	{kind: "URL credentials", needles: []string{"://"}, pre: urlWithUserinfo, accept: urlCredentials,
		re: regexp.MustCompile(`(?i)(?P<keep>\b[a-z][a-z0-9+.-]{1,20}://)[^/\s:@'"]*(?::[^/\s@'"]*)?(?P<tail>@)`)},
	// MySQL and MariaDB clients take the password glued to -p ("-pSECRET";
	// with a space, the next word is not a password):
	// https://dev.mysql.com/doc/mysql-shell/en/mysql-shell-connection-using-parameters.html
	{kind: "password", needles: []string{"mysql", "mariadb"}, pre: func(s string) bool { return strings.Contains(s, "-p") }, accept: notReference,
		re: regexp.MustCompile(`(?P<keep>\b(?i:mysql|mysqladmin|mysqldump|mysqlimport|mysqlcheck|mysqlshow|mysqlslap|mysqlpump|mysqlsh|mariadb|mariadb-admin|mariadb-dump)\b[^\n|;&]*?\s-p)(?:'[^'\n]*'|"[^"\n]*"|[^\s'"]+)`)},
	// Registry logins with the password on the command line,
	// "docker login -u U -p PASSWORD" (-p, --password):
	// docker/cli docs/reference/commandline/login.md ("-p, --password")
	{kind: "password", needles: []string{"login"}, pre: func(s string) bool { return strings.Contains(s, "-p") }, accept: notReference,
		re: regexp.MustCompile(`(?P<keep>\b(?i:docker|podman|buildah|nerdctl|helm registry|oras|skopeo)[ \t]+login\b[^\n|;&]*?\s(?:-p|--password)(?:[ \t]+|=))(?:'[^'\n]*'|"[^"\n]*"|[^\s'"]+)`)},
	// HTTP credentials after their scheme: Bearer (RFC 6750 section 2.1,
	// https://www.rfc-editor.org/rfc/rfc6750), Basic, and GitHub's "token"
	// scheme. Only values shaped like a credential: "token expired" stays.
	{kindOf: schemeKind, needles: []string{"bearer", "basic", "token"}, pre: credentialAfter("bearer", "basic", "token"), accept: tokenish,
		re: regexp.MustCompile(`(?i)(?P<keep>\b(?P<key>bearer|basic|token)[ \t]+)[A-Za-z0-9._~+/=-]{8,}`)},
	// Authorization header values with an unknown scheme (same RFC).
	{kind: "authorization header", needles: []string{"authorization"}, pre: assigns("authorization"), accept: headerValue,
		re: regexp.MustCompile(`(?i)(?P<keep>\bauthorization["']?[ \t]*[:=][ \t]*["']?)[^\s"']{4,}(?:[ \t]+[^\s"']{8,})?`)},
	// Secret flags with the value after a blank, the long-option form of the
	// clients above ("--password VALUE", "--token VALUE").
	{kindOf: keyKind, needles: []string{"-pass", "-token", "api-key", "apikey", "-secret", "auth-token", "access-token"}, accept: notReference,
		pre: flagWithValue("password", "passwd", "pass", "token", "api-key", "apikey", "auth-token", "access-token", "secret", "client-secret"),
		re:  regexp.MustCompile(`(?i)(?P<keep>(?:^|\s)--?(?P<key>password|passwd|pass|token|api-key|apikey|auth-token|access-token|secret|client-secret)[ \t]+)(?:'[^'\n]*'|"[^"\n]*"|[^\s'"]+)`)},
	// key=value and key: value (env dumps, JSON, YAML, query strings) where
	// the key names a secret: the value, whatever its shape (a 40- or
	// 64-digit hex key, a UUID-shaped key, a plain password).
	{kindOf: keyKind, needles: []string{"pass", "pwd", "secret", "token", "key", "credential", "_pat", "-pat", "auth"}, pre: assignsSecretKey, accept: notReference, prose: sentence,
		re: regexp.MustCompile(`(?i)(?P<keep>(?:^|[\s"'{(,;\[?&:])(?P<key>[a-z0-9_.-]*(?:password|passwd|passphrase|[_-]pwd|secret|secret[_-]?key|token|[_-]pat|api[_-]?key|apikey|access[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|credentials?|[_-]auth))["']?[ \t]*[=:][ \t]*)` + value)},
}

// githubToken matches GitHub's prefixed tokens, after a character that
// cannot be part of one.
var githubToken = regexp.MustCompile(`(?P<keep>^|[^A-Za-z0-9])gh[pousr]_[A-Za-z0-9_]{20,}`)

// schemeKind names an HTTP credential by its scheme.
func schemeKind(scheme string) string {
	switch strings.ToLower(scheme) {
	case "bearer":
		return "bearer token"
	case "basic":
		return "basic auth credentials"
	}
	return "token"
}

// keyKind names a secret by the key or flag that holds it.
func keyKind(key string) string {
	k := strings.ToLower(key)
	switch {
	case strings.Contains(k, "pass") || strings.HasSuffix(k, "pwd"):
		return "password"
	case strings.Contains(k, "private"):
		return "private key"
	case strings.Contains(k, "api") && strings.Contains(k, "key"):
		return "API key"
	case strings.Contains(k, "token") || strings.HasSuffix(k, "pat"):
		return "token"
	case strings.Contains(k, "secret"):
		return "secret"
	case strings.Contains(k, "credential") || strings.HasSuffix(k, "auth"):
		return "credential"
	}
	return "key"
}

// sentence reports whether a key and its value are words of a message
// ("failed to fetch anonymous token: unexpected status from GET"): a
// lower-case key, a value of lower-case letters only, and more words after
// it. A credential is one value: "DB_PASSWORD: hunter2" and
// "password: changeme" at the end of a line are still assignments.
func sentence(key, value, after string) bool {
	if !lowerWord(key) || !lowerWord(value) {
		return false
	}
	return len(after) >= 2 && after[0] == ' ' && after[1] >= 'a' && after[1] <= 'z'
}

// lowerWord reports whether s is a non-empty run of lower-case ASCII letters.
func lowerWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}

// notReference refuses values that are not secrets but say where one
// comes from or that there is none: ${{ secrets.X }}, $VAR, ${VAR},
// %VAR%, a list or object, a following flag, a boolean or null.
func notReference(v string) bool {
	v = strings.Trim(v, `"' `)
	if v == "" {
		return false
	}
	switch v[0] {
	case '$', '%', '[', '{', '(', '<', '-':
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "none", "nil", "undefined", "empty", "yes", "no":
		return false
	}
	return true
}

// tokenish reports whether v looks like a credential rather than a word:
// it mixes letters and digits, mixes cases over 16 characters or more, or
// ends in base64 padding.
func tokenish(v string) bool {
	var letter, digit, upper, lower bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z':
			letter, lower = true, true
		case c >= 'A' && c <= 'Z':
			letter, upper = true, true
		}
	}
	return letter && digit || upper && lower && len(v) >= 16 || len(v) >= 8 && strings.HasSuffix(v, "=")
}

// urlCredentials accepts the user information of a URL that holds a
// password other than a mask, or a user name that looks like a token.
func urlCredentials(userinfo string) bool {
	user, pass, hasPass := strings.Cut(userinfo, ":")
	if hasPass && pass != "" {
		return !masked(pass)
	}
	return tokenish(user)
}

// headerValue accepts an Authorization value whose credential (its last
// field) looks like one.
func headerValue(v string) bool {
	fields := strings.Fields(v)
	return len(fields) > 0 && tokenish(fields[len(fields)-1])
}
