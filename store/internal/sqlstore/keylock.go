package sqlstore

import (
	"context"
	"fmt"
	"sync"
)

// KeyLocks are mutexes by key inside one process, whose waits end with the
// caller's context. The zero value is ready to use.
type KeyLocks struct {
	mu   sync.Mutex
	held map[int64]chan struct{} // closed when the holder releases
}

// Lock waits until key is free (or ctx is done) and takes it.
func (k *KeyLocks) Lock(ctx context.Context, key int64) (release func(), err error) {
	for {
		k.mu.Lock()
		if k.held == nil {
			k.held = map[int64]chan struct{}{}
		}
		ch, busy := k.held[key]
		if !busy {
			done := make(chan struct{})
			k.held[key] = done
			k.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					k.mu.Lock()
					delete(k.held, key)
					k.mu.Unlock()
					close(done)
				})
			}, nil
		}
		k.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for the lock of %d: %w", key, ctx.Err())
		}
	}
}
