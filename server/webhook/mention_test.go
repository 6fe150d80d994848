package webhook_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/server/webhook"
)

func TestParseMentions(t *testing.T) {
	handles := []string{"polylane", "acme-polylane"}
	type cmd = jobs.Command
	tests := []struct {
		name, body string
		want       []cmd
	}{
		{"plain", "@polylane help", []cmd{{Name: "help"}}},
		{"args and case", "  @PolyLane  Why   is this   flaky?  ", []cmd{{Name: "why", Args: "is this flaky?"}}},
		{"alone asks for help", "@polylane", []cmd{{Name: "help"}}},
		{"colon after handle", "@polylane: mute abc-1 upstream outage", []cmd{{Name: "mute", Args: "abc-1 upstream outage"}}},
		{"other slug", "@acme-polylane explain", []cmd{{Name: "explain"}}},
		{"longer handle is someone else", "@polylane-dev help\n@polylanex help\n@polylane[bot] help", nil},
		{"mid-sentence", "thanks @polylane help me", nil},
		{"unknown word", "@polylane dance", []cmd{{Name: "dance"}}},
		{"not a word", "@polylane <script>", []cmd{{Name: "?"}}},
		{"several lines", "first\n@polylane explain\ntext\n@polylane rerun\r\n", []cmd{{Name: "explain"}, {Name: "rerun"}}},
		{"quoted", "> @polylane fix\n>@polylane rerun", nil},
		{"fenced backticks", "```\n@polylane fix\n```\n@polylane help", []cmd{{Name: "help"}}},
		{"fenced tildes, longer close", "~~~~ yaml\n@polylane fix\n~~~\n@polylane fix\n~~~~~\n@polylane explain", []cmd{{Name: "explain"}}},
		{"unclosed fence hides the rest", "```\n@polylane fix", nil},
		{"indented code", "    @polylane fix\n\t@polylane rerun", nil},
		{"three spaces are prose", "   @polylane help", []cmd{{Name: "help"}}},
		{"html comment", "<!--\n@polylane fix\n-->\n<!-- @polylane rerun -->\n@polylane explain", []cmd{{Name: "explain"}}},
		{"inline code is not a fence", "``` inline ``` text\n@polylane help", []cmd{{Name: "help"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := webhook.ParseMentions(tc.body, handles)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseMentions(%q) = %+v, want %+v", tc.body, got, tc.want)
			}
		})
	}
}

// TestParseMentionsBounds: hostile comments stay bounded.
func TestParseMentionsBounds(t *testing.T) {
	many := strings.Repeat("@polylane help\n", 100)
	if got := webhook.ParseMentions(many, []string{"polylane"}); len(got) != webhook.MaxCommands {
		t.Fatalf("%d commands from 100 lines, want %d", len(got), webhook.MaxCommands)
	}
	long := "@polylane why " + strings.Repeat("é", 5000)
	got := webhook.ParseMentions(long, []string{"polylane"})
	if len(got) != 1 || len(got[0].Args) > webhook.MaxCommandArgs || !strings.HasPrefix(got[0].Args, "é") || !strings.HasSuffix(got[0].Args, "é") {
		t.Fatalf("long question: %d bytes", len(got[0].Args))
	}
	if got := webhook.ParseMentions("\xff\xfe@polylane help\n@polylane \x00help", []string{"polylane"}); len(got) != 1 {
		t.Fatalf("invalid UTF-8: %+v", got)
	}
	if got := webhook.ParseMentions(strings.Repeat("x", 70000)+"\n@polylane help", []string{"polylane"}); len(got) != 0 {
		t.Fatalf("a command past the scan bound was read: %+v", got)
	}
}
