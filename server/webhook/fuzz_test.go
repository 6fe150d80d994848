package webhook_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store/storetest"
)

// FuzzHandler sends arbitrary signed bodies under each event Polylane
// handles, as JSON and form-encoded, to the handler on a real store: it
// answers 2xx, 400 or 413, never 500 or a panic, and a 4xx stores nothing.
func FuzzHandler(f *testing.F) {
	for _, s := range []string{
		`{"action":"completed","workflow_run":{"id":1,"conclusion":"failure","head_branch":"main","run_attempt":1},"repository":{"id":1,"full_name":"a/b","default_branch":"main"},"installation":{"id":1}}`,
		`{"action":"created","issue":{"number":1,"pull_request":{}},"comment":{"id":1,"body":"@polylane fix\n@polylane why ` + "`x`" + `","user":{"login":"u","type":"User"}},"repository":{"id":1,"full_name":"a/b"},"installation":{"id":1}}`,
		`{"action":"added","installation":{"id":1,"account":{"login":"a"}},"repositories_added":[{"id":2,"full_name":"a/c"}]}`,
		`{"action":"synchronize","number":3,"pull_request":{"head":{"sha":"x"}},"repository":{"id":1,"full_name":"a/b"},"installation":{"id":-1}}`,
		`{"zen":"x","hook_id":1}`, `[]`, `null`, `{"repository":{"id":"1"}}`, `{"a":` + strings.Repeat("[", 3000),
	} {
		f.Add(s, uint8(0), false)
	}
	st := storetest.OpenSQLite(f)
	h, err := webhook.New(webhook.Options{Secret: secret, Store: st, MaxBody: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	events := []string{"workflow_run", "issue_comment", "pull_request", "installation", "installation_repositories", "ping", "push"}
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, body string, event uint8, form bool) {
		raw, ctype := []byte(body), "application/json"
		if form {
			raw, ctype = []byte("payload="+strings.ReplaceAll(body, "&", "%26")), "application/x-www-form-urlencoded"
		}
		guid := fmt.Sprintf("fuzz-%d", n.Add(1))
		req := httptest.NewRequest(http.MethodPost, "/webhooks/github", strings.NewReader(string(raw)))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set(webhook.HeaderEvent, events[int(event)%len(events)])
		req.Header.Set(webhook.HeaderDelivery, guid)
		req.Header.Set(webhook.HeaderSignature, sign(raw))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch code := rec.Code; {
		case code == http.StatusOK, code == http.StatusAccepted:
		case code == http.StatusBadRequest, code == http.StatusRequestEntityTooLarge:
			if _, err := st.GetDelivery(req.Context(), guid); err == nil {
				t.Fatalf("answered %d but stored the delivery", code)
			}
		default:
			t.Fatalf("answered %d: %s", code, rec.Body.String())
		}
	})
}

// FuzzParseMentions: any comment gives at most MaxCommands commands, each
// a lower-case word (or "?") with bounded, valid UTF-8 arguments on one
// line, and only when the comment mentions a handle.
func FuzzParseMentions(f *testing.F) {
	for _, s := range []string{
		"@polylane help", "> @polylane fix\n@polylane why is `this` flaky?", "```\n@polylane fix\n```\n@PolyLane: mute a-1 x",
		"<!--\n@polylane fix\n-->", "    @polylane rerun", "@polylane \x00\xff\xfe", strings.Repeat("@polylane why x\n", 20),
		"~~~\n@polylane fix\n~~~~\n@polylane-dev fix\n@polylane[bot] fix\n\r\n@polylane\r\n",
	} {
		f.Add(s)
	}
	handles := []string{"polylane", "acme-bot"}
	f.Fuzz(func(t *testing.T, body string) {
		cmds := webhook.ParseMentions(body, handles)
		if len(cmds) > webhook.MaxCommands {
			t.Fatalf("%d commands", len(cmds))
		}
		if len(cmds) > 0 && !strings.Contains(strings.ToLower(body), "@polylane") && !strings.Contains(strings.ToLower(body), "@acme-bot") {
			t.Fatalf("commands %+v from a comment that mentions no handle", cmds)
		}
		for _, c := range cmds {
			if c.Name != "?" && (c.Name == "" || strings.ToLower(c.Name) != c.Name || strings.ContainsAny(c.Name, " \t\n`<>@")) {
				t.Fatalf("command name %q", c.Name)
			}
			if len(c.Args) > webhook.MaxCommandArgs || !utf8.ValidString(c.Args) || strings.ContainsAny(c.Args, "\n\r") {
				t.Fatalf("arguments %q", c.Args)
			}
		}
	})
}
