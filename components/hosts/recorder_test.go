package hosts

import (
	"bytes"
	"strings"
	"testing"
)

// Fates resolve as before: a whole delivery beats a header, which beats a
// drop; the tally counts data packets only, and drop reasons follow the
// packets out of FateDropped. Control packets have ids of their own
// (c1, ... in the records) and keep no state.
func TestRecorderTally(t *testing.T) {
	r := NewRecorder(1)
	var log bytes.Buffer
	clock := int64(0)
	if err := r.Stream(&log, func() int64 { clock += 10; return clock }); err != nil {
		t.Fatal(err)
	}
	d1, c1, d2, d3, d4 := r.NewID(true, 0), r.NewID(false, 0), r.NewID(true, 0), r.NewID(true, 0), r.NewID(true, 0)
	r.Dropped(d1, "queue full")
	r.Dropped(c1, "queue full") // control packets are not counted
	r.Dropped(d2, "queue full")
	r.delivered(d2, false) // a trimmed copy arrives: trimmed
	r.delivered(d3, true)
	r.Dropped(d3, "late copy") // delivered already: stays delivered
	r.Dropped(0, "no id")
	r.Dropped(99, "unknown id")
	got := r.Tally()
	if got.DataSent != 4 || got.Delivered != 1 || got.Trimmed != 1 || got.Dropped != 1 || got.InFlight != 1 ||
		len(got.DropReasons) != 1 || got.DropReasons["queue full"] != 1 {
		t.Fatalf("tally %+v", got)
	}
	if f, data, reason := r.FateOf(d1); f != FateDropped || !data || reason != "queue full" {
		t.Errorf("d1: %v %v %q", f, data, reason)
	}
	if f, data, _ := r.FateOf(c1); f != FateInFlight || data {
		t.Errorf("c1 (a control packet keeps no state): %v %v", f, data)
	}
	if f, _, _ := r.FateOf(d4); f != FateInFlight {
		t.Errorf("d4: %v", f)
	}
	r.delivered(d2, true) // whole after header
	r.delivered(d3, true) // twice
	if r.Both != 1 || r.Twice != 1 {
		t.Errorf("both %d twice %d", r.Both, r.Twice)
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if lines[0] != strings.Join(RecordsHeader, ",") || len(lines) != 1+5+3+4 {
		t.Fatalf("records:\n%s", log.String())
	}
	if lines[2] != "20,c1,sent,false,0," || lines[6] != "60,1,dropped,true,,queue full" || lines[7] != "70,c1,dropped,false,,queue full" ||
		lines[8] != "80,2,dropped,true,,queue full" || lines[9] != "90,2,header,true,," {
		t.Errorf("records:\n%s", log.String())
	}
}

// More distinct drop reasons than the state byte codes still count right.
func TestRecorderManyReasons(t *testing.T) {
	r := NewRecorder(1)
	var ids []uint64
	for i := 0; i < 100; i++ {
		ids = append(ids, r.NewID(true, 0))
	}
	for i, id := range ids {
		r.Dropped(id, "reason "+string(rune('A'+i%50)))
	}
	for _, id := range ids[:50] {
		r.delivered(id, false)
	}
	got := r.Tally()
	if got.Dropped != 50 || got.Trimmed != 50 || len(got.DropReasons) != 50 {
		t.Fatalf("tally %+v", got)
	}
	for i, id := range ids[50:] {
		if _, _, reason := r.FateOf(id); reason != "reason "+string(rune('A'+i%50)) {
			t.Errorf("id %d: reason %q", id, reason)
		}
	}
	if len(r.moreReasons) != 50-maxReasonCode {
		t.Errorf("%d reasons past the codes, want %d", len(r.moreReasons), 50-maxReasonCode)
	}
}

// TestRecorderFinalFates: with FinalFates a page of packet states is
// released once every packet on it is delivered or dropped, the tally is
// what the plain recorder counts, and a second fate is Late (a drop of a
// resolved packet is ignored, as always).
func TestRecorderFinalFates(t *testing.T) {
	r := NewRecorder(1)
	r.FinalFates()
	const n = 3<<pageBits + 100 // page 0 (ids 1..65535), pages 1 and 2 whole, 101 ids on page 3
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = r.NewID(true, 0)
	}
	// Resolve pages 0 and 1 completely (every third dropped), leave one
	// packet of page 2 and all of page 3 in flight.
	dropped := 0
	for i, id := range ids {
		if id>>pageBits >= 3 || id == 2<<pageBits+5 {
			continue
		}
		if i%3 == 0 {
			r.Dropped(id, "queue full")
			dropped++
		} else {
			r.delivered(id, true)
		}
	}
	if r.pages[0] != nil || r.pages[1] != nil || r.pages[2] == nil {
		t.Fatalf("released pages: %v %v %v; want pages 0 and 1 released, 2 kept", r.pages[0] == nil, r.pages[1] == nil, r.pages[2] == nil)
	}
	inFlight := n - (3<<pageBits - 1 - 1)
	got := r.Tally()
	if got.DataSent != n || got.Dropped != dropped || got.Delivered != n-inFlight-dropped || got.InFlight != inFlight || got.DropReasons["queue full"] != dropped {
		t.Fatalf("tally %+v (want %d dropped, %d in flight)", got, dropped, inFlight)
	}
	r.delivered(2<<pageBits+5, true) // page 2's last: released
	if r.pages[2] != nil {
		t.Error("page 2 kept after its last packet was delivered")
	}
	if f, data, _ := r.FateOf(ids[10]); f != FateResolved || !data {
		t.Errorf("a packet of a released page: %v %v", f, data)
	}
	r.Dropped(ids[10], "late")  // resolved: ignored
	r.delivered(ids[11], true)  // released page: a second fate
	r.delivered(ids[n-1], true) // page 3, in flight: delivered
	r.delivered(ids[n-1], true) // page 3, resolved: a second fate
	r.Dropped(ids[n-2], "queue full")
	r.delivered(ids[n-2], true) // dropped, then delivered: a second fate
	if r.Late != 3 || r.Twice != 0 || r.Both != 0 {
		t.Errorf("late %d twice %d both %d; want 3, 0, 0", r.Late, r.Twice, r.Both)
	}
	if got := r.Tally(); got.Delivered+got.Dropped+got.InFlight != got.DataSent || got.InFlight != 99 {
		t.Errorf("tally %+v: want the fates to add up, 99 in flight", got)
	}
	// The next page reuses a released one, cleared: its packets start in
	// flight.
	for len(r.pages) < 5 {
		r.NewID(true, 0)
	}
	id := r.NewID(true, 0)
	if r.pages[4] == nil || len(r.spare) != 2 {
		t.Fatalf("page 4 %v, %d spare pages; want page 4 taken from the three released", r.pages[4] == nil, len(r.spare))
	}
	if f, data, _ := r.FateOf(id); f != FateInFlight || !data {
		t.Errorf("a packet on a reused page: %v %v", f, data)
	}
	r.delivered(id, true)
	if f, _, _ := r.FateOf(id); f != FateDelivered || r.Late != 3 {
		t.Errorf("delivered on a reused page: %v, late %d", f, r.Late)
	}
}
