package narrator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polylane/polylane/causal/diagnosis"
)

// reply is one scripted answer of the fake model server.
type reply struct {
	content   string        // the message content
	status    int           // HTTP status; 0 means 200
	delay     time.Duration // wait before answering (ends early if the client goes away)
	prompt    int           // usage.prompt_tokens
	complete  int           // usage.completion_tokens
	toolCalls bool          // add a tool call to the message
	raw       string        // answer this body as it is
}

// recorded is one request the fake server received.
type recorded struct {
	Path          string
	Authorization string
	Body          []byte
	JSON          map[string]any
}

// messages returns the role and content of each message of the request.
func (r recorded) messages(t *testing.T) (system, user string) {
	t.Helper()
	msgs, _ := r.JSON["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		content, _ := mm["content"].(string)
		switch mm["role"] {
		case "system":
			system += content
		case "user":
			user += content
		default:
			t.Errorf("unexpected message role %v", mm["role"])
		}
	}
	return system, user
}

// fakeLLM is an OpenAI-compatible chat-completions server on loopback. It
// answers POST /v1/chat/completions and /chat/completions with the
// scripted replies in order (the last one repeats) and records requests.
type fakeLLM struct {
	*httptest.Server
	mu     sync.Mutex
	script []reply
	reqs   []recorded
}

func newFakeLLM(t *testing.T, script ...reply) *fakeLLM {
	t.Helper()
	f := &fakeLLM{script: script}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	rec := recorded{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Body: body}
	_ = json.Unmarshal(body, &rec.JSON)
	f.mu.Lock()
	f.reqs = append(f.reqs, rec)
	rp := reply{content: "SUMMARY: x\nWHY THIS FIX: y"}
	if len(f.script) > 0 {
		rp = f.script[0]
		if len(f.script) > 1 {
			f.script = f.script[1:]
		}
	}
	f.mu.Unlock()
	if rp.delay > 0 {
		select {
		case <-time.After(rp.delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case rp.raw != "":
		_, _ = io.WriteString(w, rp.raw)
	case rp.status != 0 && rp.status != http.StatusOK:
		w.WriteHeader(rp.status)
		_, _ = fmt.Fprintf(w, `{"error":{"message":"scripted failure %d","type":"server_error"}}`, rp.status)
	default:
		_ = json.NewEncoder(w).Encode(completion(rp))
	}
}

// completion is the chat.completion object for a reply.
func completion(rp reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": rp.content}
	if rp.toolCalls {
		msg["tool_calls"] = []any{map[string]any{"id": "call_1", "type": "function",
			"function": map[string]any{"name": "open_pull_request", "arguments": `{"title":"pwned"}`}}}
	}
	return map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "fake",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
		"usage": map[string]any{"prompt_tokens": rp.prompt, "completion_tokens": rp.complete,
			"total_tokens": rp.prompt + rp.complete},
	}
}

// requests returns the requests received so far.
func (f *fakeLLM) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// last returns the last request, failing the test when there is none.
func (f *fakeLLM) last(t *testing.T) recorded {
	t.Helper()
	reqs := f.requests()
	if len(reqs) == 0 {
		t.Fatal("the fake model server received no request")
	}
	return reqs[len(reqs)-1]
}

// loadDiagnosis reads a diagnosis fixture from testdata.
func loadDiagnosis(t testing.TB, name string) *diagnosis.Diagnosis {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var d diagnosis.Diagnosis
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return &d
}

// dataOf extracts and decodes the data block of a user message, failing
// the test when the message does not hold exactly one well-formed block.
func dataOf(t *testing.T, user string) (map[string]any, string) {
	t.Helper()
	open := strings.Index(user, "<data-")
	if open < 0 {
		t.Fatalf("no data block in the user message:\n%s", user)
	}
	end := strings.IndexByte(user[open:], '>')
	tag := user[open+1 : open+end]
	body := user[open+end+1:]
	closeAt := strings.Index(body, "</"+tag+">")
	if closeAt < 0 {
		t.Fatalf("data block %s is not closed", tag)
	}
	if strings.Count(user, "<"+tag+">") != 1 || strings.Count(user, "</"+tag+">") != 1 {
		t.Fatalf("data block %s opens or closes more than once", tag)
	}
	var data map[string]any
	if err := json.Unmarshal([]byte(body[:closeAt]), &data); err != nil {
		t.Fatalf("data block is not JSON: %v", err)
	}
	outside := user[:open] + body[closeAt:]
	return data, outside
}
