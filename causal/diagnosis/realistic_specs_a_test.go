package diagnosis

import (
	"fmt"
	"strings"
	"time"
)

// rsScenarios lists the realistic scenarios, one repository and one
// mechanism or verdict each.
func rsScenarios() []*rsScenario {
	return []*rsScenario{rsRateLimit(), rsPortConflict(), rsOOM(), rsRegression(), rsTimeout(),
		rsWaitBeforeCreate(), rsPipNetwork(), rsServiceHealth(), rsBrokenCredentials(), rsGotestsumFlake(),
		rsAptDockerfile(), rsReleaseNotesRateLimit(), rsDiskFull(), rsPlaywrightFlake(), rsGradleOOM(),
		rsPRRegression(), rsDeprecatedArtifactAction(), rsKindNewWorkflow()}
}

var rsTrue = true

func checkout() rsStep { return rsStep{uses: "actions/checkout@v4", post: true, secs: [2]int{1, 3}} }

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// rsRateLimit: a Rails app on self-hosted runners behind one NAT address;
// Docker Hub refuses anonymous pulls of the service images now and then.
func rsRateLimit() *rsScenario {
	workflow := `name: CI

on:
  push:
    branches: [main]
  pull_request:

concurrency:
  group: ci-${{ github.ref }}
  cancel-in-progress: true

jobs:
  test:
    runs-on: [self-hosted, linux, x64, rails]
    timeout-minutes: 25
    services:
      postgres:
        image: postgres:16.4
        env:
          POSTGRES_USER: enroll
          POSTGRES_PASSWORD: enroll
          POSTGRES_DB: enroll_test
        ports:
          - 5432:5432
        options: >-
          --health-cmd "pg_isready -U enroll"
          --health-interval 5s
          --health-timeout 5s
          --health-retries 10
      redis:
        image: redis:7.4-alpine
        ports:
          - 6379:6379
        options: --health-cmd "redis-cli ping" --health-interval 5s --health-retries 5
    env:
      RAILS_ENV: test
      DATABASE_URL: postgres://enroll:enroll@localhost:5432/enroll_test
      REDIS_URL: redis://localhost:6379/1
    steps:
      - uses: actions/checkout@v4

      - uses: ruby/setup-ruby@v1
        with:
          bundler-cache: true

      - name: Prepare database
        run: bin/rails db:schema:load

      - name: Run specs
        run: bin/rspec --format progress --format RspecJunitFormatter --out tmp/rspec.xml

      - name: Upload test report
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: rspec-report
          path: tmp/rspec.xml
`
	deploy := `name: Deploy

on:
  push:
    tags: ['v*']

permissions:
  id-token: write
  contents: read

jobs:
  image:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: aws-actions/configure-aws-credentials@v4
        with:
          role-to-assume: arn:aws:iam::411902837465:role/enroll-deploy
          aws-region: eu-west-1
      - uses: aws-actions/amazon-ecr-login@v2
      - uses: docker/build-push-action@v6
        with:
          context: .
          push: true
          tags: 411902837465.dkr.ecr.eu-west-1.amazonaws.com/enroll:${{ github.ref_name }}
`
	pullFail := func(image string) []string {
		out := []string{}
		for k := 0; k < 3; k++ {
			out = append(out, "##[command]/usr/bin/docker pull "+image,
				"Error response from daemon: toomanyrequests: You have reached your unauthenticated pull rate limit. https://www.docker.com/increase-rate-limit")
			if k < 2 {
				out = append(out, fmt.Sprintf("##[warning]Docker pull failed with exit code 1, back off %d.%03d seconds before retry.", 2+k*4, 100+k*271))
			}
		}
		return append(out, "##[error]Docker pull failed with exit code 1")
	}
	specs := func(c *rsCtx) []string {
		seed := c.n(1000, 65000)
		return []string{fmt.Sprintf("Randomized with seed %d", seed),
			strings.Repeat(".", 60) + "*" + strings.Repeat(".", 19),
			fmt.Sprintf("Finished in %d minutes %s seconds (files took %s seconds to load)", c.n(2, 3), c.secs(1, 59, 2), c.secs(2.5, 4.5, 2)),
			"1432 examples, 0 failures, 6 pending", "", fmt.Sprintf("Randomized with seed %d", seed)}
	}
	return &rsScenario{
		name: "rs-rails-dockerhub-ratelimit", repo: "brightpath/enroll", repoID: 702114903, workflow: "CI",
		path: ".github/workflows/ci.yml", wfID: 88412301, jobName: "test",
		runner: rsRunner{labels: []string{"self-hosted", "linux", "x64", "rails"}, names: []string{"ci-rails-01", "ci-rails-02", "ci-rails-03"}},
		services: []rsService{{name: "postgres", image: "postgres:16.4", health: true, port: "5432:5432"},
			{name: "redis", image: "redis:7.4-alpine", health: true, port: "6379:6379"}},
		jobEnv: []string{"RAILS_ENV: test", "DATABASE_URL: postgres://enroll:enroll@localhost:5432/enroll_test", "REDIS_URL: redis://localhost:6379/1"},
		steps: []rsStep{checkout(),
			{uses: "ruby/setup-ruby@v1", with: []string{"bundler-cache: true"}, secs: [2]int{8, 40}, out: func(c *rsCtx) []string {
				return []string{"Using Ruby 3.3.6 from .ruby-version", "[command]/usr/bin/bundle config --local deployment true",
					"Cache key: setup-ruby-bundler-cache-v6-ubuntu-24.04-x64-ruby-3.3.6-wd-" + c.ws + "-with--without--only--Gemfile.lock-" + c.hex(64),
					"Cache Size: ~" + fmt.Sprint(c.n(80, 95)) + " MB", "Bundle complete! 142 Gemfile dependencies, 261 gems now installed."}
			}},
			{name: "Prepare database", run: []string{"bin/rails db:schema:load"}, secs: [2]int{6, 14}},
			{name: "Run specs", run: []string{"bin/rspec --format progress --format RspecJunitFormatter --out tmp/rspec.xml"}, secs: [2]int{130, 215}, out: specs},
			{name: "Upload test report", uses: "actions/upload-artifact@v4", with: []string{"name: rspec-report", "path: tmp/rspec.xml"}, always: true, secs: [2]int{1, 3},
				out: func(c *rsCtx) []string {
					return []string{"With the provided path, there will be 1 file uploaded", "Artifact name is valid!",
						fmt.Sprintf("Artifact rspec-report.zip successfully finalized. Artifact ID %d", c.n(2_000_000_000, 2_100_000_000))}
				}},
		},
		files: map[string]string{".github/workflows/ci.yml": workflow, ".github/workflows/deploy.yml": deploy,
			"Dockerfile":    "FROM ruby:3.3.6-slim AS build\nWORKDIR /rails\nCOPY Gemfile Gemfile.lock ./\nRUN bundle install --without development test\nCOPY . .\nRUN bin/rails assets:precompile\n\nFROM ruby:3.3.6-slim\nWORKDIR /rails\nCOPY --from=build /usr/local/bundle /usr/local/bundle\nCOPY --from=build /rails /rails\nEXPOSE 3000\nCMD [\"bin/rails\", \"server\", \"-b\", \"0.0.0.0\"]\n",
			".dockerignore": ".git\n.github\nlog/*\ntmp/*\nspec\n", "Gemfile": "source \"https://rubygems.org\"\n\nruby \"3.3.6\"\n\ngem \"rails\", \"~> 7.2.2\"\ngem \"pg\", \"~> 1.5\"\ngem \"redis\", \"~> 5.3\"\n\ngroup :test do\n  gem \"rspec-rails\"\n  gem \"rspec_junit_formatter\"\nend\n",
			"config/database.yml": "test:\n  url: <%= ENV[\"DATABASE_URL\"] %>\n"},
		history: "...p..C..p...A..q..p..r..AA..p.x...p..B..C..p..q..A..p.x..A...p.B..A",
		failures: map[byte]rsFailure{
			'A': {step: "Initialize containers", secs: [2]int{14, 30}, out: func(c *rsCtx) []string {
				return append([]string{"##[group]Starting postgres service container"}, pullFail("postgres:16.4")...)
			}},
			'B': {step: "Initialize containers", secs: [2]int{14, 30}, out: func(c *rsCtx) []string {
				out := c.startService(c.s.services[0])
				return append(append(out, "##[group]Starting redis service container"), pullFail("redis:7.4-alpine")...)
			}},
			'C': {step: "Run specs", exit: 1, secs: [2]int{140, 210}, out: func(c *rsCtx) []string {
				seed := c.n(1000, 65000)
				return append([]string{fmt.Sprintf("Randomized with seed %d", seed), strings.Repeat(".", 41) + "F" + strings.Repeat(".", 37), ""},
					lines(fmt.Sprintf(`Failures:

  1) Enrollment::WaitlistPromoter promotes the next student when a seat frees up
     Failure/Error: expect(waitlist.reload.position_of(student)).to eq(1)

       expected: 1
            got: 2

       (compared using ==)
     # ./spec/services/enrollment/waitlist_promoter_spec.rb:41:in `+"`block (3 levels) in <top (required)>'"+`

Finished in 2 minutes %s seconds (files took %s seconds to load)
1432 examples, 1 failure, 6 pending

Failed examples:

`+"\x1b[31mrspec ./spec/services/enrollment/waitlist_promoter_spec.rb:33\x1b[0m \x1b[36m# Enrollment::WaitlistPromoter promotes the next student when a seat frees up\x1b[0m"+`

Randomized with seed %d`, c.secs(1, 59, 2), c.secs(2.5, 4.5, 2), seed))...)
			}},
		},
		prBranches: []string{"feature/waitlist-emails", "fix/term-dates", "chore/rails-7-2-2"}, prFail: 'C', rerunFail: 'A',
		authors:  []string{"mkowalski", "adaeze-o", "tdurand"},
		messages: []string{"Add waitlist notifications", "Fix term date rollover", "Bump rails to 7.2.2", "Extract enrollment form", "Cache course listings", "Tidy seat allocation"},
		start:    time.Date(2026, 9, 3, 7, 0, 0, 0, time.UTC),
		expect: rsExpect{classes: map[byte]string{'A': "ratelimit", 'B': "ratelimit"}, verdict: "flaky", mechanism: "rate-limit",
			cause:    "toomanyrequests",
			producer: &rsAnchor{file: ".github/workflows/ci.yml", from: "      postgres:", to: "image: redis:7.4-alpine"},
			patch:    true, patchFiles: []string{".github/workflows/ci.yml"}, ciOnly: &rsTrue, pattern: "intermittent"},
	}
}

