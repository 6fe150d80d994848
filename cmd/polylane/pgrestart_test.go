package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/server/githubtest"
)

// outage is how long PostgreSQL stays down under serve.
const outage = 5 * time.Second

// privatePostgres is a PostgreSQL cluster of the test's own, in a
// temporary directory on a free port, so that stopping it disturbs no
// other test (the machine's PostgreSQL is shared).
type privatePostgres struct {
	bin  string // the directory of initdb and pg_ctl
	dir  string
	port int
	as   *user.User // the OS user that runs it when the test runs as root
}

// startPrivatePostgres initialises and starts a cluster. It skips when the
// PostgreSQL server binaries are missing (fails when CI=true).
func startPrivatePostgres(t *testing.T) *privatePostgres {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
		}
		t.Skip("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)")
	}
	sort.Strings(bins)
	p := &privatePostgres{bin: filepath.Dir(bins[len(bins)-1])}
	dir, err := os.MkdirTemp("", "polylane-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir = dir
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Getuid() == 0 {
		// PostgreSQL refuses to run as root.
		if p.as, err = user.Lookup("postgres"); err != nil {
			t.Skipf("running as root and there is no postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(p.as.Uid)
		gid, _ := strconv.Atoi(p.as.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	p.port = freePort(t)
	p.run(t, "initdb", "-D", p.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
	p.start(t)
	t.Cleanup(func() { p.stopQuietly() })
	return p
}

func (p *privatePostgres) data() string { return filepath.Join(p.dir, "data") }

// URL is the cluster's postgres database.
func (p *privatePostgres) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

func (p *privatePostgres) command(name string, args ...string) *exec.Cmd {
	bin := filepath.Join(p.bin, name)
	if p.as != nil {
		return exec.Command("runuser", append([]string{"-u", p.as.Username, "--", bin}, args...)...)
	}
	return exec.Command(bin, args...)
}

func (p *privatePostgres) run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := p.command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// start starts the server and waits until it accepts connections.
func (p *privatePostgres) start(t *testing.T) {
	t.Helper()
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c fsync=off -c max_connections=60", p.port, p.dir)
	p.run(t, "pg_ctl", "-D", p.data(), "-l", filepath.Join(p.dir, "server.log"), "-w", "-t", "60", "-o", opts, "start")
}

// stop stops the server at once (fast shutdown: sessions are cut).
func (p *privatePostgres) stop(t *testing.T) {
	t.Helper()
	p.run(t, "pg_ctl", "-D", p.data(), "-m", "fast", "-w", "-t", "60", "stop")
}

func (p *privatePostgres) stopQuietly() {
	_ = p.command("pg_ctl", "-D", p.data(), "-m", "immediate", "-w", "-t", "30", "stop").Run()
}

// freePort returns a port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// readyStatus is serve's /readyz status, 0 when it does not answer.
func readyStatus(url string) int {
	resp, err := http.Get(url + "/readyz")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestPostgresRestartUnderServe stops serve's PostgreSQL (a private
// cluster) under it while a diagnosis is in flight (its log downloads keep
// failing with 502, so the job is between retries): /readyz answers 503
// and a new delivery is not accepted (GitHub will deliver it again); once
// PostgreSQL is back, /readyz answers 200 without restarting serve, the
// interrupted diagnosis finishes, and the redelivered one is diagnosed and
// published as usual.
func TestPostgresRestartUnderServe(t *testing.T) {
	pg := startPrivatePostgres(t)
	g := newCrashRig(t, pg.URL())
	r := g.start(t)
	failing := g.sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultServerError, Method: http.MethodGet,
		Path: "/repos/*/*/actions/jobs/*/logs", Times: -1})
	if d := g.deliver(t, r, g.sc.TriggerRunID); d.Status != http.StatusAccepted {
		t.Fatalf("delivery answered %d", d.Status)
	}
	waitHit(t, failing, "the diagnosis in flight")
	pg.stop(t)
	down := time.Now()
	waitUntil(t, 30*time.Second, "/readyz 503 with PostgreSQL down", func() bool { return readyStatus(r.url) == http.StatusServiceUnavailable })
	t.Logf("/readyz answered 503 %s after PostgreSQL stopped", time.Since(down).Round(time.Millisecond))
	refused := g.deliver(t, r, otherMainFailure(t, g.sc, g.sc.TriggerRunID))
	if refused.Status == http.StatusAccepted {
		t.Fatal("a delivery was accepted while the database was down")
	}
	if refused.Status < 500 {
		t.Errorf("a delivery while the database is down answered %d, want a 5xx so that GitHub delivers it again", refused.Status)
	}
	// Down long enough for the diagnosis' attempt to end (its retries of
	// the log download give up) and its failure to find no database.
	time.Sleep(outage)
	if s := readyStatus(r.url); s != http.StatusServiceUnavailable {
		t.Errorf("/readyz answered %d during the outage", s)
	}
	pg.start(t)
	failing.Remove()
	up := time.Now()
	waitUntil(t, time.Minute, "/readyz 200 after PostgreSQL is back", func() bool { return readyStatus(r.url) == http.StatusOK })
	t.Logf("/readyz answered 200 %s after PostgreSQL started again", time.Since(up).Round(time.Millisecond))
	again, err := g.sim.Redeliver(context.Background(), refused)
	if err != nil || again.Status != http.StatusAccepted {
		t.Fatalf("redelivery after the outage: %v, status %d", err, again.Status)
	}
	g.accepted = append(g.accepted, again.GUID)
	waitUntil(t, crashSettle, "both runs diagnosed and published", g.settled)
	t.Logf("both deliveries done %s after PostgreSQL came back", time.Since(up).Round(time.Millisecond))
	if !strings.Contains(r.logs.String(), "connect") {
		t.Error("serve logged no database error: the outage did not reach it")
	}
	g.checkConverged(t)
}
