package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
	"github.com/polylane/polylane/cmd/loadgen"
	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/webhook"
)

// benchDatabaseURL is a fresh database of a backend: a SQLite file, or a
// PostgreSQL schema of its own (skipped without POLYLANE_TEST_DATABASE_URL).
func benchDatabaseURL(b *testing.B, backend string) string {
	if backend == "postgres" {
		return postgresSchemaURL(b)
	}
	return "sqlite://" + filepath.Join(b.TempDir(), "bench.db")
}

// ingestServer serves the webhook as serve wires it (settings table, the
// GitHub App hook, the standard middleware with its access log and
// metrics) on a migrated database, without starting the queue's workers,
// so that only ingestion is measured.
func ingestServer(b *testing.B, databaseURL, secret string) string {
	vars := map[string]string{"POLYLANE_DATABASE_URL": databaseURL, "POLYLANE_WEBHOOK_SECRET": secret,
		"POLYLANE_ADDR": "127.0.0.1:0"}
	cfg, err := loadConfig(cmdServe, "", nil, func(k string) string { return vars[k] }, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	log := newLogger(cfg, io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	st, err := openStore(ctx, cfg, log)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	srv := server.New(server.Options{Logger: log, Checker: st, Metrics: server.NewMetrics(version)})
	env := &serveEnv{Config: cfg, Logger: log, Store: st, Server: srv, Workers: river.NewWorkers()}
	if err := wireGitHubApp(ctx, env); err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	b.Cleanup(func() {
		cancel()
		<-done
		_ = st.Close()
	})
	return "http://" + ln.Addr().String() + WebhookPath
}

// ingestTemplate is a failing workflow_run delivery to copy with other run
// ids: the karmada-rollout trigger (a real 25 kB payload) when ../shared is
// there, else the simulator's small testdata payload.
func ingestTemplate(b *testing.B) (map[string]any, string) {
	dir, repo, run := filepath.Join("..", "..", "server", "githubtest", "testdata", "tiny"), "acme/widget", int64(9005)
	k := filepath.Join(scenariotest.Dir(), "scenarios", "karmada-rollout")
	if _, err := os.Stat(filepath.Join(k, "scenario.json")); err == nil {
		dir, repo, run = k, "datum-cloud/compute", 19894337324
	}
	sim, err := githubtest.New(githubtest.Options{Scenarios: []string{dir}})
	if err != nil {
		b.Fatal(err)
	}
	ev, err := sim.WorkflowRunEvent(repo, run)
	if err != nil {
		b.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(ev.Payload, &payload); err != nil {
		b.Fatal(err)
	}
	b.Logf("payload of %d bytes from %s", len(ev.Payload), dir)
	return payload, sim.WebhookSecret()
}

// ingestDeliveries makes n deliveries of distinct runs from the template,
// signed, before any is sent.
func ingestDeliveries(b *testing.B, url string, template map[string]any, secret string, n, offset int) []*loadgen.Prepared {
	run := template["workflow_run"].(map[string]any)
	sim, err := githubtest.New(githubtest.Options{WebhookSecret: secret})
	if err != nil {
		b.Fatal(err)
	}
	out := make([]*loadgen.Prepared, n)
	for i := range out {
		run["id"] = 5_000_000 + offset + i
		body, err := json.Marshal(template)
		if err != nil {
			b.Fatal(err)
		}
		out[i], err = loadgen.Prepare(url, [][2]string{{"Content-Type", "application/json"}, {webhook.HeaderEvent, "workflow_run"},
			{webhook.HeaderDelivery, fmt.Sprintf("ingest-%d", offset+i)}, {webhook.HeaderSignature, sim.Sign(body)}}, body)
		if err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// newDeliverer returns the load generator (cmd/loadgen) with at most
// conns connections, closed with b.
func newDeliverer(b *testing.B, url string, conns int) *loadgen.Sender {
	send, err := loadgen.NewSender(url, conns)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(send.Close)
	return send
}

// deliver sends one delivery and returns its answer time; any answer but
// 202 is an error.
func deliver(send *loadgen.Sender, d *loadgen.Prepared) (time.Duration, error) {
	status, took, err := send.Send(d)
	if err == nil && status != http.StatusAccepted {
		err = fmt.Errorf("a delivery was answered %d", status)
	}
	return took, err
}

// sendClosedLoop sends the deliveries from senders goroutines, each sending
// its next delivery as soon as the previous one is answered, and returns
// every answer time and the wall time of the whole.
func sendClosedLoop(send *loadgen.Sender, ds []*loadgen.Prepared, senders int) ([]time.Duration, time.Duration, error) {
	times := make([]time.Duration, len(ds))
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range senders {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(ds) {
					return
				}
				took, err := deliver(send, ds[i])
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				times[i] = took
			}
		})
	}
	wg.Wait()
	return times, time.Since(start), firstErr
}

// sendOpenLoop offers the deliveries at a fixed rate over the generator's
// connections, whatever the answers: delivery i is due at start + i/rate
// and its answer time counts from then, so time spent waiting for a free
// connection counts too. It returns the answer times and the wall time
// until the last answer.
func sendOpenLoop(send *loadgen.Sender, ds []*loadgen.Prepared, rate float64) ([]time.Duration, time.Duration, error) {
	times := make([]time.Duration, len(ds))
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for i := range ds {
		due := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		wg.Go(func() {
			if _, err := deliver(send, ds[i]); err != nil {
				once.Do(func() { firstErr = err })
				return
			}
			times[i] = time.Since(due)
		})
	}
	wg.Wait()
	return times, time.Since(start), firstErr
}

// ingestCount is how many deliveries one measurement sends at a number of
// concurrent senders (POLYLANE_BENCH_DELIVERIES overrides it).
func ingestCount(senders int) int {
	if n, err := strconv.Atoi(os.Getenv("POLYLANE_BENCH_DELIVERIES")); err == nil && n > 0 {
		return n
	}
	return max(400, 20*senders)
}

// BenchmarkWebhookIngest measures webhook ingestion over loopback HTTP as
// serve wires it, on SQLite and on PostgreSQL, with 1, 50 and 200 senders
// that each send their next signed delivery (a failing workflow_run of a
// new run: a delivery row and a queued job, acknowledged after the commit)
// as soon as the previous one is answered. It reports deliveries per second
// and the p50, p99 and slowest answer times:
//
//	go test ./cmd/polylane -run '^$' -bench WebhookIngest -benchtime 1x
func BenchmarkWebhookIngest(b *testing.B) {
	template, secret := ingestTemplate(b)
	for _, backend := range []string{"sqlite", "postgres"} {
		for _, senders := range []int{1, 50, 200} {
			if benchOnly := os.Getenv("POLYLANE_BENCH_SENDERS"); benchOnly != "" && benchOnly != strconv.Itoa(senders) {
				continue
			}
			b.Run(fmt.Sprintf("db=%s/senders=%d", backend, senders), func(b *testing.B) {
				url := ingestServer(b, benchDatabaseURL(b, backend), secret)
				n, warm := ingestCount(senders), 100
				ds := ingestDeliveries(b, url, template, secret, warm+n*b.N, 0)
				send := newDeliverer(b, url, senders)
				if _, _, err := sendClosedLoop(send, ds[:warm], min(senders, 20)); err != nil {
					b.Fatal(err)
				}
				var all []time.Duration
				var wall time.Duration
				cpu0 := processCPU()
				b.ResetTimer()
				for i := range b.N {
					times, took, err := sendClosedLoop(send, ds[warm+i*n:warm+(i+1)*n], senders)
					if err != nil {
						b.Fatal(err)
					}
					all, wall = append(all, times...), wall+took
				}
				b.StopTimer()
				slices.Sort(all)
				b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(len(all)), "cpu-µs/delivery")
				b.ReportMetric(float64(len(all))/wall.Seconds(), "deliveries/s")
				b.ReportMetric(ms(all[len(all)/2]), "p50-ms")
				b.ReportMetric(ms(all[len(all)*99/100]), "p99-ms")
				b.ReportMetric(ms(all[len(all)-1]), "max-ms")
			})
		}
	}
}

// BenchmarkWebhookIngestRate offers 2,000 deliveries per second over 200
// connections (an open loop: GitHub does not wait for one answer before the
// next delivery) on SQLite and PostgreSQL, and reports the answer times
// counted from when each delivery was due:
//
//	go test ./cmd/polylane -run '^$' -bench WebhookIngestRate -benchtime 1x
func BenchmarkWebhookIngestRate(b *testing.B) {
	template, secret := ingestTemplate(b)
	const rate, conns = 2000.0, 200
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(fmt.Sprintf("db=%s/rate=%d/conns=%d", backend, int(rate), conns), func(b *testing.B) {
			url := ingestServer(b, benchDatabaseURL(b, backend), secret)
			n, warm := int(2*rate), 200
			if v := ingestCount(0); v != 400 {
				n = v
			}
			ds := ingestDeliveries(b, url, template, secret, warm+n*b.N, 0)
			send := newDeliverer(b, url, conns)
			if _, _, err := sendClosedLoop(send, ds[:warm], 20); err != nil {
				b.Fatal(err)
			}
			var all []time.Duration
			var wall time.Duration
			b.ResetTimer()
			for i := range b.N {
				times, took, err := sendOpenLoop(send, ds[warm+i*n:warm+(i+1)*n], rate)
				if err != nil {
					b.Fatal(err)
				}
				all, wall = append(all, times...), wall+took
			}
			b.StopTimer()
			slices.Sort(all)
			b.ReportMetric(float64(len(all))/wall.Seconds(), "deliveries/s")
			b.ReportMetric(ms(all[len(all)/2]), "p50-ms")
			b.ReportMetric(ms(all[len(all)*99/100]), "p99-ms")
			b.ReportMetric(ms(all[len(all)-1]), "max-ms")
		})
	}
}

