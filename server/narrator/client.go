package narrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Errors a caller tells apart with errors.Is. Whatever the error, the
// caller uses its deterministic text; nothing else changes.
var (
	// ErrDisabled: no narrator is configured (the default).
	ErrDisabled = errors.New("narrator is disabled")
	// ErrBudgetExhausted: the installation spent its tokens for the day.
	ErrBudgetExhausted = errors.New("narrator token budget for today is spent")
	// ErrTimeout: the endpoint did not answer within the timeout.
	ErrTimeout = errors.New("narrator request timed out")
)

// maxResponse bounds the bytes read from one response body.
const maxResponse = 1 << 20

// boundedDoer sends requests with a client and reads at most maxResponse
// bytes of each response body.
type boundedDoer struct{ client *http.Client }

// Do sends req and bounds the response body.
func (b *boundedDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &boundedBody{r: io.LimitReader(resp.Body, maxResponse+1), c: resp.Body}
	return resp, nil
}

// boundedBody fails once more than maxResponse bytes were read.
type boundedBody struct {
	r    io.Reader
	c    io.Closer
	read int64
}

// Read reads from the body, failing past maxResponse bytes.
func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += int64(n)
	if b.read > maxResponse {
		return n, fmt.Errorf("response body is larger than %d bytes", maxResponse)
	}
	return n, err
}

// Close closes the underlying body.
func (b *boundedBody) Close() error { return b.c.Close() }

// prompt is one request: the system instructions and the user message
// that holds the quoted data.
type prompt struct {
	kind   string
	system string
	user   string
}

// estimateTokens guesses the tokens of a text: about three bytes each,
// which overestimates for English and code.
func estimateTokens(s string) int64 { return int64(len(s)/3 + 1) }

// complete sends one chat completion within the budget and the timeout and
// returns the reply's text. It records the tokens and, on failure, the
// outcome; the caller records the outcome of a reply.
func (n *Narrator) complete(ctx context.Context, p prompt, opts Options) (string, error) {
	start := time.Now()
	defer func() { n.metrics.duration.WithLabelValues(p.kind).Observe(time.Since(start).Seconds()) }()
	promptTokens := estimateTokens(p.system) + estimateTokens(p.user)
	reserved := promptTokens + int64(n.cfg.MaxTokens)
	day := utcDay(n.now())
	if err := n.reserve(ctx, opts.InstallationID, day, reserved); err != nil {
		n.outcome(p.kind, outcomeOf(err))
		return "", err
	}
	rctx, cancel := context.WithTimeout(ctx, n.cfg.Timeout)
	defer cancel()
	resp, err := n.client.CreateChatCompletion(rctx, openai.ChatCompletionRequest{
		Model: n.cfg.Model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: p.system},
			{Role: openai.ChatMessageRoleUser, Content: p.user},
		},
		MaxTokens:   n.cfg.MaxTokens,
		Temperature: 0.2,
	})
	if err != nil {
		if rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil || isTimeout(err) {
			err = fmt.Errorf("%w after %s (%s)", ErrTimeout, n.cfg.Timeout, n.endpoint())
			n.settle(ctx, opts.InstallationID, day, reserved, promptTokens)
		} else {
			err = fmt.Errorf("chat completion at %s: %w", n.endpoint(), err)
			n.settle(ctx, opts.InstallationID, day, reserved, 0)
		}
		n.outcome(p.kind, outcomeOf(err))
		return "", err
	}
	text := replyText(resp)
	used := int64(resp.Usage.TotalTokens)
	pt, ct := int64(resp.Usage.PromptTokens), int64(resp.Usage.CompletionTokens)
	if used <= 0 {
		pt, ct = promptTokens, estimateTokens(text)
		used = pt + ct
	}
	n.metrics.tokens.WithLabelValues(p.kind, "prompt").Add(float64(max(pt, 0)))
	n.metrics.tokens.WithLabelValues(p.kind, "completion").Add(float64(max(ct, 0)))
	n.settle(ctx, opts.InstallationID, day, reserved, used)
	if text == "" {
		err := fmt.Errorf("chat completion at %s: the reply has no text", n.endpoint())
		n.outcome(p.kind, OutcomeRejected)
		return "", &Rejection{Reasons: []string{err.Error()}}
	}
	return text, nil
}

// replyText is the text of the first choice, bounded and valid UTF-8. Tool
// or function calls in the reply are ignored: the narrator has none.
func replyText(resp openai.ChatCompletionResponse) string {
	if len(resp.Choices) == 0 {
		return ""
	}
	s := resp.Choices[0].Message.Content
	if len(s) > 64<<10 {
		s = s[:64<<10]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// reserve checks the installation's budget and reserves tokens from it.
func (n *Narrator) reserve(ctx context.Context, installation int64, day string, tokens int64) error {
	n.budget.Lock()
	defer n.budget.Unlock()
	spent, err := n.ledger.Spent(ctx, installation, day)
	if err != nil {
		return fmt.Errorf("read the token budget of installation %d: %w", installation, err)
	}
	if spent+tokens > n.cfg.DailyTokens {
		return fmt.Errorf("%w: installation %d used %d of %d tokens on %s", ErrBudgetExhausted, installation, spent, n.cfg.DailyTokens, day)
	}
	if err := n.ledger.Spend(ctx, installation, day, tokens); err != nil {
		return fmt.Errorf("reserve tokens for installation %d: %w", installation, err)
	}
	return nil
}

// settle replaces a reservation by the tokens actually used. A failed
// ledger write is ignored: the reservation then stands, which errs on the
// side of spending less.
func (n *Narrator) settle(ctx context.Context, installation int64, day string, reserved, used int64) {
	if used != reserved {
		_ = n.ledger.Spend(context.WithoutCancel(ctx), installation, day, used-reserved)
	}
}

// outcome counts one request's outcome.
func (n *Narrator) outcome(kind, outcome string) {
	n.metrics.requests.WithLabelValues(kind, outcome).Inc()
}

// outcomeOf maps an error to its outcome label.
func outcomeOf(err error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case errors.Is(err, ErrBudgetExhausted):
		return OutcomeBudgetExhausted
	case errors.Is(err, ErrTimeout):
		return OutcomeTimeout
	case errors.Is(err, ErrRejected):
		return OutcomeRejected
	default:
		return OutcomeError
	}
}

// isTimeout reports whether err is a network timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
