package history

import (
	"testing"
	"time"
)

func TestStepNoun(t *testing.T) {
	tests := []struct{ step, want string }{
		{"Provision Kind + Karmada environment", "provisioning"},
		{"Install dependencies", "dependency install"},
		{"Unit tests", "unit test"},
		{"Run Chainsaw e2e suites", "Chainsaw e2e suite"},
		{"Build", "build"},
		{"Verify", "verification"},
		{"Install", "install"},
		{"Publish", "publishing"},
		{"Initialize containers", "container initialization"},
		{"Migrate database", "database migration"},
		{"Start gateway", "gateway start"},
		{"Apply manifests", "manifest apply"},
		{"Lint Go code and manifests", "linting"},
		{"Configure cluster access now", "configuring"},
		{"Run actions/checkout@v4", ""},
		{"Run ./hack/ci.sh --all", ""},
		{"Set up job", "job set-up"}, {"Create cluster", "cluster creation"}, {"Set up Go", "Go"},
		{"Scan images for known issues", "scanning"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := StepNoun(tt.step); got != tt.want {
			t.Errorf("StepNoun(%q) = %q, want %q", tt.step, got, tt.want)
		}
	}
}

func TestWorkflowNoun(t *testing.T) {
	tests := []struct{ name, want string }{
		{"E2E Tests", "E2E"}, {"CI", "CI"}, {"Build and Test", "Build and Test"}, {"Release workflow", "Release"},
	}
	for _, tt := range tests {
		if got := WorkflowNoun(tt.name); got != tt.want {
			t.Errorf("WorkflowNoun(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCadence(t *testing.T) {
	w := Window{Branch: "main", Runs: 100, From: time.Date(2026, 10, 7, 3, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 4, 16, 0, 0, 0, time.UTC)}
	tests := []struct {
		count          int
		step, workflow string
		want           string
	}{
		{5, "Provision Kind + Karmada environment", "E2E Tests",
			"5 provisioning failures in the last 100 main E2E runs (2026-10-07 to 2026-11-04)"},
		{1, "Run ./ci.sh", "CI", "1 failure in “Run ./ci.sh” in the last 100 main CI runs (2026-10-07 to 2026-11-04)"},
	}
	for _, tt := range tests {
		if got := Cadence(tt.count, tt.step, tt.workflow, w); got != tt.want {
			t.Errorf("Cadence = %q, want %q", got, tt.want)
		}
	}
	one := Window{Branch: "dev", Runs: 1, From: w.To, To: w.To}
	if got, want := Cadence(1, "Unit tests", "", one), "1 unit test failure in the last 1 dev run (on 2026-11-04)"; got != want {
		t.Errorf("Cadence = %q, want %q", got, want)
	}
}
