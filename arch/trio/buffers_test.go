package trio

import (
	"testing"

	"archsim/arch/trio/lower"
	"archsim/components/packet"
)

// TestPacketBufferCosts: a 1000-byte frame kept with store() writes its
// head (192 B, the head the PFE holds) to the packet memory in 64-byte
// transactions, 3 asynchronous pmem writes; resend() sends a copy with
// one asynchronous notification write, without reading the frame back;
// held() reads the buffer's descriptors once, an SRAM access the thread
// waits for. Neither thread waits for the packet memory (DRAM). The PFE
// reports what the buffer held.
func TestPacketBufferCosts(t *testing.T) {
	c := chipT(t)
	p := prog(t, "packet_buffers:\n  keep: {slots: 8}\n", `std.egress_port = 1
if ip.ttl == 1 {
  store(keep, 3)
  drop()
} else if held(keep, 3) == 1 {
  resend(keep, 3)
}`)
	engine := newEngine()
	pfe := MakeBuilder().WithEngine(engine).WithConfig(c).WithMicrocode(lowerT(t, c, p)).WithSeed(1).WithThreadStats(true).Build("Trio.PFE")
	var lens []int
	pfe.onDeliver = func(pkt *packet.Packet) { lens = append(lens, pkt.Len) }
	for i, ttl := range []byte{1, 2} {
		head := p.Traffic[0].BuildPacket(0, 1000)
		head[14] = ttl
		head = append(head, make([]byte, 200)...) // the frame's first 214 bytes held
		pfe.Inject(&packet.Packet{ID: uint64(i + 1), Flow: 1, Head: head, Len: 1000}, int64(i)*10_000_000)
	}
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
	if len(lens) != 2 || lens[0] != 1000 || lens[1] != 1000 {
		t.Fatalf("delivered frames of %v bytes, want the second and its kept copy, 1000 each", lens)
	}
	x := pfe.Stats.XTXN[0]
	if x[lower.XPMEM] != 4 || x[lower.XTail] != 0 || x[lower.XRead] != 1 {
		t.Errorf("pmem writes %d, tail fetches %d, reads %d; want 4, 0, 1", x[lower.XPMEM], x[lower.XTail], x[lower.XRead])
	}
	if lat := pfe.Stats.Latency[0].Max(); lat < NsToPs(c.SMem.SRAMLatencyNs) || lat >= NsToPs(c.SMem.DRAMLatencyNs) {
		t.Errorf("longest thread %d ps: want at least an SRAM read (%.0f ns), below a DRAM one (%.0f ns)", lat, c.SMem.SRAMLatencyNs, c.SMem.DRAMLatencyNs)
	}
	u, ok := pfe.BufferUse("keep")
	if !ok || u.PeakBytes != 1000 || u.PeakPackets != 1 || u.Packets != 1 || u.Stores != 1 || u.Resends != 1 {
		t.Errorf("buffer use %+v (%v)", u, ok)
	}
}
