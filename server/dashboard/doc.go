// Package dashboard serves the web dashboard and its JSON API; it reads only from
// the store.
package dashboard
