package analysis

import "testing"

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"read tcp 127.0.0.1:59253->127.0.0.1:32443: read: connection reset by peer", "read tcp 127.0.0.1:<port>->127.0.0.1:32443: read: connection reset by peer"},
		{"dial tcp 10.96.0.1:443: i/o timeout", "dial tcp 10.96.0.1:443: i/o timeout"},
		{"connect ETIMEDOUT 104.16.14.169:443", "connect ETIMEDOUT <ip>:443"},
		{"listening on 127.0.0.1:41235", "listening on 127.0.0.1:<port>"},
		{"at 2024-07-08T16:48:09.3750041Z done", "at <ts> done"},
		{"/home/runner/.npm/_logs/2026-10-29T15_41_37_264Z-debug-0.log", "/home/runner/.npm/_logs/<ts>-debug-0.log"},
		{"Total time: 4043 s, completed Aug 2, 2019 7:27:52 AM", "Total time: 4043 s, completed <ts>"},
		{"connection from 1.2.3.4 at Sun Jul 10 03:55:21 2005", "connection from <ip> at <ts>"},
		{"--- FAIL: TestX (0.31s)", "--- FAIL: TestX (<dur>)"},
		{"ok pkg 1m30.5s", "ok pkg <dur>"},
		{"Command took >30min, returning 124", "Command took >30min, returning 124"},
		{"timed out after 310.0115718841553 seconds", "timed out after <dur> seconds"},
		{"object 0x7fea0d9b9480 at c0ffee1234abcd", "object <hex> at <hex>"},
		{"request 550e8400-e29b-41d4-a716-446655440000 failed", "request <uuid> failed"},
		{"open /tmp/pytest-of-runner/pytest-3/test_a0/out.txt: denied", "open <tmp>: denied"},
		{"pod web-7d9c8f6b5d-x2x7q crashed; job-x2x7q too; etcd-0 fine", "pod web-<pod> crashed; job-<pod> too; etcd-0 fine"},
		{`File "/src/app.py", line 123, in main`, `File "/src/app.py", line <n>, in main`},
		{"at Foo.bar(Foo.java:266)", "at Foo.bar(Foo.java:<n>)"},
		{"kineto_metadata.cpp:128:26: error: no match", "kineto_metadata.cpp:128:26: error: no match"},
		{"Session.h(89): error C2143: syntax error", "Session.h(89): error C2143: syntax error"},
		{"FAILED: [code=127] fmt.cc.o", "FAILED: [code=127] fmt.cc.o"},
		{"user ID 133916390 exceeded", "user ID <n> exceeded"},
		{"manifest for python:3.14t not found", "manifest for python:3.14t not found"},
		{"Current runner version: '2.339.1'", "Current runner version: '2.339.1'"},
		{"  padded   inner  ", "padded   inner"},
	}
	for _, tc := range tests {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestSignatureID(t *testing.T) {
	a, b := SignatureID("npm ERR! code ECONNRESET"), SignatureID("npm ERR! code ETIMEDOUT")
	if len(a) != 16 || a == b || a != SignatureID("npm ERR! code ECONNRESET") {
		t.Errorf("ids %q %q", a, b)
	}
}

func TestErrorKindAndEndpoint(t *testing.T) {
	tests := []struct{ in, kind, endpoint string }{
		{`Get "https://127.0.0.1:32443/api": read tcp 127.0.0.1:59253->127.0.0.1:32443: read: connection reset by peer`, "connection reset by peer", "127.0.0.1:32443"},
		{"npm ERR! code ECONNRESET", "ECONNRESET", ""},
		{"npm ERR! network request to https://registry.npmjs.org/x.tgz failed, reason: connect ETIMEDOUT 104.16.9.177:443", "ETIMEDOUT", "registry.npmjs.org"},
		{`failed to download openapi: Get "https://127.0.0.1:32443/openapi/v2?timeout=32s": EOF`, "EOF", "127.0.0.1:32443"},
		{"toomanyrequests: You have reached your pull rate limit", "rate limit", ""},
		{"dial tcp 10.0.0.5:5432: connect: connection refused", "connection refused", "10.0.0.5:5432"},
		{"all good", "", ""},
	}
	for _, tc := range tests {
		if k, e := errorKind(tc.in), endpoint(tc.in); k != tc.kind || e != tc.endpoint {
			t.Errorf("%q: kind %q endpoint %q; want %q %q", tc.in, k, e, tc.kind, tc.endpoint)
		}
	}
}
