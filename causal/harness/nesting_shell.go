package harness

import "strings"

// ShellNesting measures, in one pass and without parsing, how deeply src
// nests for a bash parser: subshells, blocks, command and parameter
// substitutions, arithmetic, [[ ]] tests and compound commands (if, loops,
// case) each add a level, and so does every operator in a chain (&&, ||, |),
// an arithmetic expression or a test, since parsers build those as nested
// nodes. Quotes, comments and here-documents are read the way bash reads
// them, so that text which only looks nested does not count. Where the scan
// cannot tell, it counts more, never less: the result is an upper bound
// meant to keep a parser's recursion bounded. It stops early once the depth
// passes limit and returns the depth reached and the 1-based line of src
// where it was reached.
func ShellNesting(src string, limit int) (depth, line int) {
	s := &shScanner{src: src, line: 1, limit: limit}
	s.stack = []shFrame{{kind: shCode, cmd: true, tok: true}}
	s.run()
	return s.max, s.maxLine
}

type shKind uint8

const (
	shCode   shKind = iota // top level, ( ), $( ), { }, backquotes, if/loop blocks
	shCase                 // case … esac
	shDQuote               // "…"
	shParam                // ${…}
	shArith                // $(( )), (( )), $[ ] and the parentheses inside
	shTest                 // [[ ]] and the parentheses inside
	shHdoc                 // the body of an unquoted here-document
)

// Case clause phases.
const (
	caseHeader = iota
	casePattern
	caseBody
)

type shFrame struct {
	kind   shKind
	closer string // ")", "}", "`", "]", "]]", "fi", "done", "esac"
	// ops counts the operators of the current chain (code), expression
	// (arithmetic) or test; each adds a level.
	ops   int
	phase uint8
	// inDQ is set for a parameter expansion inside double quotes, where a
	// single quote is an ordinary character.
	inDQ bool
	// cont: the last token was && || or |, so a newline continues the
	// statement; cmd: at the start of a command, where keywords count; tok:
	// at the start of a token, where # starts a comment and { } are words.
	cont, cmd, tok bool
	hdocs          []hereDoc
}

// hereDoc is a here-document waiting for the end of its line.
type hereDoc struct {
	delim  string
	expand bool // unquoted delimiter: the body's expansions are parsed
	strip  bool // <<-: leading tabs are removed before the delimiter test
}

type shScanner struct {
	src          string
	i, line      int
	stack        []shFrame
	depth        int
	max, maxLine int
	limit        int
	backquotes   int // open backquote substitutions
}

func (s *shScanner) top() *shFrame { return &s.stack[len(s.stack)-1] }

