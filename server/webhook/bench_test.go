package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/rs/zerolog"

	"github.com/polylane/polylane/cmd/loadgen"
	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// Load shape: bursts of POLYLANE_BENCH_SENDERS concurrent deliveries
// (default 200), POLYLANE_BENCH_DELIVERIES signed deliveries in all
// (default 2000), each a failing workflow_run of its own run, so each
// records a delivery and enqueues a job.
func loadShape() (senders, deliveries int) {
	senders, deliveries = 200, 2000
	if n, err := strconv.Atoi(os.Getenv("POLYLANE_BENCH_SENDERS")); err == nil && n > 0 {
		senders = n
	}
	if n, err := strconv.Atoi(os.Getenv("POLYLANE_BENCH_DELIVERIES")); err == nil && n > 0 {
		deliveries = n
	}
	return senders, deliveries
}

// BenchmarkWebhookLoad measures the webhook's answer time under concurrent
// load over real HTTP on loopback, on SQLite and PostgreSQL, and reports
// the p50 and p99 in milliseconds. The "no-store" case answers from a
// store that writes nothing: the floor that HTTP, the signature and JSON
// parsing set on this machine. Run it with
//
//	go test ./server/webhook -run '^$' -bench WebhookLoad -benchtime=1x
//
// A first burst, not measured, opens the connections. The load generator
// is cmd/loadgen (prepared requests on keep-alive connections, in this
// process; POLYLANE_BENCH_CLIENT=net/http sends with net/http's client).
// POLYLANE_BENCH_PAYLOAD=small sends the simulator's small testdata payload
// instead of the karmada-rollout one.
func BenchmarkWebhookLoad(b *testing.B) {
	cases := append(storetest.Backends(), storetest.Backend{Name: "no-store", Open: func(testing.TB) store.Store { return nopStore{} }})
	for _, backend := range cases {
		b.Run(backend.Name, func(b *testing.B) {
			st := backend.Open(b)
			h, err := webhook.New(webhook.Options{Secret: secret, Store: st, Committers: committers(backend.Name)})
			if err != nil {
				b.Fatal(err)
			}
			srv := server.New(server.Options{Logger: zerolog.Nop()})
			srv.Method(http.MethodPost, "/webhooks/github", h)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ctx, ln) }()
			b.Cleanup(func() { cancel(); <-done })
			url := "http://" + ln.Addr().String() + "/webhooks/github"
			bodies := loadBodies(b)
			senders, deliveries := loadShape()
			send := newSender(b, url, senders)
			// One burst first, unmeasured: it opens the connections (HTTP
			// and the store's pool) that the measured bursts reuse.
			sendLoad(b, send, url, bodies, senders, senders, -1)
			var all []time.Duration
			b.ResetTimer()
			for i := range b.N {
				all = append(all, sendLoad(b, send, url, bodies, senders, deliveries, i)...)
			}
			b.StopTimer()
			slices.Sort(all)
			p50, p99 := all[len(all)/2], all[len(all)*99/100]
			b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(all[len(all)-1].Microseconds())/1000, "max-ms")
			b.Logf("%s: %d deliveries in bursts of %d: p50 %s, p99 %s, max %s", backend.Name, len(all), senders,
				p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond), all[len(all)-1].Round(10*time.Microsecond))
		})
	}
}

// nopStore accepts every delivery and writes nothing.
type nopStore struct{ store.Store }

func (nopStore) Backend() string { return "none" }

func (nopStore) GetRepository(_ context.Context, id int64) (store.Repository, error) {
	return store.Repository{ID: id}, nil
}

func (nopStore) GetInstallation(_ context.Context, id int64) (store.Installation, error) {
	return store.Installation{ID: id, AccountLogin: "bench"}, nil
}

func (nopStore) UpsertRepository(context.Context, store.Repository) error { return nil }

func (nopStore) RecordDelivery(context.Context, store.Delivery, river.JobArgs, *river.InsertOpts) (bool, error) {
	return false, nil
}

func (nopStore) RecordDeliveries(_ context.Context, batch []store.DeliveryJob) ([]bool, error) {
	return make([]bool, len(batch)), nil
}

func (nopStore) DeliveryRecorded(context.Context, string, []byte) (bool, error) { return false, nil }

// committers is serve's choice: one transaction at a time for SQLite's
// single writer, a few for PostgreSQL.
func committers(backend string) int {
	if backend == "postgres" {
		return 2
	}
	return 1
}

// loadBodies returns a failing workflow_run payload as a template whose run
// id the sender replaces: the karmada-rollout scenario's trigger (a real
// payload of about 25 kB) when ../shared is there, else the small one of
// the simulator's testdata.
func loadBodies(b *testing.B) map[string]any {
	dir, repo, run := filepath.Join("..", "githubtest", "testdata", "tiny"), tinyRepo, tinyFailed
	root := os.Getenv("POLYLANE_SHARED_DIR")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared")
	}
	k := filepath.Join(root, "scenarios", "karmada-rollout")
	if os.Getenv("POLYLANE_BENCH_PAYLOAD") != "small" && fileExists(filepath.Join(k, "scenario.json")) {
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
	b.Logf("payload of %d bytes from %s", len(ev.Payload), dir)
	var payload map[string]any
	if err := json.Unmarshal(ev.Payload, &payload); err != nil {
		b.Fatal(err)
	}
	return payload
}

// newSender returns the load generator (cmd/loadgen), closed with b.
func newSender(b *testing.B, url string, conns int) *loadgen.Sender {
	send, err := loadgen.NewSender(url, conns)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(send.Close)
	return send
}

// sendLoad sends the deliveries of one round and returns their answer
// times.
func sendLoad(b *testing.B, send *loadgen.Sender, url string, template map[string]any, senders, deliveries, round int) []time.Duration {
	reqs := make([]*loadgen.Prepared, deliveries)
	run := template["workflow_run"].(map[string]any)
	for i := range reqs {
		run["id"] = 1_000_000 + round*deliveries + i
		body, err := json.Marshal(template)
		if err != nil {
			b.Fatal(err)
		}
		reqs[i], err = loadgen.Prepare(url, [][2]string{{"Content-Type", "application/json"}, {webhook.HeaderEvent, "workflow_run"},
			{webhook.HeaderDelivery, fmt.Sprintf("load-%d-%d", round, i)}, {webhook.HeaderSignature, sign(body)}}, body)
		if err != nil {
			b.Fatal(err)
		}
	}
	times := make([]time.Duration, deliveries)
	var mu sync.Mutex
	var firstErr error
	// Bursts: the senders fire together, one delivery each, and the next
	// burst starts when every answer is in; so senders deliveries are in
	// flight at once, as when a busy organisation's CI finishes together.
	for start := 0; start < deliveries; start += senders {
		var wg sync.WaitGroup
		for i := start; i < min(start+senders, deliveries); i++ {
			wg.Go(func() {
				status, took, err := send.Send(reqs[i])
				if err == nil && status != http.StatusAccepted {
					err = fmt.Errorf("delivery %d of round %d answered %d", i, round, status)
				}
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
				times[i] = took
			})
		}
		wg.Wait()
	}
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	return times
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
