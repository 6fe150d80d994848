package githubtest

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v66/github"
)

// clientTimeout bounds requests of the convenience clients.
const clientTimeout = 30 * time.Second

// AppTransport returns a ghinstallation app (JWT) transport for the
// simulator's app, pointed at APIURL.
func (s *Server) AppTransport() (*ghinstallation.AppsTransport, error) {
	key := s.PrivateKeyPEM()
	if key == nil {
		return nil, fmt.Errorf("app transport: the simulator has no private key")
	}
	atr, err := ghinstallation.NewAppsTransport(http.DefaultTransport, s.AppID(), key)
	if err != nil {
		return nil, fmt.Errorf("app transport: %w", err)
	}
	atr.BaseURL = strings.TrimSuffix(s.APIURL(), "/")
	return atr, nil
}

// NewAppClient returns a go-github client authenticated as the app (JWT).
func (s *Server) NewAppClient() (*github.Client, error) {
	atr, err := s.AppTransport()
	if err != nil {
		return nil, err
	}
	return s.newClient(atr)
}

// NewInstallationClient returns a go-github client authenticated as an
// installation through ghinstallation, exactly as production code builds
// one: the token is exchanged on first use and cached.
func (s *Server) NewInstallationClient(installationID int64) (*github.Client, error) {
	atr, err := s.AppTransport()
	if err != nil {
		return nil, err
	}
	itr := ghinstallation.NewFromAppsTransport(atr, installationID)
	itr.BaseURL = atr.BaseURL
	return s.newClient(itr)
}

// NewTokenClient returns a go-github client that sends a fixed token (from
// InstallationToken or UserToken).
func (s *Server) NewTokenClient(token string) *github.Client {
	c, _ := s.newClient(http.DefaultTransport) // WithEnterpriseURLs cannot fail on the server's own URL
	return c.WithAuthToken(token)
}

func (s *Server) newClient(rt http.RoundTripper) (*github.Client, error) {
	c, err := github.NewClient(&http.Client{Transport: rt, Timeout: clientTimeout}).WithEnterpriseURLs(s.URL(), s.URL())
	if err != nil {
		return nil, fmt.Errorf("github client for %s: %w", s.URL(), err)
	}
	return c, nil
}
