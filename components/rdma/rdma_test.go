package rdma

import (
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/link"
	"archsim/components/packet"
	"archsim/configs"
	"archsim/engine"
)

// wire is a test switch: it forwards every frame to the host owning the
// destination address, cut-through (after propPs, no queueing), and
// drops the frames drop picks. It counts WRITE transmissions per PSN.
type wire struct {
	*sim.ComponentBase
	eng   sim.Engine
	ends  map[uint32]link.End
	drop  func(x *Header, tx int) bool // tx: earlier transmissions of this PSN (data) or of this ACK PSN
	seen  map[uint32]int
	acks  map[uint32]int
	naks  []uint32
	hdr   Header
	times map[uint32][]int64
}

func (w *wire) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (w *wire) NotifyPortFree(sim.VTimeInSec, sim.Port) {}
func (w *wire) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	x := &w.hdr
	if !Decode(ev.Pkt.Head, x) {
		panic("not RoCEv2")
	}
	tx := 0
	if x.Opcode == OpAcknowledge {
		if x.Syndrome == SyndromeNAKSeqErr {
			w.naks = append(w.naks, x.PSN)
		}
		tx = w.acks[x.PSN]
		w.acks[x.PSN]++
	} else {
		tx = w.seen[x.PSN]
		w.seen[x.PSN]++
		w.times[x.PSN] = append(w.times[x.PSN], ev.AtPs())
	}
	if w.drop != nil && w.drop(x, tx) {
		return nil
	}
	end := w.ends[x.Dst]
	end.Deliver(w.eng, ev.Pkt, ev.AtPs())
	return nil
}

type testNet struct {
	eng       *engine.Serial
	w         *wire
	req, resp *Host
	c         *Conn
	cfg       Config
}

// newNet builds requester host 0 -> wire -> responder host 1 (and back)
// with cfg; the wire adds propPs each way on top of the hosts' PropPs.
func newNet(t *testing.T, cfg Config, propPs int64) *testNet {
	n := &testNet{eng: engine.NewSerial(), cfg: cfg}
	n.w = &wire{ComponentBase: sim.NewComponentBase("Wire"), eng: n.eng, ends: map[uint32]link.End{},
		seen: map[uint32]int{}, acks: map[uint32]int{}, times: map[uint32][]int64{}}
	b := MakeBuilder().WithEngine(n.eng).WithConfig(cfg).WithUplink(n.w)
	var err error
	if n.req, err = b.WithHost(0, 0).Build("Req"); err != nil {
		t.Fatal(err)
	}
	if n.resp, err = b.WithHost(1, 1).Build("Resp"); err != nil {
		t.Fatal(err)
	}
	n.w.ends[HostIP(0)] = link.To(n.req, 0, propPs)
	n.w.ends[HostIP(1)] = link.To(n.resp, 1, propPs)
	n.c = &Conn{ID: 5, Src: 0, Dst: 1}
	if err := n.req.AddRequester(n.c); err != nil {
		t.Fatal(err)
	}
	if err := n.resp.AddResponder(n.c); err != nil {
		t.Fatal(err)
	}
	return n
}

func (n *testNet) write(t *testing.T, bytes int64, at int64) *Write {
	w := &Write{Bytes: bytes, PostPs: at}
	if err := n.req.Post(n.c.ID, w); err != nil {
		t.Fatal(err)
	}
	return w
}

func (n *testNet) run(t *testing.T) {
	if err := n.eng.Run(); err != nil {
		t.Fatal(err)
	}
}

// lossless is the closed-form completion time of a WRITE of bytes posted
// on an idle connection: every packet serialized back to back by the
// NIC, the last one's trip to the responder, the ACK's serialization and
// its trip back (each way: host PropPs + NICDelayPs + the wire's prop).
func lossless(cfg Config, bytes int64, propPs int64) int64 {
	var tx int64
	for off := int64(0); off < bytes; off += int64(cfg.PathMTU) {
		x := Header{Opcode: OpWriteMiddle, Payload: int(min(int64(cfg.PathMTU), bytes-off))}
		if off == 0 {
			x.Opcode = OpWriteFirst
		}
		tx += packet.SerializationPs(x.FrameLen(), cfg.NICGbps)
	}
	oneWay := cfg.PropPs + cfg.NICDelayPs + propPs
	return tx + oneWay + packet.SerializationPs(AckLen, cfg.NICGbps) + oneWay
}

