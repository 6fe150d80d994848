package benchreport

import (
	"fmt"
	"math"
	"strings"
)

// Outputs are the parsed outputs of the steps, by step name.
type Outputs map[string]Output

// metric returns a benchmark metric of a step, NaN when missing.
func (o Outputs) metric(step, name, unit string) float64 {
	if v, ok := o[step].Metric(name, unit); ok {
		return v
	}
	return math.NaN()
}

func have(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) {
			return false
		}
	}
	return true
}

// pair renders two latencies as "p50 / p99".
func pair(a, b float64) string {
	if !have(a, b) {
		return "n/a"
	}
	return num(a) + " / " + num(b)
}

// Rows builds the report's rows from the steps' outputs.
func Rows(o Outputs) []Row {
	var rows []Row
	rows = append(rows, webhookRows(o)...)
	rows = append(rows, loopRows(o)...)
	rows = append(rows, diagnoseRows(o)...)
	rows = append(rows, dashboardRows(o)...)
	rows = append(rows, analysisRows(o)...)
	return rows
}

// webhookRows: ingestion on SQLite (A) and PostgreSQL (B). Issue 6's
// target, p99 < 50 ms at 200 concurrent deliveries, holds for both backends.
func webhookRows(o Outputs) []Row {
	both := func(a, b float64) string { return met(a < 50 && b < 50, have(a, b)) }
	burst := func(db, unit string) float64 { return o.metric("burst", "BenchmarkWebhookLoad/"+db, unit) }
	ba50, ba99, bb50, bb99 := burst("sqlite", "p50-ms"), burst("sqlite", "p99-ms"), burst("postgres", "p50-ms"), burst("postgres", "p99-ms")
	rows := []Row{
		{Measurement: "webhook, bursts of 200 concurrent deliveries: p50 / p99 answer ms (ratio of p99)",
			A: pair(ba50, ba99), B: pair(bb50, bb99), Ratio: ratio(ba99, bb99), Target: "p99 < 50 ms on both", Met: both(ba99, bb99)},
		{Measurement: "webhook, bursts of 200 with a store that writes nothing (HTTP, signature, parsing): p50 / p99 answer ms",
			A: pair(burst("no-store", "p50-ms"), burst("no-store", "p99-ms")), B: "—", Ratio: "—"},
	}
	for _, senders := range []int{1, 50, 200} {
		name := func(db string) string {
			return fmt.Sprintf("BenchmarkWebhookIngest/db=%s/senders=%d", db, senders)
		}
		sa, sb := o.metric("webhook", name("sqlite"), "deliveries/s"), o.metric("webhook", name("postgres"), "deliveries/s")
		r := Row{Measurement: fmt.Sprintf("webhook, %d closed-loop sender%s: deliveries/s (SQLite · PostgreSQL)", senders, plural(senders)),
			A: num(sa), B: num(sb), Ratio: ratio(sa, sb)}
		pa50, pa99 := o.metric("webhook", name("sqlite"), "p50-ms"), o.metric("webhook", name("sqlite"), "p99-ms")
		pb50, pb99 := o.metric("webhook", name("postgres"), "p50-ms"), o.metric("webhook", name("postgres"), "p99-ms")
		l := Row{Measurement: fmt.Sprintf("webhook, %d closed-loop sender%s: p50 / p99 answer ms (ratio of p99)", senders, plural(senders)),
			A: pair(pa50, pa99), B: pair(pb50, pb99), Ratio: ratio(pa99, pb99)}
		rows = append(rows, r, l)
		if senders == 200 {
			r.Target, r.Met = "≥ 2,000/s on PostgreSQL", met(sb >= 2000, have(sb))
			l.Target, l.Met = "p99 < 50 ms on both", both(pa99, pb99)
			rows[len(rows)-2], rows[len(rows)-1] = r, l
			ca, cb := o.metric("webhook", name("sqlite"), "cpu-µs/delivery"), o.metric("webhook", name("postgres"), "cpu-µs/delivery")
			rows = append(rows, Row{Measurement: "webhook, 200 closed-loop senders: Go CPU µs per delivery (server and load generator; PostgreSQL's own not counted)",
				A: num(ca), B: num(cb), Ratio: ratio(ca, cb)})
		}
	}
	name := func(db string) string { return "BenchmarkWebhookIngestRate/db=" + db + "/rate=2000/conns=200" }
	ra, rb := o.metric("webhook", name("sqlite"), "deliveries/s"), o.metric("webhook", name("postgres"), "deliveries/s")
	pa50, pa99 := o.metric("webhook", name("sqlite"), "p50-ms"), o.metric("webhook", name("sqlite"), "p99-ms")
	pb50, pb99 := o.metric("webhook", name("postgres"), "p50-ms"), o.metric("webhook", name("postgres"), "p99-ms")
	rows = append(rows,
		Row{Measurement: "webhook, 2,000/s offered over 200 connections: deliveries/s (SQLite · PostgreSQL)",
			A: num(ra), B: num(rb), Ratio: ratio(ra, rb), Target: "≥ 2,000/s on PostgreSQL", Met: met(rb >= 1980, have(rb))},
		Row{Measurement: "webhook, 2,000/s offered over 200 connections: p50 / p99 answer ms (ratio of p99)",
			A: pair(pa50, pa99), B: pair(pb50, pb99), Ratio: ratio(pa99, pb99), Target: "p99 < 50 ms on both", Met: both(pa99, pb99)})
	return rows
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// loopRows: the GitHub App loop on karmada-rollout, cold and warm.
func loopRows(o Outputs) []Row {
	m := func(db, unit string) float64 { return o.metric("loop", "BenchmarkDeliveryToComment/db="+db, unit) }
	var rows []Row
	for _, db := range []struct{ key, name string }{{"sqlite", "SQLite"}, {"postgres", "PostgreSQL"}} {
		c, w := m(db.key, "cold-ms"), m(db.key, "warm-ms")
		rows = append(rows, Row{Measurement: "karmada-rollout delivery → posted comment on " + db.name + ", ms (cold · warm history)",
			A: num(c), B: num(w), Ratio: ratio(c, w), Target: "warm < 3,000 ms", Met: met(w < 3000, have(w))})
	}
	for _, db := range []struct{ key, name string }{{"sqlite", "SQLite"}, {"postgres", "PostgreSQL"}} {
		c, w := m(db.key, "cold-api-calls"), m(db.key, "warm-api-calls")
		rows = append(rows, Row{Measurement: "GitHub API calls per diagnosis on " + db.name + " (cold · warm history)",
			A: num(c), B: num(w), Ratio: ratio(c, w), Target: "warm ≤ 6", Met: met(w <= 6, have(w))})
	}
	pr := func(db, unit string) float64 { return o.metric("loop", "BenchmarkPullRequestDiagnosis/db="+db, unit) }
	for _, db := range []struct{ key, name string }{{"sqlite", "SQLite"}, {"postgres", "PostgreSQL"}} {
		c, w := pr(db.key, "cold-api-calls"), pr(db.key, "warm-api-calls")
		rows = append(rows, Row{Measurement: "GitHub API calls per pull-request diagnosis (base branch and other pull requests read) on " + db.name + " (cold · warm history)",
			A: num(c), B: num(w), Ratio: ratio(c, w), Target: "warm ≤ 6", Met: met(w <= 6, have(w))})
	}
	rg := func(db, unit string) float64 { return o.metric("loop", "BenchmarkRangeDiagnosis/db="+db, unit) }
	for _, db := range []struct{ key, name string }{{"sqlite", "SQLite"}, {"postgres", "PostgreSQL"}} {
		c, w := rg(db.key, "cold-api-calls"), rg(db.key, "warm-api-calls")
		rows = append(rows, Row{Measurement: "GitHub API calls per diagnosis of a regression after cancelled runs (range compared) on " + db.name + " (cold · warm history)",
			A: num(c), B: num(w), Ratio: ratio(c, w), Target: "warm ≤ 6", Met: met(w <= 6, have(w))})
	}
	return rows
}

// diagnoseRows: the pure pipeline on windows of 100, 1,000 and 10,000 runs.
func diagnoseRows(o Outputs) []Row {
	m := func(runs int, unit string) float64 {
		return o.metric("diagnose", fmt.Sprintf("BenchmarkDiagnoseScale/runs=%d", runs), unit)
	}
	var rows []Row
	for _, step := range [][2]int{{100, 1000}, {1000, 10000}} {
		a, b := m(step[0], "ns/op")/1e6, m(step[1], "ns/op")/1e6
		rows = append(rows, Row{Measurement: fmt.Sprintf("diagnose a window, one core: ms (%s · %s runs)", thousands(fmt.Sprint(step[0])), thousands(fmt.Sprint(step[1]))),
			A: num(a), B: num(b), Ratio: ratio(a, b)})
		ha, hb := m(step[0], "peak-heap-MB"), m(step[1], "peak-heap-MB")
		rows = append(rows, Row{Measurement: fmt.Sprintf("diagnose a window: peak heap MB (%s · %s runs)", thousands(fmt.Sprint(step[0])), thousands(fmt.Sprint(step[1]))),
			A: num(ha), B: num(hb), Ratio: ratio(ha, hb)})
	}
	rss := m(10000, "max-rss-MB")
	rows = append(rows, Row{Measurement: "diagnose 10,000 runs: process peak RSS MB", A: num(rss)})
	return rows
}

// dashboardRows: page times on a 100,000-run store, SQLite and PostgreSQL.
func dashboardRows(o Outputs) []Row {
	pages := o["dashboard"].Pages()
	byKey := map[string]Page{}
	var names []string
	for _, p := range pages {
		if _, seen := byKey["sqlite "+p.Name]; !seen && p.Backend == "sqlite" {
			names = append(names, p.Name)
		}
		byKey[p.Backend+" "+p.Name] = p
	}
	if len(names) == 0 {
		return []Row{{Measurement: "dashboard pages on a 100,000-run store: p50 / p95 ms", A: "n/a", B: "n/a"}}
	}
	var rows []Row
	for _, n := range names {
		a, b := byKey["sqlite "+n], byKey["postgres "+n]
		hb := b.Name != ""
		bText := "n/a"
		if hb {
			bText = pair(b.P50, b.P95)
		}
		worst := a.P95
		if hb {
			worst = math.Max(a.P95, b.P95)
		}
		r := Row{Measurement: "dashboard " + n + " on a 100,000-run store: p50 / p95 ms (SQLite · PostgreSQL; ratio of p95)",
			A: pair(a.P50, a.P95), B: bText, Target: "p95 < 100 ms", Met: met(worst < 100, true)}
		if hb {
			r.Ratio = ratio(a.P95, b.P95)
		}
		rows = append(rows, r)
	}
	return rows
}

// analysisRows: log analysis speed and memory (single values in A), and
// clustering at 1,000 and 10,000 failures.
func analysisRows(o Outputs) []Row {
	var rows []Row
	for _, step := range []string{"analysis", "chunks"} {
		for _, r := range o[step].Results {
			if r.Name == "BenchmarkAnalyzeRealLines" {
				continue // its own row, below
			}
			name := "analysis " + strings.TrimPrefix(r.Name, "Benchmark") + ", one core: "
			if v, ok := r.Metrics["MB/s"]; ok {
				rows = append(rows, Row{Measurement: name + "MB/s", A: num(v)})
			} else if v, ok := r.Metrics["ns/op"]; ok {
				rows = append(rows, Row{Measurement: name + "µs per call", A: num(v / 1e3)})
			}
		}
	}
	rows = append(rows, realLinesRow(o))
	if cells, ok := o["rss"].Row("peak RSS"); ok && len(cells) >= 3 {
		rows = append(rows, Row{Measurement: cells[0], A: cells[1], Target: cells[2], Met: met(rssBelow(cells[1], cells[2]), true)})
	} else {
		rows = append(rows, Row{Measurement: "peak RSS of `polylane analyze` on a 1 GB log", A: "n/a", Target: "< 100 MB"})
	}
	if cells, ok := o["rss"].Row("wall time"); ok && len(cells) >= 2 {
		rows = append(rows, Row{Measurement: "`polylane analyze` on that log: " + cells[0], A: cells[1]})
	}
	a := o.metric("cluster", "BenchmarkClusterDistinct/failures=1000", "ns/op") / 1e6
	b := o.metric("cluster", "BenchmarkClusterDistinct/failures=10000", "ns/op") / 1e6
	rows = append(rows, Row{Measurement: "history: cluster distinct failures, one core: ms (1,000 · 10,000 failures)",
		A: num(a), B: num(b), Ratio: ratio(a, b)})
	return rows
}

// rssBelow compares "12.3 MB" with "< 100 MB".
func rssBelow(value, target string) bool {
	var v, t float64
	if _, err := fmt.Sscanf(value, "%f", &v); err != nil {
		return false
	}
	if _, err := fmt.Sscanf(strings.TrimLeft(target, "< "), "%f", &t); err != nil {
		return false
	}
	return v < t
}

// realLinesRow: analysis of real lines on one core (the LogChunks logs as
// one file), in CPU time, lines per CPU second and times one grep pass.
func realLinesRow(o Outputs) Row {
	const name = "BenchmarkAnalyzeRealLines"
	cpu, lps := o.metric("chunks", name, "cpu-s"), o.metric("chunks", name, "lines/cpu-s")
	x, lines := o.metric("chunks", name, "x-grep"), o.metric("chunks", name, "lines")
	r := Row{Measurement: "analysis of real lines (LogChunks logs as one file), one core: CPU s · lines per CPU s · × one `grep -c -i error` pass",
		A: "n/a", Target: "≥ 500k lines/s, ≤ 10× grep"}
	if !have(cpu, lps, x, lines) {
		return r
	}
	r.Measurement = fmt.Sprintf("analysis of real lines (LogChunks logs as one file, %.0f lines), one core: CPU s · lines per CPU s · × one `grep -c -i error` pass", lines)
	r.A = fmt.Sprintf("%s s · %.0f · %.1f×", num(cpu), lps, x)
	r.Met = met(lps >= 500e3 && x <= 10, true)
	return r
}
