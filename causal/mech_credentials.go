package causal

// Mechanisms of credentials: certificates and refused or missing credentials.

var ruleCertificate = rule{ID: "credentials/certificate", Category: Credentials, Catalogue: 31,
	Cause:    res(`x509: certificate has expired or is not yet valid`, `SSL certificate problem`, `certificate verify failed`, `server certificate verification failed`),
	Not:      res(`failed calling webhook`),
	Producer: roleEmitter,
	Summary:  "{emitter_desc} did not trust the server's certificate: '{cause_short}'{cause_cite}. The CA bundle, the certificate or the clock is wrong; turning verification off is not a fix."}

var ruleDenied = rule{ID: "credentials/denied", Category: Credentials, Catalogue: 5, Catalogued: true,
	Cause: res(`Resource not accessible by integration`, `Bad credentials`, `HttpError: 40[13]`, `unauthorized: authentication required`,
		`denied: requested access to the resource is denied`, `could not read Username`, `Input required and not supplied`,
		`Credentials could not be loaded`, `\b401 Unauthorized\b`, `\b403 Forbidden\b`, `required env var \S+ is not set`,
		`(?i)permission denied \(publickey\)`, `invalid reference format`, `(?i)authentication failed`,
		`(?i)username and password required`, `Cannot perform an interactive login from a non TTY device`,
		`unauthorized: incorrect username or password`),
	Producer: roleEmitter,
	Summary:  "{emitter_desc} was refused for lack of credentials or permissions: '{cause_short}'{cause_cite}. A secret, token scope or variable the step needs is missing in this context.{secret_note}",
	Values:   map[string]summaryValue{"secret_note": valueSecretNote}}

func valueSecretNote(x *explainer) string { return x.secretNote() }