// rsPortConflict: a Go gateway on self-hosted runners. The integration step
// starts it with sudo, so the runner's orphan clean-up never kills it; when a
// run fails or is cancelled before "Stop gateway", the next run on that
// runner cannot bind the fixed port.
func rsPortConflict() *rsScenario {
	workflow := `name: Integration

on:
  push:
    branches: [main]
  pull_request:
    paths-ignore: ['docs/**']

jobs:
  integration:
    runs-on: [self-hosted, linux, gateway-ci]
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4

      - uses: actions/setup-go@v5
        with:
          go-version-file: go.mod
          cache: false

      - name: Unit tests
        run: go test -race ./...

      - name: Start gateway
        run: ./scripts/it-up.sh

      - name: Integration tests
        run: go test -tags integration -count=1 ./integration/...
        env:
          GATEWAY_URL: http://127.0.0.1:8089

      - name: Stop gateway
        run: ./scripts/it-down.sh
`
	up := `#!/usr/bin/env bash
# Starts the gateway in transparent mode for the integration suite.
# Transparent mode installs nftables rules, so the gateway runs under sudo.
set -euo pipefail

ADDR="${GATEWAY_ADDR:-127.0.0.1:8089}"
PIDFILE="${RUNNER_TEMP:-/tmp}/gateway-it.pid"
LOG="${RUNNER_TEMP:-/tmp}/gateway-it.log"

make build
echo "starting gateway on $ADDR"
sudo --preserve-env=GATEWAY_UPSTREAMS ./bin/gateway --listen "$ADDR" --transparent --config testdata/gateway.it.yaml >"$LOG" 2>&1 &
echo $! >"$PIDFILE"

for i in $(seq 1 20); do
  sleep 1
  if ! sudo kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    echo "gateway exited during startup" >&2
    cat "$LOG" >&2
    exit 1
  fi
  if curl -fsS "http://$ADDR/healthz" >/dev/null 2>&1; then
    echo "gateway ready after ${i}s"
    exit 0
  fi
done
echo "gateway not ready after 20s" >&2
exit 1
`
	down := "#!/usr/bin/env bash\nset -euo pipefail\nPIDFILE=\"${RUNNER_TEMP:-/tmp}/gateway-it.pid\"\nsudo kill \"$(cat \"$PIDFILE\")\"\nrm -f \"$PIDFILE\"\n"
	makefile := "VERSION ?= $(shell git describe --tags --always --dirty)\nGO ?= go\n\n.PHONY: build test lint\n\nbuild:\n\t$(GO) build -trimpath -ldflags \"-X main.version=$(VERSION)\" -o bin/gateway ./cmd/gateway\n\ntest:\n\t$(GO) test -race ./...\n\nlint:\n\tgolangci-lint run ./...\n"
	version := func(c *rsCtx) string { return "v0.19.3-" + fmt.Sprint(c.r.index) + "-g" + c.r.sha[:7] }
	upOK := func(c *rsCtx) []string {
		return []string{fmt.Sprintf(`go build -trimpath -ldflags "-X main.version=%s" -o bin/gateway ./cmd/gateway`, version(c)),
			"starting gateway on 127.0.0.1:8089", fmt.Sprintf("gateway ready after %ds", c.n(1, 3))}
	}
	unit := func(c *rsCtx) []string {
		var out []string
		for _, p := range []string{"cmd/gateway", "internal/config", "internal/proxy", "internal/ratelimit", "internal/transparent"} {
			out = append(out, fmt.Sprintf("ok  \tgithub.com/quillstack/gateway/%s\t%ss", p, c.secs(0.9, 7, 3)))
		}
		return out
	}
	return &rsScenario{
		name: "rs-go-leftover-port", repo: "quillstack/gateway", repoID: 640339217, workflow: "Integration",
		path: ".github/workflows/integration.yml", wfID: 71200455, jobName: "integration",
		runner: rsRunner{labels: []string{"self-hosted", "linux", "gateway-ci"}, names: []string{"gw-ci-1", "gw-ci-2"}},
		steps: []rsStep{checkout(),
			{uses: "actions/setup-go@v5", with: []string{"go-version-file: go.mod", "cache: false", "check-latest: false", "token: ***"}, secs: [2]int{1, 3},
				out: func(c *rsCtx) []string {
					return []string{"Setup go version spec 1.23.3", "Found in cache @ /home/ci/actions-runner/_work/_tool/go/1.23.3/x64", "Added go to the path", "Successfully set up Go version 1.23.3"}
				}},
			{name: "Unit tests", run: []string{"go test -race ./..."}, secs: [2]int{40, 90}, out: unit},
			{name: "Start gateway", run: []string{"./scripts/it-up.sh"}, secs: [2]int{8, 20}, out: upOK},
			{name: "Integration tests", run: []string{"go test -tags integration -count=1 ./integration/..."}, env: []string{"GATEWAY_URL: http://127.0.0.1:8089"},
				secs: [2]int{60, 120}, out: func(c *rsCtx) []string {
					return []string{fmt.Sprintf("ok  \tgithub.com/quillstack/gateway/integration\t%ss", c.secs(55, 110, 3))}
				}},
			{name: "Stop gateway", run: []string{"./scripts/it-down.sh"}, secs: [2]int{1, 2}},
		},
		files: map[string]string{".github/workflows/integration.yml": workflow, "scripts/it-up.sh": up, "scripts/it-down.sh": down, "Makefile": makefile,
			"go.mod":     "module github.com/quillstack/gateway\n\ngo 1.23.3\n",
			"Dockerfile": "FROM golang:1.23.3 AS build\nWORKDIR /src\nCOPY go.mod go.sum ./\nRUN go mod download\nCOPY cmd/ cmd/\nCOPY internal/ internal/\nRUN CGO_ENABLED=0 go build -trimpath -o /out/gateway ./cmd/gateway\n\nFROM gcr.io/distroless/static-debian12\nCOPY --from=build /out/gateway /gateway\nENTRYPOINT [\"/gateway\"]\n"},
		history: "....T.P.....p....x..P......p..T.P...q.....p.....x.P....p..T..P",
		failures: map[byte]rsFailure{
			'P': {step: "Start gateway", exit: 1, secs: [2]int{3, 6}, out: func(c *rsCtx) []string {
				ts := c.r.started.Add(time.Duration(c.n(100, 140)) * time.Second).Format("2006-01-02T15:04:05.000Z")
				return []string{fmt.Sprintf(`go build -trimpath -ldflags "-X main.version=%s" -o bin/gateway ./cmd/gateway`, version(c)),
					"starting gateway on 127.0.0.1:8089", "gateway exited during startup",
					fmt.Sprintf(`time=%s level=INFO msg="gateway starting" version=%s commit=%s`, ts, version(c), c.r.sha[:7]),
					fmt.Sprintf(`time=%s level=INFO msg="transparent mode: installing nftables rules" table=gateway_it`, ts),
					fmt.Sprintf(`time=%s level=ERROR msg="listener failed" addr=127.0.0.1:8089 err="listen tcp 127.0.0.1:8089: bind: address already in use"`, ts),
					fmt.Sprintf(`time=%s level=INFO msg="transparent mode: removing nftables rules" table=gateway_it`, ts)}
			}},
			'T': {step: "Integration tests", exit: 1, secs: [2]int{60, 110}, out: func(c *rsCtx) []string {
				return []string{"--- FAIL: TestRetryBudget_Exhausted (3.02s)",
					fmt.Sprintf("    retry_test.go:77: upstream saw %d attempts, want at most 3 (budget exhausted)", c.n(4, 5)),
					"FAIL", fmt.Sprintf("FAIL\tgithub.com/quillstack/gateway/integration\t%ss", c.secs(50, 100, 3)), "FAIL"}
			}},
		},
		prBranches: []string{"feat/grpc-web", "fix/hop-headers"}, prFail: 'T', rerunFail: 'P',
		authors:  []string{"jnakamura", "rvaldez"},
		messages: []string{"proxy: honour Retry-After", "config: validate upstream weights", "ratelimit: sliding window", "transparent: ipv6 rules", "deps: bump x/net"},
		start:    time.Date(2026, 10, 1, 6, 0, 0, 0, time.UTC),
		expect: rsExpect{verdict: "flaky", mechanism: "port-conflict", cause: "address already in use",
			producer: &rsAnchor{file: "scripts/it-up.sh", from: "sudo --preserve-env"},
			patch:    true, patchFilesAny: []string{"scripts/it-up.sh", ".github/workflows/integration.yml"}, ciOnly: &rsTrue, pattern: "intermittent"},
	}
}
