package dashboard

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/polylane/polylane/web"
)

// staticAsset is one static file, kept in memory with a gzipped copy when
// compressing pays.
type staticAsset struct {
	body, gz    []byte
	contentType string
}

var (
	staticOnce   sync.Once
	staticAssets map[string]*staticAsset
)

// loadStatic reads every static file once.
func loadStatic() {
	staticAssets = map[string]*staticAsset{}
	files := web.Static()
	_ = fs.WalkDir(files, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		body, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		a := &staticAsset{body: body, contentType: mime.TypeByExtension(path.Ext(p))}
		if a.contentType == "" {
			a.contentType = "application/octet-stream"
		}
		if len(body) > 1024 && (strings.HasSuffix(p, ".js") || strings.HasSuffix(p, ".css")) {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
			_, _ = zw.Write(body)
			_ = zw.Close()
			a.gz = buf.Bytes()
		}
		staticAssets[p] = a
		return nil
	})
}

// serveStatic serves /static/*: the assets change only with the binary, so
// browsers may keep them for a day.
func serveStatic(w http.ResponseWriter, r *http.Request) {
	staticOnce.Do(loadStatic)
	p := strings.TrimPrefix(path.Clean(r.URL.Path), "/static/")
	a := staticAssets[p]
	if a == nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "public, max-age=86400")
	h.Add("Vary", "Accept-Encoding")
	body := a.body
	if a.gz != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	if r.Method == http.MethodHead {
		return
	}
	_, _ = io.Copy(w, bytes.NewReader(body))
}
