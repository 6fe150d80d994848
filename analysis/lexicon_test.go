package analysis

import (
	"fmt"
	"strings"
	"testing"
)

// TestVocabularyRejectsMistakes holds checkVocabulary: the shipped table is
// valid, and each kind of mistake in a table entry is reported with the
// family and word it is in.
func TestVocabularyRejectsMistakes(t *testing.T) {
	ok := word{text: "error", weight: 3}
	fam := func(name string, words ...word) wordFamily {
		return wordFamily{name: name, meaning: failureWords, words: words}
	}
	var many []word
	for i := range maxWords + 1 {
		many = append(many, word{text: fmt.Sprintf("w%03d", i), weight: 1})
	}
	tests := []struct {
		name string
		fams []wordFamily
		want string // "" when the table is valid
	}{
		{"shipped vocabulary", vocabulary, ""},
		{"valid table", []wordFamily{fam("a", ok), {name: "b", meaning: severeWords, words: []word{{text: "oom", weight: 2, bound: wholeWord}}}}, ""},
		{"empty text", []wordFamily{fam("a", ok, word{weight: 2})}, `family "a": a word has empty text`},
		{"one-byte text", []wordFamily{fam("a", word{text: "x", weight: 2})}, `word "x" is shorter than two bytes`},
		{"duplicate text in a family", []wordFamily{fam("a", ok, ok)}, `family "a": word "error" is already in family "a"`},
		{"duplicate text across families", []wordFamily{fam("a", ok), fam("b", ok)}, `family "b": word "error" is already in family "a"`},
		{"weight zero", []wordFamily{fam("a", word{text: "oops", weight: 0})}, `word "oops" has weight 0, outside 1 to 4`},
		{"weight above range", []wordFamily{fam("a", word{text: "oops", weight: maxWeight + 1})}, `word "oops" has weight 5, outside 1 to 4`},
		{"negative weight", []wordFamily{fam("a", word{text: "oops", weight: -1})}, `word "oops" has weight -1`},
		{"upper case", []wordFamily{fam("a", word{text: "Oops", weight: 1})}, `word "Oops" is not lower case`},
		{"unknown bound", []wordFamily{fam("a", word{text: "oops", weight: 1, bound: 4})}, `word "oops" has unknown bound 4`},
		{"family without a name", []wordFamily{fam("", ok)}, "a family has no name"},
		{"family declared twice", []wordFamily{fam("a", ok), fam("a", word{text: "fail", weight: 3})}, `family "a" is declared twice`},
		{"family without words", []wordFamily{fam("a")}, `family "a" has no words`},
		{"unknown meaning", []wordFamily{{name: "a", meaning: severeWords + 1, words: []word{ok}}}, `family "a" has unknown meaning 3`},
		{"more words than the matcher holds", []wordFamily{fam("a", many...)}, "129 words, more than the 128"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkVocabulary(tc.fams)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("checkVocabulary rejected a valid table: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("checkVocabulary accepted the table; want an error containing %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("checkVocabulary: %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
}

// TestBuildLexiconPanicsOnMistake: a table with a mistake never reaches the
// matcher.
func TestBuildLexiconPanicsOnMistake(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "empty text") {
			t.Fatalf("buildLexicon did not panic with the mistake: %v", r)
		}
	}()
	buildLexicon([]wordFamily{{name: "a", words: []word{{weight: 1}}}})
}

// TestLexiconMeanings checks that a family's meaning decides which sets its
// words join: severe words are infra too, failure words are neither.
func TestLexiconMeanings(t *testing.T) {
	lx := buildLexicon([]wordFamily{
		{name: "plain", meaning: failureWords, words: []word{{text: "error", weight: 3}}},
		{name: "net", meaning: infraWords, words: []word{{text: "refused", weight: 3}}},
		{name: "res", meaning: severeWords, words: []word{{text: "oom", weight: 2}}},
	})
	tests := []struct {
		text          string
		infra, severe bool
	}{
		{"error", false, false},
		{"refused", true, false},
		{"oom", true, true},
	}
	for _, tc := range tests {
		i := lx.id(tc.text)
		if got := lx.infra.has(i); got != tc.infra {
			t.Errorf("%q infra = %v, want %v", tc.text, got, tc.infra)
		}
		if got := lx.severe.has(i); got != tc.severe {
			t.Errorf("%q severe = %v, want %v", tc.text, got, tc.severe)
		}
	}
}

// TestLineClassesAreNamed: every line class but clsNone has a name of its
// own, which becomes a Result's Rule.
func TestLineClassesAreNamed(t *testing.T) {
	seen := map[string]lineClass{}
	for c := clsWarning; int(c) < len(classes); c++ {
		name := c.String()
		if name == "" {
			t.Errorf("line class %d has no name", c)
			continue
		}
		if other, ok := seen[name]; ok {
			t.Errorf("line classes %d and %d are both named %q", other, c, name)
		}
		seen[name] = c
	}
	if len(seen) != int(clsCompiler) {
		t.Errorf("%d named classes, want %d", len(seen), clsCompiler)
	}
}
