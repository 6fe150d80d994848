package repoconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// FuzzParseKeepsToSchema holds the hand-written interpreter to an
// independent implementation of JSON Schema (santhosh-tekuri/jsonschema,
// used by tests only; docs/architecture.md says why it is not the runtime
// check): whatever Parse keeps of a file, read as JSON, is valid against
// the published schema.
func FuzzParseKeepsToSchema(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.yml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"muted_classes: [{id: [1]}, {ID: x}, '', ok]\n", "conclusions: [exploded]\nwindow: 1e3\n",
		"fix_pull_requests: {labels: [a, a, b, c, d, e, f, g, h, i, j, k]}\n", "branches: [2024, 1.5, true]\n"} {
		f.Add([]byte(s))
	}
	oracle := compileOracle(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		kept, ok := keptByParse(data)
		if !ok {
			return
		}
		if err := oracle.Validate(kept); err != nil {
			t.Fatalf("Parse kept what the schema forbids from %q:\n%v\n%#v", data, err, kept)
		}
	})
}

func compileOracle(f *testing.F) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		f.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("polylane.schema.json", doc); err != nil {
		f.Fatal(err)
	}
	s, err := c.Compile("polylane.schema.json")
	if err != nil {
		f.Fatal(err)
	}
	return s
}

// keptByParse runs Parse's check and returns what it keeps, as JSON values.
func keptByParse(data []byte) (map[string]any, bool) {
	var doc yaml.Node
	if len(data) > MaxBytes || yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil, false
	}
	top := doc.Content[0]
	s, err := root()
	if err != nil || top.Kind != yaml.MappingNode || !(&validator{}).check(top, s, "") {
		return nil, false
	}
	var fl file
	if top.Decode(&fl) != nil {
		return nil, false
	}
	return fl.json(), true
}

// json renders the keys a file set as JSON values.
func (f *file) json() map[string]any {
	out := map[string]any{}
	list := func(key string, v []string) {
		if v != nil {
			out[key] = anyList(v)
		}
	}
	object := func(key string, fields map[string]any) {
		m := map[string]any{}
		for k, v := range fields {
			switch v := v.(type) {
			case *bool:
				if v != nil {
					m[k] = *v
				}
			case *int:
				if v != nil {
					m[k] = *v
				}
			case []string:
				if v != nil {
					m[k] = anyList(v)
				}
			}
		}
		if len(m) > 0 {
			out[key] = m
		}
	}
	list("workflows", f.Workflows)
	list("branches", f.Branches)
	list("conclusions", f.Conclusions)
	if f.Window != nil {
		out["window"] = *f.Window
	}
	object("comments", map[string]any{"pull_requests": f.Comments.PullRequests, "default_branch": f.Comments.DefaultBranch})
	object("fix_pull_requests", map[string]any{"automatic": f.Fix.Automatic, "workflows": f.Fix.Workflows,
		"labels": f.Fix.Labels, "close_after_runs": f.Fix.CloseAfterRuns, "verify_reruns": f.Fix.VerifyReruns})
	object("llm", map[string]any{"enabled": f.LLM.Enabled, "include_logs": f.LLM.IncludeLogs})
	if f.Muted != nil {
		muted := []any{}
		for _, n := range f.Muted {
			muted = append(muted, mutedJSON(n))
		}
		out["muted_classes"] = muted
	}
	return out
}

func mutedJSON(n yaml.Node) any {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	var obj struct {
		ID     *string `yaml:"id"`
		Reason *string `yaml:"reason"`
	}
	if n.Decode(&obj) != nil {
		return nil
	}
	m := map[string]any{}
	if obj.ID != nil {
		m["id"] = *obj.ID
	}
	if obj.Reason != nil {
		m["reason"] = *obj.Reason
	}
	return m
}

func anyList(v []string) []any {
	out := make([]any, len(v))
	for i, s := range v {
		out[i] = s
	}
	return out
}
