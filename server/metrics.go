package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Job outcomes for Metrics.JobDone.
const (
	JobSucceeded = "succeeded"
	JobFailed    = "failed"    // will be retried
	JobDiscarded = "discarded" // failed for good
	JobCancelled = "cancelled"
	JobSnoozed   = "snoozed"
)

// Metrics holds Polylane's Prometheus metrics and serves them at /metrics.
// Other packages add their own collectors to Registry.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	jobs        *prometheus.CounterVec
	jobDuration *prometheus.HistogramVec
}

// NewMetrics creates the metrics with Go runtime and process collectors and a
// polylane_build_info gauge for version.
func NewMetrics(version string) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "polylane_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "polylane_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by route pattern.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "polylane_jobs_total",
			Help: "Queued jobs worked, by kind and outcome (succeeded, failed, discarded, cancelled, snoozed).",
		}, []string{"kind", "outcome"}),
		jobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "polylane_job_duration_seconds",
			Help:    "Time spent working queued jobs, by kind.",
			Buckets: []float64{.01, .05, .1, .5, 1, 2.5, 5, 10, 30, 60, 120},
		}, []string{"kind"}),
	}
	if version == "" {
		version = "dev"
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "polylane_build_info",
		Help:        "Always 1; the version label says which build runs.",
		ConstLabels: prometheus.Labels{"version": version},
	})
	build.Set(1)
	m.reg.MustRegister(m.requests, m.latency, m.jobs, m.jobDuration, build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is where other packages register their collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// JobDone counts one worked job of a kind with its outcome (one of the Job*
// constants) and the time it took. server/worker calls it for every job.
func (m *Metrics) JobDone(kind, outcome string, took time.Duration) {
	m.jobs.WithLabelValues(kind, outcome).Inc()
	m.jobDuration.WithLabelValues(kind).Observe(took.Seconds())
}

func (m *Metrics) observeRequest(route, method string, status int, took time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(took.Seconds())
}

// watchQueue exports the queue's depth, jobs by state and running flag,
// read from c at every scrape.
func (m *Metrics) watchQueue(c Checker) {
	m.reg.MustRegister(&queueCollector{checker: c})
}

var (
	queueDepthDesc = prometheus.NewDesc("polylane_queue_depth",
		"Jobs waiting to run (available, scheduled or retryable).", nil, nil)
	queueJobsDesc = prometheus.NewDesc("polylane_queue_jobs",
		"Jobs in the queue's table, by state.", []string{"state"}, nil)
	queueRunningDesc = prometheus.NewDesc("polylane_queue_running",
		"1 when this process's queue workers run.", nil, nil)
)

// queueCollector reads queue statistics at scrape time.
type queueCollector struct{ checker Checker }

func (q *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDepthDesc
	ch <- queueJobsDesc
	ch <- queueRunningDesc
}

func (q *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	st, err := q.checker.QueueStats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(queueDepthDesc, err)
		return
	}
	running := 0.0
	if st.Running {
		running = 1
	}
	ch <- prometheus.MustNewConstMetric(queueRunningDesc, prometheus.GaugeValue, running)
	ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(st.Depth()))
	for state, n := range st.Jobs {
		ch <- prometheus.MustNewConstMetric(queueJobsDesc, prometheus.GaugeValue, float64(n), state)
	}
}
