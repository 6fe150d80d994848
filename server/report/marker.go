package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/polylane/polylane/causal/diagnosis"
)

// Marker kinds: which of Polylane's texts a hidden marker labels.
const (
	// KindAssessment labels the sticky assessment comment on a pull request.
	KindAssessment = "assessment"
	// KindFixPR labels the body of a fix pull request.
	KindFixPR = "fix-pr"
	// KindRegression labels the comment on the change that introduced a
	// regression.
	KindRegression = "regression"
)

// MarkerVersion is the version of the marker format written today.
const MarkerVersion = 1

const markerOpen = "<!-- polylane:"

// Marker is the hidden first line of every text Polylane publishes. The
// publisher finds its own comment by author and marker (kind and
// repository; the class too for fix pull requests) and edits it in place.
type Marker struct {
	Kind    string
	Version int
	// Repo is the repository id or owner/name.
	Repo    string
	Class   string
	Run     int64
	Attempt int
}

// maxMarkerValue bounds a marker value; longer ids are replaced by a hash.
const maxMarkerValue = 200

// MarkerFor is the marker of a published text of kind for a diagnosis:
// the repository (its id when opts.RepoID is set, else its name), the
// trigger's class, the run and the attempt. The publisher compares it with
// the markers of existing comments through SameThread. A repository or
// class id longer than 200 bytes is replaced by "sha256:" and a hash.
func MarkerFor(kind string, d *diagnosis.Diagnosis, opts Options) Marker {
	repo := d.Repository
	if opts.RepoID > 0 {
		repo = strconv.FormatInt(opts.RepoID, 10)
	}
	class := d.TriggerClass
	if class == "" {
		if c := d.TriggerCluster(); c != nil {
			class = c.ID
		}
	}
	return Marker{Kind: kind, Version: MarkerVersion, Repo: boundedValue(repo), Class: boundedValue(class), Run: d.Run.ID, Attempt: d.Run.Attempt}
}

// boundedValue keeps short values and hashes long ones.
func boundedValue(s string) string {
	if len(s) <= maxMarkerValue {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// String renders the marker as an HTML comment of one line. Values are
// percent-encoded where they hold anything but letters, digits and
// "._/:" or a single "-", so that no value can end the comment.
func (m Marker) String() string {
	v := m.Version
	if v == 0 {
		v = MarkerVersion
	}
	return fmt.Sprintf("%s%s v%d repo=%s class=%s run=%d attempt=%d -->",
		markerOpen, markerValue(m.Kind), v, markerValue(m.Repo), markerValue(m.Class), m.Run, m.Attempt)
}

// MarkerPrefix is the start of every marker of a kind, for a substring
// search through comments.
func MarkerPrefix(kind string) string {
	return markerOpen + markerValue(kind) + " "
}

// ParseMarker reads the marker on the first line of a comment body. It
// reports false when the body does not start with a Polylane marker.
func ParseMarker(body string) (Marker, bool) {
	line, _, _ := strings.Cut(strings.TrimLeft(body, "\ufeff \t\r\n"), "\n")
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, markerOpen) || !strings.HasSuffix(line, "-->") {
		return Marker{}, false
	}
	fields := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(line, markerOpen), "-->"))
	if len(fields) < 2 || !strings.HasPrefix(fields[1], "v") {
		return Marker{}, false
	}
	var m Marker
	var err error
	if m.Kind, err = unmarkerValue(fields[0]); err != nil {
		return Marker{}, false
	}
	if m.Version, err = strconv.Atoi(fields[1][1:]); err != nil || m.Version < 1 {
		return Marker{}, false
	}
	for _, f := range fields[2:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue // a later version may add bare words
		}
		if err := m.set(k, v); err != nil {
			return Marker{}, false
		}
	}
	return m, true
}

// set assigns one key=value field of a marker; unknown keys are ignored so
// that later versions can add fields.
func (m *Marker) set(k, v string) error {
	var err error
	switch k {
	case "repo":
		m.Repo, err = unmarkerValue(v)
	case "class":
		m.Class, err = unmarkerValue(v)
	case "run":
		m.Run, err = strconv.ParseInt(v, 10, 64)
	case "attempt":
		m.Attempt, err = strconv.Atoi(v)
	}
	if err != nil {
		return fmt.Errorf("marker field %s: %w", k, err)
	}
	return nil
}

// SameThread reports whether two markers label the same published text:
// the same kind in the same repository, and for a fix pull request the same
// class. Runs and attempts differ between updates of one text.
func (m Marker) SameThread(o Marker) bool {
	if m.Kind != o.Kind || m.Repo != o.Repo {
		return false
	}
	return m.Kind != KindFixPR || m.Class == o.Class
}

// markerValue percent-encodes what may not appear in a marker value.
func markerValue(s string) string {
	if s == "" {
		return "-"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '.' || c == '_' || c == '/' || c == ':' ||
			c == '-' && (i == 0 || s[i-1] != '-') && i != len(s)-1
		if ok && !(i == 0 && c == '-') {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// unmarkerValue reverses markerValue.
func unmarkerValue(s string) (string, error) {
	if s == "-" {
		return "", nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("truncated escape in %q", s)
		}
		n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q: %w", s, err)
		}
		b.WriteByte(byte(n))
		i += 2
	}
	return b.String(), nil
}
