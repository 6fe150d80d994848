package harness

import (
	"strings"
	"testing"
)

func TestParseShellCommands(t *testing.T) {
	src := `set -euo pipefail
echo "start"
kubectl create secret generic x \
  --dry-run=client -o yaml \
  | kubectl apply -f -
SERVER="$(kubectl config view --minify)"
helper() {
  curl -fsS "$1"
}
helper https://example.com
`
	s := ParseShell("s.sh", 10, src)
	if s.Err != nil {
		t.Fatal(s.Err)
	}
	if !s.SetE || !s.Pipefail {
		t.Errorf("SetE=%v Pipefail=%v, want both", s.SetE, s.Pipefail)
	}
	tests := []struct {
		name    string
		line    int
		endLine int
		pipe    int
		subst   bool
	}{
		{"set", 10, 10, 0, false},
		{"echo", 11, 11, 0, false},
		{"kubectl", 12, 13, 0, false},
		{"kubectl", 14, 14, 1, false},
		{"kubectl", 15, 15, 0, true},
		{"helper", 19, 19, 0, false},
	}
	if len(s.Commands) != len(tests) {
		var got []string
		for _, c := range s.Commands {
			got = append(got, c.Text)
		}
		t.Fatalf("got %d commands %q, want %d", len(s.Commands), got, len(tests))
	}
	for i, tt := range tests {
		c := s.Commands[i]
		if c.Name() != tt.name || c.Line != tt.line || c.EndLine != tt.endLine || c.PipeIndex != tt.pipe || c.Substituted != tt.subst {
			t.Errorf("command %d = %s %d-%d pipe %d subst %v, want %+v", i, c.Name(), c.Line, c.EndLine, c.PipeIndex, c.Substituted, tt)
		}
	}
	fn, ok := s.Funcs["helper"]
	if !ok || len(fn.Commands) != 1 || fn.Commands[0].Name() != "curl" || fn.Line != 16 {
		t.Errorf("function helper = %+v", fn)
	}
}

func TestParseShellLoops(t *testing.T) {
	tests := []struct {
		name        string
		src         string
		bound       int
		sleep       string
		retry, wait bool
	}{
		{"for items", "for i in 1 2 3 4 5; do\n  kubectl apply -f x && break\n  sleep 10\ndone", 5, "10", true, false},
		{"for seq", "for i in $(seq 1 30); do docker info && break; sleep 2; done", 30, "2", true, true},
		{"for brace", "for i in {1..7}; do curl -f x && break; sleep 3; done", 7, "3", true, false},
		{"until counter", "n=0\nuntil helm repo update; do\n  n=$((n+1))\n  [ $n -ge 4 ] && exit 1\n  sleep 5\ndone", 4, "5", true, false},
		{"until unbounded", "until kubectl get ns x; do sleep 1; done", 0, "1", true, true},
		{"while var bound", "MAX=6\ni=0\nwhile [ $i -lt $MAX ]; do\n  if make deps; then break; fi\n  i=$((i+1))\n  sleep $((2**i))\ndone", 6, "$((2**i))", true, false},
		{"plain loop", "for f in a b; do echo $f; done", 2, "", false, false},
		{"c style", "for ((i=0; i<3; i++)); do go mod download && break; sleep 4; done", 3, "4", true, false},
		// a readiness poll: it checks that a process lives and a local health URL answers
		{"health poll", "for i in $(seq 1 20); do\n  sleep 1\n  if ! sudo kill -0 \"$(cat \"$PIDFILE\")\" 2>/dev/null; then exit 1; fi\n  if curl -fsS \"http://$ADDR/healthz\" >/dev/null 2>&1; then exit 0; fi\ndone", 20, "1", true, true},
		{"pg poll", "until pg_isready -h localhost -U app; do sleep 2; done", 0, "2", true, true},
		{"download retry", "for i in 1 2 3; do curl -fsSL -o tool.tgz https://example.com/tool.tgz && break; sleep 5; done", 3, "5", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ParseShell("x.sh", 1, tt.src)
			if s.Err != nil {
				t.Fatal(s.Err)
			}
			if len(s.Loops) != 1 {
				t.Fatalf("loops = %d, want 1", len(s.Loops))
			}
			l := s.Loops[0]
			if l.Bound != tt.bound || l.Sleep != tt.sleep || l.Retry != tt.retry || l.Wait != tt.wait {
				t.Errorf("loop = bound %d sleep %q retry %v wait %v, want %d %q %v %v", l.Bound, l.Sleep, l.Retry, l.Wait, tt.bound, tt.sleep, tt.retry, tt.wait)
			}
		})
	}
}

