// Package githubtest is a GitHub simulator: a real HTTP server on loopback that
// serves scenario directories with GitHub's REST shapes, records every write, sends
// signed webhook deliveries and injects faults. Tests, the demo and benchmarks use it.
//
// # Starting it
//
//	sim, err := githubtest.Start(githubtest.Options{Scenarios: []string{dir}})
//	defer sim.Close()
//	client, err := sim.NewInstallationClient(installationID) // go-github v66 + ghinstallation
//
// Each scenario directory (contracts.md §1) becomes one repository of one
// installation. Options.ScenarioFS takes scenarios as file systems instead
// (the demo's embedded example, an fstest.MapFS). Stored run and job objects are served byte for byte; the
// repo/ tree is the content of the trigger run's head commit and of the
// default branch head, with git's own object names.
//
// # Base URLs
//
// The REST API is served under /api/v3/ (GitHub Enterprise Server's layout)
// and at the root. Clients should use APIURL(), "http://127.0.0.1:PORT/api/v3/":
// pass URL() or APIURL() to go-github's WithEnterpriseURLs, and APIURL()
// without its trailing slash to ghinstallation's BaseURL. OAuth pages
// (/login/oauth/authorize, /login/oauth/access_token) and the app-manifest
// form (/settings/apps/new) live at the root, as on GitHub Enterprise Server.
// Job-log redirects point at /_blob/… and contents' download_url at /_raw/…
// on the same server.
//
// # Authentication
//
// App endpoints (/app, /app/installations, /repos/{o}/{r}/installation)
// need an RS256 app JWT signed with the app's key. Repository endpoints need
// an installation token (from POST /app/installations/{id}/access_tokens,
// or InstallationToken) of the installation that has the repository, or a
// user token (OAuth, or UserToken) of a user who can see it: 401 without
// valid credentials, 404 for a repository the caller cannot see. Writes
// made with an installation token are attributed to "<slug>[bot]".
//
// # Permissions
//
// Each installation holds Options.Permissions (DefaultPermissions unless
// set; SetInstallationPermissions changes one installation's), and a token
// keeps the permissions it was issued with. Every repository endpoint
// refuses a token that lacks its permission as GitHub does: 403 "Resource
// not accessible by integration" with X-Accepted-GitHub-Permissions. A ref
// created or moved onto commits that change .github/workflows/ also needs
// workflows: write.
//
// # Calls, faults and rate limits
//
// Every request is recorded as a Call. Calls have a Kind: KindAPI for REST
// calls, KindToken for installation-token exchanges, KindBlob for log and
// raw-file downloads, KindWeb for OAuth and manifest pages. Call.APIIndex
// counts only KindAPI calls, and Fault.At refers to it, so the token
// exchange ghinstallation makes on its own and the download that follows a
// 302 never shift the index a test aims at; a Fault with Target KindToken or
// KindBlob fails those instead. Primary rate limits are kept per
// installation, per user and for the app JWT, as GitHub keeps them, with
// X-RateLimit-* headers on every API response; a 304 and GET /rate_limit
// do not count. ETags depend on the caller's token, as GitHub's do.
// Options.ContentPerMinute adds a secondary limit on an installation's
// writes; Options.TreeLimit bounds recursive tree listings (truncated).
package githubtest
