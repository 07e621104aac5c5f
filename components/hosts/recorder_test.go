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
