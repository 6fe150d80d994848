package demoscenario

import (
	"fmt"
	"time"
)

// postgresImage is the digest and layers of postgres:16-alpine, which was
// re-pushed once during the history.
func postgresImage(t time.Time) (digest string, layers []string) {
	if t.Before(time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC)) {
		return "7c688148e5e156d0e86df7ba8ae5a05a2386aaec1e2ad8e6d11bdf10504b1fb7",
			[]string{"1f3e46996e29", "c7b2a3b2d8e9", "56a3f1b4e7d0", "0c9a4d7e2b15", "e4b3c1f07a92", "8d2f6a0b1c34", "a61e5d3c9f70", "3b8c2e4f1d06"}
	}
	return "b9f2e0d4a61c37e8f1a25c9d0b7e4a3f6c812d5e9b0a7c3f4e1d2b8a6c5f903e",
		[]string{"1f3e46996e29", "d20f7b9a4c13", "56a3f1b4e7d0", "f18e2c6d0a47", "e4b3c1f07a92", "92c4a1e8b5d3", "a61e5d3c9f70", "47d1b0c8e2a9"}
}

// containers names the docker objects of the postgres service of one job.
type containers struct {
	label, network, name, id string
	start, ready             time.Time
}

// initializeContainers writes the "Initialize containers" step: the
// service container is created and started, and no health check is
// configured, so the runner goes straight on to the steps.
func (w *logWriter) initializeContainers(p *plannedRun) *containers {
	c := &containers{label: hexString(w.r, 6), network: "github_network_" + hexString(w.r, 32), id: hexString(w.r, 64)}
	c.name = hexString(w.r, 32) + "_postgres16alpine_" + hexString(w.r, 6)
	w.begin("Initialize containers")
	w.lines("##[group]Checking docker version\n##[command]/usr/bin/docker version --format '{{.Server.APIVersion}}'\n'1.48'\nDocker daemon API version: '1.48'\n" +
		"##[command]/usr/bin/docker version --format '{{.Client.APIVersion}}'\n'1.48'\nDocker client API version: '1.48'\n##[endgroup]")
	w.line("##[group]Clean up resources from previous jobs")
	w.line("##[command]/usr/bin/docker ps --all --quiet --no-trunc --filter \"label=%s\"", c.label)
	w.line("##[command]/usr/bin/docker network prune --force --filter \"label=%s\"", c.label)
	w.line("##[endgroup]")
	w.line("##[group]Create local container network")
	w.line("##[command]/usr/bin/docker network create --label %s %s", c.label, c.network)
	w.wait(80 * time.Millisecond)
	w.line("%s", hexString(w.r, 64))
	w.line("##[endgroup]")
	w.line("##[group]Starting postgres service container")
	w.pullPostgres()
	w.line("##[command]/usr/bin/docker create --name %s --label %s --network %s --network-alias postgres -p 5432/tcp "+
		"-e \"POSTGRES_USER=tally\" -e \"POSTGRES_PASSWORD=tally\" -e \"POSTGRES_DB=tally\" -e GITHUB_ACTIONS=true -e CI=true postgres:16-alpine",
		c.name, c.label, c.network)
	w.wait(60 * time.Millisecond)
	w.line("%s", c.id)
	w.line("##[command]/usr/bin/docker start %s", c.id)
	w.wait(250 * time.Millisecond)
	c.start = w.t
	w.line("%s", c.id)
	w.line("##[command]/usr/bin/docker ps --all --filter id=%s --filter status=running --no-trunc --format \"{{.ID}} {{.Status}}\"", c.id)
	w.line("%s Up Less than a second", c.id)
	w.line("##[command]/usr/bin/docker port %s", c.id)
	w.line("5432/tcp -> 0.0.0.0:%d", p.port)
	w.line("5432/tcp -> [::]:%d", p.port)
	w.line("##[endgroup]")
	w.end("success")
	return c
}

func (w *logWriter) pullPostgres() {
	digest, layers := postgresImage(w.t)
	w.line("##[command]/usr/bin/docker pull postgres:16-alpine")
	w.line("16-alpine: Pulling from library/postgres")
	for _, l := range layers {
		w.line("%s: Pulling fs layer", l)
	}
	for _, l := range layers {
		w.wait(time.Duration(80+w.r.IntN(400)) * time.Millisecond)
		w.line("%s: Verifying Checksum", l)
		w.line("%s: Download complete", l)
	}
	for _, l := range layers {
		w.wait(time.Duration(30+w.r.IntN(300)) * time.Millisecond)
		w.line("%s: Pull complete", l)
	}
	w.line("Digest: sha256:%s", digest)
	w.line("Status: Downloaded newer image for postgres:16-alpine")
	w.line("docker.io/library/postgres:16-alpine")
}

