package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/server/worker"
)

// WebhookPath is where GitHub delivers the app's webhooks.
const WebhookPath = "/webhooks/github"

func init() {
	serveHooks = append(serveHooks, wireGitHubApp)
}

// wireGitHubApp adds the GitHub App loop to serve: the GitHub client from
// the app's credentials, the webhook route, and the diagnose, publish and
// fix-PR workers on the queue. Without app credentials the webhook still
// records deliveries; their jobs then fail with that explanation.
func wireGitHubApp(_ context.Context, env *serveEnv) error {
	cfg := env.Config
	ghMetrics := ghclient.NewMetrics(env.Server.Metrics().Registry())
	var gh *ghclient.Client
	if cfg.GitHubAppID != 0 {
		var err error
		gh, err = ghclient.New(ghclient.Config{AppID: cfg.GitHubAppID, PrivateKey: cfg.GitHubKey,
			BaseURL: cfg.GitHubAPIURL, Metrics: ghMetrics})
		if err != nil {
			return &configError{name: cfg.source("POLYLANE_GITHUB_APP_ID"), msg: err.Error()}
		}
	} else {
		env.Logger.Warn().Msg("no GitHub App credentials (POLYLANE_GITHUB_APP_ID): deliveries are recorded but not diagnosed")
	}
	// Deliveries share transactions (group commit): one at a time on
	// SQLite's single writer, two on PostgreSQL.
	committers := 1
	if env.Store.Backend() == "postgres" {
		committers = 2
	}
	hook, err := webhook.New(webhook.Options{Secret: cfg.WebhookSecret, Store: env.Store,
		FailingConclusions: cfg.FailingConclusions, Committers: committers})
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	env.Server.Method(http.MethodPost, WebhookPath, hook)
	_, err = worker.Register(env.Workers, worker.Options{Store: env.Store, GitHub: gh, Logger: env.Logger,
		Metrics: env.Server.Metrics(), GitHubMetrics: ghMetrics, WindowSize: cfg.HistoryWindow,
		Publish: cfg.Publish, DashboardURL: cfg.Dashboard.BaseURL, JobTimeout: cfg.Queue.JobTimeout})
	if err != nil {
		return fmt.Errorf("workers: %w", err)
	}
	env.Logger.Info().Str("webhook", WebhookPath).Int("history_window", cfg.HistoryWindow).
		Strs("failing_conclusions", cfg.FailingConclusions).Bool("publish", cfg.Publish).Msg("GitHub App loop wired")
	return nil
}
