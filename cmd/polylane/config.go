package main

import (
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/narrator"
	"github.com/polylane/polylane/store/sqlite"
)

// Config is what serve and migrate run with, built from flags and the
// environment (a flag wins over its variable, a variable over the default).
// Every field comes from one row of the settings table.
type Config struct {
	Database        dbTarget
	Addr            string
	WebhookSecret   string
	GitHubAppID     int64
	GitHubKeyFile   string
	GitHubKey       []byte // PEM: read from GitHubKeyFile or POLYLANE_GITHUB_PRIVATE_KEY
	GitHubAPIURL    string
	LogLevel        zerolog.Level
	LogFormat       string
	ShutdownTimeout time.Duration
	WriteInterval   time.Duration
	AutoMigrate     bool
	QueueWorkers    int
	// HistoryWindow, FailingConclusions and Publish steer the GitHub App
	// loop (webhook, diagnosis, publishing).
	HistoryWindow      int
	FailingConclusions []string
	Publish            bool
	Dashboard          dashboardConfig // settings in dashboard.go
	HTTP               httpConfig      // settings in httpserver.go
	// LLM configures the narrator; an empty BaseURL turns it off.
	LLM   narrator.Config
	Queue queueConfig // settings in queue.go

	// from names where each setting came from, by environment variable: the
	// variable itself or "--flag", so errors name what the user set.
	from map[string]string
}

// source returns the name under which a setting was given.
func (c *Config) source(env string) string {
	if n := c.from[env]; n != "" {
		return n
	}
	return env
}

// dbTarget is where the data lives.
type dbTarget struct {
	Backend string // "sqlite" or "postgres"
	Path    string // SQLite file
	URL     string // PostgreSQL URL (may hold a password: never print it)
}

// setting is one row of the settings table. The table is the single source
// for parsing, --help, the README table (checked by a test) and deploy
// manifests.
type setting struct {
	Env      string // environment variable
	Flag     string // flag name without dashes; "" means environment only
	Switch   string // for a flag without value: the value its presence sets
	Default  string
	Usage    string
	Secret   bool     // never printed, environment only
	Commands []string // subcommands that read it
	set      func(c *Config, v string) error
}

const (
	cmdServe   = "serve"
	cmdMigrate = "migrate"
)

var bothCommands = []string{cmdServe, cmdMigrate}

// settings is the table of every setting of Polylane. Add later settings here.
// settings are every setting of the binary, in the order the README's
// table and --help list them.
var settings = slices.Concat(baseSettings, []setting{configFileSetting}, dashboardSettings, httpSettings, queueSettings)

