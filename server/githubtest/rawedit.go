package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// setFields returns a copy of a JSON object with some top-level fields
// replaced (or appended when absent), keeping every other field and the
// original key order, so edited scenario objects stay faithful.
func setFields(raw json.RawMessage, fields map[string]any) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("edit JSON: not an object")
	}
	var out bytes.Buffer
	out.WriteByte('{')
	done := map[string]bool{}
	first := true
	write := func(k string, v []byte) {
		if !first {
			out.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(v)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("edit JSON: %w", err)
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("edit JSON field %q: %w", k, err)
		}
		if nv, ok := fields[k]; ok {
			b, err := json.Marshal(nv)
			if err != nil {
				return nil, fmt.Errorf("edit JSON field %q: %w", k, err)
			}
			v, done[k] = b, true
		}
		write(k, v)
	}
	var missing []string
	for k := range fields {
		if !done[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	for _, k := range missing {
		b, err := json.Marshal(fields[k])
		if err != nil {
			return nil, fmt.Errorf("edit JSON field %q: %w", k, err)
		}
		write(k, b)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}
