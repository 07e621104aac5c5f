package tofino

import (
	"testing"

	"archsim/components/packet"
	"archsim/components/pfc"
)

// pfcFrame builds an 802.1Qbb frame pausing (quanta > 0) or resuming
// (quanta 0) the priorities of vector.
func pfcFrame(vector uint16, quanta uint16) []byte { return pfc.Frame(vector, quanta) }

// TestPFCFramePausesQueue: a PFC frame arriving on port 1 is consumed by
// the MAC and holds port 1's queue 0 (priority 0) until a resume frame;
// queue 3, not in the vector, keeps sending. A pause that is not resumed
// ends after its quanta (512 bit times each).
func TestPFCFramePausesQueue(t *testing.T) {
	r := newTMRig(t, "")
	// Pause priority 0 of port 1 at t = 0 (quanta 0xffff, far beyond the test).
	r.offered++
	packet.Schedule(r.eng, r.sw.IngressHandler(1), 0, packet.KindArrive, &packet.Packet{ID: 1000, Head: pfcFrame(1, 0xffff), Len: 60, Passes: 1}, 1)
	a := r.send(0, 1_000_000, 1000, tmHdr{port: 1, qid: 0})
	b := r.send(0, 1_000_000, 1000, tmHdr{port: 1, qid: 3})
	// Resume at 5 us.
	r.offered++
	packet.Schedule(r.eng, r.sw.IngressHandler(1), 5_000_000, packet.KindArrive, &packet.Packet{ID: 1001, Head: pfcFrame(1, 0), Len: 60, Passes: 1}, 1)
	// A short pause of priority 2: 100 quanta of 512 bit times (5.12 ns at 100 Gb/s).
	r.offered++
	packet.Schedule(r.eng, r.sw.IngressHandler(2), 0, packet.KindArrive, &packet.Packet{ID: 1002, Head: pfcFrame(1<<2, 100), Len: 60, Passes: 1}, 2)
	c := r.send(0, 100_000, 1000, tmHdr{port: 2, qid: 2})
	r.run()
	got := map[uint64]int64{}
	for _, x := range r.got {
		got[x.id] = x.at
	}
	if got[b] >= 5_000_000 || got[b] == 0 {
		t.Errorf("queue 3 (not paused) delivered at %d ps, want before the resume", got[b])
	}
	if got[a] < 5_000_000 {
		t.Errorf("queue 0 (paused) delivered at %d ps, want after the resume at 5 us", got[a])
	}
	if pauseEnd := int64(100 * 5120); got[c] < pauseEnd {
		t.Errorf("priority 2 delivered at %d ps, want after its pause ends at %d", got[c], pauseEnd)
	}
	if pauses, resumes, _ := r.sw.PFCFrames(); pauses != 2 || resumes != 1 {
		t.Errorf("PFC counters %d pauses, %d resumes, want 2 pauses, 1 resume", pauses, resumes)
	}
	for _, x := range r.got {
		if x.id >= 1000 {
			t.Errorf("PFC frame %d went through the pipeline to port %d", x.id, x.port)
		}
	}
	r.conserve()
}
