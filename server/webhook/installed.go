package webhook

import (
	"sync"
	"time"
)

// installedTTL is how long a repository found installed is trusted without
// reading the store again. Installation events handled by this process
// forget it at once; another replica's take effect within the TTL (a job
// started meanwhile fails on GitHub's permissions, visibly).
const installedTTL = 15 * time.Second

// maxInstalled bounds the memory of the cache; past it, it starts over.
const maxInstalled = 100_000

// installedCache remembers which (installation, repository) pairs were
// found installed, so that a burst of deliveries reads the store once.
type installedCache struct {
	mu  sync.Mutex
	now func() time.Time
	m   map[[2]int64]time.Time // expiry
}

func (c *installedCache) ok(installation, repo int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	exp, found := c.m[[2]int64{installation, repo}]
	return found && c.now().Before(exp)
}

func (c *installedCache) remember(installation, repo int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxInstalled {
		c.m = map[[2]int64]time.Time{}
	}
	c.m[[2]int64{installation, repo}] = c.now().Add(installedTTL)
}

// forget drops everything: an installation changed.
func (c *installedCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}
