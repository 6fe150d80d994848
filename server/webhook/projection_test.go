package webhook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/polylane/polylane/server/githubtest"
)

// richDoc exercises every kind of field the projection decodes, and the
// ones it hands to json.Unmarshal.
type richDoc struct {
	Name   string            `json:"name"`
	Small  int8              `json:"small"`
	Big    int64             `json:"big,omitempty"`
	Flag   bool              `json:"flag"`
	Inner  richInner         `json:"inner"`
	Ptr    *richInner        `json:"ptr"`
	List   []string          `json:"list"`
	Map    map[string]int    `json:"map"`
	Any    any               `json:"any"`
	Float  float64           `json:"float"`
	Uint   uint16            `json:"uint"`
	Raw    json.RawMessage   `json:"raw"`
	Skip   string            `json:"-"`
	NoTag  string            //nolint:unused // matched by its Go name
	Nested map[string][]bool `json:"nested"`
}

type richInner struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
	Deep *struct {
		X int `json:"x"`
	} `json:"deep"`
}

// agree decodes data both ways into fresh values of T and fails when
// the errors (nil or not) or the results differ.
func agree[T any](t *testing.T, data []byte) {
	t.Helper()
	var want, got T
	werr := json.Unmarshal(data, &want)
	gerr := decodeProjection(data, &got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%.200q: encoding/json error %v, projection error %v", data, werr, gerr)
	}
	if werr == nil && !reflect.DeepEqual(want, got) {
		t.Fatalf("%.200q: encoding/json %+v, projection %+v", data, want, got)
	}
}

var projectionCases = []string{
	`{}`, ` { } `, `null`, ` null `, `nul`, `nullx`, ``, ` `, `[]`, `"x"`, `1`, `true`, `{"action":"completed"}x`,
	`{"action":"completed"}`, `{"ACTION":"x"}`, `{"Action":"x","action":"y"}`, `{"action":"a\u0062\n"}`, `{"\u0061ction":"x"}`,
	`{"action":1}`, `{"action":null}`, `{"action":"\x01"}`, `{"action":"\q"}`, `{"action":"\u12"}`, "{\"action\":\"\xff\xfe\"}",
	`{"installation":{"id":12}}`, `{"installation":{"id":1.5}}`, `{"installation":{"id":1e3}}`, `{"installation":{"id":-0}}`,
	`{"installation":{"id":99999999999999999999}}`, `{"installation":null}`, `{"installation":{"id":1},"installation":null}`,
	`{"installation":[]}`, `{"installation":{"id":"12"}}`, `{"installation":{"id":12,}}`, `{"installation":{"id":12 "x":1}}`,
	`{"repository":{"id":5,"full_name":"o/r","private":true,"owner":{"login":"o","type":"User"}}}`,
	`{"repository":{"private":"yes"}}`, `{"repository":{"owner":null}}`, `{"repository":{"owner":[1]}}`,
	`{"workflow_run":{"id":7,"run_attempt":2,"status":"completed","conclusion":"failure","pull_requests":[{"id":1}]}}`,
	`{"workflow_run":{"id":7}, "sender":{"a":[1,2,{"b":[true,false,null,-1.5e-3,"s\"t"]}]}}`,
	`{"x":01}`, `{"x":-}`, `{"x":1.}`, `{"x":.5}`, `{"x":1e}`, `{"x":1e+}`, `{"x":[1,]}`, `{"x":[,1]}`, `{"x":{"a"}}`,
	`{"x":{"a":}}`, `{"x":tru}`, `{"x":nulll}`, `{"x":[}`, `{"x":]}`, `{"x":[1 2]}`, `{"x" 1}`, `{1:2}`, `{"x":"}`,
	`{"name":"n","small":127,"big":9007199254740993,"flag":true,"inner":{"id":1,"text":"t","deep":{"x":2}},"ptr":{"id":3}}`,
	`{"small":128}`, `{"small":-129}`, `{"flag":1}`, `{"inner":"x"}`, `{"ptr":{"deep":null}}`, `{"list":["a","b"],"map":{"a":1}}`,
	`{"list":[1]}`, `{"map":{"a":"x"}}`, `{"any":{"k":[1,"x"]}}`, `{"float":1.5e3,"uint":7}`, `{"uint":-1}`, `{"raw":{"a":[1]}}`,
	`{"Skip":"x","-":"y","NoTag":"z","notag":"w"}`, `{"list":null,"map":null,"any":null,"raw":null,"float":null}`,
	`{"float":2,"float":null}`, `{"nested":{"a":[true,false]}}`, `{"ptr":{"id":1},"ptr":{"text":"t"}}`,
	`{"inner":{"id":"x"},"name":"after a type error"}`, `{"inner":{"id":"x"},"name":}`,
}

