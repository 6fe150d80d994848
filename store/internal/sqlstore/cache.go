package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/polylane/polylane/store"
)

// maxCacheKey bounds the length of a cache key.
const maxCacheKey = 512

// GetCacheEntry reads one entry of the GitHub response cache.
func (s *Records) GetCacheEntry(ctx context.Context, key string) (store.CacheEntry, error) {
	var e store.CacheEntry
	err := s.db.Read(ctx, func(tx Tx) error {
		return tx.QueryRow(ctx, `SELECT key, etag, body, updated_at FROM github_cache WHERE key = $1`, key).
			Scan(&e.Key, &e.ETag, &e.Body, at(&e.UpdatedAt))
	})
	if err != nil {
		return store.CacheEntry{}, fmt.Errorf("get cache entry %q: %w", key, err)
	}
	if e.Body == nil {
		e.Body = []byte{}
	}
	return e, nil
}

// PutCacheEntry stores an entry, replacing the one of the same key.
func (s *Records) PutCacheEntry(ctx context.Context, e store.CacheEntry) error {
	if e.Key == "" || len(e.Key) > maxCacheKey {
		return invalid("cache entry key %q: must be 1 to %d bytes", e.Key, maxCacheKey)
	}
	if e.Body == nil {
		e.Body = []byte{}
	}
	err := s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, `
INSERT INTO github_cache (key, etag, body, updated_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (key) DO UPDATE SET etag = excluded.etag, body = excluded.body, updated_at = excluded.updated_at`,
			e.Key, e.ETag, e.Body, s.clock())
		return err
	})
	if err != nil {
		return fmt.Errorf("put cache entry %q: %w", e.Key, err)
	}
	return nil
}

// PruneCache deletes the entries written before a time.
func (s *Records) PruneCache(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.db.Write(ctx, func(tx Tx) error {
		var err error
		n, err = tx.Exec(ctx, `DELETE FROM github_cache WHERE updated_at < $1`, norm(before))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune cache: %w", err)
	}
	return n, nil
}
