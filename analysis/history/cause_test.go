package history

import (
	"testing"

	"github.com/polylane/polylane/analysis"
)

// normalized is occ with the engine's normalised line as the signature.
func normalized(id int64, step, line string) Occurrence {
	return occ(id, step, line, analysis.Normalize(line))
}

// TestClusterOneCauseTwoWordings: a registry's rate limit met on the
// manifest and on the token endpoint is one class.
func TestClusterOneCauseTwoWordings(t *testing.T) {
	const step = "Build image"
	occs := []Occurrence{
		normalized(1, step, `ERROR: failed to solve: node:20-alpine: failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/node/manifests/sha256:8e1b4c0d2f36a5e7c9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit.`),
		normalized(4, step, `ERROR: failed to solve: node:20-alpine: failed to resolve source metadata for docker.io/library/node:20-alpine: failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://auth.docker.io/token?scope=repository%3Alibrary%2Fnode%3Apull&service=registry.docker.io: 429 Too Many Requests`),
		normalized(9, step, `ERROR: failed to solve: node:20-alpine: failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/node/blobs/sha256:3c5e7a9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit.`),
		normalized(12, step, `npm ERR! 429 Too Many Requests - GET https://registry.npmjs.org/left-pad`), // another service
	}
	classes := Cluster(occs, nil)
	c := classOf(classes, 1, step)
	if c == nil || c.Count != 3 || len(c.Members) < 2 {
		t.Fatalf("the docker rate limit's class = %+v, want runs 1, 4 and 9 with both wordings as members", c)
	}
	if npm := classOf(classes, 12, step); npm == c {
		t.Errorf("npm's rate limit joined docker's: %+v", npm)
	}
}

// TestClusterURLVariants: one registry timeout that names a different
// tarball in every run is one class.
func TestClusterURLVariants(t *testing.T) {
	const step = "Install dependencies"
	occs := []Occurrence{
		normalized(1, step, `error An unexpected error occurred: "https://registry.yarnpkg.com/@babel/core/-/core-7.24.0.tgz: ESOCKETTIMEDOUT".`),
		normalized(3, step, `error An unexpected error occurred: "https://registry.yarnpkg.com/typescript/-/typescript-5.4.2.tgz: ESOCKETTIMEDOUT".`),
		normalized(7, step, `error An unexpected error occurred: "https://registry.yarnpkg.com/@types/node/-/node-20.11.30.tgz: ESOCKETTIMEDOUT".`),
		normalized(8, step, `error An unexpected error occurred: "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz: Request failed \"404 Not Found\"".`),
	}
	classes := Cluster(occs, nil)
	c := classOf(classes, 1, step)
	if c == nil || c.Count != 3 {
		t.Fatalf("the timeout's class = %+v, want runs 1, 3 and 7", c)
	}
	if other := classOf(classes, 8, step); other == c {
		t.Errorf("a missing package joined the timeouts")
	}
}

// TestMaskTextURLs: a URL's path and query are variable parts of a
// wording; its host is not.
func TestMaskTextURLs(t *testing.T) {
	a := maskText(`GET https://registry.yarnpkg.com/@babel/core/-/core-7.24.0.tgz?x=1: ESOCKETTIMEDOUT`)
	b := maskText(`GET https://registry.yarnpkg.com/typescript/-/typescript-5.4.2.tgz: ESOCKETTIMEDOUT`)
	if a != b {
		t.Errorf("maskText differs:\n%s\n%s", a, b)
	}
	if c := maskText(`GET https://registry.npmjs.org/typescript: ESOCKETTIMEDOUT`); c == a {
		t.Errorf("two hosts masked alike: %s", c)
	}
}

// TestClusterRandomNames: a test that names a random value it generated
// fails with a different wording every run, and is one class.
func TestClusterRandomNames(t *testing.T) {
	const step = "Unit tests"
	occs := []Occurrence{
		normalized(1, step, `role of "u-8fk2m9qz": viewer`),
		normalized(4, step, `role of "u-p3x7c1wd": viewer`),
		normalized(6, step, `role of "u-2hq9v4tn": viewer`),
		normalized(8, step, `owner of "u-2hq9v4tn": nobody`),
	}
	classes := Cluster(occs, nil)
	if c := classOf(classes, 1, step); c == nil || c.Count != 3 {
		t.Fatalf("the role assertion's class = %+v, want runs 1, 4 and 6", c)
	}
	if maskText("sha256 v1alpha1 utf8 ipv6") != "sha0 v0alpha0 utf0 ipv0" {
		t.Errorf("words with digits were masked as random: %q", maskText("sha256 v1alpha1 utf8 ipv6"))
	}
}