// baseSettings are the settings of the database, GitHub, the webhook and
// the worker.
var baseSettings = []setting{
	{Env: "POLYLANE_DATABASE_URL", Flag: "database-url", Commands: bothCommands,
		Usage: "Database: empty for the SQLite file ./polylane.db, sqlite:///abs/path or sqlite://rel/path for another file, postgres://… or postgresql://… for PostgreSQL.",
		set:   func(c *Config, v string) (err error) { c.Database, err = parseDatabaseURL(v); return err }},
	{Env: "POLYLANE_ADDR", Flag: "addr", Default: ":8080", Commands: []string{cmdServe},
		Usage: "Listen address (host:port) of the HTTP server.",
		set:   setAddr},
	{Env: "POLYLANE_WEBHOOK_SECRET", Secret: true, Commands: []string{cmdServe},
		Usage: "Secret of the GitHub App's webhook; required by serve.",
		set:   func(c *Config, v string) error { c.WebhookSecret = v; return nil }},
	{Env: "POLYLANE_GITHUB_APP_ID", Flag: "github-app-id", Commands: []string{cmdServe},
		Usage: "GitHub App id; needs a private key.",
		set:   setAppID},
	{Env: "POLYLANE_GITHUB_PRIVATE_KEY_FILE", Flag: "github-private-key-file", Commands: []string{cmdServe},
		Usage: "PEM file of the GitHub App's private key; only its owner may read it (chmod 600).",
		set:   func(c *Config, v string) error { c.GitHubKeyFile = v; return nil }},
	{Env: "POLYLANE_GITHUB_PRIVATE_KEY", Secret: true, Commands: []string{cmdServe},
		Usage: "The GitHub App's private key itself (PEM), instead of a file.",
		set:   setKey},
	{Env: "POLYLANE_GITHUB_API_URL", Flag: "github-api-url", Default: "https://api.github.com/", Commands: []string{cmdServe},
		Usage: "GitHub REST API base URL: GitHub Enterprise Server's https://HOST/api/v3/ or the simulator's.",
		set:   setAPIURL},
	{Env: "POLYLANE_GITHUB_WRITE_INTERVAL", Flag: "github-write-interval", Default: "1s", Commands: []string{cmdServe},
		Usage: "Least time between two writes (POST, PATCH, PUT, DELETE) of one installation, as GitHub asks to avoid secondary rate limits; 0 sends them at once.",
		set:   setWriteInterval},
	{Env: "POLYLANE_LOG_LEVEL", Flag: "log-level", Default: "info", Commands: bothCommands,
		Usage: "Log level: debug, info, warn or error.",
		set:   setLogLevel},
	{Env: "POLYLANE_LOG_FORMAT", Flag: "log-format", Default: "json", Commands: bothCommands,
		Usage: "Log format on stderr: json or console.",
		set:   setLogFormat},
	{Env: "POLYLANE_SHUTDOWN_TIMEOUT", Flag: "shutdown-timeout", Default: "20s", Commands: []string{cmdServe},
		Usage: "On SIGTERM/SIGINT, how long in-flight requests and jobs get to finish.",
		set:   setShutdownTimeout},
	{Env: "POLYLANE_AUTO_MIGRATE", Flag: "no-migrate", Switch: "false", Default: "true", Commands: []string{cmdServe},
		Usage: "Apply pending migrations when serve starts (true or false); --no-migrate sets false.",
		set:   setAutoMigrate},
	{Env: "POLYLANE_QUEUE_WORKERS", Flag: "queue-workers", Default: "4", Commands: []string{cmdServe},
		Usage: "Jobs worked at once by this process.",
		set:   setQueueWorkers},
	{Env: "POLYLANE_HISTORY_WINDOW", Flag: "history-window", Default: "100", Commands: []string{cmdServe},
		Usage: "Completed runs of the same workflow and branch a diagnosis looks at (1 to 1000).",
		set:   setHistoryWindow},
	{Env: "POLYLANE_FAILING_CONCLUSIONS", Flag: "failing-conclusions", Default: "failure,timed_out", Commands: []string{cmdServe},
		Usage: "Comma-separated workflow_run conclusions that start a diagnosis (failure, timed_out, cancelled, startup_failure, action_required), unless a repository's .github/polylane.yml chooses its own.",
		set:   setFailingConclusions},
	{Env: "POLYLANE_PUBLISH", Flag: "publish", Default: "true", Commands: []string{cmdServe},
		Usage: "Post assessment comments and open fix pull requests (true or false); false only stores diagnoses.",
		set:   setPublish},
	{Env: "POLYLANE_LLM_BASE_URL", Flag: "llm-base-url", Commands: []string{cmdServe},
		Usage: "OpenAI-compatible API base URL of the narrator (the part before /chat/completions, such as http://127.0.0.1:11434/v1); empty turns the narrator off.",
		set:   func(c *Config, v string) error { c.LLM.BaseURL = v; return nil }},
	{Env: "POLYLANE_LLM_MODEL", Flag: "llm-model", Commands: []string{cmdServe},
		Usage: "Model name the narrator asks for; required with POLYLANE_LLM_BASE_URL.",
		set:   func(c *Config, v string) error { c.LLM.Model = v; return nil }},
	{Env: "POLYLANE_LLM_API_KEY", Secret: true, Commands: []string{cmdServe},
		Usage: "Bearer key of the LLM endpoint; empty for local servers.",
		set:   func(c *Config, v string) error { c.LLM.APIKey = v; return nil }},
	{Env: "POLYLANE_LLM_TIMEOUT", Flag: "llm-timeout", Default: "20s", Commands: []string{cmdServe},
		Usage: "Time limit of one narrator request; after it Polylane uses its own text.",
		set:   setLLMTimeout},
	{Env: "POLYLANE_LLM_MAX_TOKENS", Flag: "llm-max-tokens", Default: "800", Commands: []string{cmdServe},
		Usage: "Completion tokens per narrator request (16 to 32768).",
		set:   func(c *Config, v string) (err error) { c.LLM.MaxTokens, err = intIn(v, 16, 32768); return err }},
	{Env: "POLYLANE_LLM_DAILY_TOKENS", Flag: "llm-daily-tokens", Default: "200000", Commands: []string{cmdServe},
		Usage: "Narrator tokens (prompt and completion) per installation per UTC day, counted in memory by each replica.",
		set:   setLLMDailyTokens},
}

func setLLMTimeout(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || d > 10*time.Minute {
		return fmt.Errorf("%q is not a duration from 1ms to 10m such as 20s", v)
	}
	c.LLM.Timeout = d
	return nil
}

func setLLMDailyTokens(c *Config, v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		return fmt.Errorf("%q is not a positive number", v)
	}
	c.LLM.DailyTokens = n
	return nil
}

