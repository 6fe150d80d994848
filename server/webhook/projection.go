package webhook

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// decodeProjection decodes a JSON document into *v as json.Unmarshal does,
// but reads only the members that v's struct fields name: every other value
// is skipped by a scanner that checks its syntax without building anything.
// A delivery's payload runs to tens of kilobytes of which the envelope needs
// a few fields, and json.Unmarshal spent most of the webhook's CPU time
// validating and skipping the rest. The result and the error (nil or not)
// agree with json.Unmarshal's (a differential fuzz test checks it); types
// the projection does not handle fall back to json.Unmarshal.
func decodeProjection(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return json.Unmarshal(data, v)
	}
	p := planFor(rv.Elem().Type())
	if p == nil {
		return json.Unmarshal(data, v)
	}
	s := &scanner{data: data}
	s.space()
	var err error
	switch {
	case s.literal("null"):
	case s.peek() == '{':
		err = s.object(p, rv.Elem(), 1)
	default:
		if err = s.skip(0); err == nil {
			err = errNotObject
		}
	}
	if err != nil {
		return err
	}
	s.space()
	if s.pos != len(s.data) {
		return s.fail("after the top-level value")
	}
	return nil
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// fieldKind says how a field is decoded.
type fieldKind int

const (
	kindOther  fieldKind = iota // json.Unmarshal of the value's bytes
	kindString                  // string
	kindInt                     // signed integers
	kindBool                    // bool
	kindStruct                  // struct, decoded by its plan
	kindPtr                     // pointer to struct
)

// fieldPlan is one named field of a struct.
type fieldPlan struct {
	name  string
	key   []byte // name, for case-insensitive matching without allocating
	index int
	kind  fieldKind
	sub   *plan
}

// plan is how a struct type is decoded.
type plan struct {
	fields []fieldPlan
	byName map[string]int
}

var plans sync.Map // reflect.Type -> *plan (nil: not supported)

// planFor returns the plan of a struct type, or nil when it uses a feature
// of encoding/json the projection leaves to json.Unmarshal (embedded
// fields, tag options other than omitempty and omitzero).
func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := buildPlan(t, 0)
	plans.Store(t, p)
	return p
}

func buildPlan(t reflect.Type, depth int) *plan {
	if depth > 16 {
		return nil
	}
	p := &plan{byName: map[string]int{}}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		for _, o := range strings.Split(opts, ",") {
			if o != "" && o != "omitempty" && o != "omitzero" {
				return nil
			}
		}
		if name == "" {
			name = sf.Name
		}
		f := fieldPlan{name: name, key: []byte(name), index: i, kind: kindOther}
		switch ft := sf.Type; {
		case customDecoding(ft):
		case ft.Kind() == reflect.String:
			f.kind = kindString
		case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Int64:
			f.kind = kindInt
		case ft.Kind() == reflect.Bool:
			f.kind = kindBool
		case ft.Kind() == reflect.Struct:
			f.kind, f.sub = kindStruct, buildPlan(ft, depth+1)
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct && !customDecoding(ft.Elem()):
			f.kind, f.sub = kindPtr, buildPlan(ft.Elem(), depth+1)
		}
		if (f.kind == kindStruct || f.kind == kindPtr) && f.sub == nil {
			f.kind = kindOther
		}
		if _, dup := p.byName[name]; dup {
			return nil // encoding/json's dominance rules apply
		}
		p.byName[name] = len(p.fields)
		p.fields = append(p.fields, f)
	}
	return p
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// customDecoding reports a type that decodes itself (json.Unmarshaler or
// encoding.TextUnmarshaler, on the type or its pointer): json.Unmarshal
// decodes it.
func customDecoding(t reflect.Type) bool {
	for _, u := range []reflect.Type{unmarshalerType, textUnmarshalerType} {
		if t.Implements(u) || reflect.PointerTo(t).Implements(u) {
			return true
		}
	}
	return false
}

// lookup finds the field of a key: the exact name first, then a
// case-insensitive match, as encoding/json does.
func (p *plan) lookup(key []byte) *fieldPlan {
	if i, ok := p.byName[string(key)]; ok {
		return &p.fields[i]
	}
	for i := range p.fields {
		if bytes.EqualFold(p.fields[i].key, key) {
			return &p.fields[i]
		}
	}
	return nil
}

// scanner walks a JSON document.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) fail(where string) error {
	if s.pos >= len(s.data) {
		return fmt.Errorf("json: unexpected end of input %s", where)
	}
	return fmt.Errorf("json: invalid character %q at offset %d %s", s.data[s.pos], s.pos, where)
}

// literal consumes word when it comes next.
func (s *scanner) literal(word string) bool {
	if bytes.HasPrefix(s.data[s.pos:], []byte(word)) {
		s.pos += len(word)
		return true
	}
	return false
}
