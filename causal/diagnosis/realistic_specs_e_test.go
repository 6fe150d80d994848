package diagnosis

import (
	"fmt"
	"time"
)

// rsBrokenCredentials: a release workflow that logs in to Quay with a robot
// token that was never stored as a secret; every run fails at the login
// action, including the manual dispatches and a re-run.
func rsBrokenCredentials() *rsScenario {
	workflow := `name: Release image

on:
  push:
    branches: [main]
  workflow_dispatch:

permissions:
  contents: read

jobs:
  image:
    runs-on: ubuntu-latest
    steps:
      - name: Log in to Quay
        uses: docker/login-action@v3
        with:
          registry: quay.io
          username: ${{ vars.QUAY_ROBOT_USER }}
          password: ${{ secrets.QUAY_ROBOT_TOKEN }}

      - uses: actions/checkout@v4

      - uses: actions/setup-java@v4
        with:
          distribution: temurin
          java-version: '21'

      - uses: gradle/actions/setup-gradle@v4

      - name: Build jar
        run: ./gradlew --no-daemon :app:bootJar

      - uses: docker/setup-buildx-action@v3

      - name: Build and push
        uses: docker/build-push-action@v6
        with:
          context: .
          push: true
          tags: quay.io/pinecrest/ledger-svc:${{ github.sha }}
`
	ci := `name: CI

on:
  pull_request:
  push:
    branches: [main]

jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-java@v4
        with:
          distribution: temurin
          java-version: '21'
      - uses: gradle/actions/setup-gradle@v4
      - run: ./gradlew --no-daemon check
`
	return &rsScenario{
		name: "rs-kotlin-release-missing-secret", repo: "pinecrest/ledger-svc", repoID: 744109362, workflow: "Release image",
		path: ".github/workflows/release-image.yml", wfID: 93310458, jobName: "image", runner: rsRunner{labels: []string{"ubuntu-latest"}},
		steps: []rsStep{
			{name: "Log in to Quay", uses: "docker/login-action@v3", with: []string{"registry: quay.io", "username: pinecrest+ci_push", "ecr: auto", "logout: true"}, post: true, secs: [2]int{0, 1}},
			checkout(),
			{uses: "actions/setup-java@v4", with: []string{"distribution: temurin", "java-version: 21", "java-package: jdk"}, post: true, secs: [2]int{2, 6},
				out: func(*rsCtx) []string {
					return []string{"Java 21.0.5+11 was found in the local cache", "Creating toolchains.xml for JDK version 21 from temurin"}
				}},
			{uses: "gradle/actions/setup-gradle@v4", post: true, secs: [2]int{5, 15}, out: func(c *rsCtx) []string {
				return []string{"Restore Gradle state from cache", fmt.Sprintf("Restored Gradle User Home from cache key: gradle-home-v1|Linux|image[%s]-%s", c.hex(32), c.hex(40))}
			}},
			{name: "Build jar", run: []string{"./gradlew --no-daemon :app:bootJar"}, secs: [2]int{60, 110}, out: func(c *rsCtx) []string {
				return []string{"Starting a Gradle Daemon (subsequent builds will be faster)", "> Task :app:compileKotlin", "> Task :app:compileJava NO-SOURCE",
					"> Task :app:processResources", "> Task :app:classes", "> Task :app:resolveMainClassName", "> Task :app:bootJar", "",
					fmt.Sprintf("BUILD SUCCESSFUL in %dm %ds", c.n(1, 1), c.n(2, 50)), "5 actionable tasks: 5 executed"}
			}},
			{uses: "docker/setup-buildx-action@v3", post: true, secs: [2]int{4, 9}, out: func(c *rsCtx) []string {
				return []string{"##[group]Docker info", "Client: Docker Engine - Community", " Version:    27.3.1", "##[endgroup]",
					"##[group]Creating a new builder instance", fmt.Sprintf("[command]/usr/bin/docker buildx create --name builder-%s --driver docker-container --buildkitd-flags --allow-insecure-entitlement security.insecure --allow-insecure-entitlement network.host --use", c.hex(8)),
					"##[endgroup]", "##[group]Booting builder", "#1 [internal] booting buildkit", "#1 DONE 6.1s", "##[endgroup]"}
			}},
			{name: "Build and push", uses: "docker/build-push-action@v6", with: []string{"context: .", "push: true", "tags: quay.io/pinecrest/ledger-svc:${{ github.sha }}"}, secs: [2]int{60, 120}},
		},
		files: map[string]string{".github/workflows/release-image.yml": workflow, ".github/workflows/ci.yml": ci,
			"settings.gradle.kts": "rootProject.name = \"ledger-svc\"\ninclude(\"app\")\n",
			"Dockerfile":          "FROM eclipse-temurin:21-jre-alpine\nWORKDIR /app\nCOPY app/build/libs/app.jar /app/ledger-svc.jar\nEXPOSE 8080\nENTRYPOINT [\"java\", \"-jar\", \"/app/ledger-svc.jar\"]\n"},
		history: "LLLLLdLLLLLLLLLLLLLLLLLdLLLLLL",
		failures: map[byte]rsFailure{
			'L': {step: "Log in to Quay", secs: [2]int{0, 1}, out: func(*rsCtx) []string { return []string{"##[error]Username and password required"} }},
		},
		triggerAttempt: 2,
		authors:        []string{"gkarlsson", "noor-h"},
		messages:       []string{"Ledger: idempotent postings", "Add account freeze endpoint", "Bump Spring Boot to 3.4.0", "Move image to Quay", "Reconcile FX rates hourly"},
		start:          time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "broken", mechanism: "credentials", cause: "Username and password required",
			producer: &rsAnchor{file: ".github/workflows/release-image.yml", from: "name: Log in to Quay", to: "password:"},
			patch:    false, pattern: "persistent"},
	}
}

