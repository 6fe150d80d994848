package dashboard_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polylane/polylane/server/dashboard"
	"github.com/polylane/polylane/server/dashboard/dashboardtest"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/postgres"
	"github.com/polylane/polylane/store/sqlite"
)

// Page-speed budget: every page under this at p95.
const pageBudget = 100 * time.Millisecond

// benchScale is the store the benchmark reads: 100,000 runs across 50
// repositories of 5 installations, 3 workflows each, over 90 days.
var benchScale = dashboardtest.Options{Installations: 5, Repos: 50, Workflows: 3, Classes: 4, RunsPerRepo: 2000,
	Days: 90, Diagnoses: 20, Workers: 4, End: end}

// BenchmarkPages seeds a 100,000-run store on SQLite and on PostgreSQL
// (with POLYLANE_TEST_DATABASE_URL), signs in through the GitHub simulator
// as a user who sees every installation, and requests each page
// POLYLANE_BENCH_REQUESTS times (default 100), printing p50 and p95 per page.
// It fails when a page's p95 reaches 100 ms. Run it with -benchtime=1x.
func BenchmarkPages(b *testing.B) {
	backends := []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"sqlite", openBenchSQLite},
		{"postgres", openBenchPostgres},
	}
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			st := be.open(b)
			ctx := context.Background()
			start := time.Now()
			seeded, err := dashboardtest.Seed(ctx, st, benchScale)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Printf("%s: seeded %d runs across %d repositories in %v\n", be.name, seeded.Runs, len(seeded.Repos),
				time.Since(start).Round(time.Second))
			url, client := benchServer(b, st, seeded)
			b.ResetTimer()
			for range b.N {
				measurePages(b, be.name, url, client, seeded)
			}
		})
	}
}

func openBenchSQLite(b *testing.B) store.Store {
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(b.TempDir(), "bench.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	return st
}

func openBenchPostgres(b *testing.B) store.Store {
	url := os.Getenv("POLYLANE_TEST_DATABASE_URL")
	if url == "" {
		b.Skip("set POLYLANE_TEST_DATABASE_URL to measure PostgreSQL")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatalf("PostgreSQL: %v", err)
	}
	schema := fmt.Sprintf("polylane_bench_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		b.Fatal(err)
	}
	conn.Close(ctx)
	b.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), url); err == nil {
			_, _ = c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
	})
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	st, err := postgres.Open(ctx, postgres.Options{URL: url + sep + "search_path=" + schema})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	return st
}

// benchServer serves the dashboard over st and signs a user in.
func benchServer(b *testing.B, st store.Store, seeded *dashboardtest.Seeded) (string, *http.Client) {
	url, _ := dashboardtest.Serve(b, seeded, dashboard.Options{Store: st, AccessTTL: time.Hour,
		Now: func() time.Time { return end.Add(time.Hour) }})
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: time.Minute}
	resp, err := client.Get(url + "/auth/github")
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/" {
		b.Fatalf("sign-in ended at %s with %d", resp.Request.URL, resp.StatusCode)
	}
	return url, client
}

// measurePages requests each page repeatedly and prints its p50 and p95.
func measurePages(b *testing.B, backend, url string, client *http.Client, seeded *dashboardtest.Seeded) {
	n := 100
	if v := os.Getenv("POLYLANE_BENCH_REQUESTS"); v != "" {
		fmt.Sscan(v, &n)
	}
	repo := seeded.Repos[0]
	rp := "/repos/" + repo.FullName
	pages := []struct{ name, path string }{
		{"overview", "/"},
		{"installation", fmt.Sprintf("/installations/%d", dashboardtest.FirstInstallationID)},
		{"repository", rp},
		{"repository-90d", rp + "?days=90"},
		{"class", rp + "/classes/" + seeded.FixedClass},
		{"diagnosis", fmt.Sprintf("%s/diagnoses/%d", rp, seeded.Diagnoses[repo.ID][0])},
		{"diagnoses", rp + "/diagnoses"},
		{"api-overview", "/api/v1/overview"},
		{"api-repository", "/api/v1" + rp},
		{"api-class", "/api/v1" + rp + "/classes/" + seeded.FixedClass},
	}
	fmt.Printf("%-9s %-16s %9s %9s %9s  (%d requests each)\n", "backend", "page", "p50", "p95", "max", n)
	for _, p := range pages {
		lat := make([]time.Duration, 0, n)
		for range n {
			start := time.Now()
			resp, err := client.Get(url + p.path)
			if err != nil {
				b.Fatalf("GET %s: %v", p.path, err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("GET %s: %d", p.path, resp.StatusCode)
			}
			lat = append(lat, time.Since(start))
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		p50, p95 := lat[len(lat)/2], lat[len(lat)*95/100]
		fmt.Printf("%-9s %-16s %9s %9s %9s\n", backend, p.name, ms(p50), ms(p95), ms(lat[len(lat)-1]))
		b.ReportMetric(float64(p95.Microseconds())/1000, p.name+"-p95-ms")
		if p95 >= pageBudget {
			b.Errorf("%s %s: p95 %v is over the %v budget", backend, p.name, p95, pageBudget)
		}
	}
}

// ms formats a duration in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }
