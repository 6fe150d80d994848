package ruletrace

import (
	"slices"
	"testing"
)

// TestTraceRecordsAndSwitchesOff holds the three states of Allow: no trace
// allows everything and records nothing; a trace records each phrase once
// and refuses the phrases switched off; removing it restores the first.
func TestTraceRecordsAndSwitchesOff(t *testing.T) {
	if !Allow("error") {
		t.Fatal("without a trace a phrase must count")
	}
	tr := New(map[string]bool{"retrying": true})
	remove := Install(tr)
	for i := 0; i < 2; i++ { // recorded each time it is asked
		if !Allow("error") {
			t.Error("a phrase not switched off must count")
		}
	}
	if Allow("retrying") {
		t.Error("a phrase switched off must not count")
	}
	remove()
	if !Allow("retrying") {
		t.Error("after remove, a phrase must count again")
	}
	got := tr.Take()
	slices.Sort(got)
	if !slices.Equal(got, []string{"error", "retrying"}) {
		t.Errorf("recorded %q, want error and retrying once each", got)
	}
	if again := tr.Take(); len(again) != 0 {
		t.Errorf("Take did not forget: %q", again)
	}
}