func (s *shScanner) peek(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

func (s *shScanner) raise(n int) {
	s.depth += n
	if s.depth > s.max {
		s.max, s.maxLine = s.depth, s.line
	}
}

func (s *shScanner) push(f shFrame) {
	if f.closer == "`" {
		s.backquotes++
	}
	s.stack = append(s.stack, f)
	s.raise(1)
}

// pop closes the innermost frame; the frame it returns to is after a token.
func (s *shScanner) pop() {
	if len(s.stack) == 1 {
		return
	}
	f := s.stack[len(s.stack)-1]
	if f.closer == "`" {
		s.backquotes--
	}
	s.depth -= 1 + f.ops
	s.stack = s.stack[:len(s.stack)-1]
	p := s.top()
	p.tok, p.cmd, p.cont = false, false, false
}

// op counts one operator of the innermost frame.
func (s *shScanner) op(f *shFrame) {
	f.ops++
	s.raise(1)
}

// endStatement resets a chain: a new statement starts.
func (s *shScanner) endStatement(f *shFrame) {
	s.depth -= f.ops
	f.ops, f.cont, f.cmd, f.tok = 0, false, true, true
}

func (s *shScanner) run() {
	for s.i < len(s.src) && s.max <= s.limit {
		switch f := s.top(); f.kind {
		case shCode, shCase:
			s.code(f)
		case shDQuote, shHdoc:
			s.quoted(f)
		case shParam:
			s.param(f)
		case shArith:
			s.arith(f)
		case shTest:
			s.test(f)
		}
	}
}

// code reads one token or character of shell code.
func (s *shScanner) code(f *shFrame) {
	c := s.src[s.i]
	switch c {
	case ' ', '\t', '\r':
		s.i++
		f.tok = true
	case '\n':
		s.newline(f)
	case '#':
		if !f.tok {
			s.word(f)
			return
		}
		for s.i < len(s.src) && s.src[s.i] != '\n' && (s.src[s.i] != '`' || s.backquotes == 0) {
			s.i++
		}
	case '(', ')':
		s.paren(f, c)
	case ';':
		s.semicolon(f)
	case '&', '|':
		s.control(f, c)
	case '<', '>':
		s.redirect(f, c)
	default:
		if s.shared(f, c) {
			return
		}
		s.word(f)
	}
}

// shared handles what code, tests, parameter expansions and arithmetic
// read alike: escapes, quotes and substitutions. It reports whether it
// consumed something.
func (s *shScanner) shared(f *shFrame, c byte) bool {
	switch c {
	case '\\', '\'', '"', '`', '$':
		// Set before a push may move the stack.
		f.tok, f.cmd, f.cont = false, false, false
	default:
		return false
	}
	switch c {
	case '\\':
		if s.peek(1) == '\n' {
			s.line++
		}
		s.i += 2
	case '\'':
		if f.kind == shParam && f.inDQ {
			s.i++
			return true
		}
		s.singleQuote()
	case '"':
		s.i++
		s.push(shFrame{kind: shDQuote})
	case '`':
		s.backquote(f)
	case '$':
		s.dollar(f)
	}
	return true
}

func (s *shScanner) newline(f *shFrame) {
	s.i++
	s.line++
	if len(f.hdocs) > 0 {
		docs := f.hdocs
		f.hdocs = nil
		for _, d := range docs {
			s.hereDocument(d)
		}
	}
	if f.cont {
		f.tok = true
		return
	}
	s.endStatement(f)
}

func (s *shScanner) paren(f *shFrame, c byte) {
	s.i++
	switch {
	case f.kind == shCase && f.phase == casePattern:
		if c == ')' {
			f.phase = caseBody
			f.cmd, f.tok = true, true
		}
	case c == '(' && s.emptyParens():
		// name() body: a function declaration, whose body may be another
		// declaration; each nests like a chained operator.
		s.op(f)
		f.cmd, f.tok = true, true
	case c == '(' && s.peek(0) == '(' && f.tok:
		s.i++
		s.push(shFrame{kind: shArith, closer: ")"})
		s.push(shFrame{kind: shArith, closer: ")"})
	case c == '(':
		s.push(shFrame{kind: shCode, closer: ")", cmd: true, tok: true})
	case f.closer == ")":
		s.pop()
		s.top().tok = true
	}
}

// emptyParens consumes the ")" of "( )" after an opening parenthesis and
// reports whether there was one.
func (s *shScanner) emptyParens() bool {
	j := s.i
	for j < len(s.src) && (s.src[j] == ' ' || s.src[j] == '\t') {
		j++
	}
	if j < len(s.src) && s.src[j] == ')' {
		s.i = j + 1
		return true
	}
	return false
}

func (s *shScanner) semicolon(f *shFrame) {
	s.i++
	if n := s.peek(0); n == ';' || n == '&' {
		s.i++
		if s.peek(0) == '&' {
			s.i++
		}
		if f.kind == shCase {
			f.phase = casePattern
		}
	}
	s.endStatement(f)
}

func (s *shScanner) control(f *shFrame, c byte) {
	s.i++
	n := s.peek(0)
	switch {
	case c == '&' && n == '>': // &> redirection
		s.i++
		f.tok = true
		return
	case c == '&' && n != '&': // background: the statement ends
		s.endStatement(f)
		return
	case n == c || n == '&': // && || |&
		s.i++
	}
	if f.kind == shCase && f.phase == casePattern {
		f.tok = true // a | between patterns
		return
	}
	s.op(f)
	f.cont, f.cmd, f.tok = true, true, true
}

func (s *shScanner) redirect(f *shFrame, c byte) {
	s.i++
	n := s.peek(0)
	switch {
	case n == '(': // process substitution
		s.i++
		s.push(shFrame{kind: shCode, closer: ")", cmd: true, tok: true})
		return
	case c == '<' && n == '<' && s.peek(1) == '<': // here-string
		s.i += 2
	case c == '<' && n == '<':
		s.i++
		s.hereDocHeader(f)
	case n == '>' || n == '&' || n == '|' || (c == '<' && n == '>'):
		s.i++
	}
	f.tok = true
}

// word reads a run of ordinary characters; at the start of a command it
// recognises the reserved words that open and close compound commands.
func (s *shScanner) word(f *shFrame) {
	start := s.i
	for s.i < len(s.src) && !shellDelimiter(s.src[s.i]) {
		s.i++
	}
	if s.i == start { // a lone special character
		s.i++
	}
	w := s.src[start:s.i]
	atToken, atCmd := f.tok, f.cmd
	f.tok, f.cmd, f.cont = false, false, false
	if !atToken {
		return
	}
	if f.kind == shCase && s.caseWord(f, w, atCmd) {
		return
	}
	switch w {
	case "{":
		// Counted at any token start: a brace group opens where a command
		// starts, and counting more is safe.
		s.push(shFrame{kind: shCode, closer: "}", cmd: true, tok: true})
		return
	case "}", "fi", "done":
		if atCmd && f.closer == w {
			s.pop()
			s.top().tok = true
		}
		return
	}
	if !atCmd {
		return
	}
	switch w {
	case "[[":
		s.push(shFrame{kind: shTest, closer: "]]", tok: true})
	case "if":
		s.push(shFrame{kind: shCode, closer: "fi", cmd: true, tok: true})
	case "while", "until":
		s.push(shFrame{kind: shCode, closer: "done", cmd: true, tok: true})
	case "for", "select":
		s.push(shFrame{kind: shCode, closer: "done", tok: true})
	case "case":
		s.push(shFrame{kind: shCase, closer: "esac", tok: true})
	case "function":
		s.op(f)
		f.cmd, f.tok = true, true
	case "then", "do", "else", "elif", "!", "time":
		f.cmd, f.tok = true, true
	}
}

// caseWord handles the words of a case clause's header and patterns; it
// reports whether w was one.
func (s *shScanner) caseWord(f *shFrame, w string, atCmd bool) bool {
	switch {
	case f.phase == caseHeader:
		if w == "in" {
			f.phase = casePattern
		}
		f.tok = true
		return true
	case w == "esac" && (f.phase == casePattern || atCmd):
		s.pop()
		s.top().tok = true
		return true
	case f.phase == casePattern:
		f.tok = true
		return true
	}
	return false
}

// shellDelimiter reports whether c ends an ordinary word.
func shellDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ';', '&', '|', '(', ')', '<', '>', '\'', '"', '`', '$', '\\':
		return true
	}
	return false
}

