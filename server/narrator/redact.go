package narrator

import "github.com/polylane/polylane/analysis/redact"

// Redacted starts the marker that replaces a secret in text sent to the
// model ("[redacted: GitHub token]").
const Redacted = redact.Prefix

// Redact removes secrets and tokens from text before it is sent to a model:
// Polylane's one redaction table (analysis/redact), which names the kind of
// each secret it removes and keeps GitHub's "***" masks, plus long strings
// that look random. Commit SHAs and digests (40 or 64 hex digits) and UUIDs
// are not secrets and are kept.
func Redact(s string) string { return redact.Strict(s) }
