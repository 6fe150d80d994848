package causal

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// An admission webhook answers with a certificate that its configuration
// does not trust yet: the webhook's pods are rolled out, but the CA that
// signed their certificate has not been injected into the webhook
// configuration's caBundle (cert-manager's cainjector does it after the
// webhook starts: cert-manager/cert-manager#3841, rook/rook#7955). A wait on
// the webhook's deployment (rollout status, condition=Available) passes
// before that, so the harness waited on the wrong object; scylla-operator's
// maintainers added a wait for the webhook's CA secret
// (scylladb/scylla-operator#626, #627).

// webhookCACases is the corpus case whose miss led to this rule.
var webhookCACases = []string{"scylladb/scylla-operator"}

// webhookUnknownAuthority reads the webhook's name from the API server's
// report.
var webhookUnknownAuthority = regexp.MustCompile(`failed calling webhook "([^"]+)".*x509: certificate signed by unknown authority`)

var ruleWebhookCANotInjected = rule{ID: "ordering/webhook-ca-not-injected", Category: Ordering, Catalogue: 8,
	Cause:    []*regexp.Regexp{webhookUnknownAuthority},
	Harness:  (*explainer).waitedOnWebhookPods,
	Producer: roleGate, Fix: fixWaitForCABundle, Cases: webhookCACases,
	Summary: "{emitter_desc} was refused by an admission webhook whose certificate its configuration did not trust yet: '{cause_short}'{cause_cite}. " +
		"The harness waited with {gate_desc}, which passes once the webhook's pods run; the CA that signed their certificate reaches the webhook configuration's caBundle later.",
	Values: map[string]summaryValue{"gate_desc": valueGateDesc}}

// valueGateDesc describes the wait that passed too early.
func valueGateDesc(x *explainer) string { return describe(x.find.Gate) }

// caWait reports whether a wait already checks a certificate, its secret
// or the caBundle, rather than pods.
var caWait = regexp.MustCompile(`(?i)\bsecrets?/|\bsecrets? [\w.-]|\bcertificates?(\.cert-manager\.io)?/|\bcertificates? [\w.-]|cabundle|cmctl check api`)

// waitedOnWebhookPods finds the last wait before the emitter, back to the
// command that installed what it waits on, when no command in between
// checks a certificate, its secret or the caBundle: the gate that passed too
// early. Without a wait the mechanism is ordering/not-yet-serving.
func (x *explainer) waitedOnWebhookPods() (finding, bool) {
	if x.tr == nil || x.em.Node == nil {
		return finding{}, false
	}
	var gate *harness.Node
	for i := x.tr.index[x.em.Node] - 1; i >= 0; i-- {
		n := x.tr.flat[i]
		if n.Kind != harness.NodeCommand {
			continue
		}
		if caWait.MatchString(n.Text) {
			return finding{}, false
		}
		if isStarter(n) {
			break
		}
		if gate == nil && n.Tool() != "sleep" && isWait(n) {
			gate = n
		}
	}
	return finding{Gate: gate}, gate != nil
}

// fixWaitForCABundle waits, before the refused command, until a webhook
// configuration that holds the refusing webhook has a caBundle: the object
// the API server checks the certificate against.
func fixWaitForCABundle(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil || (n.Tool() != "kubectl" && n.Tool() != "oc") {
		return nil, noFix("the refused command is not a kubectl call in the harness")
	}
	m := webhookUnknownAuthority.FindStringSubmatch(x.matched.Line.Text)
	if m == nil || !safeWebhookName(m[1]) {
		return nil, noFix("the webhook's name could not be read from the log")
	}
	get := fmt.Sprintf(`kubectl get mutatingwebhookconfigurations,validatingwebhookconfigurations -o jsonpath='{range .items[*].webhooks[?(@.name=="%s")]}{.clientConfig.caBundle}{end}'`, m[1])
	loop := fmt.Sprintf("for i in $(seq 1 60); do %s | grep -q . && break; sleep 2; done", get)
	site, out, err := insertBefore(x.facts, n, []string{loop}, fmt.Sprintf("The webhook %s serves before its CA is injected; wait up to 120s for its caBundle.", m[1]))
	if err != nil {
		return nil, err
	}
	rationale := fmt.Sprintf("The API server refused the webhook's certificate%s although %s had passed%s: that wait covers the webhook's pods, not the CA injected into its configuration. "+
		"The patch polls, for up to 120 s, until a webhook configuration holding %s has a caBundle, then the original command runs; a webhook that never gets one still fails.",
		cite(x.ids["cause"]...), describe(x.find.Gate), cite(x.ids["gate"]...), m[1])
	return &fixPlan{Title: "Wait for the webhook's CA before using it", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// safeWebhookName reports whether a webhook name from the log can go into
// a shell-quoted jsonpath: a DNS name.
func safeWebhookName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r == '.' || r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) < 0
}
