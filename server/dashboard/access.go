package dashboard

import (
	"context"
	"sync"
	"time"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/store"
)

// maxCachedGrants bounds the access cache; the oldest entries go first.
const maxCachedGrants = 10000

// viewer is who looks at a page: a signed-in user with what their token
// can access, or anyone in public mode.
type viewer struct {
	public  bool
	session session
	grant   ghclient.Grant
	csrf    string
}

// canSeeInstallation reports whether the viewer may see an installation.
// In public mode, an installation is visible through its public
// repositories, which the caller checks.
func (v *viewer) canSeeInstallation(id int64) bool {
	return v.public || v.grant.Installations[id]
}

// canSee reports whether the viewer may see a repository.
func (v *viewer) canSee(r store.Repository) bool {
	if r.Removed {
		return false
	}
	if v.public {
		return !r.Private
	}
	return v.grant.Installations[r.InstallationID] && v.grant.Repos[r.ID]
}

// cachedGrant is a ghclient.Grant and when it was read.
type cachedGrant struct {
	grant ghclient.Grant
	at    time.Time
}

// grantCache keeps each session's ghclient.Grant for a short time, so pages do not
// call GitHub on every request.
type grantCache struct {
	ttl   time.Duration
	now   func() time.Time
	fetch func(ctx context.Context, token string) (ghclient.Grant, error)

	mu      sync.Mutex
	entries map[string]cachedGrant
	loading map[string]*sync.Mutex
}

// get returns the session's ghclient.Grant, reading it from GitHub when it is not
// cached or is older than the TTL.
func (c *grantCache) get(ctx context.Context, s session) (ghclient.Grant, error) {
	c.mu.Lock()
	if e, ok := c.entries[s.ID]; ok && c.now().Sub(e.at) < c.ttl {
		c.mu.Unlock()
		return e.grant, nil
	}
	l := c.loading[s.ID]
	if l == nil {
		l = &sync.Mutex{}
		c.loading[s.ID] = l
	}
	c.mu.Unlock()

	// One read per session at a time: concurrent requests wait for it.
	l.Lock()
	defer l.Unlock()
	c.mu.Lock()
	if e, ok := c.entries[s.ID]; ok && c.now().Sub(e.at) < c.ttl {
		c.mu.Unlock()
		return e.grant, nil
	}
	c.mu.Unlock()
	g, err := c.fetch(ctx, s.Token)
	if err != nil {
		return ghclient.Grant{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evict()
	c.entries[s.ID] = cachedGrant{grant: g, at: c.now()}
	delete(c.loading, s.ID)
	return g, nil
}

// forget drops a session's ghclient.Grant (on sign-out).
func (c *grantCache) forget(sessionID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, sessionID)
}

// evict drops expired entries, and the oldest when the cache is full.
// Callers hold c.mu.
func (c *grantCache) evict() {
	if len(c.entries) < maxCachedGrants {
		return
	}
	oldest, oldestAt := "", time.Time{}
	for id, e := range c.entries {
		if c.now().Sub(e.at) >= c.ttl {
			delete(c.entries, id)
			continue
		}
		if oldest == "" || e.at.Before(oldestAt) {
			oldest, oldestAt = id, e.at
		}
	}
	if len(c.entries) >= maxCachedGrants {
		delete(c.entries, oldest)
	}
}
