package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/riverqueue/river"

	"github.com/polylane/polylane/store"
)

// testArgs is the job the suite enqueues.
type testArgs struct {
	N int `json:"n"`
}

func (testArgs) Kind() string { return "storetest" }

// unmarshalableArgs fails inside River's InsertTx, after the row insert of the
// same transaction has succeeded.
type unmarshalableArgs struct {
	C chan int `json:"c"`
}

func (unmarshalableArgs) Kind() string { return "storetest_unmarshalable" }

func jobCount(t *testing.T, s store.Store) int64 {
	t.Helper()
	st, err := s.QueueStats(ctxFor(t))
	must(t, err)
	var n int64
	for _, c := range st.Jobs {
		n += c
	}
	return n
}

func testDeliveries(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	payload := []byte("{\"action\":\"completed\",\n \"x\": \"\\u00e9\"}\x00raw")
	d := store.Delivery{GUID: "guid-1", Event: "workflow_run", Action: "completed", InstallationID: 1,
		RepositoryID: 101, ReceivedAt: base, Payload: payload}
	dup, err := s.RecordDelivery(ctx, d, testArgs{N: 1}, nil)
	must(t, err)
	if dup {
		t.Fatal("first RecordDelivery reported a duplicate")
	}
	got, err := s.GetDelivery(ctx, "guid-1")
	must(t, err)
	if !bytes.Equal(got.Payload, payload) {
		t.Fatalf("payload = %q, want the bytes as received %q", got.Payload, payload)
	}
	d.State, d.UpdatedAt = store.DeliveryQueued, got.UpdatedAt
	equal(t, "delivery", got, d)
	if n := jobCount(t, s); n != 1 {
		t.Fatalf("jobs after one delivery = %d, want 1", n)
	}

	// The same GUID again: a duplicate, nothing enqueued, nothing changed.
	again := d
	again.Event, again.Payload = "push", []byte("{}")
	dup, err = s.RecordDelivery(ctx, again, testArgs{N: 2}, nil)
	must(t, err)
	if !dup {
		t.Fatal("second RecordDelivery of guid-1 was not reported as a duplicate")
	}
	if n := jobCount(t, s); n != 1 {
		t.Fatalf("jobs after a duplicate delivery = %d, want 1", n)
	}
	got, err = s.GetDelivery(ctx, "guid-1")
	must(t, err)
	if got.Event != "workflow_run" {
		t.Fatalf("duplicate overwrote the delivery: %+v", got)
	}

	must(t, s.SetDeliveryState(ctx, "guid-1", store.DeliveryFailed, "boom"))
	got, err = s.GetDelivery(ctx, "guid-1")
	must(t, err)
	if got.State != store.DeliveryFailed || got.Error != "boom" {
		t.Fatalf("after SetDeliveryState: %+v", got)
	}
	wantErr(t, s.SetDeliveryState(ctx, "guid-1", "lost", ""), store.ErrInvalid)
	wantErr(t, s.SetDeliveryState(ctx, "nope", store.DeliveryDone, ""), store.ErrNotFound)
	_, err = s.GetDelivery(ctx, "nope")
	wantErr(t, err, store.ErrNotFound)

	// A delivery with no job (an ignored event) and an empty payload.
	dup, err = s.RecordDelivery(ctx, store.Delivery{GUID: "guid-2", Event: "ping", State: store.DeliveryIgnored}, nil, nil)
	must(t, err)
	got, err = s.GetDelivery(ctx, "guid-2")
	must(t, err)
	if dup || got.State != store.DeliveryIgnored || got.Payload == nil || len(got.Payload) != 0 || got.ReceivedAt.IsZero() {
		t.Fatalf("ignored delivery: dup=%v %+v", dup, got)
	}
}

