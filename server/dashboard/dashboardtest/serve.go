package dashboardtest

import (
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/dashboard"
	"github.com/polylane/polylane/server/githubtest"
)

// The OAuth client that Serve's simulator and dashboard share.
const (
	ClientID     = "Iv1.dashboardtest"
	ClientSecret = "s3cret"
)

// Serve serves a dashboard on an httptest server beside a GitHub simulator
// that serves seeded's repositories and signs users in. opts carries the
// store and whatever else the caller sets; Serve fills in the OAuth client,
// the simulator's API URL and InsecureCookies (the server is plain HTTP).
// Both stop when tb ends.
func Serve(tb testing.TB, seeded *Seeded, opts dashboard.Options) (url string, sim *githubtest.Server) {
	tb.Helper()
	dirs, err := WriteScenarios(tb.TempDir(), seeded)
	if err != nil {
		tb.Fatal(err)
	}
	sim, err = githubtest.Start(githubtest.Options{Scenarios: dirs, ClientID: ClientID, ClientSecret: ClientSecret})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(sim.Close)
	opts.ClientID, opts.ClientSecret, opts.GitHubAPIURL, opts.InsecureCookies = ClientID, ClientSecret, sim.APIURL(), true
	d, err := dashboard.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	srv := server.New(server.Options{Logger: zerolog.Nop()})
	d.Mount(srv)
	ts := httptest.NewServer(srv.Handler())
	tb.Cleanup(ts.Close)
	return ts.URL, sim
}
