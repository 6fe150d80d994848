package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/renderer/html"
	gtext "github.com/yuin/goldmark/text"

	"github.com/polylane/polylane/causal/catalogue"
)

// safety says what a rendered document may link to and which token marks
// untrusted text that must never become structure.
type safety struct {
	repo      string // links may go to https://github.com/<repo>/…
	dashboard string // and to this URL
	family    string // and to the sources the shipped catalogue cites for this error family
	token     string // untrusted text marker; empty for no token check
}

// Patterns GitHub would turn into a notification, a reference or a link if
// they appeared in plain text.
var (
	mentionText = regexp.MustCompile(`(?:^|[^A-Za-z0-9_\x60])@[A-Za-z0-9]`)
	refText     = regexp.MustCompile(`#[0-9]`)
	urlText     = regexp.MustCompile(`(?i)://|www\.`)
	markerLine  = regexp.MustCompile(`^<!-- polylane:[a-z-]+ v[0-9]+ [^\n]*-->$`)
	ourHeadings = regexp.MustCompile(`^(Polylane: |Why this fix$|Why there is no fix$|Where it started$|Production impact$|Observability$|Causal chain$|Cause lines in the log$|The fix: )`)
	ourAlerts   = regexp.MustCompile(`^\[!(WARNING|CAUTION|NOTE)\]`)
)

// allowedHTML are the HTML blocks the package writes itself.
var allowedHTML = map[string]bool{"<details><summary>Diff</summary>": true, "</details>": true}

// markdownGFM parses GitHub-flavoured markdown, autolinks included, and
// renders raw HTML as it is (GitHub would sanitise it; the tests look for
// any that got through).
var markdownGFM = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))

var markdownParser = markdownGFM.Parser()

// renderHTML renders a document to HTML.
func renderHTML(t testing.TB, doc string) string {
	t.Helper()
	var b bytes.Buffer
	if err := markdownGFM.Convert([]byte(doc), &b); err != nil {
		t.Fatalf("render markdown: %v", err)
	}
	return b.String()
}

// checkMarkdown parses a rendered document as GitHub-flavoured markdown and
// returns every way in which it is unsafe or malformed: images, autolinks,
// links outside the allowed places, raw HTML other than ours, mentions,
// references or URLs in plain text, tables, untrusted text inside
// structure, more than one diff or mermaid block, and an invalid flowchart.
func checkMarkdown(doc string, s safety) []string {
	c := &mdChecker{src: []byte(doc), s: s, fences: map[string]int{}}
	root := markdownParser.Parse(gtext.NewReader(c.src))
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		return c.visit(n), nil
	})
	for info, n := range c.fences {
		if (info != "mermaid" && info != "diff") || n > 1 {
			c.add("%d fenced blocks with info %q", n, info)
		}
	}
	return c.problems
}

// mdChecker collects the problems of one document.
type mdChecker struct {
	src      []byte
	s        safety
	fences   map[string]int
	problems []string
}

func (c *mdChecker) add(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// visit checks one node.
func (c *mdChecker) visit(n ast.Node) ast.WalkStatus {
	src := c.src
	switch v := n.(type) {
	case *ast.CodeSpan:
		return ast.WalkSkipChildren
	case *ast.FencedCodeBlock:
		info := string(v.Language(src))
		c.fences[info]++
		if info == "mermaid" {
			if err := ValidateFlowchart(blockText(v, src)); err != nil {
				c.add("invalid flowchart: %v", err)
			}
		}
		return ast.WalkSkipChildren
	case *ast.HTMLBlock:
		checkHTMLBlock(blockText(v, src), c.add)
		return ast.WalkSkipChildren
	case *ast.Image:
		c.add("image to %q", v.Destination)
	case *ast.AutoLink:
		c.add("autolink %q", v.URL(src))
	case *ast.RawHTML:
		c.add("inline HTML %q", rawHTML(v, src))
	case *ast.Link:
		checkLink(string(v.Destination), c.s, c.add)
		checkNoToken(v, src, c.s.token, "link text", c.add)
	case *ast.Emphasis:
		checkNoToken(v, src, c.s.token, "emphasis", c.add)
	case *ast.Heading:
		if h := plainText(v, src, true); !ourHeadings.MatchString(h) {
			c.add("heading not written by the package: %q", h)
		}
	case *ast.Blockquote:
		if q := plainText(v, src, true); !ourAlerts.MatchString(q) {
			c.add("block quote not written by the package: %q", q)
		}
	case *ast.List:
		c.list(v)
	case *ast.Text:
		checkText(string(v.Segment.Value(src)), c.add)
	default:
		switch n.Kind() {
		case east.KindTable, east.KindTaskCheckBox, east.KindFootnote:
			c.add("%s node", n.Kind())
		case east.KindStrikethrough:
			checkNoToken(n, src, c.s.token, "strikethrough", c.add)
		}
	}
	return ast.WalkContinue
}

// list reports ordered lists and lists opened by untrusted text at the
// start of a list item.
func (c *mdChecker) list(v *ast.List) {
	if v.IsOrdered() {
		c.add("ordered list")
	}
	if _, ok := v.Parent().(*ast.ListItem); ok && v.PreviousSibling() == nil {
		c.add("list opened at the start of a list item")
	}
}

func checkLink(dest string, s safety, add func(string, ...any)) {
	if strings.HasPrefix(dest, "https://github.com/"+s.repo+"/") && s.repo != "" {
		return
	}
	if dest != "" && dest == s.dashboard {
		return
	}
	if s.family != "" && catalogue.Default.Cites(s.family, dest) {
		return
	}
	add("link to %q", dest)
}

func checkHTMLBlock(block string, add func(string, ...any)) {
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || allowedHTML[line] || markerLine.MatchString(line) {
			continue
		}
		add("HTML block line %q", line)
	}
}

func checkText(t string, add func(string, ...any)) {
	for _, re := range []*regexp.Regexp{mentionText, refText, urlText} {
		if m := re.FindString(t); m != "" {
			add("plain text %q holds %q", t, m)
		}
	}
}

// checkNoToken reports untrusted text (outside code spans) inside n.
func checkNoToken(n ast.Node, src []byte, token, what string, add func(string, ...any)) {
	if token == "" {
		return
	}
	if t := plainText(n, src, false); strings.Contains(t, token) {
		add("untrusted text inside %s: %q", what, t)
	}
}

// plainText concatenates the text under n; code spans count only with code.
func plainText(n ast.Node, src []byte, withCode bool) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if _, ok := c.(*ast.CodeSpan); ok && !withCode {
			return ast.WalkSkipChildren, nil
		}
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

func blockText(n ast.Node, src []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	if h, ok := n.(*ast.HTMLBlock); ok && h.HasClosure() {
		b.Write(h.ClosureLine.Value(src))
	}
	return b.String()
}

func rawHTML(n *ast.RawHTML, src []byte) string {
	var b strings.Builder
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}
