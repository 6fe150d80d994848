package history

import (
	"slices"
	"testing"

	"github.com/polylane/polylane/analysis"
)

func TestFamilyOf(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{`Get "https://10.0.0.7:6443/api/v1/pods": read tcp 10.0.0.9:51234->10.0.0.7:6443: read: connection reset by peer`, FamilyNetwork},
		{`Unable to connect to the server: unexpected EOF`, FamilyNetwork},
		{`failed to download openapi: Get "https://10.0.0.7:6443/openapi/v2": EOF`, FamilyNetwork},
		{`npm ERR! network request to https://registry.example.org/a.tgz failed, reason: connect ETIMEDOUT 1.2.3.4:443`, FamilyNetwork},
		{`curl: (6) Could not resolve host: mirror.example.com`, FamilyNetwork},
		{`E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/main/binary-amd64/Packages.xz  Hash Sum mismatch`, FamilyNetwork},
		// pip's retry notices: a read or connect timeout of the connection is the network, not a step timeout
		{`WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'ReadTimeoutError("HTTPSConnectionPool(host='pypi.org', port=443): Read timed out. (read timeout=15)")': /simple/attrs/`, FamilyNetwork},
		{`WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'ConnectTimeoutError(<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f01>, 'Connection to pypi.org timed out. (connect timeout=15)')': /simple/attrs/`, FamilyNetwork},
		{`Error: API rate limit exceeded for installation`, FamilyRateLimit},
		{`toomanyrequests: You have reached your pull rate limit`, FamilyRateLimit},
		{`HTTP 429 from registry`, FamilyRateLimit},
		{`fatal error: runtime: out of memory`, FamilyResource},
		{`write /tmp/x: no space left on device`, FamilyResource},
		{`listen tcp :8080: bind: address already in use`, FamilyPort},
		{`error: timed out waiting for the condition on deployments/api`, FamilyTimeout},
		{`Error from server (NotFound): namespaces "demo" not found`, FamilyOrdering},
		{`npm ERR! code ERESOLVE`, FamilyDependency},
		{`    --- FAIL: TestCheckout (0.02s)`, FamilyTest},
		{`AssertionError: expected 3 to equal 4`, FamilyTest},
		{`src/app.ts(3,5): error TS2304: Cannot find name 'x'.`, FamilyBuild},
		{`remote: Permission to org/repo.git denied; Authentication failed`, FamilyCredentials},
		{`/home/runner/work/_temp/x.sh: line 3:  4242 Killed                  node build.js`, FamilyResource},
		{`error: resource mapping not found for name: "x": no matches for kind "Widget"`, FamilyOrdering},
		{`make: *** [Makefile:12: all] Error 2`, ""},
		{`cat <<heredoc-eofx`, ""},
	}
	for _, tt := range tests {
		if got := familyOf(tt.text); got != tt.want {
			t.Errorf("familyOf(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestEndpoints(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{`Get "https://10.0.0.7:6443/api/v1/x": read tcp 10.0.0.9:51234->10.0.0.7:6443: read: connection reset by peer`, []string{"10.0.0.7:6443"}},
		{`request to https://Registry.Example.org/pkg/-/pkg-1.0.0.tgz failed, reason: connect ETIMEDOUT 104.16.0.1:443`, []string{"104.16.0.1:443", "registry.example.org"}},
		{`fetch https://user:secret@git.example.com/org/repo.git`, []string{"git.example.com"}},
		{`at Object.<anonymous> (src/api/client.test.ts:61:20)`, nil},
		{`main.go:42: unexpected value`, nil},
		{`dial tcp localhost:5432: connect: connection refused`, []string{"localhost:5432"}},
		{`at 12:30 the job ended`, nil},
		// a pointer to documentation is not an endpoint
		{"##[error]This request has been automatically failed because it uses a deprecated version of `actions/upload-artifact: v3`. Learn more: https://github.blog/changelog/2024-04-16-deprecation", nil},
		{`fetch failed; see https://status.example.com/incidents for details, host registry.example.com:443`, []string{"registry.example.com:443"}},
	}
	for _, tt := range tests {
		got := dedupe(appendEndpoints(nil, tt.text))
		if !slices.Equal(got, tt.want) {
			t.Errorf("endpoints(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestEndpointsCompatible(t *testing.T) {
	tests := []struct {
		a, b []string
		want bool
	}{
		{nil, []string{"a.example:1"}, true},
		{[]string{"10.0.0.7:6443"}, []string{"10.0.0.7:6443", "x.example"}, true},
		{[]string{"registry.example.org"}, []string{"registry.example.org:443"}, true},
		{[]string{"127.0.0.1:5432"}, []string{"127.0.0.1:6443"}, false},
		{[]string{"registry.example.org"}, []string{"github.com"}, false},
	}
	for _, tt := range tests {
		if got := endpointsCompatible(tt.a, tt.b, false); got != tt.want {
			t.Errorf("endpointsCompatible(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestMaskText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Took 12.5s on  Node 18", "took 0.0s on node 0"},
		{"commit 3f2a9c1d8e7b in image sha256:ab12cd34ef56", "commit h in image sha0:h"},
		{"deadbeef", "deadbeef"},
	}
	for _, tt := range tests {
		if got := maskText(tt.in); got != tt.want {
			t.Errorf("maskText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFingerprintPrefersTheLastWords(t *testing.T) {
	o := Occurrence{
		Signature: "error: timed out waiting for the condition",
		ExitLine:  400,
		Lines: []analysis.Line{
			{N: 356, Text: "error: timed out waiting for the condition", Role: analysis.RoleCause}, // retried away
			{N: 390, Text: `Patching endpoint -> https://172.18.0.6:6443`, Role: analysis.RoleContext},
			{N: 398, Text: "Unable to connect to the server: unexpected EOF", Role: analysis.RoleContext},
		},
	}
	fp := fingerprintOf(&o)
	if fp.family != FamilyNetwork || len(fp.endpoints) != 0 {
		t.Errorf("fingerprint = %+v, want the network family from the tail and no endpoint", fp)
	}
	o.ExitLine = 0
	if fp := fingerprintOf(&o); fp.family != FamilyTimeout {
		t.Errorf("without an exit line the family = %q, want the cause's (timeout)", fp.family)
	}
}