func (s *shScanner) singleQuote() {
	s.i++
	for s.i < len(s.src) && s.src[s.i] != '\'' {
		if s.src[s.i] == '\n' {
			s.line++
		}
		s.i++
	}
	s.i++
}

func (s *shScanner) backquote(f *shFrame) {
	s.i++
	if f.closer == "`" {
		s.pop()
		return
	}
	s.push(shFrame{kind: shCode, closer: "`", cmd: true, tok: true})
}

// dollar reads $( $(( ${ $[ $' and $".
func (s *shScanner) dollar(f *shFrame) {
	s.i++
	switch s.peek(0) {
	case '(':
		if s.peek(1) == '(' {
			s.i += 2
			s.push(shFrame{kind: shArith, closer: ")"})
			s.push(shFrame{kind: shArith, closer: ")"})
			return
		}
		s.i++
		s.push(shFrame{kind: shCode, closer: ")", cmd: true, tok: true})
	case '{':
		s.i++
		s.push(shFrame{kind: shParam, closer: "}", inDQ: f.kind == shDQuote || f.kind == shHdoc || (f.kind == shParam && f.inDQ)})
	case '[':
		s.i++
		s.push(shFrame{kind: shArith, closer: "]"})
	case '\'':
		s.i++
		for s.i < len(s.src) && s.src[s.i] != '\'' {
			if s.src[s.i] == '\\' {
				s.i++
			}
			if s.i < len(s.src) && s.src[s.i] == '\n' {
				s.line++
			}
			s.i++
		}
		s.i++
	case '"':
		s.i++
		s.push(shFrame{kind: shDQuote})
	}
}

