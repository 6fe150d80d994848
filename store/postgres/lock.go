package postgres

import (
	"context"
	"fmt"
	"time"
)

// repoLockSpace sets the high bits of repository lock keys, apart from the
// migration lock and from GitHub's ids, which stay far below 2^48.
const repoLockSpace int64 = 0x5057 << 48 // "PW"

// LockRepository takes a session advisory lock on a connection of its own,
// so that every replica waits for it and a crashed holder's lock goes with
// its connection. release unlocks and returns the connection.
func (s *Store) LockRepository(ctx context.Context, repositoryID int64) (func(), error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock repository %d: acquire connection: %w", repositoryID, err)
	}
	key := repoLockSpace | repositoryID&(1<<48-1)
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, key); err != nil {
		// A cancelled wait may leave the session in doubt: drop it.
		_ = conn.Conn().Close(context.Background())
		conn.Release()
		return nil, fmt.Errorf("lock repository %d: %w", repositoryID, err)
	}
	released := false
	return func() {
		if released {
			return
		}
		released = true
		uctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, key); err != nil {
			// Closing the session releases every lock it holds.
			_ = conn.Conn().Close(uctx)
		}
		conn.Release()
	}, nil
}