// processCPU is the CPU time (user and system) this process has used: the
// server's and the load generator's, which share it.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkDeliveryToComment measures, on SQLite and PostgreSQL, the time
// from a signed delivery of the karmada-rollout trigger to Polylane's
// assessment comment on its fix pull request with an empty history (cold:
// the window is backfilled), then for a second attempt of the run with the
// history cached (warm: the comment is updated), and the GitHub API calls
// each diagnosis made (from serve's polylane_github_calls_per_diagnosis):
//
//	go test ./cmd/polylane -run '^$' -bench DeliveryToComment -benchtime 1x
func BenchmarkDeliveryToComment(b *testing.B) {
	dir := sharedScenarioDir(b, "karmada-rollout")
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run("db="+backend, func(b *testing.B) {
			var cold, warm time.Duration
			var coldCalls, warmCalls float64
			for range b.N {
				app := startApp(b, dir, benchDatabaseURL(b, backend))
				c, cc := timeToComment(b, app, "attempt=1", false)
				w, wc := timeToComment(b, app, "attempt=2", true)
				cold, warm, coldCalls, warmCalls = cold+c, warm+w, coldCalls+cc, warmCalls+wc-cc
			}
			n := float64(b.N)
			b.ReportMetric(ms(cold)/n, "cold-ms")
			b.ReportMetric(ms(warm)/n, "warm-ms")
			b.ReportMetric(coldCalls/n, "cold-api-calls")
			b.ReportMetric(warmCalls/n, "warm-api-calls")
		})
	}
}