// intIn parses a whole number from lo to hi.
func intIn(v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%q is not a number from %d to %d", v, lo, hi)
	}
	return n, nil
}

func parseDatabaseURL(v string) (dbTarget, error) {
	switch {
	case v == "":
		return dbTarget{Backend: "sqlite", Path: "polylane.db"}, nil
	case strings.HasPrefix(v, "sqlite://"):
		path := strings.TrimPrefix(v, "sqlite://")
		if path == "" {
			return dbTarget{}, errors.New("sqlite:// needs a path (sqlite:///abs/path or sqlite://rel/path)")
		}
		if err := sqlite.CheckPath(path); err != nil {
			return dbTarget{}, err
		}
		return dbTarget{Backend: "sqlite", Path: path}, nil
	case strings.HasPrefix(v, "postgres://"), strings.HasPrefix(v, "postgresql://"):
		u, err := url.Parse(v)
		if err != nil || u.Host == "" {
			return dbTarget{}, errors.New("malformed PostgreSQL URL (want postgres://user@host:port/database)")
		}
		return dbTarget{Backend: "postgres", URL: v}, nil
	}
	scheme, _, _ := strings.Cut(v, ":")
	if len(scheme) > 20 {
		scheme = scheme[:20]
	}
	return dbTarget{}, fmt.Errorf("unsupported database %q… (want empty, sqlite://path, postgres:// or postgresql://)", scheme)
}

func setAddr(c *Config, v string) error {
	if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
		return fmt.Errorf("%q is not host:port", v)
	}
	c.Addr = v
	return nil
}

func setAppID(c *Config, v string) error {
	if v == "" {
		return nil
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("%q is not a positive number", v)
	}
	c.GitHubAppID = id
	return nil
}

// setKey accepts the key itself; it must be PEM. The value is never echoed.
func setKey(c *Config, v string) error {
	if v == "" {
		return nil
	}
	if err := checkPEM([]byte(v)); err != nil {
		return err
	}
	c.GitHubKey = []byte(v)
	return nil
}

func checkPEM(b []byte) error {
	block, _ := pem.Decode(b)
	if block == nil || !strings.Contains(block.Type, "PRIVATE KEY") {
		return errors.New("not a PEM private key")
	}
	return nil
}

func setAPIURL(c *Config, v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", v)
	}
	if !strings.HasSuffix(v, "/") {
		v += "/"
	}
	c.GitHubAPIURL = v
	return nil
}

func setLogLevel(c *Config, v string) error {
	levels := map[string]zerolog.Level{"debug": zerolog.DebugLevel, "info": zerolog.InfoLevel,
		"warn": zerolog.WarnLevel, "error": zerolog.ErrorLevel}
	l, ok := levels[strings.ToLower(v)]
	if !ok {
		return fmt.Errorf("unknown level %q (want debug, info, warn or error)", v)
	}
	c.LogLevel = l
	return nil
}

func setLogFormat(c *Config, v string) error {
	if v != "json" && v != "console" {
		return fmt.Errorf("unknown format %q (want json or console)", v)
	}
	c.LogFormat = v
	return nil
}

func setShutdownTimeout(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("%q is not a positive duration such as 20s", v)
	}
	c.ShutdownTimeout = d
	return nil
}

func setWriteInterval(c *Config, v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > time.Minute {
		return fmt.Errorf("%q is not a duration from 0s to 1m such as 1s", v)
	}
	c.WriteInterval = d
	return nil
}

func setAutoMigrate(c *Config, v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("%q is not true or false", v)
	}
	c.AutoMigrate = b
	return nil
}

func setHistoryWindow(c *Config, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1000 {
		return fmt.Errorf("%q is not a number from 1 to 1000", v)
	}
	c.HistoryWindow = n
	return nil
}

// failingConclusions are the conclusions a workflow run can end with that
// are not a success.
var failingConclusions = map[string]bool{"failure": true, "timed_out": true, "cancelled": true,
	"startup_failure": true, "action_required": true}

func setFailingConclusions(c *Config, v string) error {
	var list []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !failingConclusions[f] {
			return fmt.Errorf("%q is not a failing conclusion (failure, timed_out, cancelled, startup_failure, action_required)", f)
		}
		list = append(list, f)
	}
	if len(list) == 0 {
		return errors.New("name at least one conclusion")
	}
	c.FailingConclusions = list
	return nil
}

func setPublish(c *Config, v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("%q is not true or false", v)
	}
	c.Publish = b
	return nil
}

func setQueueWorkers(c *Config, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1000 {
		return fmt.Errorf("%q is not a number from 1 to 1000", v)
	}
	c.QueueWorkers = n
	return nil
}

