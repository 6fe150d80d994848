package redact

import "testing"

// benchLines are lines of the kind Polylane retains: cause and context
// lines of a failure, most without a secret.
var benchLines = []string{
	"    cart_test.go:42: TestCartTotal: total = 90, want 100 after discount",
	`go: github.com/acme/lib@v1.2.3: Get "https://proxy.golang.org/github.com/acme/lib/@v/v1.2.3.zip": read tcp 10.1.0.4:51234->142.250.1.1:443: read: connection reset by peer`,
	"make: *** [Makefile:12: test] Error 1",
	"##[error]Process completed with exit code 2.",
	"  SQLSTATE[HY000] [2002] Connection refused (Connection: mysql, SQL: select exists (select 1 from information_schema.tables))",
	"npm ERR! 401 Unauthorized - GET https://registry.npmjs.org/@acme%2fui - authentication token not provided",
	"Error: The key 'cache-key' was not found; request id " + uuid,
	"  Failed to execute git clone --mirror -- 'https://x-access-token:" + ghs + "@github.com/acme/sdk.git' '/home/runner/.cache'",
}

// BenchmarkLine measures the cost of redacting one retained line.
func BenchmarkLine(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Line(benchLines[i%len(benchLines)])
	}
}

// BenchmarkLineClean measures a line without a secret or a needle.
func BenchmarkLineClean(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Line(benchLines[0])
	}
}
