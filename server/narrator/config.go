package narrator

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	openai "github.com/sashabaranov/go-openai"
)

// Defaults of Config's optional fields.
const (
	DefaultTimeout     = 20 * time.Second
	DefaultMaxTokens   = 800
	DefaultDailyTokens = 200000
)

// Config says how to reach the model: any OpenAI-compatible chat
// completions endpoint (a hosted API, vLLM, Ollama, llama.cpp's server).
type Config struct {
	// BaseURL is the API base, ending before /chat/completions, such as
	// "https://api.openai.com/v1" or Ollama's "http://127.0.0.1:11434/v1".
	BaseURL string
	// Model is the model name the endpoint serves.
	Model string
	// APIKey is sent as a bearer token; empty for local servers that need
	// none. It is never logged or put in an error.
	APIKey string
	// Timeout bounds one request, connection included; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// MaxTokens bounds the completion of one request; zero means
	// DefaultMaxTokens.
	MaxTokens int
	// DailyTokens is each installation's token budget per UTC day (prompt
	// and completion); zero means DefaultDailyTokens.
	DailyTokens int64
}

// withDefaults fills the zero optional fields.
func (c Config) withDefaults() Config {
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.DailyTokens == 0 {
		c.DailyTokens = DefaultDailyTokens
	}
	return c
}

// Validate reports the first invalid field. Messages never hold the API
// key or credentials of the base URL.
func (c Config) Validate() error {
	c = c.withDefaults()
	u, err := url.Parse(c.BaseURL)
	switch {
	case err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https":
		return errors.New("LLM base URL must be an http:// or https:// URL such as http://127.0.0.1:11434/v1")
	case u.RawQuery != "" || u.Fragment != "":
		return errors.New("LLM base URL must not have a query or fragment")
	case strings.TrimSpace(c.Model) == "":
		return errors.New("LLM model is required when the LLM base URL is set")
	case c.Timeout < 0 || c.Timeout > 10*time.Minute:
		return fmt.Errorf("LLM timeout %s is out of range (0 to 10m)", c.Timeout)
	case c.MaxTokens < 16 || c.MaxTokens > 32768:
		return fmt.Errorf("LLM max tokens %d is out of range (16 to 32768)", c.MaxTokens)
	case c.DailyTokens < 0:
		return fmt.Errorf("LLM daily token budget %d is negative", c.DailyTokens)
	}
	return nil
}

// Deps are the narrator's collaborators; every field is optional.
type Deps struct {
	// Registerer receives the narrator's metrics; nil registers none.
	Registerer prometheus.Registerer
	// Now is the clock of the daily budget; nil means time.Now.
	Now func() time.Time
	// Ledger keeps the tokens spent; nil means an in-memory ledger, which
	// starts from zero when the process starts.
	Ledger Ledger
	// HTTPClient sends the requests; nil means a default client. Its
	// transport is wrapped so that a response body is read to at most
	// 1 MiB.
	HTTPClient *http.Client
}

// Narrator words diagnoses and answers follow-up questions with a model.
// A nil *Narrator is valid and disabled: Narrate returns ErrDisabled and
// Answer returns the deterministic answer with ErrDisabled. It is safe for
// concurrent use.
type Narrator struct {
	cfg     Config
	client  *openai.Client
	now     func() time.Time
	ledger  Ledger
	metrics *metrics
	// budget serialises the check and reservation of tokens.
	budget sync.Mutex
}

// New returns a narrator for cfg, or an error when cfg is invalid or the
// metrics cannot be registered.
func New(cfg Config, deps Deps) (*Narrator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	m, err := newMetrics(deps.Registerer)
	if err != nil {
		return nil, fmt.Errorf("register narrator metrics: %w", err)
	}
	hc := deps.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = &boundedDoer{client: hc}
	n := &Narrator{cfg: cfg, client: openai.NewClientWithConfig(oc), now: deps.Now, ledger: deps.Ledger, metrics: m}
	if n.now == nil {
		n.now = time.Now
	}
	if n.ledger == nil {
		n.ledger = NewMemoryLedger()
	}
	return n, nil
}

// endpoint names the configured server for errors: scheme and host only.
func (n *Narrator) endpoint() string {
	u, err := url.Parse(n.cfg.BaseURL)
	if err != nil {
		return "the LLM endpoint"
	}
	return u.Scheme + "://" + u.Host
}
