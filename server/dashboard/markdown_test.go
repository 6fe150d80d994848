package dashboard

import (
	"strings"
	"testing"
	"time"
)

func TestRenderMarkdownKeepsOnlySafeMarkup(t *testing.T) {
	tests := []struct {
		name, src  string
		want, deny []string
	}{
		{"mermaid fence", "```mermaid\nflowchart TD\n  a[\"<b>x</b>\"] --> b\n```\n",
			[]string{`<pre class="mermaid">flowchart TD`, `&lt;b&gt;x&lt;/b&gt;`}, []string{"<b>x"}},
		{"folding tags pass", "<details><summary>Diff</summary>\n\n```diff\n+a\n```\n\n</details>\n",
			[]string{"<details><summary>Diff</summary>", "</details>", `<code class="language-diff">+a`}, nil},
		{"attributes and other tags go", "<details open onclick=\"x()\"><summary>s</summary>\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n",
			[]string{"<summary>s</summary>"}, []string{"onclick", "<script", "<img", "onerror="}},
		{"inline html", "text <span style=\"x\">in</span> <summary>ok</summary> <!-- c -->",
			[]string{"<summary>ok</summary>", "in"}, []string{"<span", "<!--"}},
		{"dangerous links", "[x](javascript:alert(1)) [y](https://example.com/a)",
			[]string{`href="https://example.com/a"`}, []string{"javascript:"}},
		{"tables", "| a | b |\n|---|---|\n| 1 | 2 |\n", []string{"<table>", "<td>1</td>"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := renderMarkdown(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			for _, d := range tc.deny {
				if strings.Contains(string(got), d) {
					t.Errorf("output has %q:\n%s", d, got)
				}
			}
		})
	}
}

func TestSealedCookiesRejectTampering(t *testing.T) {
	s, err := newSealer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	in := session{ID: "sid", Login: "octocat", Token: "ghu_secret", Expires: time.Now().Add(time.Hour).Unix()}
	v, err := s.seal(sessionCookie, in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(v, "ghu_") || strings.Contains(v, "octocat") {
		t.Fatalf("sealed cookie shows its content: %s", v)
	}
	var out session
	if err := s.open(sessionCookie, v, &out); err != nil || out != in {
		t.Fatalf("open: %v, %+v", err, out)
	}
	other, _ := newSealer([]byte("another secret of at least 32 bytes!"))
	flip := []byte(v)
	flip[5] ^= 1
	for name, bad := range map[string]func() error{
		"other key":     func() error { return other.open(sessionCookie, v, &out) },
		"other purpose": func() error { return s.open(stateCookie, v, &out) },
		"flipped byte":  func() error { return s.open(sessionCookie, string(flip), &out) },
		"no signature":  func() error { return s.open(sessionCookie, strings.Split(v, ".")[0], &out) },
	} {
		if err := bad(); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
	if _, err := newSealer([]byte("short")); err == nil {
		t.Error("a short secret was accepted")
	}
	if !s.checkCSRF("sid", s.csrfToken("sid")) || s.checkCSRF("sid2", s.csrfToken("sid")) || s.checkCSRF("", s.csrfToken("")) {
		t.Error("CSRF tokens are not bound to their session")
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"/repos/a/b?days=7": "/repos/a/b?days=7", "": "/", "//evil.example": "/", "https://evil.example/": "/",
		"/\\evil.example": "/", "relative": "/", "/ok\r\nSet-Cookie: x": "/",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWindowEndsWithTheLastRunWhenItIsOld(t *testing.T) {
	now := time.Date(2026, 5, 10, 15, 0, 0, 0, time.UTC)
	w := windowEnding(now.Add(-time.Hour), now, 30)
	if !w.To.Equal(time.Date(2026, 5, 11, 0, 0, 0, 0, time.UTC)) || len(w.dayList()) != 30 {
		t.Fatalf("recent: %+v", w)
	}
	old := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	w = windowEnding(old, now, 30)
	if !w.To.Equal(time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)) || !w.From.Equal(time.Date(2025, 12, 4, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("old: %+v", w)
	}
}
