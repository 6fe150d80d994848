// Package redact removes credentials from text that Polylane keeps, shows,
// posts or sends to a model: job-log lines above all, since a job log can
// print a credential that GitHub did not mask (a tool echoing the token it
// was given, a URL with a password, a verbose HTTP client dumping its
// headers).
//
// One table of patterns (table.go) recognises credentials by their
// documented formats (GitHub, AWS, Slack, npm, PyPI, Docker Hub, GitLab,
// Google, Stripe, JSON Web Tokens, private key blocks), by their place
// (Authorization headers, URL user information, password flags of
// database and registry clients) and by their name (the value of a key
// that names a password, secret, token, API key or credential). A
// redacted secret reads "[redacted: KIND]", so a reader knows what was
// there. GitHub's own "***" masks are left as they are; a value that only
// contains "***" next to other characters is still redacted. Commit SHAs,
// image digests, run and job ids, UUIDs that are not a key's value,
// ${{ secrets.X }} and $VAR references, versions, paths and URLs without
// credentials stay.
//
// Redaction is deterministic and idempotent, so signatures built from
// redacted lines cluster the same way on every run. Callers redact the
// lines they retain, not whole logs: a cheap literal pre-check keeps the
// cost per line low when nothing matches.
//
// Strict adds a heuristic for long random-looking strings, for text sent
// to a third party (the narrator's model), where a false positive costs
// little.
//
// The package is pure: strings in, strings out.
package redact