// timeToComment delivers the trigger (a new attempt of it when rerun) and
// returns the time until the fix pull request carries Polylane's comment
// for that attempt, and the API calls of every diagnosis so far.
func timeToComment(b *testing.B, app *appUnderTest, marker string, rerun bool) (time.Duration, float64) {
	if rerun {
		if _, err := app.sim.AddRunAttempt(app.repo, app.sc.TriggerRunID, "failure"); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	app.deliver(b, app.sc.TriggerRunID)
	for {
		if pulls := app.botPulls(); len(pulls) > 0 {
			if c := app.botComments(pulls[0].Number); len(c) > 0 && strings.Contains(c[0].Body, marker) {
				break
			}
		}
		if time.Since(start) > 60*time.Second {
			b.Fatalf("no comment with %s within 60 s", marker)
		}
		time.Sleep(2 * time.Millisecond)
	}
	took := time.Since(start)
	app.waitFor(b, 30*time.Second, "queue idle", app.idle)
	return took, apiCallsSoFar(b, app.url)
}

// apiCallsSoFar reads the sum of polylane_github_calls_per_diagnosis for
// API calls from serve's /metrics.
func apiCallsSoFar(b *testing.B, url string) float64 {
	v := metricSoFar(b, url, `polylane_github_calls_per_diagnosis_sum{kind="api"} `)
	if v < 0 {
		b.Fatal("no polylane_github_calls_per_diagnosis_sum in /metrics")
	}
	return v
}

// metricSoFar reads the value of the /metrics line that starts with
// prefix (the metric, its labels and a blank); -1 when there is none.
func metricSoFar(b *testing.B, url, prefix string) float64 {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatal(err)
			}
			return f
		}
	}
	return -1
}