func TestRetryFunction(t *testing.T) {
	src := `retry() {
  local n=0
  until "$@"; do
    n=$((n+1))
    [ "$n" -ge 5 ] && return 1
    sleep $((2**n))
  done
}
retry kubectl apply -f crd.yaml
kubectl label ns x a=b
`
	s := ParseShell("r.sh", 1, src)
	fn := s.Funcs["retry"]
	if fn == nil || !fn.Retry || fn.RetryLoop == nil || fn.RetryLoop.Bound != 5 {
		t.Fatalf("retry function = %+v", fn)
	}
	repo := NewRepo(mapFS(map[string]string{
		".github/workflows/ci.yml": "jobs:\n  a:\n    steps:\n      - name: Go\n        run: bash r.sh\n",
		"r.sh":                     src,
	}))
	root := resolve(t, repo, ".github/workflows/ci.yml", "Go")
	var wrapped, bare *Node
	root.Walk(func(n *Node) bool {
		if n.Cmd != nil && n.Tool() == "kubectl" {
			if n.Wrapper != nil {
				wrapped = n
			} else {
				bare = n
			}
		}
		return true
	})
	if wrapped == nil || wrapped.RetryLoop() == nil || subcommandOf(wrapped) != "apply" {
		t.Errorf("retry-wrapped kubectl apply not found: %+v", wrapped)
	}
	if bare == nil || bare.RetryLoop() != nil {
		t.Errorf("bare kubectl label should have no retry: %+v", bare)
	}
}

func subcommandOf(n *Node) string {
	args := n.EffectiveArgs()
	if len(args) < 2 {
		return ""
	}
	return args[1]
}

func TestParseShellHostile(t *testing.T) {
	tests := []struct {
		name string
		src  string
	}{
		{"unterminated quote", "echo \"abc\nkubectl get"},
		{"garbage", "}}}{{{ ;;; fi done"},
		{"huge", strings.Repeat("echo x\n", MaxFileBytes/6)},
		{"deep nesting", strings.Repeat("if true; then ", 500) + "echo" + strings.Repeat("; fi", 500)},
		{"template", "{{if .X}}echo a{{else}}echo b{{end}}"},
		{"nul bytes", "echo \x00\x00 x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ParseShell("h.sh", 1, tt.src)
			if len(s.Commands) > maxShellCommands {
				t.Errorf("%d commands, above the bound", len(s.Commands))
			}
		})
	}
}

// TestUnwrapArgs: wrappers and package runners give way to the program they
// run; a package manager's own commands stay.
func TestUnwrapArgs(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{"pnpm exec playwright test --project=chromium", "playwright"},
		{"npx --yes playwright test", "playwright"},
		{"npm exec -- jest --ci", "jest"},
		{"sudo -E timeout 300 npx cypress run", "cypress"},
		{"pnpm install --frozen-lockfile", "pnpm"},
		{"yarn test", "yarn"},
		{"python3 -m pytest -q", "pytest"},
	}
	for _, tt := range tests {
		if got := unwrapArgs(strings.Fields(tt.cmd)); len(got) == 0 || got[0] != tt.want {
			t.Errorf("unwrapArgs(%q) = %q, want it to start with %q", tt.cmd, got, tt.want)
		}
	}
}
