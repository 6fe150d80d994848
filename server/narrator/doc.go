// Package narrator optionally words explanations and answers follow-up questions
// with an LLM (any OpenAI-compatible endpoint), strictly grounded in the stored
// evidence. It is off by default and never decides anything.
package narrator