// BenchmarkPullRequestDiagnosis measures, on SQLite and PostgreSQL, the
// GitHub API calls of a pull-request run's diagnosis, which reads the
// workflow's runs of every branch (the base branch and the other pull
// requests): cold, then for a second attempt with the history cached
// (warm), until the sticky comment on the pull request carries it:
//
//	go test ./cmd/polylane -run '^$' -bench PullRequestDiagnosis -benchtime 1x
func BenchmarkPullRequestDiagnosis(b *testing.B) {
	benchCalls(b, "pr-flaky-across-prs", func(b *testing.B, app *appUnderTest) (float64, float64) {
		number := app.triggerPullRequest(b)
		return prComment(b, app, number, "attempt=1", false), prComment(b, app, number, "attempt=2", true)
	})
}

// benchCalls reports, on SQLite and PostgreSQL, the API calls of a cold and
// then a warm diagnosis of a synthetic scenario; run returns the calls of
// every diagnosis so far after each.
func benchCalls(b *testing.B, name string, run func(*testing.B, *appUnderTest) (cold, warm float64)) {
	dir := filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", name)
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run("db="+backend, func(b *testing.B) {
			var coldCalls, warmCalls float64
			for range b.N {
				cc, wc := run(b, startApp(b, dir, benchDatabaseURL(b, backend)))
				coldCalls, warmCalls = coldCalls+cc, warmCalls+wc-cc
			}
			n := float64(b.N)
			b.ReportMetric(coldCalls/n, "cold-api-calls")
			b.ReportMetric(warmCalls/n, "warm-api-calls")
		})
	}
}

// BenchmarkRangeDiagnosis measures, on SQLite and PostgreSQL, the GitHub
// API calls of a regression whose first bad commit is a range (four
// cancelled runs before the first red one): cold, the range is compared on
// GitHub and each of its commits read; warm (a second attempt), it comes
// from the cache:
//
//	go test ./cmd/polylane -run '^$' -bench RangeDiagnosis -benchtime 1x
func BenchmarkRangeDiagnosis(b *testing.B) {
	benchCalls(b, "range-one-commit-touches", func(b *testing.B, app *appUnderTest) (float64, float64) {
		return diagnosed(b, app, 1, false), diagnosed(b, app, 2, true)
	})
}

// diagnosed delivers the trigger (a new attempt of it when rerun), waits
// until serve has made n diagnoses and its queue is idle, and returns the
// API calls of every diagnosis so far.
func diagnosed(b *testing.B, app *appUnderTest, n int, rerun bool) float64 {
	if rerun {
		if _, err := app.sim.AddRunAttempt(app.repo, app.sc.TriggerRunID, "failure"); err != nil {
			b.Fatal(err)
		}
	}
	app.deliver(b, app.sc.TriggerRunID)
	app.waitFor(b, 60*time.Second, fmt.Sprintf("diagnosis %d", n), func() bool {
		return app.idle() && metricSoFar(b, app.url, `polylane_github_calls_per_diagnosis_count{kind="api"} `) >= float64(n)
	})
	return apiCallsSoFar(b, app.url)
}

// triggerPullRequest is the number of the trigger run's pull request.
func (a *appUnderTest) triggerPullRequest(b *testing.B) int {
	for _, r := range a.sc.Runs {
		if r.ID == a.sc.TriggerRunID && len(r.PullRequests) > 0 {
			return r.PullRequests[0].Number
		}
	}
	b.Fatalf("trigger run %d lists no pull request", a.sc.TriggerRunID)
	return 0
}

// prComment delivers the trigger (a new attempt of it when rerun), waits
// for the sticky comment on the pull request to carry that attempt, and
// returns the API calls of every diagnosis so far.
func prComment(b *testing.B, app *appUnderTest, number int, marker string, rerun bool) float64 {
	if rerun {
		if _, err := app.sim.AddRunAttempt(app.repo, app.sc.TriggerRunID, "failure"); err != nil {
			b.Fatal(err)
		}
	}
	app.deliver(b, app.sc.TriggerRunID)
	app.waitFor(b, 60*time.Second, "pull-request comment with "+marker, func() bool {
		c := app.botComments(number)
		return len(c) > 0 && strings.Contains(c[0].Body, marker) && app.idle()
	})
	return apiCallsSoFar(b, app.url)
}
