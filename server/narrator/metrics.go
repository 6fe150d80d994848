package narrator

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Request kinds, the "kind" label of the metrics.
const (
	KindWording = "wording"
	KindAnswer  = "answer"
)

// Outcomes of a request, the "outcome" label of
// polylane_narrator_requests_total.
const (
	OutcomeOK              = "ok"
	OutcomeRejected        = "rejected"
	OutcomeTimeout         = "timeout"
	OutcomeError           = "error"
	OutcomeBudgetExhausted = "budget_exhausted"
)

// metrics are the narrator's Prometheus collectors.
type metrics struct {
	requests *prometheus.CounterVec
	tokens   *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// newMetrics creates the collectors and registers them on reg when it is
// not nil.
func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "polylane_narrator_requests_total",
			Help: "Narrator requests by kind (wording, answer) and outcome (ok, rejected, timeout, error, budget_exhausted).",
		}, []string{"kind", "outcome"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "polylane_narrator_tokens_total",
			Help: "Tokens used by narrator requests, by kind and type (prompt, completion), as the endpoint reports them or estimated.",
		}, []string{"kind", "type"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "polylane_narrator_request_duration_seconds",
			Help:    "Time narrator requests took, by kind, failures included.",
			Buckets: []float64{.1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60},
		}, []string{"kind"}),
	}
	for _, k := range []string{KindWording, KindAnswer} {
		for _, o := range []string{OutcomeOK, OutcomeRejected, OutcomeTimeout, OutcomeError, OutcomeBudgetExhausted} {
			m.requests.WithLabelValues(k, o)
		}
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.requests, m.tokens, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
