package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/riverqueue/river"
	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/postgres"
	"github.com/polylane/polylane/store/sqlite"
)

const serveSummary = `Runs the GitHub App: the HTTP server (/healthz, /readyz, /metrics and the
routes of the webhook and dashboard) and the queue's workers, on SQLite or
PostgreSQL. Pending migrations are applied first unless --no-migrate.
SIGTERM or SIGINT stops it gracefully within --shutdown-timeout.`

// serveEnv is what a serve wiring hook gets: the pieces to mount routes on
// and register workers with, before the queue starts and the server serves.
type serveEnv struct {
	Config  *Config
	Logger  zerolog.Logger
	Store   store.Store
	Server  *server.Server
	Workers *river.Workers
}

// serveHooks wire features (webhook, workers, dashboard) into serve; a
// feature's file in this package appends to it from init.
var serveHooks = []func(ctx context.Context, env *serveEnv) error{mountDashboard, wireGitHubApp}

// probeArgs is a job that does nothing: serve always registers its worker so
// the queue starts before any feature registers one, and it can be enqueued
// to prove the queue works end to end.
type probeArgs struct{}

// Kind names the probe job.
func (probeArgs) Kind() string { return "polylane_probe" }

type probeWorker struct {
	river.WorkerDefaults[probeArgs]
}

func (probeWorker) Work(context.Context, *river.Job[probeArgs]) error { return nil }

func runServe(ctx context.Context, inv *invocation) int {
	cfg, err := loadConfig(cmdServe, serveSummary, inv.args, inv.getenv, inv.stdout)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if err != nil {
		return reportConfigError(inv.stderr, err)
	}
	log := newLogger(cfg, inv.stderr)
	// Listen before touching the database: a busy port creates nothing.
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", cfg.Addr)
	if err != nil {
		return reportConfigError(inv.stderr, &configError{name: cfg.source("POLYLANE_ADDR"), msg: err.Error()})
	}
	defer ln.Close()
	var metricsLn net.Listener
	if cfg.HTTP.MetricsAddr != "" {
		if metricsLn, err = lc.Listen(ctx, "tcp", cfg.HTTP.MetricsAddr); err != nil {
			return reportConfigError(inv.stderr, &configError{name: cfg.source("POLYLANE_METRICS_ADDR"), msg: err.Error()})
		}
		defer metricsLn.Close()
	}
	st, err := openStore(ctx, cfg, log)
	if err != nil {
		return reportConfigError(inv.stderr, err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			log.Warn().Err(err).Msg("close store")
		}
	}()
	log.Info().Str("version", version).Str("database", describeDB(cfg)).Str("github_api_url", cfg.GitHubAPIURL).
		Int64("github_app_id", cfg.GitHubAppID).Msg("starting")
	if err := serve(ctx, cfg, log, st, ln, metricsLn); err != nil {
		log.Error().Err(err).Msg("serve failed")
		return exitFailure
	}
	return exitOK
}

// serve migrates, wires the features, starts the queue and serves until ctx
// is done, /metrics on metricsLn when it is not nil.
func serve(ctx context.Context, cfg *Config, log zerolog.Logger, st store.Store, ln, metricsLn net.Listener) error {
	if cfg.AutoMigrate {
		rep, err := st.Migrate(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		log.Info().Int64("schema_version", rep.SchemaVersion).Int("schema_applied", rep.SchemaApplied).
			Int("queue_version", rep.QueueVersion).Int("queue_applied", rep.QueueApplied).Msg("migrations current")
	}
	srv := server.New(server.Options{
		Logger:          log,
		Checker:         st,
		Metrics:         server.NewMetrics(version),
		ShutdownTimeout: cfg.ShutdownTimeout,
		OnShutdown:      []func(context.Context) error{st.StopQueue},
		ReadTimeout:     cfg.HTTP.ReadTimeout,
		WriteTimeout:    cfg.HTTP.WriteTimeout,
		MetricsListener: metricsLn,
	})
	workers := river.NewWorkers()
	river.AddWorker(workers, probeWorker{})
	env := &serveEnv{Config: cfg, Logger: log, Store: st, Server: srv, Workers: workers}
	for _, hook := range serveHooks {
		if err := hook(ctx, env); err != nil {
			return err
		}
	}
	// A job still running after RescueAfter is taken for a crashed
	// worker's and worked again; it must outlast the longest job.
	qopts := store.QueueOptions{Workers: workers, MaxWorkers: cfg.QueueWorkers, JobTimeout: cfg.Queue.JobTimeout,
		RescueAfter: cfg.Queue.RescueAfter}
	if st.Backend() == "sqlite" {
		// No LISTEN/NOTIFY: poll often, so that a diagnosis and the jobs
		// it enqueues follow each other quickly (a cheap local query).
		qopts.PollInterval = 200 * time.Millisecond
	}
	if err := st.StartQueue(ctx, qopts); err != nil {
		return err
	}
	return srv.Serve(ctx, ln)
}

// openStore opens the configured database; failures are configuration
// errors (exit 2) and create nothing on PostgreSQL.
func openStore(ctx context.Context, cfg *Config, log zerolog.Logger) (store.Store, error) {
	queueLog := slog.New(zerolog.NewSlogHandler(log.With().Str("component", "queue").Logger()))
	name := cfg.source("POLYLANE_DATABASE_URL")
	switch cfg.Database.Backend {
	case "postgres":
		// Each worker may hold a connection for its repository lock and use
		// another meanwhile; the webhook and River need their own.
		conns := int32(2*cfg.QueueWorkers + 10)
		st, err := postgres.Open(ctx, postgres.Options{URL: cfg.Database.URL, Logger: queueLog, MaxConns: conns})
		if err != nil {
			return nil, &configError{name: name, msg: err.Error()}
		}
		return st, nil
	default:
		st, err := sqlite.Open(ctx, sqlite.Options{Path: cfg.Database.Path, Logger: queueLog})
		if err != nil {
			return nil, &configError{name: name, msg: err.Error()}
		}
		return st, nil
	}
}

// describeDB names the database for logs, without a password.
func describeDB(cfg *Config) string {
	if cfg.Database.Backend == "postgres" {
		return "postgres " + postgres.Redact(cfg.Database.URL)
	}
	return "sqlite " + cfg.Database.Path
}