// TestLosslessWrite checks the completion times of lossless WRITEs of
// one packet (143 B), several (24 387 B: 24 packets of 1024 B) and a
// long one against the closed form, the frame sizes, and the responder's
// accounting.
func TestLosslessWrite(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NICDelayPs = 500e3
	for _, bytes := range []int64{143, 24387, 1 << 20} {
		n := newNet(t, cfg, 2e6)
		w := n.write(t, bytes, 10e6)
		n.run(t)
		want := lossless(cfg, bytes, 2e6)
		if got := w.DonePs - w.PostPs; got != want {
			t.Errorf("%d B: completion after %d ps, want %d (closed form)", bytes, got, want)
		}
		st := n.c.Stats
		pkts := int((bytes + 1023) / 1024)
		if st.PacketsSent != pkts || st.BytesPlaced != bytes || st.WritesPlaced != 1 || st.WritesDone != 1 ||
			st.Retransmits+st.NAKsSent+st.Timeouts+st.Duplicates != 0 {
			t.Errorf("%d B: stats %+v", bytes, st)
		}
		// ACKs: one per AckEvery packets plus the last.
		if wantAcks := (pkts-1)/cfg.AckEvery + 1; st.AcksSent != wantAcks && st.AcksSent != pkts/cfg.AckEvery+1 {
			t.Errorf("%d B: %d ACKs for %d packets with ack_every %d", bytes, st.AcksSent, pkts, cfg.AckEvery)
		}
	}
	// 143 B: one 14+20+8+12+16+143+4 = 217-byte frame.
	if x := (Header{Opcode: OpWriteOnly, Payload: 143}); x.FrameLen() != 217 {
		t.Errorf("143 B WRITE frame %d bytes, want 217", x.FrameLen())
	}
}

// TestMiddleLossGoBackN drops one middle packet of a 20-packet WRITE
// once: the responder sends exactly one NAK (for that PSN), the requester
// resends that packet and every later one once (go-back-N), no timeout,
// and the WRITE completes about one RTT later than without loss.
func TestMiddleLossGoBackN(t *testing.T) {
	cfg := DefaultConfig()
	n := newNet(t, cfg, 5e6)
	n.w.drop = func(x *Header, tx int) bool { return x.Opcode != OpAcknowledge && x.PSN == 7 && tx == 0 }
	w := n.write(t, 20*1024, 0)
	n.run(t)
	st := n.c.Stats
	if len(n.w.naks) != 1 || n.w.naks[0] != 7 || st.NAKsSent != 1 || st.NAKsRcvd != 1 {
		t.Fatalf("NAKs on the wire %v, sent %d, received %d: want exactly one, for PSN 7", n.w.naks, st.NAKsSent, st.NAKsRcvd)
	}
	if st.Timeouts != 0 || st.WritesDone != 1 || st.BytesPlaced != 20*1024 {
		t.Errorf("timeouts %d, writes done %d, bytes placed %d", st.Timeouts, st.WritesDone, st.BytesPlaced)
	}
	for psn := uint32(0); psn < 20; psn++ {
		want := 1
		if psn >= 7 {
			want = 2 // the burst (20 packets, 1.8 us) is out before the NAK (≈ 12 us) returns
		}
		if n.w.seen[psn] != want {
			t.Errorf("PSN %d sent %d times, want %d", psn, n.w.seen[psn], want)
		}
	}
	if st.Retransmits != 13 || st.OutOfSequence != 12 {
		t.Errorf("retransmits %d (want 13), out-of-sequence drops %d (want 12)", st.Retransmits, st.OutOfSequence)
	}
	base := lossless(cfg, 20*1024, 5e6)
	extra := w.DonePs - base
	rtt := 2 * (cfg.PropPs + 5e6)
	if extra < rtt || extra > 2*rtt {
		t.Errorf("completion %.2f us, lossless %.2f us: the NAK round trip should add about one RTT (%.1f us)",
			float64(w.DonePs)/1e6, float64(base)/1e6, float64(rtt)/1e6)
	}
}

// TestTailLossTimeout drops the last packet of a WRITE once: no NAK can
// reveal it, so the transport timer resends it about TimeoutPs after the
// last ACK progress, and the WRITE completes ≈ RTO later than lossless.
// The same holds for a one-packet WRITE.
func TestTailLossTimeout(t *testing.T) {
	cfg := DefaultConfig()
	for _, pkts := range []int64{1, 20} {
		n := newNet(t, cfg, 5e6)
		last := uint32(pkts - 1)
		n.w.drop = func(x *Header, tx int) bool { return x.Opcode != OpAcknowledge && x.PSN == last && tx == 0 }
		bytes := pkts*1024 - 100
		w := n.write(t, bytes, 0)
		n.run(t)
		st := n.c.Stats
		// Go-back-N from the oldest unacknowledged PSN: for twenty
		// packets the last ACK covered PSN 15 (AckReq every 16), so 16..19
		// go again and 16..18 arrive as duplicates.
		rtx, dups := 1, 0
		if pkts == 20 {
			rtx, dups = 4, 3
		}
		if st.Timeouts != 1 || st.NAKsSent != 0 || st.Retransmits != rtx || st.Duplicates != dups || st.WritesDone != 1 {
			t.Fatalf("%d packets: timeouts %d, NAKs %d, retransmits %d, duplicates %d, done %d: want 1, 0, %d, %d, 1",
				pkts, st.Timeouts, st.NAKsSent, st.Retransmits, st.Duplicates, st.WritesDone, rtx, dups)
		}
		// The resend leaves one timeout after the timer was last
		// (re)started: at the first send for a one-packet WRITE, at the
		// ACK of PSN 15 for twenty packets.
		tx := n.w.times[last]
		start := int64(0)
		if pkts > 1 {
			start = n.w.times[15][0] + 2*(cfg.PropPs+5e6) - cfg.PropPs + packet.SerializationPs(AckLen, cfg.NICGbps)
		}
		resendAt := tx[1] - cfg.PropPs // left the NIC at tx[1] - PropPs (cut-through wire)
		if d := resendAt - start; d < cfg.TimeoutPs || d > cfg.TimeoutPs+2e6 {
			t.Errorf("%d packets: resend %.3f us after the timer start, want the %.0f us timeout",
				pkts, float64(d)/1e6, float64(cfg.TimeoutPs)/1e6)
		}
		extra := w.DonePs - lossless(cfg, bytes, 5e6)
		if extra < cfg.TimeoutPs-5e6 || extra > cfg.TimeoutPs+30e6 {
			t.Errorf("%d packets: completion %.1f us later than lossless, want ≈ the timeout", pkts, float64(extra)/1e6)
		}
	}
}

