package storetest

import (
	"bytes"
	"testing"
	"time"

	"github.com/polylane/polylane/store"
)

// testSessions: a dashboard session is found by id until it is deleted;
// creating one clears the expired; what a session lacks is refused.
func testSessions(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	id := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	old := store.DashboardSession{ID: id(1), UserID: 7, Login: "octocat", CreatedAt: base, ExpiresAt: base.Add(8 * time.Hour)}
	must(t, s.CreateSession(ctx, old))
	got, err := s.GetSession(ctx, id(1))
	must(t, err)
	equal(t, "session", got, old)

	later := store.DashboardSession{ID: id(2), UserID: 7, Login: "octocat", CreatedAt: base.Add(9 * time.Hour),
		ExpiresAt: base.Add(17 * time.Hour)}
	must(t, s.CreateSession(ctx, later))
	_, err = s.GetSession(ctx, id(1))
	wantErr(t, err, store.ErrNotFound) // expired before the later one began

	must(t, s.DeleteSession(ctx, id(2)))
	_, err = s.GetSession(ctx, id(2))
	wantErr(t, err, store.ErrNotFound)
	must(t, s.DeleteSession(ctx, id(2)))
	_, err = s.GetSession(ctx, id(3))
	wantErr(t, err, store.ErrNotFound)

	for name, bad := range map[string]store.DashboardSession{
		"no id":           {UserID: 7, CreatedAt: base, ExpiresAt: base.Add(time.Hour)},
		"no user":         {ID: id(4), CreatedAt: base, ExpiresAt: base.Add(time.Hour)},
		"expired already": {ID: id(4), UserID: 7, CreatedAt: base, ExpiresAt: base},
	} {
		if err := s.CreateSession(ctx, bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	wantErr(t, s.CreateSession(ctx, store.DashboardSession{ID: id(4), UserID: 7, CreatedAt: base}), store.ErrInvalid)
}