// quoted reads inside double quotes or an unquoted here-document's body,
// where only escapes and substitutions matter.
func (s *shScanner) quoted(f *shFrame) {
	switch c := s.src[s.i]; {
	case c == '"' && f.kind == shDQuote:
		s.i++
		s.pop()
	case c == '\\' || c == '$' || c == '`':
		if c == '\\' && s.peek(1) == '\n' {
			s.line++
		}
		if c == '\\' {
			s.i += 2
			return
		}
		s.shared(f, c)
	default:
		if c == '\n' {
			s.line++
		}
		s.i++
	}
}

// param reads inside ${…}.
func (s *shScanner) param(f *shFrame) {
	switch c := s.src[s.i]; c {
	case '}':
		s.i++
		s.pop()
	case '\n':
		s.line++
		s.i++
	default:
		if !s.shared(f, c) {
			s.i++
		}
	}
}

// arith reads inside an arithmetic expression, where every operator nests.
func (s *shScanner) arith(f *shFrame) {
	switch c := s.src[s.i]; c {
	case '(':
		s.i++
		s.push(shFrame{kind: shArith, closer: ")"})
	case ')', ']':
		s.i++
		if f.closer == string(c) {
			s.pop()
		}
	case '\n':
		s.line++
		s.i++
	case '!', '~', '-', '+', '?', ':', '=', '*', '/', '%', '<', '>', '&', '|', '^', ',':
		s.i++
		s.op(f)
	default:
		if !s.shared(f, c) {
			s.i++
		}
	}
}

// test reads inside [[ ]], where negations and && || nest.
func (s *shScanner) test(f *shFrame) {
	c := s.src[s.i]
	switch {
	case c == ']' && s.peek(1) == ']' && f.closer == "]]":
		s.i += 2
		s.pop()
	case c == '(':
		s.i++
		s.push(shFrame{kind: shTest, closer: ")"})
	case c == ')' && f.closer == ")":
		s.i++
		s.pop()
	case c == '!' || ((c == '&' || c == '|') && s.peek(1) == c):
		s.i++
		if c != '!' {
			s.i++
		}
		s.op(f)
	case c == '\n':
		s.line++
		s.i++
	default:
		if !s.shared(f, c) {
			s.i++
		}
	}
}

// hereDocHeader reads the delimiter after << or <<-.
func (s *shScanner) hereDocHeader(f *shFrame) {
	d := hereDoc{expand: true}
	if s.peek(0) == '-' {
		d.strip = true
		s.i++
	}
	for s.peek(0) == ' ' || s.peek(0) == '\t' {
		s.i++
	}
	var b strings.Builder
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\'' || c == '"':
			d.expand = false
			end := strings.IndexByte(s.src[s.i+1:], c)
			if end < 0 {
				end = len(s.src) - s.i - 1
			}
			b.WriteString(s.src[s.i+1 : s.i+1+end])
			s.i += end + 2
			continue
		case c == '\\' && s.i+1 < len(s.src):
			d.expand = false
			b.WriteByte(s.src[s.i+1])
			s.i += 2
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>':
		default:
			b.WriteByte(c)
			s.i++
			continue
		}
		break
	}
	d.delim = b.String()
	f.hdocs = append(f.hdocs, d)
}

// hereDocument skips a here-document's body up to its delimiter line; an
// unquoted body is scanned for substitutions, which nest as in code.
func (s *shScanner) hereDocument(d hereDoc) {
	start, startLine := s.i, s.line
	for s.i < len(s.src) {
		end := strings.IndexByte(s.src[s.i:], '\n')
		if end < 0 {
			end = len(s.src) - s.i
		}
		text := s.src[s.i : s.i+end]
		if d.strip {
			text = strings.TrimLeft(text, "\t")
		}
		if text == d.delim {
			body := s.src[start:s.i]
			s.i = min(s.i+end+1, len(s.src))
			s.line++
			s.scanBody(d, body, startLine)
			return
		}
		s.i = min(s.i+end+1, len(s.src))
		s.line++
	}
	s.scanBody(d, s.src[start:], startLine)
}

func (s *shScanner) scanBody(d hereDoc, body string, startLine int) {
	if !d.expand || !strings.ContainsAny(body, "$`") {
		return
	}
	sub := &shScanner{src: body, line: startLine, limit: s.limit, depth: s.depth, max: s.max, maxLine: s.maxLine}
	sub.stack = []shFrame{{kind: shHdoc}}
	sub.run()
	if sub.max > s.max {
		s.max, s.maxLine = sub.max, sub.maxLine
	}
}
