# Polylane's build, test and lint targets. `make help` lists them.
# Later issues add their targets in the marked section at the end.

GO      ?= go
BIN     ?= bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)

# staticcheck is run through `go run` at a pinned version (v0.7.0 builds with go1.26).
STATICCHECK_VERSION := v0.7.0

# Go files to check with gofmt: everything tracked or new, except testdata.
GOFILES = $(shell find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -not -path '*/node_modules/*')

.PHONY: help build test lint cover clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | sort

build: ## build bin/polylane, version and commit stamped in
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/polylane ./cmd/polylane

test: ## run every test with the race detector
	$(GO) test -race ./...

lint: ## gofmt check, go mod tidy check, go vet, staticcheck
	@unformatted="$$(gofmt -l $(GOFILES))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) vet -tags browser ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

cover: ## tests with a coverage profile (coverage.out) and its total
	$(GO) test -race -covermode=atomic -coverprofile=coverage.out ./...
	$(GO) tool cover -func=coverage.out | tail -n 1

clean: ## remove build and coverage output
	rm -rf $(BIN) coverage.out

# ---------------------------------------------------------------------------
# Targets of later issues go below, each with a `## description` so that
# `make help` lists it. Reserved names:
#   bench             short Go benchmarks
#   bench-accuracy    diagnosis accuracy against ../shared/data
#   demo              the demo against the GitHub simulator
#   test-browser      dashboard tests in headless Chromium
#   test-reliability  crash, restart and fault-injection tests
# ---------------------------------------------------------------------------

.PHONY: bench bench-accuracy demo test-browser bench-dashboard bench-webhook

test-browser: ## dashboard in headless Chromium (apt-get install -y chromium): seeded server and polylane demo; screenshots in artifacts/browser (UPDATE=1 refreshes docs/screenshots)
	$(GO) test -tags browser -count=1 -timeout 15m -v ./server/dashboard/browser/

bench-dashboard: ## p50/p95 per dashboard page over a 100,000-run store (SQLite; PostgreSQL with POLYLANE_TEST_DATABASE_URL)
	$(GO) test ./server/dashboard -run '^$$' -bench BenchmarkPages -benchtime=1x -timeout 40m

bench-webhook: ## webhook answer time under 200 concurrent signed deliveries (SQLite; PostgreSQL with POLYLANE_TEST_DATABASE_URL)
	$(GO) test ./server/webhook -run '^$$' -bench WebhookLoad -benchtime=1x

demo: ## diagnose the shipped example end to end against the GitHub simulator (Ctrl-C stops)
	$(GO) run ./cmd/polylane demo

bench-accuracy: ## cause-line, signature and grouping accuracy against ../shared/data (one table; fails when a development target is missed)
	POLYLANE_ACCURACY=1 $(GO) test ./analysis/accuracy -run TestAccuracyReport -count=1 -v

bench: ## all benchmarks as ONE markdown table in bin/bench-report.md (raw output: bin/bench-report.md.log)
	@mkdir -p $(BIN)
	POLYLANE_BENCH_REPORT=$(BIN)/bench-report.md $(GO) test ./cmd/benchreport -run TestReport -count=1 -timeout 90m
	@cat $(BIN)/bench-report.md

# Reliability: RELIABILITY_RUNS passes of the fault sweep (cases in the
# order RELIABILITY_SEED picks), then the crash, PostgreSQL-restart and
# hostile-input tests and every fuzz target's seed corpus, all with the race
# detector. `make test` runs each sweep case once. The counts go to
# bin/reliability.txt. PostgreSQL cases need POLYLANE_TEST_DATABASE_URL.
RELIABILITY_RUNS ?= 3
RELIABILITY_SEED ?= 1
RELIABILITY_HOSTILE := Hostile|Narrator|Oversized|PayloadWithoutOwner|RequestsForOtherInstallations|MarkdownProblems|SecretIn|StaysInTheScenario|Fuzz|Nesting|RepoNotesWhatItSkips|MakeExpansionIsBounded|CrashedJob|UnfinishedDeliveries|TokenFix|RegistryLoginOnly|CredentialPatch|CredentialFix|SecretReferences|WorkflowFixNeedsOptIn|NarratedLinks|ForkRuns|OnDefaultBranchRefusesForks|SelectWindowKeepsForksOut|ForkFix|CommandFlood|RepliesToNonWriters|ReplayUnderNew|OtherEventsBodies|StalledRequests|TimeoutDefaults|InFlightCap|RepositoryEvents|WorkflowRunRefreshesPrivateFlag|RepositoryPrivatized|SignOutRevokes|SignInNeeds|ServeRefusesSignIn|MetricsListener|ReadableSecretFiles|KubernetesKeyReachesServe

.PHONY: test-reliability
test-reliability: ## fault sweep over every GitHub call (RELIABILITY_RUNS=3, RELIABILITY_SEED=1), kill -9 and PostgreSQL-restart recovery, hostile input and fuzz seeds; counts in bin/reliability.txt
	@mkdir -p $(BIN) && rm -f $(BIN)/reliability.txt
	RELIABILITY_RUNS=$(RELIABILITY_RUNS) RELIABILITY_SEED=$(RELIABILITY_SEED) RELIABILITY_REPORT=$(abspath $(BIN))/reliability.txt \
		$(GO) test -race -count=1 -timeout 60m -run '^TestReliabilitySweep$$' ./server/worker/
	@$(GO) test -race -count=1 -timeout 20m -v -run '^(TestCrashRecovery|TestCrashLoopIsStopped|TestPostgresRestartUnderServe)$$' ./cmd/polylane/ \
		> $(BIN)/reliability-crash.log 2>&1; status=$$?; \
		grep -E '^ *--- |^(ok|FAIL)|(crash|pgrestart)_test.go:[0-9]+: [a-z/]' $(BIN)/reliability-crash.log | tee -a $(BIN)/reliability.txt; \
		[ $$status -eq 0 ] || { tail -n 200 $(BIN)/reliability-crash.log; exit $$status; }
	$(GO) test -race -count=1 -timeout 20m -run '$(RELIABILITY_HOSTILE)' \
		./server/webhook/ ./server/worker/... ./server/dashboard/ ./server/report/ ./server/narrator/ ./cmd/polylane/ \
		./analysis/... ./causal/... ./store/...
	@cat $(BIN)/reliability.txt

.PHONY: bench-real
bench-real: ## diagnose the corpus of real CI failures (causal/diagnosis/testdata/real): per-fact rates with and without each repository's own catalogue families; fails when a target is missed
	@mkdir -p $(BIN)
	POLYLANE_BENCH_REAL=1 POLYLANE_BENCH_REAL_OUT=$(abspath $(BIN))/bench-real.md $(GO) test ./causal/diagnosis -run '^TestRealCorpus$$' -count=1
