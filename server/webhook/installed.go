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
// found installed, with what the delivery said of the repository then, so
// that a burst of deliveries reads the store once, and a delivery that says
// something new of the repository (its name, default branch or visibility)
// reads it again and updates it.
type installedCache struct {
	mu    sync.Mutex
	now   func() time.Time
	m     map[[2]int64]time.Time // expiry
	facts map[[2]int64]repoFacts // what the repository was when remembered
}

// repoFacts are the fields of a repository the store keeps from deliveries.
type repoFacts struct {
	fullName      string
	defaultBranch string
	private       bool
}

func (c *installedCache) ok(installation int64, rp repoPayload) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := [2]int64{installation, rp.ID}
	exp, found := c.m[key]
	f := c.facts[key]
	return found && c.now().Before(exp) && f.fullName == rp.FullName && f.private == rp.Private &&
		(rp.DefaultBranch == "" || f.defaultBranch == rp.DefaultBranch)
}

func (c *installedCache) remember(installation int64, rp repoPayload) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.facts == nil || len(c.m) >= maxInstalled {
		c.m, c.facts = map[[2]int64]time.Time{}, map[[2]int64]repoFacts{}
	}
	key := [2]int64{installation, rp.ID}
	c.m[key] = c.now().Add(installedTTL)
	c.facts[key] = repoFacts{fullName: rp.FullName, defaultBranch: rp.DefaultBranch, private: rp.Private}
}

// forget drops everything: an installation or a repository changed.
func (c *installedCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m, c.facts = nil, nil
}
