package analysis

// vocabulary is the log engine's error vocabulary: the words that make a line
// worth classifying, grouped in word families by the kind of failure they
// speak of. The per-line prefilter (lexicon.go) is built from this table once,
// when the package is initialised; checkVocabulary says what a valid entry
// is, and TestVocabularyRejectsMistakes holds it.
//
// A new kind of failure wording is one word family here. A word's weight says
// how strongly it speaks of a failure by itself; the ordered rules (rules.go)
// refine what the line is. Words are matched case-insensitively (ASCII)
// anywhere in a line unless their bound says otherwise. These are not the
// error families of causal/catalogue, which name one tool's wording of a
// failure and its mechanism category; this vocabulary decides which lines the
// log engine weighs as causes at all.
var vocabulary = []wordFamily{
	{name: "failure", meaning: failureWords, words: []word{
		{text: "error", weight: 3},
		{text: "fail", weight: 3},
		{text: "fatal", weight: 3},
		{text: "panic", weight: 3},
		{text: "exception", weight: 3},
		{text: "traceback", weight: 3},
		{text: "abort", weight: 2},
		{text: "crash", weight: 2},
		{text: "not ok", weight: 2, bound: wholeWord}, // TAP
		{text: "problem", weight: 1, bound: wholeWord},
		{text: "broken", weight: 1, bound: wholeWord},
	}},
	{name: "inability", meaning: failureWords, words: []word{
		{text: "cannot", weight: 2},
		{text: "can't", weight: 2},
		{text: "could not", weight: 2},
		{text: "couldn't", weight: 2},
		{text: "unable to", weight: 2},
	}},
	{name: "refusal", meaning: failureWords, words: []word{
		{text: "refusing", weight: 2},
		{text: "permission", weight: 1},
	}},
	{name: "absence", meaning: failureWords, words: []word{
		{text: "not found", weight: 2},
		{text: "does not exist", weight: 2},
		{text: "doesn't exist", weight: 2},
		{text: "undefined", weight: 2},
		{text: "unresolved", weight: 2},
		{text: "missing", weight: 1, bound: wholeWord},
	}},
	{name: "contract", meaning: failureWords, words: []word{
		{text: "assert", weight: 2},
		{text: "unexpected", weight: 2},
		{text: "illegal", weight: 2},
		{text: "invalid", weight: 1},
		{text: "expected", weight: 1},
		{text: "mismatch", weight: 1},
		{text: "violation", weight: 1},
		{text: "incompatible", weight: 1},
		{text: "not supported", weight: 1},
		{text: "conflict", weight: 1},
	}},
	{name: "limit", meaning: failureWords, words: []word{
		{text: "timeout", weight: 2},
		{text: "exceeded", weight: 2},
	}},
	{name: "termination", meaning: failureWords, words: []word{
		{text: "sigint", weight: 2},
		{text: "sigterm", weight: 2},
		{text: "cancel", weight: 1},
	}},
	{name: "exit status", meaning: failureWords, words: []word{
		{text: "exit code", weight: 1, inName: true},
		{text: "exit status", weight: 1, inName: true},
		{text: "exited with", weight: 1, inName: true},
		{text: "non-zero", weight: 1},
	}},
	{name: "warnings as errors", meaning: failureWords, words: []word{
		{text: "werror", weight: 3, bound: wordEnd, inName: true}, // "-Werror"
		{text: "treated as error", weight: 3, inName: true},
	}},
	{name: "test marks", meaning: failureWords, words: []word{
		{text: "\u2717", weight: 3},  // ✗
		{text: "\u2716", weight: 3},  // ✖
		{text: "\u2715", weight: 3},  // ✕
		{text: "\u2718", weight: 3},  // ✘ (Playwright's failed test)
		{text: "\u274c", weight: 3},  // ❌
		{text: "\u00d7 ", weight: 2}, // ×
	}},
	{name: "network", meaning: infraWords, words: []word{
		{text: "reset by peer", weight: 3},
		{text: "refused", weight: 3},
		{text: "econn", weight: 3, bound: wordStart}, // ECONNRESET, ECONNREFUSED
		{text: "etimedout", weight: 3, bound: wordStart},
		{text: "enotfound", weight: 3, bound: wordStart},
		{text: "eai_again", weight: 3, bound: wordStart},
		{text: "unreachable", weight: 2},
		// Go's net and net/http errors ("net/http: TLS handshake timeout",
		// "dial tcp 1.2.3.4:443: i/o timeout"), as curl, OpenSSL and the
		// JVM also word a handshake that failed or stalled
		{text: "tls handshake", weight: 3},
		{text: "i/o timeout", weight: 3},
	}},
	{name: "time limit", meaning: infraWords, words: []word{
		{text: "timed out", weight: 3},
		{text: "took >", weight: 3},
		{text: "took more than", weight: 3},
		{text: "took longer than", weight: 3},
		{text: "time limit", weight: 3},
		{text: "deadline exceeded", weight: 3},
	}},
	{name: "rate limit", meaning: infraWords, words: []word{
		{text: "rate limit", weight: 3},
		{text: "too many requests", weight: 3},
		{text: "toomanyrequests", weight: 3},
	}},
	{name: "access", meaning: infraWords, words: []word{
		{text: "denied", weight: 3},
		{text: "unauthorized", weight: 2},
		{text: "forbidden", weight: 2},
	}},
	{name: "missing file", meaning: infraWords, words: []word{
		{text: "no such ", weight: 3}, // "No such file or directory"
		// Python's import system and `python -m` name a module that is not
		// installed ("/…/bin/python: No module named tox")
		{text: "no module named", weight: 3},
	}},
	{name: "killed", meaning: infraWords, words: []word{
		{text: "killed", weight: 2, bound: wholeWord},
	}},
	{name: "exhausted resource", meaning: severeWords, words: []word{
		{text: "out of memory", weight: 3},
		{text: "outofmemory", weight: 3}, // java.lang.OutOfMemoryError
		{text: "heap space", weight: 3},  // "Java heap space", "JVM heap space is exhausted"
		{text: "oom", weight: 2, bound: wholeWord},
		{text: "no space left", weight: 3},
	}},
	{name: "crash signal", meaning: severeWords, words: []word{
		{text: "segmentation fault", weight: 4},
		{text: "core dumped", weight: 3},
		{text: "sigsegv", weight: 3},
		{text: "sigabrt", weight: 3},
		{text: "sigkill", weight: 2},
	}},
}

