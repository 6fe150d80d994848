package dashboard_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/polylane/polylane/server/dashboard/dashboardtest"
)

// TestRequestsForOtherInstallationsData sends, as a user of installation
// 1001, requests shaped to reach installation 1002's data: its repository
// under other spellings (case, encoded slash, dot segments), its failure
// classes and cursors under a visible repository's path, its installation
// by query parameter. Each answer is 404 or 400, or a visible page that
// shows none of the other installation's classes.
func TestRequestsForOtherInstallationsData(t *testing.T) {
	e := newEnv(t, false)
	e.signIn()
	own, foreign := e.repo(0), e.repo(1)
	ownClasses := map[string]bool{}
	for _, list := range e.seeded.Failures[own.ID] {
		for _, f := range list {
			ownClasses[f.ClassID] = true
		}
	}
	var secrets []string // classes only the foreign repository has
	seen := map[string]bool{}
	for _, list := range e.seeded.Failures[foreign.ID] {
		for _, f := range list {
			if !ownClasses[f.ClassID] && !seen[f.ClassID] {
				seen[f.ClassID] = true
				secrets = append(secrets, f.ClassID)
			}
		}
	}
	if len(secrets) == 0 {
		t.Fatal("the foreign repository has no class of its own: the test proves nothing")
	}
	owner, name, _ := strings.Cut(foreign.FullName, "/")
	foreignDiagnosis := e.seeded.Diagnoses[foreign.ID][0]
	paths := []string{
		"/repos/" + strings.ToUpper(foreign.FullName),
		"/repos/" + url.PathEscape(foreign.FullName),
		"/repos/" + owner + "%2F" + name + "/diagnoses",
		"/repos/" + own.FullName + "/../../" + foreign.FullName,
		"/repos/" + own.FullName + "/classes/" + url.PathEscape(secrets[0]),
		"/repos/" + own.FullName + "/classes/..%2F..%2F" + foreign.FullName,
		fmt.Sprintf("/repos/%s/diagnoses/%d", strings.ToUpper(own.FullName), foreignDiagnosis),
		fmt.Sprintf("/repos/%s/diagnoses/%d%%00", own.FullName, foreignDiagnosis),
		fmt.Sprintf("/repos/%s/diagnoses/-%d", own.FullName, foreignDiagnosis),
		"/repos/" + own.FullName + "/diagnoses?cursor=" + url.QueryEscape(fmt.Sprintf("2099-01-01T00:00:00Z/%d", foreignDiagnosis)),
		"/repos/" + own.FullName + "/classes/" + url.PathEscape(secrets[0]) + "?cursor=AAAA",
		fmt.Sprintf("/?installation=%d", dashboardtest.FirstInstallationID+1),
		fmt.Sprintf("/installations/%d?installation=%d", dashboardtest.FirstInstallationID, dashboardtest.FirstInstallationID+1),
		fmt.Sprintf("/installations/0%d", dashboardtest.FirstInstallationID+1),
		fmt.Sprintf("/installations/%d.0", dashboardtest.FirstInstallationID+1),
	}
	for _, p := range paths {
		for _, prefix := range []string{"", "/api/v1"} {
			code, body := e.get(prefix + p)
			if code == http.StatusOK {
				for _, s := range secrets {
					if strings.Contains(body, s) && !strings.Contains(p, url.PathEscape(s)) {
						t.Errorf("GET %s%s (200) shows class %s of %s", prefix, p, s, foreign.FullName)
					}
				}
				if strings.Contains(body, foreign.FullName) {
					t.Errorf("GET %s%s (200) names %s", prefix, p, foreign.FullName)
				}
				continue
			}
			if code != http.StatusNotFound && code != http.StatusBadRequest {
				t.Errorf("GET %s%s = %d, want 404, 400 or a page of visible data (%.200s)", prefix, p, code, body)
			}
		}
	}
}
