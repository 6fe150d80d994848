package ghclient

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Kinds of request the client counts.
const (
	KindAPI   = "api"   // REST calls
	KindToken = "token" // installation-token exchanges
	KindBlob  = "blob"  // log downloads after the 302, without credentials
)

// Counter counts the requests made with one context, for example one
// diagnosis: attach it with WithCounter and read it when the work is done.
// It is safe for concurrent use.
type Counter struct {
	api, token, blob atomic.Int64
}

// Calls is a snapshot of a Counter.
type Calls struct {
	API, Token, Blob int64
}

type counterKey struct{}

// WithCounter returns a context whose GitHub requests are counted in a new
// Counter.
func WithCounter(ctx context.Context) (context.Context, *Counter) {
	c := &Counter{}
	return context.WithValue(ctx, counterKey{}, c), c
}

// CounterFrom returns the context's Counter, or nil.
func CounterFrom(ctx context.Context) *Counter {
	c, _ := ctx.Value(counterKey{}).(*Counter)
	return c
}

// Calls returns the counts so far.
func (c *Counter) Calls() Calls {
	if c == nil {
		return Calls{}
	}
	return Calls{API: c.api.Load(), Token: c.token.Load(), Blob: c.blob.Load()}
}

func (c *Counter) add(kind string) {
	if c == nil {
		return
	}
	switch kind {
	case KindToken:
		c.token.Add(1)
	case KindBlob:
		c.blob.Add(1)
	default:
		c.api.Add(1)
	}
}

// Metrics are the client's Prometheus metrics.
type Metrics struct {
	requests     *prometheus.CounterVec
	perDiagnosis *prometheus.HistogramVec
	retries      *prometheus.CounterVec
	limitedOut   prometheus.Counter
}

// NewMetrics creates the metrics and registers them with reg (nil: not
// registered).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "polylane_github_requests_total",
			Help: "Requests sent to GitHub, by kind (api, token, blob) and status class (2xx, 3xx, 4xx, 5xx, error).",
		}, []string{"kind", "status"}),
		perDiagnosis: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "polylane_github_calls_per_diagnosis",
			Help:    "GitHub requests one diagnosis made, by kind (api, token, blob).",
			Buckets: []float64{0, 1, 2, 4, 6, 8, 12, 16, 25, 50, 100, 200, 400},
		}, []string{"kind"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "polylane_github_retries_total",
			Help: "GitHub calls tried again, by reason (rate_limit, transient).",
		}, []string{"reason"}),
		limitedOut: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "polylane_github_rate_limited_total",
			Help: "GitHub calls given up because the rate-limit wait exceeded the bound (the job is snoozed).",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.perDiagnosis, m.retries, m.limitedOut)
	}
	return m
}

// ObserveDiagnosis records the requests of one diagnosis.
func (m *Metrics) ObserveDiagnosis(c Calls) {
	if m == nil {
		return
	}
	m.perDiagnosis.WithLabelValues(KindAPI).Observe(float64(c.API))
	m.perDiagnosis.WithLabelValues(KindToken).Observe(float64(c.Token))
	m.perDiagnosis.WithLabelValues(KindBlob).Observe(float64(c.Blob))
}

func (m *Metrics) retried(limited bool) {
	if m == nil {
		return
	}
	reason := "transient"
	if limited {
		reason = "rate_limit"
	}
	m.retries.WithLabelValues(reason).Inc()
}

func (m *Metrics) limited() {
	if m != nil {
		m.limitedOut.Inc()
	}
}

func (m *Metrics) request(kind string, status int) {
	if m == nil {
		return
	}
	class := "error"
	if status > 0 {
		class = strconv.Itoa(status/100) + "xx"
	}
	m.requests.WithLabelValues(kind, class).Inc()
}

// countingTransport counts every request in the context's Counter and the
// metrics. kind is fixed for the plain download client; otherwise a token
// exchange is told apart from a REST call by its path.
type countingTransport struct {
	base    http.RoundTripper
	kind    string
	metrics *Metrics
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	kind := t.kind
	if kind == "" {
		kind = KindAPI
		if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/access_tokens") {
			kind = KindToken
		}
	}
	CounterFrom(req.Context()).add(kind)
	resp, err := t.base.RoundTrip(req)
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	t.metrics.request(kind, status)
	return resp, err
}