// rsGotestsumFlake: a Go scheduler whose unit tests run under gotestsum from
// a Taskfile; one timing-sensitive test fails now and then.
func rsGotestsumFlake() *rsScenario {
	workflow := `name: ci

on:
  push:
    branches: [main]
  pull_request:

permissions:
  contents: read

jobs:
  test:
    runs-on: ubuntu-latest
    timeout-minutes: 15
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version: '1.23'
      - name: Install Task
        uses: arduino/setup-task@v2
        with:
          version: 3.x
          repo-token: ${{ secrets.GITHUB_TOKEN }}
      - name: Install tools
        run: task tools
      - name: Lint
        run: task lint
      - name: Test
        run: task test
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: junit
          path: junit.xml
`
	taskfile := `version: '3'

tasks:
  tools:
    desc: Install the tools CI needs
    cmds:
      - go install gotest.tools/gotestsum@v1.12.0
      - go install honnef.co/go/tools/cmd/staticcheck@2024.1.1

  lint:
    desc: Vet and staticcheck
    cmds:
      - go vet ./...
      - staticcheck ./...

  test:
    desc: Unit tests with the race detector
    cmds:
      - gotestsum --format pkgname-and-test-fails --junitfile junit.xml -- -race -count=1 ./...

  build:
    cmds:
      - go build -o bin/cronkeeper ./cmd/cronkeeper
`
	const gts = "gotestsum --format pkgname-and-test-fails --junitfile junit.xml -- -race -count=1 ./..."
	pkgs := []string{"cmd/cronkeeper", "internal/api", "internal/leader", "internal/scheduler", "internal/store"}
	summary := func(c *rsCtx, failed string) []string {
		out := []string{"task: [test] " + gts}
		for _, p := range pkgs {
			mark := "✓"
			if p == failed {
				mark = "✖"
			}
			out = append(out, fmt.Sprintf("%s  %s (%ss)", mark, p, c.secs(1, 5, 3)))
		}
		return append(out, "")
	}
	flake := func(pkg, test, file, msg string) func(c *rsCtx) []string {
		return func(c *rsCtx) []string {
			out := append(summary(c, pkg), "=== Failed", fmt.Sprintf("=== FAIL: %s %s (%ss)", pkg, test, c.secs(2, 5, 2)),
				fmt.Sprintf("    %s: %s", file, msg), "", fmt.Sprintf("DONE 214 tests, 1 failure in %ss", c.secs(12, 18, 3)))
			return append(out, `task: Failed to run task "test": exit status 1`)
		}
	}
	return &rsScenario{
		name: "rs-go-gotestsum-flake", repo: "orbit-works/cronkeeper", repoID: 655871204, workflow: "ci",
		path: ".github/workflows/ci.yml", wfID: 73001266, jobName: "test", runner: rsRunner{labels: []string{"ubuntu-latest"}},
		steps: []rsStep{checkout(),
			{uses: "actions/setup-go@v5", with: []string{"go-version: 1.23", "check-latest: false", "token: ***", "cache: true"}, post: true, secs: [2]int{3, 10},
				out: func(*rsCtx) []string {
					return []string{"Setup go version spec 1.23", "Found in cache @ /opt/hostedtoolcache/go/1.23.3/x64", "Added go to the path", "Cache restored successfully"}
				}},
			{name: "Install Task", uses: "arduino/setup-task@v2", with: []string{"version: 3.x", "repo-token: ***"}, secs: [2]int{1, 3},
				out: func(*rsCtx) []string {
					return []string{"Downloading https://github.com/go-task/task/releases/download/v3.40.0/task_linux_amd64.tar.gz"}
				}},
			{name: "Install tools", run: []string{"task tools"}, secs: [2]int{10, 30}, out: func(*rsCtx) []string {
				return []string{"task: [tools] go install gotest.tools/gotestsum@v1.12.0", "task: [tools] go install honnef.co/go/tools/cmd/staticcheck@2024.1.1"}
			}},
			{name: "Lint", run: []string{"task lint"}, secs: [2]int{20, 40}, out: func(*rsCtx) []string {
				return []string{"task: [lint] go vet ./...", "task: [lint] staticcheck ./..."}
			}},
			{name: "Test", run: []string{"task test"}, secs: [2]int{40, 70}, out: func(c *rsCtx) []string {
				return append(summary(c, ""), fmt.Sprintf("DONE 214 tests in %ss", c.secs(12, 18, 3)))
			}},
			{uses: "actions/upload-artifact@v4", with: []string{"name: junit", "path: junit.xml"}, always: true, secs: [2]int{1, 3}, out: func(c *rsCtx) []string {
				return []string{"With the provided path, there will be 1 file uploaded", fmt.Sprintf("Artifact junit.zip successfully finalized. Artifact ID %d", c.n(2_000_000_000, 2_100_000_000))}
			}},
		},
		files: map[string]string{".github/workflows/ci.yml": workflow, "Taskfile.yml": taskfile,
			"go.mod":     "module github.com/orbit-works/cronkeeper\n\ngo 1.23\n",
			"Dockerfile": "FROM golang:1.23 AS build\nWORKDIR /src\nCOPY . .\nRUN go build -o /cronkeeper ./cmd/cronkeeper\n\nFROM gcr.io/distroless/base-debian12\nCOPY --from=build /cronkeeper /cronkeeper\nENTRYPOINT [\"/cronkeeper\"]\n"},
		history: "....F.....p..E....F...N...q.....F..p....F.....x..E...F..p..r...F",
		failures: map[byte]rsFailure{
			'F': {step: "Test", exit: 201, secs: [2]int{40, 70}, out: flake("internal/scheduler", "TestScheduler_FiresDueJobs", "scheduler_test.go:88",
				`job "nightly-report" did not fire within 2s (fired 0 times)`)},
			'E': {step: "Test", exit: 201, secs: [2]int{40, 70}, out: flake("internal/leader", "TestLeaderElection_Handover", "election_test.go:142",
				"follower did not take over within 5s after the leader stepped down")},
			'N': {step: "Install tools", exit: 201, secs: [2]int{30, 40}, out: func(c *rsCtx) []string {
				return []string{"task: [tools] go install gotest.tools/gotestsum@v1.12.0",
					fmt.Sprintf(`go: gotest.tools/gotestsum@v1.12.0: gotest.tools/gotestsum@v1.12.0: Get "https://proxy.golang.org/gotest.tools/gotestsum/@v/v1.12.0.info": dial tcp 142.250.%d.%d:443: i/o timeout`, c.n(64, 191), c.n(1, 254)),
					`task: Failed to run task "tools": exit status 1`}
			}},
		},
		prBranches: []string{"feat/cron-tz", "fix/leader-lease"}, prFail: 'E', rerunFail: 'F',
		authors:  []string{"amir-t", "jo-lindberg"},
		messages: []string{"scheduler: timezone-aware specs", "leader: shorter lease renewals", "api: list runs by job", "store: sqlite WAL mode", "cmd: --dry-run flag"},
		start:    time.Date(2026, 9, 25, 8, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanism: "test-failure", cause: "TestScheduler_FiresDueJobs",
			producer: &rsAnchor{file: "Taskfile.yml", from: "gotestsum --format"},
			patch:    true, patchFiles: []string{"Taskfile.yml"}, ciOnly: &rsTrue, pattern: "intermittent"},
	}
}
