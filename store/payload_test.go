package store

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
)

// githubLike is a payload shaped like GitHub's: the same API URL prefix
// many times over.
func githubLike(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"workflow_run":{`)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `"url_%d":"https://api.github.com/repos/acme/widget/actions/runs/%d",`, i, 19894337324+i)
	}
	b.WriteString(`"id":1}}`)
	return []byte(b.String())
}

func TestPayloadRoundTrip(t *testing.T) {
	random := make([]byte, 4096)
	_, _ = rand.Read(random)
	tests := map[string][]byte{
		"empty":                {},
		"small":                []byte(`{"zen":"Keep it logically awesome."}`),
		"github-like":          githubLike(25_000),
		"incompressible":       random,
		"starts like a stored": append([]byte(payloadMagic), githubLike(200)...),
		"only the magic":       []byte(payloadMagic),
		"NUL first":            []byte("\x00{}"),
	}
	for name, p := range tests {
		stored := PackPayload(p)
		got, err := UnpackPayload(stored)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(got, p) {
			t.Errorf("%s: read back %d bytes that differ from the %d stored", name, len(got), len(p))
		}
		if bytes.HasPrefix(p, []byte(payloadMagic)) && bytes.Equal(stored, p) {
			t.Errorf("%s: stored raw although it starts with the marker", name)
		}
	}
}

func TestPayloadIsCompressed(t *testing.T) {
	p := githubLike(25_000)
	if n := len(PackPayload(p)); n > len(p)/4 {
		t.Fatalf("a 25 kB GitHub-like payload is stored in %d bytes, want under a quarter", n)
	}
	random := make([]byte, 4096)
	_, _ = rand.Read(random)
	if stored := PackPayload(random); !bytes.Equal(stored, random) {
		t.Fatalf("an incompressible payload is stored in %d bytes, not as itself", len(stored))
	}
}

// TestLegacyPayload reads a row written before payloads were compressed:
// the JSON as received.
func TestLegacyPayload(t *testing.T) {
	p := githubLike(5000)
	got, err := UnpackPayload(p)
	if err != nil || !bytes.Equal(got, p) {
		t.Fatalf("a raw JSON row read back as %d bytes, %v", len(got), err)
	}
}

func TestCorruptPayload(t *testing.T) {
	stored := PackPayload(githubLike(25_000))
	for name, bad := range map[string][]byte{
		"truncated":    stored[:len(stored)/2],
		"marker only":  []byte(payloadMagic),
		"huge length":  append([]byte(payloadMagic), 0xff, 0xff, 0xff, 0xff, 0x0f), // claims 4 GB
		"garbage body": append([]byte(payloadMagic), 0x10, 0xff, 0xff, 0xff, 0xff),
	} {
		if p, err := UnpackPayload(bad); err == nil {
			t.Errorf("%s: decoded to %d bytes without an error", name, len(p))
		}
	}
}
