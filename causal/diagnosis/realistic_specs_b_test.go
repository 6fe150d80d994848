package diagnosis

import (
	"fmt"
	"strings"
	"time"
)

// rsOOM: a Rust workspace whose release profile uses fat LTO; on the 16 GB
// hosted runner cargo runs several rustc processes at once and the kernel
// kills one of them now and then.
func rsOOM() *rsScenario {
	workflow := `name: CI

on:
  push:
    branches: [main]
  pull_request:

env:
  CARGO_TERM_COLOR: always
  CARGO_INCREMENTAL: 0

jobs:
  build:
    name: build-and-test
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v4
      - uses: dtolnay/rust-toolchain@1.83.0
        with:
          components: clippy
      - uses: Swatinem/rust-cache@v2
      - name: Clippy
        run: cargo clippy --workspace --all-targets --locked -- -D warnings
      - name: Build
        run: cargo build --workspace --release --locked
      - name: Test
        run: cargo test --workspace --release --locked
`
	publish := `name: Publish

on:
  release:
    types: [published]

jobs:
  image:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      packages: write
    steps:
      - uses: actions/checkout@v4
      - uses: docker/login-action@v3
        with:
          registry: ghcr.io
          username: ${{ github.actor }}
          password: ${{ secrets.GITHUB_TOKEN }}
      - uses: docker/build-push-action@v6
        with:
          context: .
          push: true
          tags: ghcr.io/ferrous-labs/tessellate-server:${{ github.event.release.tag_name }}
`
	cargo := `[workspace]
resolver = "2"
members = ["crates/*"]

[workspace.package]
version = "0.9.0"
edition = "2021"

[profile.release]
lto = "fat"
codegen-units = 1
debug = "line-tables-only"
`
	crates := []string{"tessellate-proj", "tessellate-geo", "tessellate-tiles", "tessellate-raster", "tessellate-render", "tessellate-server"}
	compiling := func(c *rsCtx, upto int) []string {
		var out []string
		for _, dep := range []string{"libc v0.2.164", "serde v1.0.215", "tokio v1.41.1", "rayon-core v1.12.1", "image v0.25.5", "geo-types v0.7.14", "proj-sys v0.23.2", "axum v0.7.9"} {
			out = append(out, "\x1b[1m\x1b[92m   Compiling\x1b[0m "+dep)
		}
		for _, cr := range crates[:upto] {
			out = append(out, fmt.Sprintf("\x1b[1m\x1b[92m   Compiling\x1b[0m %s v0.9.0 (%s/crates/%s)", cr, c.ws, strings.TrimPrefix(cr, "tessellate-")))
		}
		return out
	}
	killed := func(c *rsCtx) []string {
		victim := c.pick("tessellate-render", "tessellate-render", "tessellate-raster")
		crate := strings.ReplaceAll(victim, "-", "_")
		out := compiling(c, 5)
		return append(out,
			fmt.Sprintf("\x1b[1m\x1b[91merror\x1b[0m\x1b[1m: could not compile `%s` (lib)\x1b[0m", victim), "",
			"Caused by:",
			fmt.Sprintf("  process didn't exit successfully: `/home/runner/.rustup/toolchains/1.83.0-x86_64-unknown-linux-gnu/bin/rustc --crate-name %s --edition=2021 crates/%s/src/lib.rs --error-format=json --json=diagnostic-rendered-ansi,artifacts,future-incompat --crate-type lib --emit=dep-info,metadata,link -C opt-level=3 -C lto -C codegen-units=1 -C debuginfo=line-tables-only -C metadata=%s --out-dir %s/target/release/deps -L dependency=%s/target/release/deps` (signal: 9, SIGKILL: kill)",
				crate, strings.TrimPrefix(victim, "tessellate-"), c.hex(16), c.ws, c.ws),
			"\x1b[1m\x1b[33mwarning\x1b[0m\x1b[1m:\x1b[0m build failed, waiting for other jobs to finish...")
	}
	return &rsScenario{
		name: "rs-rust-release-oom", repo: "ferrous-labs/tessellate", repoID: 588120446, workflow: "CI",
		path: ".github/workflows/ci.yml", wfID: 60418822, jobName: "build-and-test", runner: rsRunner{labels: []string{"ubuntu-latest"}},
		jobEnv: []string{"CARGO_TERM_COLOR: always", "CARGO_INCREMENTAL: 0"},
		steps: []rsStep{checkout(),
			{uses: "dtolnay/rust-toolchain@1.83.0", with: []string{"toolchain: 1.83.0", "components: clippy"}, secs: [2]int{6, 12}, out: func(c *rsCtx) []string {
				return []string{"info: syncing channel updates for '1.83.0-x86_64-unknown-linux-gnu'", "info: default toolchain set to '1.83.0-x86_64-unknown-linux-gnu'", "rustc 1.83.0 (90b35a623 2024-11-26)"}
			}},
			{uses: "Swatinem/rust-cache@v2", post: true, secs: [2]int{5, 25}, out: func(c *rsCtx) []string {
				return []string{"##[group]Cache Configuration", "Workspaces:", "  " + c.ws, "##[endgroup]", "... Restoring cache ...",
					fmt.Sprintf("Cache Size: ~%d MB (%d B)", c.n(900, 1300), c.n(900_000_000, 1_300_000_000)), "Restored from cache key \"v0-rust-build-and-test-Linux-x64-" + c.hex(8) + "-" + c.hex(8) + "\"."}
			}},
			{name: "Clippy", run: []string{"cargo clippy --workspace --all-targets --locked -- -D warnings"}, secs: [2]int{90, 180}, out: func(c *rsCtx) []string {
				return []string{fmt.Sprintf("\x1b[1m\x1b[92m    Finished\x1b[0m `dev` profile [unoptimized + debuginfo] target(s) in %dm %02ds", c.n(1, 2), c.n(0, 59))}
			}},
			{name: "Build", run: []string{"cargo build --workspace --release --locked"}, secs: [2]int{420, 640}, out: func(c *rsCtx) []string {
				return append(compiling(c, 6), fmt.Sprintf("\x1b[1m\x1b[92m    Finished\x1b[0m `release` profile [optimized + debuginfo] target(s) in %dm %02ds", c.n(7, 10), c.n(0, 59)))
			}},
			{name: "Test", run: []string{"cargo test --workspace --release --locked"}, secs: [2]int{120, 200}, out: func(c *rsCtx) []string {
				return []string{"test result: ok. 142 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in " + c.secs(1.5, 3, 2) + "s"}
			}},
		},
		files: map[string]string{".github/workflows/ci.yml": workflow, ".github/workflows/publish.yml": publish, "Cargo.toml": cargo,
			".dockerignore": "target/\n.git/\n",
			"Dockerfile":    "FROM rust:1.83-bookworm AS build\nWORKDIR /src\nCOPY . .\nRUN cargo build --release --locked -p tessellate-server\n\nFROM debian:bookworm-slim\nRUN apt-get update && apt-get install -y --no-install-recommends ca-certificates libproj25 && rm -rf /var/lib/apt/lists/*\nCOPY --from=build /src/target/release/tessellate-server /usr/local/bin/tessellate-server\nENTRYPOINT [\"tessellate-server\"]\n"},
		history: "......p...K.....T....p...K..q.......K...p......x.....K..p..T.......p.K....K",
		failures: map[byte]rsFailure{
			'K': {step: "Build", exit: 101, secs: [2]int{380, 560}, out: killed},
			'T': {step: "Test", exit: 101, secs: [2]int{120, 180}, out: func(c *rsCtx) []string {
				return lines(fmt.Sprintf(`test tiles::cache::tests::concurrent_eviction_keeps_hot_tiles ... FAILED

failures:

---- tiles::cache::tests::concurrent_eviction_keeps_hot_tiles stdout ----

thread 'tiles::cache::tests::concurrent_eviction_keeps_hot_tiles' panicked at crates/tiles/src/cache.rs:214:9:
assertion `+"`left == right`"+` failed: hot tile evicted
  left: %d
 right: 32
note: run with `+"`RUST_BACKTRACE=1`"+` environment variable to display a backtrace


failures:
    tiles::cache::tests::concurrent_eviction_keeps_hot_tiles

test result: FAILED. 141 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in %ss

`+"\x1b[1m\x1b[91merror\x1b[0m\x1b[1m:\x1b[0m test failed, to rerun pass `-p tessellate-tiles --lib`", c.n(29, 31), c.secs(1.5, 3, 2)))
			}},
		},
		prBranches: []string{"render/msaa", "geo/antimeridian"}, prFail: 'T', rerunFail: 'K',
		authors:  []string{"ilsa-b", "okonkwo", "pvh"},
		messages: []string{"render: batch glyph atlas uploads", "geo: split antimeridian polygons", "tiles: lru by byte size", "raster: simd resample", "server: graceful shutdown"},
		start:    time.Date(2026, 9, 20, 9, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanism: "resource-exhaustion", cause: "SIGKILL",
			producer: &rsAnchor{file: ".github/workflows/ci.yml", from: "run: cargo build --workspace --release"},
			patch:    true, patchFiles: []string{".github/workflows/ci.yml"}, ciOnly: &rsTrue, pattern: "intermittent"},
	}
}

