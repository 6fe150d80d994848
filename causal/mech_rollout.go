package causal

// Mechanisms of rollout races: a readiness gate passed, or nothing waited, while workloads rolled out.

var ruleGatePassedOnOldPods = rule{ID: "rollout-race/gate-passed-on-old-pods", Category: RolloutRace, Catalogue: 9,
	Cause: res(resetLike...), Events: [][]string{{evWorkloadChanged, evPodDeleted, evRelease}, {evGatePassed}},
	Endpoint: endpointLocal, Harness: (*explainer).gateAfterChange, Producer: roleGate, Fix: fixRolloutStatus,
	Summary: "{changer} changes the pod templates of {workloads}, so they roll out again{changes_cite}. The gate `{gate_cmd}` then passes at once{gate_cite}: a Deployment is Available while its old pods still serve, so the gate says nothing about the rollout. The next call, {emitter_desc}, reached {endpoint} while the server behind it was restarting and failed with '{cause_short}'{cause_cite}.",
	Values:  map[string]summaryValue{"changer": valueChanger, "workloads": valueWorkloads, "changes_cite": valueChangesCite, "gate_cmd": valueGateCmd, "gate_cite": valueGateCite}}

var ruleNoWaitAfterChange = rule{ID: "rollout-race/no-wait-after-change", Category: RolloutRace, Catalogue: 9,
	Cause: res(resetLike...), Events: [][]string{{evWorkloadChanged, evPodDeleted, evRelease}},
	Endpoint: endpointLocal, Harness: (*explainer).changeWithoutWait, Producer: roleTrigger, Fix: fixRolloutStatus,
	Summary: "{changer} restarts {workloads}{changes_cite} and nothing waits for the rollout to finish. The next call, {emitter_desc}, reached {endpoint} while the pods were being replaced and failed with '{cause_short}'{cause_cite}.",
	Values:  map[string]summaryValue{"changer": valueChanger, "workloads": valueWorkloads, "changes_cite": valueChangesCite}}

// Summary values of the rollout rules.

func valueChanger(x *explainer) string   { return changerWords(x.find.Changes) }
func valueWorkloads(x *explainer) string { return workloadWords(x.find.ChangeEvents) }
func valueChangesCite(x *explainer) string {
	return cite(x.ids["changes"]...)
}
func valueGateCite(x *explainer) string { return cite(x.ids["gate"]...) }

func valueGateCmd(x *explainer) string {
	if g := x.find.Gate; g != nil {
		return clipWords(firstLineOf(g.Cmd.Raw), 140)
	}
	return "the readiness gate"
}