// wordFamily is one word family of the vocabulary: the words tools use for
// one kind of failure, and what finding one of them says about the line.
type wordFamily struct {
	name    string // unique, for messages and readers
	meaning meaning
	words   []word
}

// meaning is what a family's words say about a line beyond their weight.
type meaning uint8

const (
	// failureWords add their weight to the line's score and nothing more.
	failureWords meaning = iota
	// infraWords name a network, resource, permission or missing-file
	// failure: a line holding one, with no more specific shape, is classed
	// infra.
	infraWords
	// severeWords name a killed process or an exhausted resource. They are
	// infra words, and a wrapper line ("process didn't exit successfully: …
	// (signal: 9, SIGKILL: kill)") that holds one is read as a cause.
	severeWords
)

// word is one entry of an error family.
type word struct {
	text   string // lower case, at least two bytes, unique in the vocabulary
	weight int8   // minWeight to maxWeight
	bound  bound  // which sides of the word must not be letters
	// inName lets the word count inside a name token such as "-Werror";
	// other words found in a path, URL or file name do not count.
	inName bool
}

// Word weights: 1 hints at a failure ("invalid"), 4 states one by itself
// ("segmentation fault").
const (
	minWeight = 1
	maxWeight = 4
)

// bound says which sides of a word need a non-letter (or the line's edge).
type bound uint8

// Word bounds; the zero bound matches anywhere.
const (
	wordStart bound = 1 << 0 // "econn" in "ECONNRESET", not in "reconnect"
	wordEnd   bound = 1 << 1 // "werror" in "-Werror", not in "werrors"
	wholeWord       = wordStart | wordEnd
)
