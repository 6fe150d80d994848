package web

import (
	"embed"
	"io/fs"
)

//go:embed templates/*.html static
var files embed.FS

// Templates returns the dashboard's html/template files, as
// "templates/NAME.html".
func Templates() fs.FS { return files }

// Static returns the dashboard's static assets (stylesheet, scripts, the
// vendored mermaid.js), rooted at the static folder.
func Static() fs.FS {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the folder is embedded above; this cannot fail
	}
	return sub
}
