// Package browser holds the dashboard's browser tests (build tag "browser",
// run by `make test-browser`): headless Chromium from the system's packages,
// driven with chromedp, signs in through the GitHub simulator, checks the
// charts, the Mermaid flowchart, a foreign installation's 404 and basic
// accessibility, and saves screenshots of the overview, repository, class
// and diagnosis pages.
package browser
