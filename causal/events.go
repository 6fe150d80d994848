package causal

import (
	"regexp"
	"strings"
)

// Event kinds: harness events the log shows before the cause line.
const (
	evWorkloadChanged = "workload-changed" // deployment/statefulset configured, patched, restarted
	evPodDeleted      = "pod-deleted"
	evRelease         = "release-changed" // helm upgraded / installed
	evGatePassed      = "gate-passed"     // kubectl wait: condition met
	evRolledOut       = "rolled-out"      // kubectl rollout status: successfully rolled out
	evCreated         = "created"         // resources created or applied
	evCRDApplied      = "crd-applied"
	evImagePull       = "image-pull"
	evContainerStart  = "container-start"
	evOOM             = "oom"
	evRetryAttempt    = "retry-attempt"
)

// event is one harness event seen in the log.
type event struct {
	Kind string
	Line logLine
	// Object names the resource (kind/name) when the line gives it.
	Object string
	// Resource and Name split Object for workload events.
	Resource string
	Name     string
}

type eventRule struct {
	kind string
	re   *regexp.Regexp
}

var eventRules = []eventRule{
	{evWorkloadChanged, regexp.MustCompile(`^((deployment|statefulset|daemonset)\.apps|deployment|statefulset|daemonset)/(\S+) (configured|patched|restarted|image updated|env updated|resource requirements updated|serverside-applied)\b`)},
	{evPodDeleted, regexp.MustCompile(`^pod "?([^"\s]+)"? deleted`)},
	{evRelease, regexp.MustCompile(`^Release "([^"]+)" has been (upgraded|rolled back)`)},
	{evGatePassed, regexp.MustCompile(`^(\S+/\S+) condition met$`)},
	{evRolledOut, regexp.MustCompile(`successfully rolled out|partitioned roll out complete|roll out complete`)},
	{evCRDApplied, regexp.MustCompile(`^customresourcedefinition\.apiextensions\.k8s\.io/(\S+) (created|configured|serverside-applied)`)},
	{evCreated, regexp.MustCompile(`^(\S+)/(\S+) (created|serverside-applied)$`)},
	{evImagePull, regexp.MustCompile(`Pulling image|Pulling from |Pulling fs layer|Pulling \S+ \.\.\.`)},
	{evContainerStart, regexp.MustCompile(`^Container \S+ +Started|^Starting \S+ service container|^Creating \S+ \.\.\. done|^[0-9a-f]{64}$`)},
	{evOOM, regexp.MustCompile(`(?i)Out of memory: Killed process|oom-kill|OOMKilled|invoked oom-killer`)},
	{evRetryAttempt, regexp.MustCompile(`(?i)\b(attempt|retry|retrying)\b.*\d+\s*/\s*\d+|\bretrying in\b|\bRetrying \(Retry\(`)},
}

var workloadKinds = map[string]string{
	"deployment.apps": "deployment", "statefulset.apps": "statefulset", "daemonset.apps": "daemonset",
	"deployment": "deployment", "statefulset": "statefulset", "daemonset": "daemonset",
}

// scanEvents classifies the lines of the failing step before the cause.
func scanEvents(lines []logLine) []event {
	var out []event
	for _, l := range lines {
		text := strings.TrimSpace(l.Text)
		if text == "" || len(text) > 1000 {
			continue
		}
		for _, r := range eventRules {
			m := r.re.FindStringSubmatch(text)
			if m == nil {
				continue
			}
			ev := event{Kind: r.kind, Line: l}
			switch r.kind {
			case evWorkloadChanged:
				ev.Resource, ev.Name = workloadKinds[m[1]], m[3]
				ev.Object = ev.Resource + "/" + ev.Name
			case evPodDeleted:
				ev.Resource, ev.Name, ev.Object = "pod", m[1], "pod/"+m[1]
			case evGatePassed:
				ev.Object = m[1]
			case evRelease:
				ev.Resource, ev.Name, ev.Object = "release", m[1], "release/"+m[1]
			case evCRDApplied:
				ev.Object = "crd/" + m[1]
			case evCreated:
				ev.Object = m[1] + "/" + m[2]
			}
			out = append(out, ev)
			break
		}
	}
	return out
}

// ofKind returns the events of the given kinds.
func ofKind(evs []event, kinds ...string) []event {
	var out []event
	for _, e := range evs {
		for _, k := range kinds {
			if e.Kind == k {
				out = append(out, e)
				break
			}
		}
	}
	return out
}
