package webhook

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
)

// object decodes the object at s.pos into the struct rv by its plan.
func (s *scanner) object(p *plan, rv reflect.Value, depth int) error {
	if depth > maxDepth {
		return errors.New("json: exceeded max depth")
	}
	s.pos++ // {
	s.space()
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	var typeErr error
	for {
		if s.peek() != '"' {
			return s.fail("looking for the beginning of an object key")
		}
		key, err := s.key()
		if err != nil {
			return err
		}
		s.space()
		if s.peek() != ':' {
			return s.fail("after an object key")
		}
		s.pos++
		s.space()
		if f := p.lookup(key); f != nil {
			err = s.field(f, rv.Field(f.index), depth)
		} else {
			err = s.skip(depth)
		}
		if err != nil {
			if !isTypeError(err) {
				return err
			}
			// encoding/json reports the first type error once the whole
			// document has been read and found well-formed.
			if typeErr == nil {
				typeErr = err
			}
		}
		s.space()
		switch s.peek() {
		case ',':
			s.pos++
			s.space()
		case '}':
			s.pos++
			return typeErr
		default:
			return s.fail("after an object member")
		}
	}
}

func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// key returns an object key, unescaped when it holds escapes.
func (s *scanner) key() ([]byte, error) {
	start := s.pos
	escaped, err := s.str()
	if err != nil {
		return nil, err
	}
	raw := s.data[start:s.pos]
	if !escaped {
		return raw[1 : len(raw)-1], nil
	}
	var k string
	if err := json.Unmarshal(raw, &k); err != nil {
		return nil, err
	}
	return []byte(k), nil
}

// typeError reports a value of the wrong kind for a field.
func typeError(value string, t reflect.Type, name string) error {
	return &json.UnmarshalTypeError{Value: value, Type: t, Field: name}
}

// field decodes the value at s.pos into the field v.
func (s *scanner) field(f *fieldPlan, v reflect.Value, depth int) error {
	start := s.pos
	c := s.peek()
	if c == 'n' && f.kind != kindOther {
		if err := s.skip(depth); err != nil {
			return err
		}
		if f.kind == kindPtr {
			v.SetZero() // null sets a pointer to nil and leaves the other kinds alone
		}
		return nil
	}
	switch f.kind {
	case kindStruct, kindPtr:
		if c != '{' {
			if err := s.skip(depth); err != nil {
				return err
			}
			return typeError("non-object", v.Type(), f.name)
		}
		if f.kind == kindPtr {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		return s.object(f.sub, v, depth+1)
	}
	if err := s.skip(depth); err != nil {
		return err
	}
	raw := s.data[start:s.pos]
	switch {
	case f.kind == kindString && c == '"':
		if str, ok := plainString(raw); ok {
			v.SetString(str)
			return nil
		}
	case f.kind == kindInt && (c == '-' || c >= '0' && c <= '9'):
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || v.OverflowInt(n) {
			return typeError("number "+string(raw), v.Type(), f.name)
		}
		v.SetInt(n)
		return nil
	case f.kind == kindBool && (c == 't' || c == 'f'):
		v.SetBool(c == 't')
		return nil
	case f.kind != kindOther:
		return typeError(kindName(c), v.Type(), f.name)
	}
	return json.Unmarshal(raw, v.Addr().Interface())
}

// plainString returns a string literal's text when it needs no decoding:
// no escapes and only ASCII.
func plainString(raw []byte) (string, bool) {
	body := raw[1 : len(raw)-1]
	for _, b := range body {
		if b == '\\' || b >= 0x80 {
			return "", false
		}
	}
	return string(body), true
}

func kindName(c byte) string {
	switch c {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	}
	return "number"
}

// skip checks the syntax of the value at s.pos and moves past it. It keeps
// its own stack of open brackets, so a deep document costs no recursion.
func (s *scanner) skip(depth int) error {
	var stack []byte // '{' or '['
	for {
		s.space()
		switch c := s.peek(); {
		case c == '{' || c == '[':
			if depth+len(stack)+1 > maxDepth {
				return errors.New("json: exceeded max depth")
			}
			s.pos++
			s.space()
			if end := closer(c); s.peek() == end {
				s.pos++
			} else {
				stack = append(stack, c)
				if c == '{' {
					if err := s.member(); err != nil {
						return err
					}
				}
				continue
			}
		case c == '"':
			if _, err := s.str(); err != nil {
				return err
			}
		case c == '-' || c >= '0' && c <= '9':
			if err := s.number(); err != nil {
				return err
			}
		case s.literal("true"), s.literal("false"), s.literal("null"):
		default:
			return s.fail("looking for the beginning of a value")
		}
		// A value ended: close brackets or go to the next element.
		for {
			if len(stack) == 0 {
				return nil
			}
			s.space()
			top := stack[len(stack)-1]
			switch c := s.peek(); {
			case c == ',':
				s.pos++
				if top == '{' {
					s.space()
					if err := s.member(); err != nil {
						return err
					}
				}
			case c == closer(top):
				s.pos++
				stack = stack[:len(stack)-1]
				continue
			default:
				return s.fail("after an array element or object member")
			}
			break
		}
	}
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// member reads an object key and its colon.
func (s *scanner) member() error {
	if s.peek() != '"' {
		return s.fail("looking for the beginning of an object key")
	}
	if _, err := s.str(); err != nil {
		return err
	}
	s.space()
	if s.peek() != ':' {
		return s.fail("after an object key")
	}
	s.pos++
	return nil
}

// stringStop marks the bytes that end a run of plain string content.
var stringStop = func() (t [256]bool) {
	for i := range 0x20 {
		t[i] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// str moves past the string literal at s.pos and reports whether it holds
// escapes. Control characters are refused; invalid UTF-8 is allowed, as
// encoding/json allows it.
func (s *scanner) str() (escaped bool, err error) {
	s.pos++ // opening quote
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if !stringStop[c] {
			s.pos++
			continue
		}
		switch {
		case c == '"':
			s.pos++
			return escaped, nil
		case c < 0x20:
			return false, s.fail("in a string literal")
		}
		escaped = true
		s.pos++
		switch s.peek() {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			s.pos++
		case 'u':
			s.pos++
			for range 4 {
				if !isHex(s.peek()) {
					return false, s.fail("in a \\u escape")
				}
				s.pos++
			}
		default:
			return false, s.fail("in a string escape")
		}
	}
	return false, s.fail("in a string literal")
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number moves past a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
	if s.peek() == '-' {
		s.pos++
	}
	switch c := s.peek(); {
	case c == '0':
		s.pos++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return s.fail("in a number")
	}
	if s.peek() == '.' {
		s.pos++
		if !isDigit(s.peek()) {
			return s.fail("after a decimal point")
		}
		s.digits()
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.pos++
		if c := s.peek(); c == '+' || c == '-' {
			s.pos++
		}
		if !isDigit(s.peek()) {
			return s.fail("in an exponent")
		}
		s.digits()
	}
	return nil
}

func (s *scanner) digits() {
	for isDigit(s.peek()) {
		s.pos++
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// errNotObject is returned for a document that is well-formed but not an
// object.
var errNotObject = errors.New("json: cannot unmarshal a non-object into a struct")
