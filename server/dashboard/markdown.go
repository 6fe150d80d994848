package dashboard

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// markdown renders the assessment's GitHub-flavoured markdown to HTML.
// Raw HTML is off (goldmark's default without WithUnsafe): the only tags
// that pass are a bare <details>, <summary> and their closing tags, which
// the report uses to fold long parts; everything else is dropped or
// escaped, and goldmark drops javascript: and similar link targets.
// A ```mermaid block becomes <pre class="mermaid">, which mermaid.js turns
// into SVG in the browser; without JavaScript its source stays readable.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(safeBlocks{}, 100))),
)

// renderMarkdown converts markdown to HTML that is safe to embed.
func renderMarkdown(src string) (template.HTML, error) {
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(src), &buf); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	return template.HTML(buf.String()), nil
}

// safeBlocks renders mermaid fences and raw HTML in place of goldmark's
// default renderers for those nodes.
type safeBlocks struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (safeBlocks) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderFence)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindRawHTML, renderRawHTML)
}

// renderFence renders a fenced code block, as a Mermaid chart for mermaid.
func renderFence(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.FencedCodeBlock)
	lang := string(n.Language(src))
	var body strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		body.Write(seg.Value(src))
	}
	if lang == "mermaid" {
		fmt.Fprintf(w, "<pre class=\"mermaid\">%s</pre>\n", html.EscapeString(body.String()))
		return ast.WalkSkipChildren, nil
	}
	class := ""
	if lang != "" && len(lang) < 40 {
		class = fmt.Sprintf(` class="language-%s"`, html.EscapeString(lang))
	}
	fmt.Fprintf(w, "<pre><code%s>%s</code></pre>\n", class, html.EscapeString(body.String()))
	return ast.WalkSkipChildren, nil
}

// renderHTMLBlock lets the folding tags of an HTML block through.
func renderHTMLBlock(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	var raw strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		raw.Write(seg.Value(src))
	}
	if n.HasClosure() {
		raw.Write(n.ClosureLine.Value(src))
	}
	_, _ = w.WriteString(foldingTagsOnly(raw.String()))
	return ast.WalkSkipChildren, nil
}

// renderRawHTML lets inline folding tags through.
func renderRawHTML(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	var raw strings.Builder
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		raw.Write(seg.Value(src))
	}
	_, _ = w.WriteString(foldingTagsOnly(raw.String()))
	return ast.WalkSkipChildren, nil
}

// foldingTag matches the only tags let through, without attributes.
var foldingTag = regexp.MustCompile(`(?i)^</?(details|summary)>$`)

// foldingTagsOnly keeps <details> and <summary> tags, drops every other tag
// and comment, and escapes the text between them.
func foldingTagsOnly(s string) string {
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(html.EscapeString(s))
			break
		}
		b.WriteString(html.EscapeString(s[:i]))
		s = s[i:]
		if strings.HasPrefix(s, "<!--") {
			end := strings.Index(s, "-->")
			if end < 0 {
				break
			}
			s = s[end+3:]
			continue
		}
		j := strings.IndexByte(s, '>')
		if j < 0 {
			b.WriteString(html.EscapeString(s))
			break
		}
		if tag := s[:j+1]; foldingTag.MatchString(tag) {
			b.WriteString(strings.ToLower(tag))
		}
		s = s[j+1:]
	}
	return b.String()
}
