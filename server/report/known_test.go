package report

import (
	"strings"
	"testing"

	"github.com/polylane/polylane/causal/catalogue"
)

// TestKnownElsewhere: the comment and the explanation cite the public
// threads of the cause line's error family, and link only sources the
// shipped catalogue lists for that family, whatever the stored document
// says.
func TestKnownElsewhere(t *testing.T) {
	fam := catalogue.Default.Families()[0]
	d := loadFixture(t, "rollout-race")
	d.Chain.Mechanism.Family = fam.ID
	d.Chain.Mechanism.KnownElsewhere = []string{fam.Sources[0], "https://evil.example/sign-in"}
	out, err := Comment(d, Options{BotLogin: "polylane[bot]"})
	if err != nil {
		t.Fatal(err)
	}
	explained, err := Explain(d, Options{BotLogin: "polylane[bot]"})
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"comment": out, "explanation": explained} {
		if !strings.Contains(text, "Known elsewhere") || !strings.Contains(text, "]("+fam.Sources[0]+")") {
			t.Errorf("%s does not cite %s", name, fam.Sources[0])
		}
		if strings.Contains(text, "evil.example") {
			t.Errorf("%s links a source the catalogue does not list", name)
		}
	}
	d.Chain.Mechanism.Family = "no/such-family"
	if out, _ := Comment(d, Options{BotLogin: "polylane[bot]"}); strings.Contains(out, "Known elsewhere") {
		t.Error("an unknown family is cited")
	}
}