// integrationEnv is the environment the integration job's steps get.
func integrationEnv(p *plannedRun) [][2]string {
	return [][2]string{{"GOTOOLCHAIN", "local"},
		{"DATABASE_URL", fmt.Sprintf("postgres://tally:tally@localhost:%d/tally?sslmode=disable", p.port)}}
}

// integrationJob writes the log of the "Integration" job.
func integrationJob(w *logWriter, p *plannedRun, key string, mk makeLines) {
	env := integrationEnv(p)
	w.setUpJob("Integration", []string{"actions/checkout@v4", "actions/setup-go@v5"})
	c := w.initializeContainers(p)
	w.checkout(p, env)
	w.setupGo(p, key, env)
	ok := w.migrate(p, c, env, mk)
	if ok {
		w.integrationTests(p, env)
		w.setupGoPost(p, key)
	} else {
		w.skip("Integration tests")
		w.skip("Post Run actions/setup-go@v5")
	}
	w.checkoutCleanup()
	w.stopContainers(c)
	w.completeJob()
}

// migrate writes the "Migrate database" step. The service container was
// started without a health check: when the cache is warm, goose connects
// before postgres listens on TCP.
func (w *logWriter) migrate(p *plannedRun, c *containers, env [][2]string, mk makeLines) bool {
	w.begin("Migrate database")
	w.runHeader("make db-migrate", env)
	url := env[1][1]
	w.line("DATABASE_URL=\"%s\" ./scripts/migrate.sh up", url)
	w.line("migrate: goose up on localhost:%d/tally?sslmode=disable", p.port)
	if !p.cacheHit {
		w.goDownloads(gooseModules...)
		w.wait(14 * time.Second) // compiling goose and its drivers
	} else {
		w.wait(900 * time.Millisecond)
	}
	fail := p.outcome == dbNotReady
	if fail {
		c.ready = w.t.Add(time.Duration(300+w.r.IntN(1200)) * time.Millisecond)
	} else {
		c.ready = c.start.Add(time.Duration(4200+w.r.IntN(1800)) * time.Millisecond)
		if !c.ready.Before(w.t) {
			w.t = c.ready.Add(time.Duration(300+w.r.IntN(900)) * time.Millisecond)
		}
	}
	stamp := w.t.Format("2006/01/02 15:04:05")
	if fail {
		w.line("%s goose run: failed to connect to `user=tally database=tally`:", stamp)
		w.line("\t127.0.0.1:%d (localhost): dial error: dial tcp 127.0.0.1:%d: connect: connection refused", p.port, p.port)
		w.line("\t[::1]:%d (localhost): dial error: dial tcp [::1]:%d: connect: connection refused", p.port, p.port)
		w.line("exit status 1")
		w.line("make: *** [Makefile:%d: db-migrate] Error 1", mk["db-migrate"])
		w.errorExit(2)
		w.end("failure")
		return false
	}
	w.line("%s OK   00001_usage_events.sql (%.2fms)", stamp, 8+10*w.r.Float64())
	w.line("%s OK   00002_monthly_rollups.sql (%.2fms)", stamp, 3+6*w.r.Float64())
	w.line("%s goose: successfully migrated database to version: 2", stamp)
	w.end("success")
	return true
}

// integrationTests writes a passing "Integration tests" step.
func (w *logWriter) integrationTests(p *plannedRun, env [][2]string) {
	w.begin("Integration tests")
	w.runHeader("make test-integration", env)
	w.line("DATABASE_URL=\"%s\" go test -race -count=1 -tags integration ./internal/store/... ./internal/api/...", env[1][1])
	w.goTestOK("internal/store", 6)
	w.goTestOK("internal/api", 9)
	w.end("success")
}

