package patch

import (
	"errors"
	"strings"
	"testing"
)

func TestInsertShell(t *testing.T) {
	tests := []struct {
		name    string
		site    Site
		after   bool
		cmds    []string
		comment string
		want    string
	}{
		{"taskfile after entry",
			Site{Host: HostTaskfile, Content: []byte("tasks:\n  a:\n    cmds:\n      - kubectl wait --for=x\n      - task: b\n"), Line: 4, EndLine: 4},
			true, []string{"kubectl rollout status deploy/x", "echo 'a: b'"}, "wait",
			"tasks:\n  a:\n    cmds:\n      - kubectl wait --for=x\n      # wait\n      - kubectl rollout status deploy/x\n      - 'echo ''a: b'''\n      - task: b\n"},
		{"makefile before recipe",
			Site{Host: HostMakefile, Content: []byte("a:\n\t$(K) get x\n"), Line: 2, EndLine: 2},
			false, []string{"for i in $(seq 1 3); do $(K) version && break; sleep $i; done"}, "ignored",
			"a:\n\tfor i in $$(seq 1 3); do $(K) version && break; sleep $$i; done\n\t$(K) get x\n"},
		{"script keeps indentation",
			Site{Host: HostScript, Content: []byte("f() {\n  kubectl apply -f x\n}\n"), Line: 2, EndLine: 2},
			false, []string{"kubectl wait --for=condition=Established crd --all"}, "",
			"f() {\n  kubectl wait --for=condition=Established crd --all\n  kubectl apply -f x\n}\n"},
		{"dockerfile gets RUN instructions",
			Site{Host: HostDockerfile, Content: []byte("FROM rust:1\nRUN apt-get update && \\\n    cargo build\n"), Line: 2, EndLine: 3},
			false, []string{"echo ready"}, "why",
			"FROM rust:1\n# why\nRUN echo ready\nRUN apt-get update && \\\n    cargo build\n"},
		{"inline run becomes a block",
			Site{Host: HostRun, Content: []byte("    steps:\n      - name: x\n        run: make deps\n"), Line: 3, EndLine: 3, RunKeyLine: 3},
			false, []string{"docker info"}, "",
			"    steps:\n      - name: x\n        run: |\n          docker info\n          make deps\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InsertShell(tt.site, tt.after, tt.cmds, tt.comment)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestWrapRetryRefusesDockerfile: a retry loop is never written inside a
// Dockerfile RUN instruction, where its lines would break the instruction.
func TestWrapRetryRefusesDockerfile(t *testing.T) {
	s := Site{Host: HostDockerfile, Content: []byte("FROM x\nRUN curl -fsSL https://example.org\n"), Line: 2, EndLine: 2}
	if _, err := WrapRetry(s, Retry{}); !errors.Is(err, ErrShape) {
		t.Errorf("err = %v, want ErrShape", err)
	}
}

func TestWrapRetry(t *testing.T) {
	tests := []struct {
		name string
		site Site
		want string
	}{
		{"taskfile single entry",
			Site{Host: HostTaskfile, Content: []byte("    cmds:\n      - 'helm repo add x https://x'\n"), Line: 2, EndLine: 2},
			"    cmds:\n      - |\n        for attempt in 1 2 3; do\n          helm repo add x https://x && exit 0\n" +
				"          echo \"helm repo x failed (attempt ${attempt}/3), retrying in $((attempt * 5))s\"\n          sleep $((attempt * 5))\n        done\n        exit 1\n"},
		{"script pipeline",
			Site{Host: HostScript, Content: []byte("set -e\nkubectl create x \\\n  | kubectl apply -f -\necho ok\n"), Line: 2, EndLine: 3},
			"set -e\nfor attempt in 1 2 3; do\n  if kubectl create x \\\n    | kubectl apply -f -; then break; fi\n" +
				"  if [ \"${attempt}\" -eq 3 ]; then exit 1; fi\n  echo \"helm repo x failed (attempt ${attempt}/3), retrying in $((attempt * 5))s\" >&2\n  sleep $((attempt * 5))\ndone\necho ok\n"},
		{"recipe",
			Site{Host: HostMakefile, Content: []byte("deps:\n\t@$(NPM) ci\n"), Line: 2, EndLine: 2},
			"deps:\n\t@for attempt in 1 2 3; do $(NPM) ci && exit 0; echo \"helm repo x failed (attempt $${attempt}/3), retrying in $$((attempt * 5))s\"; sleep $$((attempt * 5)); done; exit 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := WrapRetry(tt.site, Retry{Attempts: 3, Delay: 5, What: `helm repo "$x"`})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
	if _, err := WrapRetry(Site{Host: HostScript, Content: []byte("curl x # fetch\n"), Line: 1, EndLine: 1}, Retry{}); err == nil {
		t.Error("a statement ending in a comment must not be wrapped")
	}
	// a clean-up command runs between attempts, in each host's syntax
	cleanup := Retry{Attempts: 2, Delay: 10, What: "kind create cluster", Cleanup: "kind delete cluster --name $(CLUSTER)"}
	got, err := WrapRetry(Site{Host: HostMakefile, Content: []byte("up:\n\tkind create cluster --name $(CLUSTER) --wait 60s\n"), Line: 2, EndLine: 2}, cleanup)
	want := "up:\n\tfor attempt in 1 2; do kind create cluster --name $(CLUSTER) --wait 60s && exit 0; kind delete cluster --name $(CLUSTER) || true; " +
		"echo \"kind create cluster failed (attempt $${attempt}/2), retrying in $$((attempt * 10))s\"; sleep $$((attempt * 10)); done; exit 1\n"
	if err != nil || string(got) != want {
		t.Errorf("recipe with clean-up:\n%s\n%v", got, err)
	}
	got, err = WrapRetry(Site{Host: HostScript, Content: []byte("kind create cluster\n"), Line: 1, EndLine: 1}, Retry{Attempts: 2, Delay: 10, What: "kind", Cleanup: "kind delete cluster"})
	if err != nil || !strings.Contains(string(got), "  if [ \"${attempt}\" -eq 2 ]; then exit 1; fi\n  kind delete cluster || true\n") {
		t.Errorf("script with clean-up:\n%s\n%v", got, err)
	}
	if _, err := WrapRetry(Site{Host: HostScript, Content: []byte("kind create cluster\n"), Line: 1, EndLine: 1}, Retry{Cleanup: "rm -rf x\nreboot"}); err == nil {
		t.Error("a clean-up command of two lines must be refused")
	}
}

func TestAddArgsAndWords(t *testing.T) {
	content := []byte("a:\n\tgo test -count=1 ./...\n\tnpm ci --fetch-retries=2\n")
	got, err := AddArgs(content, 2, 2, "test", []string{"-p", "1"})
	if err != nil || !strings.Contains(string(got), "go test -p 1 -count=1 ./...") {
		t.Errorf("AddArgs = %q, %v", got, err)
	}
	if _, err := AddArgs(content, 3, 3, "ci", []string{"--fetch-retries=5"}); err == nil {
		t.Error("an argument already present must not be added again")
	}
	got, err = ReplaceWord(content, 2, 2, "-count=1", "-count=2")
	if err != nil || !strings.Contains(string(got), "-count=2") {
		t.Errorf("ReplaceWord = %q, %v", got, err)
	}
	got, err = PrefixCommand(content, 3, 3, "npm", "NODE_OPTIONS=--max-old-space-size=4096")
	if err != nil || !strings.Contains(string(got), "\tNODE_OPTIONS=--max-old-space-size=4096 npm ci") {
		t.Errorf("PrefixCommand = %q, %v", got, err)
	}
	if MakeEscape("$(NPM) x $$y ${HOME} $(seq 1 2)") != "$(NPM) x $$y ${HOME} $$(seq 1 2)" {
		t.Errorf("MakeEscape = %q", MakeEscape("$(NPM) x $$y ${HOME} $(seq 1 2)"))
	}
	if YAMLScalar("a: b") != "'a: b'" || YAMLScalar("plain text") != "plain text" || YAMLScalar("{{.X}} y") != "'{{.X}} y'" {
		t.Error("YAMLScalar quoting")
	}
}

func TestWorkflowShapes(t *testing.T) {
	wf := "jobs:\n  a:\n    steps:\n      - uses: actions/checkout@v4\n\n      - name: Build\n        run: make\n"
	got, err := InsertStep([]byte(wf), StepSpan{Line: 6, EndLine: 7, Column: 9}, []string{"name: Login", "uses: docker/login-action@v3", "with:", "  username: u"})
	want := "jobs:\n  a:\n    steps:\n      - uses: actions/checkout@v4\n\n      - name: Login\n        uses: docker/login-action@v3\n        with:\n          username: u\n\n      - name: Build\n        run: make\n"
	if err != nil || string(got) != want {
		t.Errorf("InsertStep:\n%s\n%v", got, err)
	}
	got, err = AddStepEnv([]byte(wf), StepSpan{Line: 6, EndLine: 7, Column: 9}, "GITHUB_TOKEN", "${{ github.token }}")
	if err != nil || !strings.HasSuffix(string(got), "run: make\n        env:\n          GITHUB_TOKEN: ${{ github.token }}\n") {
		t.Errorf("AddStepEnv:\n%s\n%v", got, err)
	}
	svc := "    services:\n      db:\n        image: postgres:16\n        ports: [5432]\n"
	got, err = SetOptions([]byte(svc), 2, 4, 7, 3, "--health-cmd pg_isready")
	if err != nil || !strings.Contains(string(got), "        image: postgres:16\n        options: >-\n          --health-cmd pg_isready\n") {
		t.Errorf("SetOptions:\n%s\n%v", got, err)
	}
	got, err = SetKeyValue([]byte("    timeout-minutes: 30 # keep\n"), 1, "timeout-minutes", "45")
	if err != nil || string(got) != "    timeout-minutes: 45 # keep\n" {
		t.Errorf("SetKeyValue = %q %v", got, err)
	}
}
