package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/narrator"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/server/worker"
)

// WebhookPath is where GitHub delivers the app's webhooks.
const WebhookPath = "/webhooks/github"

// wireGitHubApp adds the GitHub App loop to serve: the GitHub client from
// the app's credentials, the webhook route, and the diagnose, publish and
// fix-PR workers on the queue. Without app credentials the webhook still
// records deliveries; their jobs then fail with that explanation.
func wireGitHubApp(ctx context.Context, env *serveEnv) error {
	cfg := env.Config
	ghMetrics := ghclient.NewMetrics(env.Server.Metrics().Registry())
	var gh *ghclient.Client
	if cfg.GitHubAppID != 0 {
		var err error
		gh, err = ghclient.New(ghclient.Config{AppID: cfg.GitHubAppID, PrivateKey: cfg.GitHubKey,
			BaseURL: cfg.GitHubAPIURL, Metrics: ghMetrics, WriteInterval: cfg.WriteInterval})
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
	// Every failing conclusion is recorded: a repository's
	// .github/polylane.yml may count one the server's default does not,
	// and the worker drops those the repository does not count.
	hook, err := webhook.New(webhook.Options{Secret: cfg.WebhookSecret, Store: env.Store,
		FailingConclusions: webhook.AllFailingConclusions, Committers: committers, Handles: handles(ctx, env, gh),
		MaxInFlight: cfg.HTTP.MaxInFlight, NewPermissions: forgetter(gh)})
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	env.Server.Method(http.MethodPost, WebhookPath, hook)
	narr, err := newNarrator(cfg, env)
	if err != nil {
		return err
	}
	_, err = worker.Register(env.Workers, worker.Options{Store: env.Store, GitHub: gh, Logger: env.Logger,
		Metrics: env.Server.Metrics(), GitHubMetrics: ghMetrics, WindowSize: cfg.HistoryWindow,
		Publish: cfg.Publish, DashboardURL: cfg.Dashboard.BaseURL, JobTimeout: cfg.Queue.JobTimeout,
		FailingConclusions: cfg.FailingConclusions, Narrator: narr})
	if err != nil {
		return fmt.Errorf("workers: %w", err)
	}
	env.Logger.Info().Str("webhook", WebhookPath).Int("history_window", cfg.HistoryWindow).
		Strs("failing_conclusions", cfg.FailingConclusions).Bool("publish", cfg.Publish).Bool("narrator", narr != nil).Msg("GitHub App loop wired")
	return nil
}

// newNarrator builds the narrator when POLYLANE_LLM_BASE_URL is set (nil
// otherwise), with its metrics on the server's registry.
func newNarrator(cfg *Config, env *serveEnv) (*narrator.Narrator, error) {
	if cfg.LLM.BaseURL == "" {
		return nil, nil
	}
	n, err := narrator.New(cfg.LLM, narrator.Deps{Registerer: env.Server.Metrics().Registry()})
	if err != nil {
		return nil, &configError{name: cfg.source("POLYLANE_LLM_BASE_URL"), msg: err.Error()}
	}
	u, _ := url.Parse(cfg.LLM.BaseURL)
	env.Logger.Info().Str("llm_endpoint", u.Scheme+"://"+u.Host).Str("llm_model", cfg.LLM.Model).
		Dur("llm_timeout", cfg.LLM.Timeout).Msg("narrator on for repositories that opt in")
	return n, nil
}

// handleLookup bounds asking GitHub for the app's slug at start.
const handleLookup = 5 * time.Second

// handles are the names people mention to give commands: "polylane" and,
// when GitHub answers at start, the app's slug.
func handles(ctx context.Context, env *serveEnv, gh *ghclient.Client) []string {
	out := []string{"polylane"}
	if gh == nil {
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, handleLookup)
	defer cancel()
	bot, err := gh.BotLogin(ctx)
	if err != nil {
		env.Logger.Warn().Err(err).Msg("the app's slug is unknown: only @polylane commands are read")
		return out
	}
	if slug := strings.TrimSuffix(bot, "[bot]"); !strings.EqualFold(slug, "polylane") {
		out = append(out, slug)
	}
	return out
}

// forgetter drops an installation's cached token once its owner accepted
// new permissions, so that the next call works with them; nil without an
// app.
func forgetter(gh *ghclient.Client) func(int64) {
	if gh == nil {
		return nil
	}
	return gh.ForgetInstallation
}