func testTransactionalEnqueue(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	failures := []struct {
		name string
		args river.JobArgs
		opts *river.InsertOpts
	}{
		{"arguments fail to encode", unmarshalableArgs{C: make(chan int)}, nil},
		{"insert options are invalid", testArgs{N: 1}, &river.InsertOpts{Queue: "no spaces allowed!"}},
	}
	for i, tc := range failures {
		guid := "rollback-" + string(rune('a'+i))
		_, err := s.RecordDelivery(ctx, store.Delivery{GUID: guid, Event: "workflow_run", Payload: []byte("{}")}, tc.args, tc.opts)
		if err == nil {
			t.Fatalf("%s: RecordDelivery succeeded, want an error", tc.name)
		}
		_, err = s.GetDelivery(ctx, guid)
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("%s: the delivery row survived the failed enqueue (GetDelivery error %v)", tc.name, err)
		}
	}
	if n := jobCount(t, s); n != 0 {
		t.Fatalf("jobs after failed deliveries = %d, want 0", n)
	}

	// Enqueue is all or none as well.
	err := s.Enqueue(ctx, store.Job{Args: testArgs{N: 1}}, store.Job{Args: unmarshalableArgs{C: make(chan int)}})
	if err == nil {
		t.Fatal("Enqueue with a bad second job succeeded")
	}
	if n := jobCount(t, s); n != 0 {
		t.Fatalf("jobs after a failed Enqueue = %d, want 0", n)
	}
	must(t, s.Enqueue(ctx, store.Job{Args: testArgs{N: 1}}, store.Job{Args: testArgs{N: 2}}))
	st, err := s.QueueStats(ctx)
	must(t, err)
	if st.Depth() != 2 || st.Running {
		t.Fatalf("queue stats after Enqueue = %+v, want depth 2 and not running", st)
	}
}

// testDeliveryPayloads stores payloads of every shape (the store may keep
// them compressed) through both write paths, some packed by the caller, and
// reads each back as it was given.
func testDeliveryPayloads(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	var big strings.Builder
	big.WriteString(`{"workflow_run":{"jobs":[`)
	for i := 0; big.Len() < 30_000; i++ {
		fmt.Fprintf(&big, `{"url":"https://api.github.com/repos/acme/widget/actions/jobs/%d","n":%d},`, 5_000_000+i, i)
	}
	big.WriteString(`{}]}}`)
	noise := make([]byte, 5000)
	for i := range noise {
		noise[i] = byte(i*7919 + i/13)
	}
	payloads := [][]byte{
		{},
		[]byte(`{}`),
		[]byte(big.String()),
		noise,
		append([]byte("\x00S2"), big.String()...),
		[]byte("\x00S2"),
	}
	var batch []store.DeliveryJob
	for i, p := range payloads {
		d := store.Delivery{GUID: fmt.Sprintf("single-%d", i), Event: "push", Payload: p}
		_, err := s.RecordDelivery(ctx, d, nil, nil)
		must(t, err)
		d.GUID = fmt.Sprintf("batch-%d", i)
		if i%2 == 0 {
			d.Packed = store.PackPayload(p) // packed by the caller
		}
		batch = append(batch, store.DeliveryJob{Delivery: d})
	}
	_, err := s.RecordDeliveries(ctx, batch)
	must(t, err)
	for i, p := range payloads {
		for _, guid := range []string{fmt.Sprintf("single-%d", i), fmt.Sprintf("batch-%d", i)} {
			got, err := s.GetDelivery(ctx, guid)
			must(t, err)
			if !bytes.Equal(got.Payload, p) {
				t.Errorf("%s: read back %d bytes that differ from the %d recorded", guid, len(got.Payload), len(p))
			}
		}
	}
}

