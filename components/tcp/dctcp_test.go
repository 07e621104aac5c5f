package tcp

import (
	"math"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
	"archsim/engine"
)

// TestDCTCPAlphaConverges feeds DCTCP windows of 100 ACKed segments of
// which a fixed share came back with ECE: alpha falls from its initial 1
// and settles at that share (within the integer arithmetic's step of
// 2^g/1024), for several shares, including none.
func TestDCTCPAlphaConverges(t *testing.T) {
	for _, marked := range []int{0, 10, 30, 60, 100} {
		d := NewDCTCP(DefaultDCTCPParams())
		d.Init(0, 0)
		if d.Alpha() != 1 {
			t.Fatalf("initial alpha %g, want 1 (dctcp_alpha_on_init = 1024)", d.Alpha())
		}
		// A window of 100 segments in flight: each ACK releases one more.
		una := int64(0)
		for w := 0; w < 200; w++ {
			for i := 0; i < 100; i++ {
				una++
				d.OnAck(1, i < marked, una, una+100)
			}
		}
		want := float64(marked) / 100
		if d.AlphaUpdates() < 199 || d.AlphaUpdates() > 201 {
			t.Errorf("%d %% marked: %d alpha updates for 200 windows", marked, d.AlphaUpdates())
		}
		if got := d.Alpha(); math.Abs(got-want) > 16.0/1024 {
			t.Errorf("%d %% marked: alpha %.4f after 200 windows, want %.2f", marked, got, want)
		}
	}
	// One window halves the distance at g = 1/16 only after ~11 windows:
	// after 11 unmarked windows alpha is below half.
	d := NewDCTCP(DefaultDCTCPParams())
	d.Init(0, 0)
	for w := int64(1); w <= 11; w++ {
		d.OnAck(10, false, 10*w, 10*w+10)
	}
	if a := d.Alpha(); a > 0.5 || a < 0.45 {
		t.Errorf("alpha after 11 unmarked windows %.4f, want (15/16)^11 ≈ 0.49", a)
	}
}

// TestDCTCPSsthresh checks the window reductions: cwnd·(1 - alpha/2) on
// an ECN echo, at least 2, and a halving on loss (dctcp_react_to_loss).
func TestDCTCPSsthresh(t *testing.T) {
	for _, c := range []struct{ alpha, cwnd, want int }{
		{1024, 100, 50}, {512, 100, 75}, {0, 100, 100}, {256, 40, 35}, {1024, 3, 2}, {1024, 2, 2},
	} {
		d := NewDCTCP(DCTCPParams{ShiftG: 4, AlphaOnInit: c.alpha})
		if got := d.Ssthresh(&Window{Cwnd: c.cwnd}); got != c.want {
			t.Errorf("alpha %d/1024 cwnd %d: ssthresh %d, want %d", c.alpha, c.cwnd, got, c.want)
		}
		w := Window{Cwnd: c.cwnd}
		d.OnLoss(&w)
		if w.Ssthresh != max(c.cwnd/2, 2) {
			t.Errorf("loss at cwnd %d: ssthresh %d, want %d", c.cwnd, w.Ssthresh, max(c.cwnd/2, 2))
		}
	}
}

// dctcpNet is one DCTCP flow through a 1 Gb/s bottleneck that marks CE
// above k packets (no drops: the buffer is large), 10 us per hop.
func dctcpNet(t *testing.T, k int, secs float64) (*testNet, *Flow, []reduction) {
	cfg := DefaultConfig()
	cfg.CC, cfg.ECN, cfg.RTOMinPs = CCDCTCP, true, 1e9
	cfg.NICGbps = 10
	n := newTestNet(t, cfg, 1, 1<<20, 10e6, int64(secs*1e12))
	n.fwd.markAbove = k
	n.fwd.lateFrom = 20e9 // after slow start's overshoot
	var reds []reduction
	last := stateOpen
	n.snd.hook = func(id int, ps int64, cwnd int) {
		s := n.snd.senders[id]
		if s.state == stateCWR && last != stateCWR {
			reds = append(reds, reduction{ps: ps, prior: s.priorCwnd, ssthresh: s.w.Ssthresh,
				alpha: s.cc.(*DCTCP).alpha, nxt: s.nxt})
		}
		last = s.state
	}
	f := n.flow(t, 0)
	n.run(t)
	return n, f, reds
}

type reduction struct {
	ps              int64
	prior, ssthresh int
	alpha           int
	nxt             int64
}

// TestDCTCPQueue runs one bulk DCTCP flow through a marking queue (K = 20
// packets, base RTT 40 us) for 0.3 s: no loss and no retransmission, the
// queue stays near K (never far above, rarely empty: the link stays
// busy), alpha settles well below 1, and every reduction is to
// cwnd·(1 - alpha/2) with the alpha of that moment, at most once per
// window of data.
func TestDCTCPQueue(t *testing.T) {
	const k = 20
	n, f, reds := dctcpNet(t, k, 0.3)
	st := f.Stats
	if st.Retransmits != 0 || st.FastRecoveries != 0 || st.Timeouts != 0 || len(n.fwd.dropped) != 0 {
		t.Errorf("retransmits %d, recoveries %d, timeouts %d, drops %d: want none", st.Retransmits, st.FastRecoveries, st.Timeouts, len(n.fwd.dropped))
	}
	if st.ECNReductions < 100 || n.fwd.marked == 0 {
		t.Fatalf("%d ECN reductions, %d marks: want many", st.ECNReductions, n.fwd.marked)
	}
	avg := float64(n.fwd.qSum) / float64(n.fwd.qN)
	if n.fwd.maxQLate > k+10 || avg < k/2 || avg > k+5 {
		t.Errorf("queue max %d, mean %.1f packets with K = %d after 20 ms: want near K", n.fwd.maxQLate, avg, k)
	}
	line := 1e9 / 8 * 1448 / 1538
	if good := float64(st.Delivered) / 0.3; good < 0.97*line {
		t.Errorf("goodput %.1f %% of the payload line rate: the queue ran empty", 100*good/line)
	}
	alpha := n.snd.senders[0].cc.(*DCTCP).Alpha()
	if alpha > 0.5 || alpha <= 0 {
		t.Errorf("alpha %.3f at the end, want in (0, 0.5): a share of each window is marked", alpha)
	}
	for i, r := range reds {
		if want := max(r.prior-(r.prior*r.alpha>>11), 2); r.ssthresh != want {
			t.Errorf("reduction %d: cwnd %d -> ssthresh %d with alpha %d/1024, want %d", i, r.prior, r.ssthresh, r.alpha, want)
		}
		// Once per window: the next reduction starts only after the
		// data outstanding at this one was ACKed (high_seq), so at least
		// one RTT (40 us base) later.
		if i > 0 && r.ps-reds[i-1].ps < 40e6 {
			t.Errorf("reductions %d and %d only %.1f us apart", i-1, i, float64(r.ps-reds[i-1].ps)/1e6)
		}
	}
	t.Logf("%d reductions, %d marks, queue max %d (%d after 20 ms) mean %.1f, alpha %.3f, cwnd %d",
		len(reds), n.fwd.marked, n.fwd.maxQ, n.fwd.maxQLate, avg, alpha, st.Cwnd)
}

// capture is an uplink that keeps every frame a host sends.
type capture struct {
	*sim.ComponentBase
	frames []Segment
}

func (c *capture) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (c *capture) NotifyPortFree(sim.VTimeInSec, sim.Port) {}
func (c *capture) Handle(e sim.Event) error {
	var s Segment
	if Decode(e.(*packet.Event).Pkt.Head, &s) {
		c.frames = append(c.frames, s)
	}
	return nil
}

