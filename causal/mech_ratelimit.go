package causal

// Mechanisms of rate limits of registries and the GitHub API.

var ruleRegistryRateLimit = rule{ExplainsTests: true, ID: "rate-limit/registry", Category: RateLimit, Catalogue: 7, Wide: true,
	Cause: res(`toomanyrequests`, `(?i)pull rate limit`, `(?i)429 Too Many Requests`, `(?i)status code 429`, `(?i)rate limit exceeded.*(docker|registry|pull)`),
	// A package registry's 429 in a package manager's wording is no
	// container pull: npm's registry, a Maven repository through Gradle,
	// crates.io refusing a publish, curl's or wget's download of a file
	// (their families say what happened).
	Not: res(`npm (?:ERR!|error) 429 Too Many Requests`, `Received status code 429 from server`, `published too many (?:new crates|crates|updates to existing crates)\b`,
		`curl: \(22\) The requested URL returned error: 429\b`, `HTTP request sent, awaiting response\.\.\. 429\b`),
	Producer: roleEmitter, Fix: fixRegistryAuth,
	Summary: "{emitter_desc} hit the container registry's pull rate limit: '{cause_short}'{cause_cite}. The pull is anonymous, and anonymous pulls share a small quota per runner IP address."}

var ruleGitHubRateLimit = rule{ID: "rate-limit/github-api", Category: RateLimit, Catalogue: 22, Wide: true, Catalogued: true,
	Cause:    res(`API rate limit exceeded`, `(?i)secondary rate limit`, `(?i)rate limit exceeded for`),
	Producer: roleEmitter, Fix: fixGitHubToken,
	Summary: "{emitter_desc} called the GitHub API without a token and hit the unauthenticated rate limit: '{cause_short}'{cause_cite}. That quota is shared by every job on the runner's IP address."}
