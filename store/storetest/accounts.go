package storetest

import (
	"testing"

	"github.com/polylane/polylane/store"
)

func testInstallations(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	in := store.Installation{ID: 42, AccountLogin: "acme", AccountType: "Organization"}
	must(t, s.UpsertInstallation(ctx, in))
	got, err := s.GetInstallation(ctx, 42)
	must(t, err)
	if got.CreatedAt.IsZero() || !got.CreatedAt.Equal(got.UpdatedAt) {
		t.Fatalf("created_at %v / updated_at %v: both must be set and equal on insert", got.CreatedAt, got.UpdatedAt)
	}
	in.CreatedAt, in.UpdatedAt = got.CreatedAt, got.UpdatedAt
	equal(t, "installation", got, in)

	in.Suspended, in.AccountLogin = true, "acme-renamed"
	must(t, s.UpsertInstallation(ctx, in))
	got, err = s.GetInstallation(ctx, 42)
	must(t, err)
	if !got.Suspended || got.AccountLogin != "acme-renamed" || !got.CreatedAt.Equal(in.CreatedAt) {
		t.Fatalf("after update: %+v", got)
	}

	_, err = s.GetInstallation(ctx, 43)
	wantErr(t, err, store.ErrNotFound)
	wantErr(t, s.UpsertInstallation(ctx, store.Installation{ID: 0, AccountLogin: "x"}), store.ErrInvalid)
}

func testRepositories(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repos := []store.Repository{
		{ID: 3, InstallationID: 1, FullName: "acme/zeta", DefaultBranch: "main", Private: true},
		{ID: 1, InstallationID: 1, FullName: "acme/Alpha", DefaultBranch: "trunk"},
		{ID: 2, InstallationID: 2, FullName: "other/beta", DefaultBranch: "main"},
	}
	for _, r := range repos {
		must(t, s.UpsertRepository(ctx, r))
	}
	got, err := s.GetRepository(ctx, 3)
	must(t, err)
	if got.FullName != "acme/zeta" || !got.Private || got.DefaultBranch != "main" || got.CreatedAt.IsZero() {
		t.Fatalf("GetRepository(3) = %+v", got)
	}
	byName, err := s.GetRepositoryByName(ctx, "ACME/alpha")
	must(t, err)
	if byName.ID != 1 {
		t.Fatalf("GetRepositoryByName ignoring case = %+v, want id 1", byName)
	}
	// A removed repository yields to a live one of the same name.
	must(t, s.UpsertRepository(ctx, store.Repository{ID: 9, InstallationID: 1, FullName: "acme/alpha", Removed: true}))
	byName, err = s.GetRepositoryByName(ctx, "acme/alpha")
	must(t, err)
	if byName.ID != 1 {
		t.Fatalf("GetRepositoryByName preferred %+v over the live repository", byName)
	}

	tests := []struct {
		installation int64
		want         []int64
	}{
		{1, []int64{1, 9, 3}},
		{2, []int64{2}},
		{0, []int64{1, 9, 3, 2}},
		{77, nil},
	}
	for _, tc := range tests {
		list, err := s.ListRepositories(ctx, tc.installation)
		must(t, err)
		var ids []int64
		for _, r := range list {
			ids = append(ids, r.ID)
		}
		equal(t, "repositories of installation", ids, tc.want)
	}

	_, err = s.GetRepository(ctx, 404)
	wantErr(t, err, store.ErrNotFound)
	wantErr(t, s.UpsertRepository(ctx, store.Repository{ID: 5, FullName: "no-slash"}), store.ErrInvalid)
}
