// Package ghclient is the only code that talks to GitHub: installation clients
// (go-github v66 and ghinstallation), pagination, log downloads through the 302,
// rate-limit waits and typed errors.
package ghclient
