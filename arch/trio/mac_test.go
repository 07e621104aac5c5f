package trio

import (
	"testing"

	"archsim/components/packet"
	"archsim/components/pfc"
)

// TestPFCFramePausesQueue: a PFC frame arriving on port 1 is consumed by
// the MAC and holds port 1's queue 0 (priority 0) until a resume frame;
// queue 3, not in the vector, keeps sending. A pause that is not resumed
// ends after its quanta (512 bit times each).
func TestPFCFramePausesQueue(t *testing.T) {
	c := chipT(t)
	p := prog(t, `tm:
  queues:
    - {qid: 0, priority: 1}
    - {qid: 3, priority: 1}
`, "std.egress_port = bit9(eth.dst[1:0])\nstd.qid = bit5(eth.src[2:0])")
	engine := newEngine()
	pfe := MakeBuilder().WithEngine(engine).WithConfig(c).WithMicrocode(lowerT(t, c, p)).WithSeed(1).Build("Trio.PFE")
	at := map[uint64]int64{}
	pfe.onDeliver = func(pkt *packet.Packet) { at[pkt.ID] = packet.SecToPs(engine.CurrentTime()) }
	send := func(id uint64, port, qid int, ps int64) {
		head := p.Traffic[0].BuildPacket(0, 1000)
		head[5], head[11] = byte(port), byte(qid)
		packet.Schedule(engine, pfe, ps, packet.KindArrive, &packet.Packet{ID: id, Flow: int(id), Head: head, Len: 1000}, 0)
	}
	mac := func(id uint64, port int, f []byte, ps int64) {
		packet.Schedule(engine, pfe, ps, packet.KindArrive, &packet.Packet{ID: id, Head: f, Len: len(f)}, port)
	}
	mac(1000, 1, pfc.Frame(1, 0xffff), 0)    // pause priority 0 of port 1
	send(1, 1, 0, 1_000_000)                 // paused
	send(2, 1, 3, 1_000_000)                 // not paused
	mac(1001, 1, pfc.Frame(1, 0), 5_000_000) // resume at 5 us
	mac(1002, 2, pfc.Frame(1<<0, 100), 0)    // 100 quanta on port 2: 512 ns at 100 Gb/s
	send(3, 2, 0, 100_000)
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
	if at[2] == 0 || at[2] > 5_000_000 {
		t.Errorf("queue 3 (not paused) sent at %d ps, want before the resume", at[2])
	}
	if at[1] < 5_000_000 {
		t.Errorf("queue 0 (paused) sent at %d ps, want after the resume at 5 us", at[1])
	}
	if end := int64(100 * 5120); at[3] < end {
		t.Errorf("port 2's queue 0 sent at %d ps, want after its pause ends at %d", at[3], end)
	}
	if pauses, resumes, pausedPs := pfe.PFCFrames(); pauses != 2 || resumes != 1 || pausedPs < 5_000_000 {
		t.Errorf("PFC: %d pauses, %d resumes, %d ps paused; want 2, 1, at least 5 us", pauses, resumes, pausedPs)
	}
	for _, id := range []uint64{1000, 1001, 1002} {
		if _, ok := at[id]; ok {
			t.Errorf("PFC frame %d went through the PFE", id)
		}
	}
}