// rsRegression: a Maven service where a change to fare rounding breaks a unit
// test on every run since; Maven Central resets a download now and then in an
// earlier step.
func rsRegression() *rsScenario {
	workflow := `name: Build

on:
  push:
    branches: [main]
  pull_request:
    branches: [main]

jobs:
  verify:
    runs-on: ubuntu-22.04
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-java@v4
        with:
          distribution: temurin
          java-version: '21'
          cache: maven
      - name: Resolve dependencies
        run: ./mvnw -B -ntp dependency:go-offline
      - name: Verify
        run: ./mvnw -B -ntp verify
`
	mvnHead := []string{"[INFO] Scanning for projects...", "[INFO] ", "[INFO] -----------------------< com.harborline:fare-engine >-----------------------",
		"[INFO] Building fare-engine 2.14.0-SNAPSHOT", "[INFO]   from pom.xml", "[INFO] --------------------------------[ jar ]---------------------------------"}
	tests := func(c *rsCtx, fail bool) []string {
		out := append([]string{}, mvnHead...)
		out = append(out, "[INFO] --- surefire:3.5.2:test (default-test) @ fare-engine ---", "[INFO] Using auto detected provider org.apache.maven.surefire.junitplatform.JUnitPlatformProvider",
			"[INFO] ", "[INFO] -------------------------------------------------------", "[INFO]  T E S T S", "[INFO] -------------------------------------------------------")
		for _, cls := range []string{"RouteIndexTest", "ZoneMatrixTest", "CappingPolicyTest"} {
			out = append(out, "[INFO] Running com.harborline.fare."+cls,
				fmt.Sprintf("[INFO] Tests run: %d, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: %s s -- in com.harborline.fare.%s", c.n(8, 30), c.secs(0.05, 1.2, 3), cls))
		}
		out = append(out, "[INFO] Running com.harborline.fare.DiscountCalculatorTest")
		if !fail {
			return append(out, "[INFO] Tests run: 14, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: "+c.secs(0.05, 0.2, 3)+" s -- in com.harborline.fare.DiscountCalculatorTest",
				"[INFO] Tests run: 212, Failures: 0, Errors: 0, Skipped: 2", "[INFO] BUILD SUCCESS")
		}
		return append(out, lines(fmt.Sprintf(`[ERROR] Tests run: 14, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: %s s <<< FAILURE! -- in com.harborline.fare.DiscountCalculatorTest
[ERROR] com.harborline.fare.DiscountCalculatorTest.childFareIsRoundedAfterDiscount -- Time elapsed: 0.0%02d s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <12.40> but was: <12.00>
	at org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
	at org.junit.jupiter.api.AssertionFailureBuilder.buildAndThrow(AssertionFailureBuilder.java:132)
	at org.junit.jupiter.api.AssertEquals.failNotEqual(AssertEquals.java:197)
	at org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:1145)
	at com.harborline.fare.DiscountCalculatorTest.childFareIsRoundedAfterDiscount(DiscountCalculatorTest.java:88)
	at java.base/java.lang.reflect.Method.invoke(Method.java:580)
	at java.base/java.util.ArrayList.forEach(ArrayList.java:1596)

[INFO] 
[INFO] Results:
[INFO] 
[ERROR] Failures: 
[ERROR]   DiscountCalculatorTest.childFareIsRoundedAfterDiscount:88 expected: <12.40> but was: <12.00>
[INFO] 
[ERROR] Tests run: 212, Failures: 1, Errors: 0, Skipped: 2
[INFO] 
[INFO] ------------------------------------------------------------------------
[INFO] BUILD FAILURE
[INFO] ------------------------------------------------------------------------
[INFO] Total time:  %s s
[INFO] Finished at: %s
[INFO] ------------------------------------------------------------------------
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.5.2:test (default-test) on project fare-engine: There are test failures.
[ERROR] 
[ERROR] See %s/target/surefire-reports for the individual test results.
[ERROR] See dump files (if any exist) [date].dump, [date]-jvmRun[N].dump and [date].dumpstream.
[ERROR] -> [Help 1]
[ERROR] 
[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.
[ERROR] Re-run Maven using the -X switch to enable full debug logging.`, c.secs(0.05, 0.2, 3), c.n(2, 19), c.secs(31, 48, 3),
			c.r.started.Add(3*time.Minute).Format("2006-01-02T15:04:05Z"), c.ws))...)
	}
	return &rsScenario{
		name: "rs-maven-unit-regression", repo: "harborline/fare-engine", repoID: 533870215, workflow: "Build",
		path: ".github/workflows/build.yml", wfID: 50113977, jobName: "verify", runner: rsRunner{labels: []string{"ubuntu-22.04"}},
		steps: []rsStep{checkout(),
			{uses: "actions/setup-java@v4", with: []string{"distribution: temurin", "java-version: 21", "cache: maven", "java-package: jdk"}, post: true, secs: [2]int{3, 9},
				out: func(c *rsCtx) []string {
					return []string{"Java 21.0.5+11 was found in the local cache", "Creating toolchains.xml for JDK version 21 from temurin",
						fmt.Sprintf("Cache restored successfully (%d MB)", c.n(140, 190))}
				}},
			{name: "Resolve dependencies", run: []string{"./mvnw -B -ntp dependency:go-offline"}, secs: [2]int{8, 30}, out: func(c *rsCtx) []string {
				return append(append([]string{}, mvnHead...), "[INFO] --- dependency:3.8.1:go-offline (default-cli) @ fare-engine ---", "[INFO] Resolved plugin: maven-surefire-plugin-3.5.2.jar", "[INFO] BUILD SUCCESS")
			}},
			{name: "Verify", run: []string{"./mvnw -B -ntp verify"}, secs: [2]int{35, 55}, out: func(c *rsCtx) []string { return tests(c, false) }},
		},
		files: map[string]string{".github/workflows/build.yml": workflow,
			"pom.xml":    "<project>\n  <modelVersion>4.0.0</modelVersion>\n  <groupId>com.harborline</groupId>\n  <artifactId>fare-engine</artifactId>\n  <version>2.14.0-SNAPSHOT</version>\n</project>\n",
			"Dockerfile": "FROM eclipse-temurin:21-jre\nCOPY target/fare-engine.jar /app/fare-engine.jar\nENTRYPOINT [\"java\", \"-jar\", \"/app/fare-engine.jar\"]\n",
			"src/main/java/com/harborline/fare/DiscountCalculator.java": "package com.harborline.fare;\n\nimport java.math.BigDecimal;\nimport java.math.RoundingMode;\n\npublic final class DiscountCalculator {\n    public BigDecimal childFare(BigDecimal adult, BigDecimal discount) {\n        return adult.setScale(0, RoundingMode.HALF_EVEN).multiply(BigDecimal.ONE.subtract(discount));\n    }\n}\n"},
		history: "........N.......p.....N.....q...r.....p...FFFxFNFFpF",
		failures: map[byte]rsFailure{
			'N': {step: "Resolve dependencies", exit: 1, secs: [2]int{20, 60}, out: func(c *rsCtx) []string {
				art := c.pick("com.fasterxml.jackson.core:jackson-databind:jar:2.18.1", "org.junit.jupiter:junit-jupiter-engine:jar:5.11.3", "io.micrometer:micrometer-core:jar:1.14.1")
				why := c.pick("Connection reset", "Read timed out", "status code: 502, reason phrase: Bad Gateway (502)")
				return append(append([]string{}, mvnHead...), "[INFO] --- dependency:3.8.1:go-offline (default-cli) @ fare-engine ---",
					"[INFO] ------------------------------------------------------------------------", "[INFO] BUILD FAILURE",
					"[INFO] ------------------------------------------------------------------------",
					fmt.Sprintf("[ERROR] Failed to execute goal org.apache.maven.plugins:maven-dependency-plugin:3.8.1:go-offline (default-cli) on project fare-engine: org.eclipse.aether.resolution.DependencyResolutionException: Could not transfer artifact %s from/to central (https://repo.maven.apache.org/maven2): %s -> [Help 1]", art, why),
					"[ERROR] ", "[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.")
			}},
			'F': {step: "Verify", exit: 1, secs: [2]int{35, 55}, out: func(c *rsCtx) []string { return tests(c, true) }},
		},
		prBranches: []string{"feature/child-fare-rounding", "chore/surefire-3.5"}, prFail: 'F', rerunFail: 'N',
		authors:  []string{"lindqvist", "a-moreau", "kpatel"},
		messages: []string{"Add peak surcharge table", "Cap weekly fares per zone", "Round child fares before discount", "Refactor route index", "Update zone matrix for 2027"},
		start:    time.Date(2026, 8, 28, 8, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "regression", mechanism: "test-failure", cause: "expected: <12.40> but was: <12.00>",
			patch: false, pattern: "persistent"},
	}
}
