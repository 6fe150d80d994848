package sqlite

import (
	"context"
	"fmt"
)

// LockRepository takes the repository's lock inside this Store value: a
// SQLite database serves one process, whose workers share the Store.
func (s *Store) LockRepository(ctx context.Context, repositoryID int64) (func(), error) {
	release, err := s.locks.Lock(ctx, repositoryID)
	if err != nil {
		return nil, fmt.Errorf("lock repository %d: %w", repositoryID, err)
	}
	return release, nil
}