// readKeyFile loads the private key file into c; a file anyone but its
// owner may read is refused.
func readKeyFile(c *Config) error {
	b, err := readPrivateKey(c.GitHubKeyFile)
	if err != nil {
		return err
	}
	if err := checkPEM(b); err != nil {
		return err
	}
	c.GitHubKey = b
	return nil
}

// settingsOf returns the settings a subcommand reads.
func settingsOf(cmd string) []setting {
	var out []setting
	for _, s := range settings {
		for _, c := range s.Commands {
			if c == cmd {
				out = append(out, s)
			}
		}
	}
	return out
}

// configError is a bad or missing setting: exit status 2, one line.
type configError struct {
	name string // the variable or flag at fault
	msg  string
}

func (e *configError) Error() string { return e.name + ": " + e.msg }

// errHelp is returned by loadConfig when --help was printed.
var errHelp = errors.New("help requested")

// loadConfig parses a subcommand's flags and environment. It returns errHelp
// after printing help to stdout, or a *configError.
func loadConfig(cmd, summary string, args []string, getenv func(string) string, stdout io.Writer) (*Config, error) {
	list := settingsOf(cmd)
	fs := flag.NewFlagSet("polylane "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	values := map[string]*string{}
	switches := map[string]*bool{}
	for _, s := range list {
		switch {
		case s.Flag == "":
		case s.Switch != "":
			switches[s.Flag] = fs.Bool(s.Flag, false, s.Usage)
		default:
			values[s.Flag] = fs.String(s.Flag, "", s.Usage)
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(stdout, cmd, summary, list)
			return nil, errHelp
		}
		return nil, &configError{name: "polylane " + cmd, msg: err.Error() + " (see --help)"}
	}
	if fs.NArg() > 0 {
		return nil, &configError{name: "polylane " + cmd, msg: fmt.Sprintf("unexpected argument %q (see --help)", fs.Arg(0))}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	// The configuration file (configfile.go) backs the environment.
	getenv, err := withConfigFile(getenv, set["config"], values["config"])
	if err != nil {
		return nil, err
	}

	c := &Config{from: map[string]string{}}
	for _, s := range list {
		v, name := s.Default, s.Env
		if env := getenv(s.Env); env != "" {
			v = env
		}
		if set[s.Flag] {
			name = "--" + s.Flag
			if s.Switch != "" {
				v = s.Switch
			} else {
				v = *values[s.Flag]
			}
		}
		c.from[s.Env] = name
		if err := s.set(c, v); err != nil {
			return nil, &configError{name: name, msg: err.Error()}
		}
	}
	if cmd == cmdServe {
		if err := checkServe(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// checkServe checks the settings serve needs together.
func checkServe(c *Config) error {
	if c.WebhookSecret == "" {
		return &configError{name: "POLYLANE_WEBHOOK_SECRET", msg: "is required by serve: set it to the GitHub App's webhook secret"}
	}
	if c.GitHubKeyFile != "" && c.GitHubKey != nil {
		return &configError{name: "POLYLANE_GITHUB_PRIVATE_KEY", msg: "set either it or POLYLANE_GITHUB_PRIVATE_KEY_FILE, not both"}
	}
	if c.GitHubKeyFile != "" {
		if err := readKeyFile(c); err != nil {
			return &configError{name: "POLYLANE_GITHUB_PRIVATE_KEY_FILE", msg: err.Error()}
		}
	}
	if c.GitHubAppID != 0 && c.GitHubKey == nil {
		return &configError{name: "POLYLANE_GITHUB_PRIVATE_KEY_FILE", msg: "is required when POLYLANE_GITHUB_APP_ID is set (or POLYLANE_GITHUB_PRIVATE_KEY)"}
	}
	if c.GitHubAppID == 0 && c.GitHubKey != nil {
		return &configError{name: "POLYLANE_GITHUB_APP_ID", msg: "is required when a private key is set"}
	}
	if err := checkDashboard(c); err != nil {
		return err
	}
	return checkLLM(c)
}

// checkLLM checks the narrator's settings together when it is turned on.
func checkLLM(c *Config) error {
	if c.LLM.BaseURL == "" {
		if c.LLM.Model != "" || c.LLM.APIKey != "" {
			return &configError{name: c.source("POLYLANE_LLM_BASE_URL"), msg: "is required when POLYLANE_LLM_MODEL or POLYLANE_LLM_API_KEY is set"}
		}
		return nil
	}
	if err := c.LLM.Validate(); err != nil {
		name := c.source("POLYLANE_LLM_BASE_URL")
		if strings.Contains(err.Error(), "model") {
			name = c.source("POLYLANE_LLM_MODEL")
		}
		return &configError{name: name, msg: err.Error()}
	}
	return nil
}