// stopContainers writes the "Stop containers" step: the service's log,
// which shows when postgres really started listening, then the clean-up.
func (w *logWriter) stopContainers(c *containers) {
	w.begin("Stop containers")
	if w.t.Before(c.ready) {
		w.t = c.ready.Add(time.Duration(100+w.r.IntN(300)) * time.Millisecond)
	}
	w.line("Print service container logs: %s", c.name)
	w.line("##[command]/usr/bin/docker logs --details %s", c.id)
	w.postgresLog(c)
	w.line("Stop and remove container: %s", c.name)
	w.line("##[command]/usr/bin/docker rm --force %s", c.id)
	w.wait(300 * time.Millisecond)
	w.line("%s", c.id)
	w.line("Remove container network: %s", c.network)
	w.line("##[command]/usr/bin/docker network rm %s", c.network)
	w.line("%s", c.network)
	w.end("success")
}

// postgresLog writes what the postgres image prints from start to ready;
// its own timestamps come from the container's clock.
func (w *logWriter) postgresLog(c *containers) {
	span := c.ready.Sub(c.start)
	at := func(frac float64) string {
		return c.start.Add(time.Duration(frac * float64(span))).Format("2006-01-02 15:04:05.000 MST")
	}
	w.lines(initdbOutput)
	w.line(" %s [35] WARNING:  no usable system locales were found", at(0.18))
	w.lines(" performing post-bootstrap initialization ... ok\n syncing data to disk ... ok\n \n \n Success. You can now start the database server using:\n \n     pg_ctl -D /var/lib/postgresql/data -l logfile start\n \n" +
		" initdb: warning: enabling \"trust\" authentication for local connections\n initdb: hint: You can change this by editing pg_hba.conf or using the option -A, or --auth-local and --auth-host, the next time you run initdb.")
	w.line(" waiting for server to start....%s [41] LOG:  starting PostgreSQL 16.6 on x86_64-pc-linux-musl, compiled by gcc (Alpine 14.2.0) 14.2.0, 64-bit", at(0.46))
	w.line(" %s [41] LOG:  listening on Unix socket \"/var/run/postgresql/.s.PGSQL.5432\"", at(0.47))
	w.line(" %s [44] LOG:  database system was shut down at %s", at(0.49), c.start.Add(span*45/100).Format("2006-01-02 15:04:05 MST"))
	w.line(" %s [41] LOG:  database system is ready to accept connections", at(0.51))
	w.lines("  done\n server started\n CREATE DATABASE\n \n \n /usr/local/bin/docker-entrypoint.sh: ignoring /docker-entrypoint-initdb.d/*\n ")
	w.line(" waiting for server to shut down...%s [41] LOG:  received fast shutdown request", at(0.82))
	w.line(" %s [41] LOG:  aborting any active transactions", at(0.82))
	w.line(" %s [41] LOG:  background worker \"logical replication launcher\" (PID 47) exited with exit code 1", at(0.83))
	w.line(" %s [42] LOG:  shutting down", at(0.84))
	w.line(" %s [42] LOG:  checkpoint starting: shutdown immediate", at(0.85))
	w.line(" %s [41] LOG:  database system is shut down", at(0.93))
	w.lines("  done\n server stopped\n \n PostgreSQL init process complete; ready for start up.\n ")
	w.line(" %s [1] LOG:  starting PostgreSQL 16.6 on x86_64-pc-linux-musl, compiled by gcc (Alpine 14.2.0) 14.2.0, 64-bit", at(0.96))
	w.line(" %s [1] LOG:  listening on IPv4 address \"0.0.0.0\", port 5432", at(0.97))
	w.line(" %s [1] LOG:  listening on IPv6 address \"::\", port 5432", at(0.97))
	w.line(" %s [1] LOG:  listening on Unix socket \"/var/run/postgresql/.s.PGSQL.5432\"", at(0.98))
	w.line(" %s [57] LOG:  database system was shut down at %s", at(0.99), c.start.Add(span*93/100).Format("2006-01-02 15:04:05 MST"))
	w.line(" %s [1] LOG:  database system is ready to accept connections", at(1))
}

const initdbOutput = ` The files belonging to this database system will be owned by user "postgres".
 This user must also own the server process.
 
 The database cluster will be initialized with locale "en_US.utf8".
 The default database encoding has accordingly been set to "UTF8".
 The default text search configuration will be set to "english".
 
 Data page checksums are disabled.
 
 fixing permissions on existing directory /var/lib/postgresql/data ... ok
 creating subdirectories ... ok
 selecting dynamic shared memory implementation ... posix
 selecting default "max_connections" ... 100
 selecting default "shared_buffers" ... 128MB
 selecting default time zone ... UTC
 creating configuration files ... ok
 running bootstrap script ... ok
 sh: locale: not found`
