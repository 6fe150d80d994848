// Package narrator optionally words explanations and answers follow-up
// questions with an LLM (any OpenAI-compatible chat-completions endpoint:
// a hosted API, vLLM, Ollama, llama.cpp's server), strictly grounded in the
// stored diagnosis. It is off by default and never decides anything: the
// deterministic pipeline has already chosen the step, the class, the
// mechanism, the producer and the patch, and Polylane is just as correct
// without the narrator.
//
// Narrate words the summary and "why this fix" paragraphs of a comment;
// Answer answers an "@polylane why …" question. Every reply is checked by a
// pure validator (ValidateWording, ValidateAnswer): it may only mention
// files, lines, numbers, runs, commits, URLs, endpoints and evidence ids
// the diagnosis holds, must keep the facts the deterministic text states,
// and may hold no markdown structure, HTML or @mentions. It may link only
// to URLs Polylane built from the diagnosis's structured fields (the
// repository's runs, failing job, commits and cited files on GitHub); a
// URL that only a log line or a repository file holds may be named as
// inert text, never linked, since a hostile job can print any URL. On rejection,
// timeout, budget exhaustion or error the caller uses its deterministic
// text (for answers, DeterministicAnswer); nothing else changes.
//
// Untrusted text (logs, repository files, the question) reaches the model
// only inside a JSON data block whose tag carries a random id and that the
// encoding keeps from being closed early, with instructions that data is
// not instructions. The model has no tools or functions; its reply is only
// text, which the caller posts as a comment after rendering it with
// Markdown. Secrets are redacted from everything sent (Redact), log text is
// sent only when the repository opted in (Options.IncludeLogs), each
// request has a timeout, each installation a daily token budget (Ledger),
// and every request and its outcome are counted in Prometheus metrics on
// the registry the caller passes.
package narrator
