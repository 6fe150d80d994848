package impact

import (
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzAssess feeds arbitrary Dockerfile, .dockerignore, workflow and compose
// content: Assess and Observe must return without panicking.
func FuzzAssess(f *testing.F) {
	f.Add("FROM a AS b\nCOPY --from=b . .\nRUN make x\n", "**\n!a\n[", "jobs:\n  j:\n    steps:\n      - run: docker build -t x . && docker push x\n", "services: {a: {build: .}}")
	f.Add("FROM x\nCOPY [\"a\",\nADD http://x /y\nENTRYPOINT [\"./run.sh\"]\n", "/\n!\n\\", "on: push\njobs: {a: {uses: ./.github/workflows/w.yml}}", "services:\n  a:\n    build: {context: ../x, dockerfile: ../../D}\n")
	bomb := strings.Repeat("( ", 20000) + "true" + strings.Repeat(" )", 20000)
	f.Add("FROM x\nRUN "+bomb+"\n", "", "jobs:\n  j:\n    steps:\n      - run: "+bomb+"\n", "services: "+strings.Repeat("{a: ", 20000)+"b"+strings.Repeat("}", 20000))
	f.Fuzz(func(t *testing.T, dockerfile, ignore, workflow, compose string) {
		repo := fstest.MapFS{
			"Dockerfile":              {Data: []byte(dockerfile)},
			".dockerignore":           {Data: []byte(ignore)},
			".github/workflows/w.yml": {Data: []byte(workflow)},
			"deploy/compose.yaml":     {Data: []byte(compose)},
			"Makefile":                {Data: []byte("x:\n\techo x\n")},
			"run.sh":                  {Data: []byte("#!/bin/sh\nmake x\n")},
		}
		if _, err := Assess(repo, "o/r", []Change{{Path: "Makefile", Lines: []int{2}}, {Path: "run.sh"}, {Path: "a"}}); err != nil {
			t.Fatalf("Assess: %v", err)
		}
		_ = Observe(repo, ".github/workflows/w.yml", "x", []string{dockerfile})
	})
}
