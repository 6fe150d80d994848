package gha

import "testing"

func TestOnDefaultBranchRefusesForks(t *testing.T) {
	base := Repository{ID: 10, FullName: "acme/widgets"}
	fork := &Repository{ID: 99, FullName: "mallory/widgets"}
	same := &Repository{ID: 10, FullName: "acme/widgets"}
	cases := []struct {
		name string
		run  Run
		want bool
	}{
		{"push to main", Run{Event: "push", HeadBranch: "main", HeadRepository: same}, true},
		{"schedule on main", Run{Event: "schedule", HeadBranch: "main", HeadRepository: same}, true},
		{"dispatch on main", Run{Event: "workflow_dispatch", HeadBranch: "main", HeadRepository: same}, true},
		{"push without a head repository", Run{Event: "push", HeadBranch: "main"}, true},
		{"head repository by name only", Run{Event: "push", HeadBranch: "main", HeadRepository: &Repository{FullName: "ACME/widgets"}}, true},
		{"fork pull request from main", Run{Event: "pull_request", HeadBranch: "main", HeadRepository: fork}, false},
		{"fork pull_request_target from main", Run{Event: "pull_request_target", HeadBranch: "main", HeadRepository: fork}, false},
		{"base pull request from main", Run{Event: "pull_request", HeadBranch: "main", HeadRepository: same}, false},
		{"push event with a fork head", Run{Event: "push", HeadBranch: "main", HeadRepository: fork}, false},
		{"workflow_run of a fork's main", Run{Event: "workflow_run", HeadBranch: "main", HeadRepository: fork}, false},
		{"fork named by name", Run{Event: "push", HeadBranch: "main", HeadRepository: &Repository{FullName: "mallory/widgets"}}, false},
		{"push to another branch", Run{Event: "push", HeadBranch: "dev", HeadRepository: same}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := OnDefaultBranch(tc.run, base, "main"); got != tc.want {
				t.Fatalf("OnDefaultBranch = %v, want %v", got, tc.want)
			}
		})
	}
	if OnDefaultBranch(Run{Event: "push", HeadBranch: ""}, base, "") {
		t.Fatal("a run counts as the default branch's when the default branch is unknown")
	}
}
