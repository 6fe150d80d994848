package harness

import "testing"

func TestOwnRawPath(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"https://raw.githubusercontent.com/stripe/stripe-cli/master/scripts/install.sh", "scripts/install.sh"},
		{"https://raw.githubusercontent.com/Stripe/Stripe-CLI/v1.2/install.sh", "install.sh"},
		{"https://github.com/stripe/stripe-cli/raw/main/scripts/install.sh", "scripts/install.sh"},
		{"https://raw.githubusercontent.com/kubernetes-sigs/kustomize/master/hack/install_kustomize.sh", ""}, // another repository
		{"http://raw.githubusercontent.com/stripe/stripe-cli/master/install.sh", ""},                         // not https
		{"https://raw.githubusercontent.com/stripe/stripe-cli/master/../../etc/passwd", ""},
		{"https://raw.githubusercontent.com/stripe/stripe-cli/master", ""},
		{"https://example.com/stripe/stripe-cli/master/install.sh", ""},
		{"not a url", ""},
	} {
		if got := ownRawPath(tc.url, "stripe/stripe-cli"); got != tc.want {
			t.Errorf("ownRawPath(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}
