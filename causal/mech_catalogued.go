package causal

// The catalogue rules: one per category whose families name no rule, tried
// after every specific rule
// and before the generic wrappers. Each recognises the catalogued error
// families of its category that feed no specific rule (causal/catalogue):
// the command that printed the line is the producer, and the family's
// wording says what happened.

var (
	ruleCataloguedRateLimit          = withFix(catalogued(RateLimit), fixRateLimitRetry)
	ruleCataloguedResourceExhaustion = catalogued(ResourceExhaustion)
	ruleCataloguedTimeout            = catalogued(Timeout)
	ruleCataloguedBuildFailure       = catalogued(BuildFailure)
)

// catalogued returns the catalogue rule of a category. Test and build
// failures are generic, as their wrapper rules are: a specific cause beside
// the cause line beats "a test failed".
func catalogued(c Category) rule {
	return rule{ID: string(c) + "/catalogued", Category: c, Wide: true, Catalogued: true, fallback: true,
		Generic:  c == TestFailure || c == BuildFailure,
		Producer: roleEmitter,
		Summary:  "{emitter_desc} failed with '{cause_short}'{cause_cite}: {family_what}.",
		Values:   map[string]summaryValue{"family_what": valueFamilyWhat}}
}

// withFix gives a catalogue rule the fix shape its mechanism has when the
// family names no recipe; the fix only helps a failure that comes and goes.
func withFix(r rule, f fixFunc) rule {
	r.Fix, r.Transient = f, true
	return r
}

// valueFamilyWhat says what the matched family's wording means.
func valueFamilyWhat(x *explainer) string {
	if x.family == nil {
		return "a failure of this kind"
	}
	return x.family.What
}
