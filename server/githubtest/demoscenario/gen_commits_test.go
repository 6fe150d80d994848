package demoscenario

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// commitTopics are the subjects of ordinary merges to main, used in order.
var commitTopics = []string{
	"api: reject events with a negative quantity",
	"ingest: dedupe on the idempotency key before insert",
	"store: batch inserts with COPY for large payloads",
	"api: return 409 on a replayed idempotency key",
	"deps: bump golang.org/x/net from 0.30.0 to 0.31.0",
	"chart: expose resources in values.yaml",
	"api: add GET /v1/customers/{id}/usage",
	"rollup: nightly job that closes the previous month",
	"store: index usage_events by customer and meter",
	"ci: cache the golangci-lint binary",
	"api: structured errors with a stable code field",
	"docs: example requests in the README",
	"ingest: bound the request body to 1 MiB",
	"deps: bump github.com/go-chi/chi/v5 from 5.1.0 to 5.2.0",
	"rollup: recompute a month on late events",
	"api: paginate usage listings with a cursor",
	"store: retry serialization failures once",
	"chart: readiness probe on /readyz",
	"cmd/tally: --migrations flag for the image layout",
	"api: request ids in every log line",
	"ingest: accept RFC 3339 timestamps with offsets",
	"store: drop the unused events_by_day view",
	"deps: bump golang.org/x/sync from 0.8.0 to 0.9.0",
	"api: metrics for ingest latency",
	"rollup: expose the rollup lag as a gauge",
	"docs: describe the meter naming rules",
	"api: validate meter names",
	"store: use pgxpool with a bounded pool size",
	"chart: podDisruptionBudget for two replicas",
	"ingest: reject events more than 35 days old",
	"deps: bump github.com/prometheus/client_golang from 1.20.4 to 1.20.5",
	"api: CSV export of a month's usage",
	"rollup: skip customers without events",
	"cmd/tally: graceful shutdown on SIGTERM",
	"store: context timeouts on every query",
	"api: OpenAPI description at /v1/openapi.json",
	"ingest: count rejected events by reason",
	"deps: bump golang.org/x/text from 0.19.0 to 0.20.0",
	"chart: allow extra environment variables",
	"api: HEAD /healthz for load balancers",
	"rollup: compact rollups older than a year",
	"store: fix a leak of rows on early return",
	"docs: runbook for a stuck rollup",
	"api: limit the export to 100k rows",
	"ingest: trim whitespace in customer ids",
	"deps: bump github.com/pressly/goose/v3 from 3.22.1 to 3.23.0",
	"cmd/tally: print the version at start",
	"api: 413 with a helpful message for big batches",
	"rollup: log a summary line per run",
	"store: explain-analyze helper for slow queries",
	"chart: set the service port from values",
	"api: time zone of the customer in usage responses",
	"ingest: reject unknown fields in the payload",
	"deps: bump golang.org/x/crypto from 0.28.0 to 0.29.0",
	"api: cache customer lookups for 30 s",
	"store: vacuum hint in the maintenance doc",
	"rollup: parallelise by customer shard",
	"api: return usage totals with the meter's unit",
	"ingest: sample debug logs at 1 %",
	"docs: how to run the integration tests locally",
	"chart: annotations for Prometheus scraping",
	"api: problem+json error bodies",
	"store: keep the pool warm at start",
	"rollup: reconcile against raw events weekly",
	"ingest: idempotency keys up to 128 bytes",
	"cmd/tally: healthcheck subcommand for the image",
	"api: deprecate /v0/events",
	"store: move queries into sqlc",
	"rollup: metrics for rows touched per run",
	"api: customer-scoped API tokens",
	"ingest: reject quantities above 2^53",
	"deps: bump github.com/jackc/pgx/v5 from 5.7.0 to 5.7.1",
	"docs: architecture diagram",
	"chart: topology spread constraints",
	"api: expose rate limits in response headers",
	"ingest: accept batched events up to 500 per request",
	"store: statement timeout of 5 s",
	"rollup: backfill command for a single customer",
	"api: list meters of a customer",
	"ingest: reject events from the future beyond 5 minutes",
	"chart: configurable log level",
	"deps: bump golang.org/x/sys from 0.26.0 to 0.27.0",
	"api: usage summary per meter",
	"store: keyset pagination helper",
	"rollup: document the month boundary rules",
	"api: ETag on usage responses",
	"ingest: log the customer id on rejects",
	"cmd/tally: --read-only mode for replicas",
	"docs: changelog for 0.9.0",
	"store: retry on connection reset once",
	"api: trim trailing slashes in routes",
	"rollup: guard against double closing a month",
	"chart: default to two replicas",
	"ingest: zero-quantity events are a no-op",
	"api: 404 body lists the known routes",
	"store: tune pool idle time",
	"docs: security policy",
	"rollup: unit test for leap years",
	"api: accept gzip-compressed batches",
}

// commit is a planned head commit of a main run.
type commit struct {
	text   string
	author person
}

// reservedPRs are numbers taken by the pull requests of pullRequestRuns.
var reservedPRs = []int{238, 246, 251}

// mainMessages gives n merge messages with increasing pull-request numbers.
func mainMessages(n int) []commit {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]commit, n)
	num := 186
	for i := range out {
		num += 1 + r.IntN(2)
		for slices.Contains(reservedPRs, num) {
			num++
		}
		topic := commitTopics[i%len(commitTopics)]
		author := people[r.IntN(len(people))]
		if len(topic) > 5 && topic[:5] == "deps:" {
			author = depbot
		}
		out[i] = commit{text: fmt.Sprintf("%s (#%d)", topic, num), author: author}
	}
	return out
}

// mergePullRequests makes the first main push after each pull request's
// last run the merge of that pull request.
func mergePullRequests(runs []plannedRun) {
	last := map[int]int{}
	for i, p := range runs {
		if p.pr != nil {
			last[p.pr.number] = i
		}
	}
	for _, num := range reservedPRs {
		i, ok := last[num]
		if !ok {
			continue
		}
		pr := runs[i].pr
		for j := i + 1; j < len(runs); j++ {
			if runs[j].pr == nil && runs[j].outcome == green {
				runs[j].message = fmt.Sprintf("%s (#%d)", pr.title, pr.number)
				runs[j].author = pr.author
				break
			}
		}
	}
}