// TestDCTCPEchoStateMachine feeds a DCTCP receiver data segments with a
// CE pattern and checks its ACKs (RFC 8257 §3.2): every second segment
// is ACKed while the CE state holds, ECE tells the state of the data
// ACKed, and a state change with a delayed ACK pending first sends that
// ACK with the old state, then ACKs the new segment with the new state.
func TestDCTCPEchoStateMachine(t *testing.T) {
	eng := engine.NewSerial()
	up := &capture{ComponentBase: sim.NewComponentBase("Up")}
	cfg := DefaultConfig()
	cfg.CC, cfg.ECN, cfg.QuickAcks = CCDCTCP, true, 0
	h, err := MakeBuilder().WithEngine(eng).WithConfig(cfg).WithHost(1, 1).WithUplink(up).Build("Rcv")
	if err != nil {
		t.Fatal(err)
	}
	f := &Flow{ID: 3, Src: 0, Dst: 1}
	if err := h.AddReceiver(f); err != nil {
		t.Fatal(err)
	}
	const mss = 1448
	ce := []bool{false, false, true, true, true, false, false, false, true, false}
	for i, c := range ce {
		s := Segment{Src: HostIP(0), Dst: HostIP(1), SrcPort: uint16(PortBase + f.ID), DstPort: DataPort,
			Seq: f.ISN() + uint32(i*mss), Flags: FlagACK, ECN: ECNECT0, Payload: mss}
		if c {
			s.ECN = ECNCE
		}
		pkt := &packet.Packet{Head: encode(make([]byte, 0, headCap), &s, 1), Len: s.FrameLen()}
		if err := h.Handle(&packet.Event{Ps: int64(i+1) * 1e6, Kind: packet.KindArrive, Pkt: pkt}); err != nil {
			t.Fatal(err)
		}
	}
	if err := eng.Run(); err != nil {
		t.Fatal(err)
	}
	// Expected ACKs (segments ACKed cumulatively, ECE):
	//  seg 1: delayed; seg 2: ACK 2 (two segments) ECE 0;
	//  seg 3 CE: state change, nothing pending: ACK 3 ECE 1;
	//  seg 4 CE: delayed; seg 5 CE: ACK 5 ECE 1;
	//  seg 6 no CE: change, nothing pending: ACK 6 ECE 0;
	//  seg 7: delayed; seg 8: ACK 8 ECE 0;
	//  seg 9 CE: change, nothing pending: ACK 9 ECE 1;
	//  seg 10 no CE: change, nothing pending: ACK 10 ECE 0.
	type ack struct {
		segs int
		ece  bool
	}
	want := []ack{{2, false}, {3, true}, {5, true}, {6, false}, {8, false}, {9, true}, {10, false}}
	check := func(name string, got []Segment, want []ack) {
		t.Helper()
		var g []ack
		for _, s := range got {
			g = append(g, ack{int(s.Ack-f.ISN()) / mss, s.Flags&FlagECE != 0})
		}
		if len(g) != len(want) {
			t.Fatalf("%s: ACKs %v, want %v", name, g, want)
		}
		for i := range g {
			if g[i] != want[i] {
				t.Errorf("%s: ACK %d is %+v, want %+v (all: %v)", name, i, g[i], want[i], g)
			}
		}
	}
	check("aligned", up.frames, want)

	// Shifted by one segment, changes find a delayed ACK pending: 1 no
	// CE (delayed), 2 CE -> ACK 1 ECE 0 first, then ACK 2 ECE 1; 3 CE
	// delayed; 4 no CE -> ACK 3 ECE 1, then ACK 4 ECE 0; 5 no CE
	// delayed; the 40 ms timer then ACKs 5 ECE 0.
	eng = engine.NewSerial()
	up = &capture{ComponentBase: sim.NewComponentBase("Up")}
	h, _ = MakeBuilder().WithEngine(eng).WithConfig(cfg).WithHost(1, 1).WithUplink(up).Build("Rcv")
	if err := h.AddReceiver(f); err != nil {
		t.Fatal(err)
	}
	for i, c := range []bool{false, true, true, false, false} {
		s := Segment{Src: HostIP(0), Dst: HostIP(1), SrcPort: uint16(PortBase + f.ID), DstPort: DataPort,
			Seq: f.ISN() + uint32(i*mss), Flags: FlagACK, ECN: ECNECT0, Payload: mss}
		if c {
			s.ECN = ECNCE
		}
		pkt := &packet.Packet{Head: encode(make([]byte, 0, headCap), &s, 1), Len: s.FrameLen()}
		_ = h.Handle(&packet.Event{Ps: int64(i+1) * 1e6, Kind: packet.KindArrive, Pkt: pkt})
	}
	if err := eng.Run(); err != nil {
		t.Fatal(err)
	}
	check("shifted", up.frames, []ack{{1, false}, {2, true}, {3, true}, {4, false}, {5, false}})
}
