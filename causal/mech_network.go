package causal

// Mechanisms of transient network failures: apt mirrors, fetches, local connections.

// resetLike are the ways a dropped or refused connection reads.
var resetLike = []string{
	`(?i)connection reset by peer`, `\bECONNRESET\b`, `(?i)unexpected EOF`, `(?i)http2: client connection lost`,
	`(?i)TLS handshake timeout`, `(?i)connection refused`, `\bECONNREFUSED\b`, `Unable to connect to the server`,
	`The connection to the server \S+ was refused`, `(?i)\bEOF\b`, `(?i)i/o timeout`, `(?i)broken pipe`,
	`(?i)server closed idle connection`, `(?i)no route to host`,
}

var ruleAptNetwork = rule{ID: "transient-network/apt", Category: TransientNetwork, Catalogue: 14, Catalogued: true,
	Cause: res(`Hash Sum mismatch`, `Mirror sync in progress`, `E: Failed to fetch`, `Some index files failed to download`,
		`Unable to fetch some archives`, `Temporary failure resolving`),
	Producer: roleEmitter, Fix: fixAptRetries, Transient: true,
	Summary: "{emitter_desc} fetched from an apt mirror that answered inconsistently or not at all: '{cause_short}'{cause_cite}. apt tried only its default number of times."}

var ruleFetchNetwork = rule{ID: "transient-network/fetch", Category: TransientNetwork, Catalogue: 3,
	Catalogued: true,
	Cause: append(res(resetLike...), res(`\bETIMEDOUT\b`, `\bEAI_AGAIN\b`, `ReadTimeoutError`, `Read timed out`,
		`Could not transfer artifact`, `Transfer failed for`, `Could not (GET|HEAD) '?https?://`,
		`Client\.Timeout exceeded`, `Could not resolve host`, `Temporary failure in name resolution`,
		`no such host`, `server misbehaving`, `curl: \((6|7|18|28|35|52|56)\)`, `SSL_ERROR_SYSCALL`,
		`transfer closed with outstanding read data`, `the remote end hung up unexpectedly`, `early EOF`,
		`RPC failed`, `HTTP/2 stream \d+ was not closed cleanly`, `\b(502 Bad Gateway|503 Service Unavailable|504 Gateway Time-?out)\b`,
		`npm ERR! network`, `(?i)network request to .* failed`, `Retrying \(Retry\(total=`, `Connection aborted`,
		`received unexpected HTTP status: 5\d\d`, `(?i)\b(500|502|503|504)\b.*(registry|proxy|repository)`,
		`reading https://proxy\.golang\.org`,
		`verifying module: .*(?:Get|reading) "?https://\S+"?: (?:dial tcp|net/http|read tcp|unexpected EOF|5\d\d )`, `Failed to download archive`,
		`The requested URL returned error: 5\d\d`,
		// requests' HTTPError ("503 Server Error: Backend is unhealthy for
		// url: https://pypi.org/…"), raised by raise_for_status()
		`\b50[0234] Server Error: .* for url: https?://`, `Empty reply from server`, `Failed to connect to \S+ port \d+`,
		`(?i)error: RPC failed`, `(?i)Connection timed out`, `(?i)Network is unreachable`,
		`error NU1301:`, `Unable to load the service index for source`)...),
	// Maven Central's 429 comes through the same transfer error: it is a
	// rate limit, not a network failure. Bintray and JCenter were shut down
	// (2021-2022), and so was CentOS's mirror list for its retired releases
	// (CentOS 8 in 2022, CentOS 7 in 2024): their errors last, whatever the
	// status code or the resolver says.
	Not: res(`status code: 429, reason phrase`, `has hit the rate limit with Maven Central`,
		`Could not (?:GET|HEAD) 'https://(?:dl|jcenter)\.bintray\.com/`, `Could not retrieve mirrorlist http://mirrorlist\.centos\.org/`),
	Endpoint: endpointRemote, Producer: roleEmitter, Fix: fixNetworkRetry, Transient: true,
	Summary: "{emitter_desc} fetched from {endpoint} and the transfer failed with a transient network error: '{cause_short}'{cause_cite}. {retry_note}",
	Values:  map[string]summaryValue{"retry_note": valueRetryNote}}

var ruleLocalNetwork = rule{ID: "transient-network/local", Category: TransientNetwork, Catalogue: 2,
	Cause: res(resetLike...), Producer: roleEmitter, Fix: fixNetworkRetry, Transient: true,
	Summary: "{emitter_desc} lost its connection to {endpoint} with '{cause_short}'{cause_cite}, and the log shows no restart the harness caused. {retry_note}",
	Values:  map[string]summaryValue{"retry_note": valueRetryNote}}

func valueRetryNote(x *explainer) string { return x.retryNote() }