// TestProjectionAgreesWithEncodingJSON compares the projection with
// json.Unmarshal on hand-made documents, for the envelope and for a type
// with every kind of field.
func TestProjectionAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range projectionCases {
		agree[envelope](t, []byte(c))
		agree[richDoc](t, []byte(c))
	}
	deep := `{"x":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`
	agree[envelope](t, []byte(deep))
	deeper := `{"x":` + strings.Repeat("[", maxDepth-1) + strings.Repeat("]", maxDepth-1) + `}`
	agree[envelope](t, []byte(deeper))
}

// realPayloads are GitHub's webhook payloads: the simulator's, and those of
// ../shared/data/octokit-webhooks and the karmada scenario when present.
func realPayloads(t testing.TB) [][]byte {
	var out [][]byte
	r := newRigPayloads(t)
	out = append(out, r...)
	root := os.Getenv("POLYLANE_SHARED_DIR")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared")
	}
	_ = filepath.WalkDir(filepath.Join(root, "data", "octokit-webhooks"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") && !strings.Contains(p, "schema") {
			if b, err := os.ReadFile(p); err == nil {
				out = append(out, b)
			}
		}
		return nil
	})
	return out
}

// TestProjectionOnRealPayloads: the two agree on GitHub's own payloads.
func TestProjectionOnRealPayloads(t *testing.T) {
	payloads := realPayloads(t)
	for _, p := range payloads {
		agree[envelope](t, p)
	}
	t.Logf("%d payloads", len(payloads))
}

// FuzzProjection: on any input, the projection and json.Unmarshal agree.
func FuzzProjection(f *testing.F) {
	for _, c := range projectionCases {
		f.Add([]byte(c))
	}
	for _, p := range realPayloads(f) {
		if len(p) < 4096 {
			f.Add(p)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agree[envelope](t, data)
		agree[richDoc](t, data)
	})
}

// BenchmarkParseEnvelope compares json.Unmarshal with the projection on
// the largest real payload at hand.
func BenchmarkParseEnvelope(b *testing.B) {
	var payload []byte
	for _, p := range realPayloads(b) {
		if len(p) > len(payload) {
			payload = p
		}
	}
	for _, c := range []struct {
		name   string
		decode func([]byte, any) error
	}{{"encoding-json", json.Unmarshal}, {"projection", decodeProjection}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				var env envelope
				if err := c.decode(payload, &env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// newRigPayloads are the simulator's deliveries for its small testdata
// scenario, and the karmada-rollout trigger when ../shared is there.
func newRigPayloads(t testing.TB) [][]byte {
	t.Helper()
	type source struct {
		dir, repo string
		run       int64
	}
	sources := []source{{filepath.Join("..", "githubtest", "testdata", "tiny"), "acme/widget", 9005}}
	root := os.Getenv("POLYLANE_SHARED_DIR")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared")
	}
	if k := filepath.Join(root, "scenarios", "karmada-rollout"); fileExistsIn(k, "scenario.json") {
		sources = append(sources, source{k, "datum-cloud/compute", 19894337324})
	}
	var out [][]byte
	for _, s := range sources {
		sim, err := githubtest.New(githubtest.Options{Scenarios: []string{s.dir}})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := sim.WorkflowRunEvent(s.repo, s.run)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev.Payload)
		if ev, err := sim.PingEvent(); err == nil {
			out = append(out, ev.Payload)
		}
	}
	return out
}

func fileExistsIn(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