// testDeliveryReplays: a delivery is known by its body hash as well as by
// its GUID. A stored hash under a new GUID is a duplicate, alone or in a
// batch, and enqueues nothing; deliveries without a hash never collide.
func testDeliveryReplays(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	h1, h2 := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	d := func(guid string, hash []byte) store.Delivery {
		return store.Delivery{GUID: guid, Event: "installation", Payload: []byte(`{"action":"suspend"}`), BodyHash: hash}
	}
	dup, err := s.RecordDelivery(ctx, d("h-1", h1), testArgs{N: 1}, nil)
	must(t, err)
	if dup {
		t.Fatal("first delivery of a body reported a duplicate")
	}
	got, err := s.GetDelivery(ctx, "h-1")
	must(t, err)
	equal(t, "stored body hash", got.BodyHash, h1)
	dup, err = s.RecordDelivery(ctx, d("h-replayed", h1), testArgs{N: 2}, nil)
	must(t, err)
	if !dup {
		t.Fatal("a stored body under a new GUID was not a duplicate")
	}
	_, err = s.GetDelivery(ctx, "h-replayed")
	wantErr(t, err, store.ErrNotFound)

	dups, err := s.RecordDeliveries(ctx, []store.DeliveryJob{
		{Delivery: d("h-2", h1), Args: testArgs{N: 3}},
		{Delivery: d("h-3", h2), Args: testArgs{N: 4}},
		{Delivery: d("h-4", h2), Args: testArgs{N: 5}},
		{Delivery: d("h-5", nil), Args: testArgs{N: 6}},
		{Delivery: d("h-6", nil)},
	})
	must(t, err)
	equal(t, "duplicates by body hash in a batch", dups, []bool{true, false, true, false, false})
	if n := jobCount(t, s); n != 3 { // h-1's, h-3's and h-5's
		t.Fatalf("jobs = %d, want 3", n)
	}

	for _, tc := range []struct {
		guid string
		hash []byte
		want bool
	}{
		{"h-1", nil, true},
		{"other", h1, true},
		{"other", h2, true},
		{"h-6", bytes.Repeat([]byte{3}, 32), true},
		{"other", bytes.Repeat([]byte{3}, 32), false},
		{"other", nil, false},
		{"other", []byte{}, false},
	} {
		got, err := s.DeliveryRecorded(ctx, tc.guid, tc.hash)
		must(t, err)
		if got != tc.want {
			t.Errorf("DeliveryRecorded(%s, %x) = %v, want %v", tc.guid, tc.hash, got, tc.want)
		}
	}
}

// testFailedDeliveries: a repository's failed deliveries are listed with
// their reasons and without payloads, bounded by the limit; other states and
// other repositories are left out.
func testFailedDeliveries(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	for i, c := range []struct {
		guid  string
		repo  int64
		state string
	}{{"f-a", 101, store.DeliveryFailed}, {"f-b", 101, store.DeliveryFailed}, {"f-c", 101, store.DeliveryDone}, {"f-d", 102, store.DeliveryFailed}} {
		_, err := s.RecordDelivery(ctx, store.Delivery{GUID: c.guid, Event: "workflow_run", RepositoryID: c.repo,
			ReceivedAt: base, Payload: []byte(`{"n":` + fmt.Sprint(i) + `}`)}, nil, nil)
		must(t, err)
		errText := ""
		if c.state == store.DeliveryFailed {
			errText = "diagnose failed: " + c.guid
		}
		must(t, s.SetDeliveryState(ctx, c.guid, c.state, errText))
	}
	list, err := s.FailedDeliveries(ctx, 101, 10)
	must(t, err)
	sort.Slice(list, func(i, j int) bool { return list[i].GUID < list[j].GUID })
	var got []string
	for _, d := range list {
		got = append(got, d.GUID+": "+d.Error)
		if len(d.Payload) != 0 || d.State != store.DeliveryFailed || d.RepositoryID != 101 {
			t.Errorf("%s: payload %d bytes, state %s, repository %d", d.GUID, len(d.Payload), d.State, d.RepositoryID)
		}
	}
	equal(t, "failed deliveries", got, []string{"f-a: diagnose failed: f-a", "f-b: diagnose failed: f-b"})
	list, err = s.FailedDeliveries(ctx, 101, 1)
	must(t, err)
	equal(t, "failed deliveries under a limit of 1", len(list), 1)
	list, err = s.FailedDeliveries(ctx, 103, 10)
	must(t, err)
	equal(t, "failed deliveries of a repository without any", len(list), 0)
}
