package causal

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Mechanisms of time limits: kind, waits, go test and the job.

var ruleKindCreate = rule{ID: "timeout/kind-create", Category: Timeout, Catalogue: 35, Wide: true,
	Cause: res(`failed to create cluster`, `failed to init node with kubeadm`, `timed out waiting for the condition`,
		`could not find a log line that matches`, `couldn't initialize a Kubernetes cluster`),
	Harness: emitterIsKindCreate, Producer: roleEmitter, Fix: fixKindRecreate, Transient: true,
	Summary: "{emitter_desc} could not bring the kind control plane up: '{cause_short}'{cause_cite}. kubeadm waited for the kubelet and the API server and gave up; on a busy runner the node containers can start too slowly, and kind deletes them after the failure."}

var ruleWaitTooShort = rule{ID: "timeout/wait-too-short", Category: Timeout, Catalogue: 10, Wide: true, Catalogued: true,
	Cause: res(`timed out waiting for the condition`, `(INSTALLATION|UPGRADE) FAILED: (timed out|context deadline exceeded)`,
		`failed (pre|post)-install: timed out`, `timed out waiting for`, `context deadline exceeded`),
	// The Docker daemon's request to a registry that timed out is a
	// network failure, not a wait.
	Not:      res(`CrashLoopBackOff`, `Error response from daemon: (?:Get|Head) "?https://[^\s"]+"?: context deadline exceeded`),
	Producer: roleEmitter, Fix: fixRaiseTimeout,
	Summary: "{emitter_desc} gave up after {timeout_value}: '{cause_short}'{cause_cite}. On a cold CI cluster that bound is too tight for images to pull and pods to start.",
	Values:  map[string]summaryValue{"timeout_value": valueTimeout}}

var ruleGoTestTimeout = rule{ExplainsTests: true, ID: "timeout/go-test", Category: Timeout, Catalogue: 4, Wide: true,
	Cause:    res(`panic: test timed out after`),
	Harness:  goTestsOutranTheirBound,
	Producer: roleEmitter, Fix: fixGoTestTimeout,
	Summary: "{emitter_desc} ran past its test timeout and go test aborted it: '{cause_short}'{cause_cite}."}

var ruleJobLimit = rule{ID: "timeout/job-limit", Category: Timeout, Catalogue: 4, Wide: true,
	Cause: res(`has exceeded the maximum execution time of \d+ minutes`, `The action '?.*'? has timed out after \d+ minutes`,
		`^(##\[error\])?The operation was canceled\.?$`, `execution took longer than`),
	Producer: roleLimit, Fix: fixRaiseJobTimeout,
	Summary: "The run reached its time limit and was cancelled while {emitter_desc} was running: '{cause_short}'{cause_cite}."}

func valueTimeout(x *explainer) string {
	if v := timeoutValue(x.em.Node); v != "" {
		if _, err := strconv.Atoi(v); err == nil {
			return v + " s" // a bound in seconds (docker compose's --wait-timeout)
		}
		return v
	}
	return "its default timeout"
}

var (
	goTestAlarm   = regexp.MustCompile(`panic: test timed out after (\S+)`)
	goTestRunning = regexp.MustCompile(`^\s+(\S+) \(([0-9][0-9.a-zµ]*)\)\s*$`)
)

// goTestHangCases is the corpus case whose miss led to the hang check.
var goTestHangCases = []string{"scylladb/gocql"}

// goTestsOutranTheirBound holds when go test's alarm ended a run of tests
// that were each still making progress, not one test that never returned.
// Since Go 1.20 the alarm lists the tests still running with how long each
// has run (golang/go#23601). A test that ran for the whole bound hung: a
// longer -timeout only makes the run wait longer for the same goroutine dump
// (scylladb/gocql#341, fixed in the code under test by scylladb/gocql#344),
// so the failure is the test's, not the harness's time limit.
func goTestsOutranTheirBound(x *explainer) (finding, bool) {
	if x.leftOut(goTestHangCases) {
		return finding{}, true
	}
	lines := x.log.Lines
	for i, l := range lines {
		m := goTestAlarm.FindStringSubmatch(l.Text)
		if m == nil {
			continue
		}
		bound, err := time.ParseDuration(m[1])
		if err != nil || bound <= 0 {
			continue
		}
		for _, r := range lines[i+1 : min(len(lines), i+64)] {
			t := strings.TrimSpace(r.Text)
			if strings.HasPrefix(t, "goroutine ") {
				break
			}
			rm := goTestRunning.FindStringSubmatch(r.Text)
			if rm == nil {
				continue
			}
			if d, err := time.ParseDuration(rm[2]); err == nil && d >= bound*9/10 {
				return finding{}, false
			}
		}
	}
	return finding{}, true
}

func emitterIsKindCreate(x *explainer) (finding, bool) { return finding{}, kindCreate(x.em.Node) }