// TestDuplicatesAcked drops the ACK of a one-packet WRITE: the requester
// times out and resends, the responder drops the duplicate (placing
// nothing twice) and ACKs it, and the WRITE completes.
func TestDuplicatesAcked(t *testing.T) {
	cfg := DefaultConfig()
	n := newNet(t, cfg, 1e6)
	n.w.drop = func(x *Header, tx int) bool { return x.Opcode == OpAcknowledge && tx == 0 }
	w := n.write(t, 143, 0)
	n.run(t)
	st := n.c.Stats
	if st.Duplicates != 1 || st.AcksSent != 2 || st.BytesPlaced != 143 || st.WritesPlaced != 1 || st.Timeouts != 1 || st.WritesDone != 1 {
		t.Errorf("stats %+v: want one duplicate, dropped and ACKed, 143 B placed once, one timeout", st)
	}
	if w.DonePs < cfg.TimeoutPs {
		t.Errorf("completed at %d ps, before the timeout", w.DonePs)
	}
	// Many WRITEs over a wire that loses every 37th frame (data, ACKs
	// and NAKs): all complete, every byte placed exactly once.
	n = newNet(t, cfg, 1e6)
	k := 0
	n.w.drop = func(x *Header, tx int) bool { k++; return k%37 == 0 }
	var ws []*Write
	for i := 0; i < 50; i++ {
		ws = append(ws, n.write(t, int64(1000+i*997), int64(i)*20e6))
	}
	n.run(t)
	var total int64
	for i, w := range ws {
		total += w.Bytes
		if w.DonePs == 0 {
			t.Errorf("WRITE %d never completed", i)
		}
	}
	if st := n.c.Stats; st.BytesPlaced != total || st.WritesPlaced != 50 || st.WritesDone != 50 {
		t.Errorf("placed %d of %d bytes, %d WRITEs placed, %d done", st.BytesPlaced, total, st.WritesPlaced, st.WritesDone)
	}
}

// TestWireRoundTrip encodes and decodes a first, a middle and an ACK.
func TestWireRoundTrip(t *testing.T) {
	for _, x := range []Header{
		{Src: HostIP(1), Dst: HostIP(2), SrcPort: 0xC005, Opcode: OpWriteFirst, AckReq: false, DestQP: 5, PSN: PSNMask,
			VA: 0x10000000, RKey: 5, DMALen: 24387, Payload: 1024},
		{Src: HostIP(1), Dst: HostIP(2), SrcPort: 0xC005, Opcode: OpWriteLast, AckReq: true, DestQP: 5, PSN: 3, Payload: 835},
		{Src: HostIP(2), Dst: HostIP(1), SrcPort: 0xC005, Opcode: OpAcknowledge, DestQP: 5, PSN: 77, Syndrome: SyndromeNAKSeqErr, MSN: 9},
	} {
		b := Encode(make([]byte, 0, headCap), &x, 1)
		var y Header
		if !Decode(b, &y) || y != x {
			t.Errorf("round trip:\n got %+v\nwant %+v", y, x)
		}
		if packet.IPv4Checksum(b[ethLen:ethLen+ipLen]) != uint16(b[ethLen+10])<<8|uint16(b[ethLen+11]) {
			t.Error("bad IPv4 checksum")
		}
	}
	if (&Header{Opcode: OpAcknowledge}).FrameLen() != 62 {
		t.Error("ACK frame is not 62 bytes")
	}
}

// TestConfig checks that configs/rdma.yaml holds DefaultConfig and that
// bad values are refused in one line.
func TestConfig(t *testing.T) {
	data, err := configs.Read("rdma.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfig("configs/rdma.yaml", data, Config{})
	if err != nil || c != DefaultConfig() {
		t.Errorf("configs/rdma.yaml %+v (%v), DefaultConfig %+v", c, err, DefaultConfig())
	}
	for _, bad := range []string{"path_mtu: 1500", "ack_every: 0", "timeout_us: 0", "nic_gbps: -1", "bogus: 1"} {
		if _, err := ParseConfig("x.yaml", []byte(bad), DefaultConfig()); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want a one-line error", bad, err)
		}
	}
}
