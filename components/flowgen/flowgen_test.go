package flowgen

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/link"
	"archsim/components/packet"
	"archsim/components/rdma"
	"archsim/components/stats"
	"archsim/components/tcp"
	"archsim/engine"
)

// fabric is a test switch: it forwards a frame to the host owning its
// IPv4 destination, cut-through (after propPs, no queue), unless drop
// picks it. data counts the TCP data segments seen (drop's argument).
type fabric struct {
	*sim.ComponentBase
	eng  sim.Engine
	ends map[uint32]link.End
	drop func(pkt *packet.Packet, dataSeen int) bool
	data int
	seg  tcp.Segment
}

func (f *fabric) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (f *fabric) NotifyPortFree(sim.VTimeInSec, sim.Port) {}
func (f *fabric) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	if tcp.Decode(ev.Pkt.Head, &f.seg) && f.seg.Payload > 0 {
		f.data++
	}
	if f.drop != nil && f.drop(ev.Pkt, f.data) {
		return nil
	}
	f.ends[binary.BigEndian.Uint32(ev.Pkt.Head[30:])].Deliver(f.eng, ev.Pkt, ev.AtPs())
	return nil
}

const (
	hostProp = 5e6 // host to switch, ps
	wireProp = 2e6 // switch to host, ps
	baseRTT  = 2 * (hostProp + wireProp)
)

func newFabric(eng sim.Engine) *fabric {
	return &fabric{ComponentBase: sim.NewComponentBase("Fabric"), eng: eng, ends: map[uint32]link.End{}}
}

// tcpPair builds client host 0 and server host 1 on a fabric.
func tcpPair(t *testing.T, cfg tcp.Config) (*engine.Serial, *fabric, *tcp.Host, *tcp.Host) {
	eng := engine.NewSerial()
	fb := newFabric(eng)
	cfg.PropPs = hostProp
	b := tcp.MakeBuilder().WithEngine(eng).WithConfig(cfg).WithUplink(fb)
	a, err := b.WithHost(0, 0).Build("Client")
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.WithHost(1, 1).Build("Server")
	if err != nil {
		t.Fatal(err)
	}
	fb.ends[a.IP()] = link.To(a, 0, wireProp)
	fb.ends[s.IP()] = link.To(s, 1, wireProp)
	return eng, fb, a, s
}

func dctcpConfig() tcp.Config {
	cfg := tcp.DefaultConfig()
	cfg.CC, cfg.ECN, cfg.RTOMinPs, cfg.NICGbps = tcp.CCDCTCP, true, 1e9, 100
	return cfg
}

func runTCP(t *testing.T, cfg tcp.Config, gen Config, drop func(*packet.Packet, int) bool) (*Client, *fabric) {
	eng, fb, a, s := tcpPair(t, cfg)
	fb.drop = drop
	c, err := NewTCP("Gen", gen, eng, a, 0, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if err := eng.Run(); err != nil {
		t.Fatal(err)
	}
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
	return c, fb
}

func ser(bytes int, gbps float64) int64 { return packet.SerializationPs(bytes, gbps) }

// TestTCPShortFlowFCT: a lossless 143 B flow completes in one RTT plus
// the data and ACK serializations (the receiver's quick-ACK mode ACKs at
// once), exactly, flow after flow.
func TestTCPShortFlowFCT(t *testing.T) {
	cfg := dctcpConfig()
	c, _ := runTCP(t, cfg, Config{Bytes: 143, GapPs: 1e6, Flows: 100, Parallel: 1, SynRTTPs: baseRTT}, nil)
	want := float64(baseRTT+ser(143+tcp.HeaderLen, 100)+ser(tcp.HeaderLen, 100)) / 1e6
	s := c.FCT()
	if c.Done() != 100 || c.Started() != 100 || s.N != 100 || !s.Exact {
		t.Fatalf("done %d started %d summary %+v", c.Done(), c.Started(), s)
	}
	if s.P50 != want || s.Max != want {
		t.Errorf("FCT p50 %.4f max %.4f us, want %.4f (RTT %.0f us + serializations)", s.P50, s.Max, want, float64(baseRTT)/1e6)
	}
	if n := c.Counters(); n != (Counters{}) {
		t.Errorf("lossless flows retransmitted: %+v", n)
	}
}

// TestTCPSlowStartRounds: a 24 387 B flow is 17 segments (16 of 1448 B
// and one of 1219 B). With an initial window of 20 it goes out in one
// burst: FCT = 16 S + S' + RTT + A (S, S': full and last frame
// serialization at 10 Gb/s, A: an ACK's). With 10 the first 10 go out,
// the sender idles until the first ACK (S + RTT + A, later than the
// burst's end), and each quick ACK then releases two segments (slow
// start): the last 7 leave back to back from the first ACK on, so FCT =
// (S + RTT + A) + 6 S + S' + RTT + A: two rounds.
func TestTCPSlowStartRounds(t *testing.T) {
	S, last, A := ser(1448+tcp.HeaderLen, 10), ser(1219+tcp.HeaderLen, 10), ser(tcp.HeaderLen, 10)
	for _, c := range []struct {
		iw   int
		want int64
	}{
		{20, 16*S + last + baseRTT + A},
		{10, (S + baseRTT + A) + 6*S + last + baseRTT + A},
	} {
		cfg := dctcpConfig()
		cfg.NICGbps = 10
		cfg.InitCwnd = c.iw
		g, _ := runTCP(t, cfg, Config{Bytes: 24387, GapPs: 1e6, Flows: 20, Parallel: 1, SynRTTPs: baseRTT}, nil)
		s := g.FCT()
		if g.Done() != 20 || s.P50 != float64(c.want)/1e6 || s.Max != s.P50 {
			t.Errorf("init cwnd %d: FCT p50 %.4f max %.4f us, want %.4f", c.iw, s.P50, s.Max, float64(c.want)/1e6)
		}
	}
}

// TestTCPTailLossFCT drops the only data segment of one 143 B DCTCP
// flow: the sender's timer (RACK-TLP's probe, capped by the RTO of
// SRTT + max(4 RTTVAR, RTO_min)) resends it, so that flow's FCT is the
// lossless one plus that timeout: ≈ RTO_min when RTO_min is 1 ms and
// ≈ 10 ms when it is 10 ms. The others are untouched.
func TestTCPTailLossFCT(t *testing.T) {
	for _, rtoMin := range []int64{1e9, 10e9} {
		cfg := dctcpConfig()
		cfg.RTOMinPs = rtoMin
		drop := func(p *packet.Packet, n int) bool { return n == 50 && p.Len > tcp.HeaderLen }
		c, fb := runTCP(t, cfg, Config{Bytes: 143, GapPs: 1e6, Flows: 100, Parallel: 1, SynRTTPs: baseRTT}, drop)
		s := c.FCT()
		n := c.Counters()
		if c.Done() != 100 || n.Retransmits != 1 || n.LossProbes+n.Timeouts != 1 || fb.data != 101 {
			t.Fatalf("RTO_min %d us: done %d, counters %+v, data frames %d", rtoMin/1e6, c.Done(), n, fb.data)
		}
		lossless := baseRTT + ser(143+tcp.HeaderLen, 100) + ser(tcp.HeaderLen, 100)
		// RTO from the handshake sample: SRTT = RTT, RTTVAR = RTT/2.
		rto := baseRTT + max(2*baseRTT, rtoMin)
		wantMax := float64(lossless+rto) / 1e6
		if math.Abs(s.Max-wantMax) > 1 || s.P50*1e6 != float64(lossless) {
			t.Errorf("RTO_min %d us: FCT p50 %.3f max %.3f us, want %.3f and ≈ %.3f (lossless + RTO)",
				rtoMin/1e6, s.P50, s.Max, float64(lossless)/1e6, wantMax)
		}
		t.Logf("RTO_min %d us: max FCT %.3f us, %+v", rtoMin/1e6, s.Max, n)
	}
}

// TestTCPParallelDeadline runs 4 loops until a deadline: each loop runs
// back to back, ids are reused (epochs), every started flow but the
// last of each loop completes, memory at the hosts stays bounded.
func TestTCPParallelDeadline(t *testing.T) {
	cfg := dctcpConfig()
	c, _ := runTCP(t, cfg, Config{Bytes: 24387, GapPs: 2e6, Parallel: 4, StaggerPs: 1e6, DeadlinePs: 5e9,
		FirstID: 100, IDsPerLoop: 3, SynRTTPs: baseRTT}, nil)
	if c.Done() < 4*100 || c.Started()-c.Done() > 4 {
		t.Errorf("started %d, done %d in 5 ms on 4 loops", c.Started(), c.Done())
	}
	if s := c.FCT(); s.Max > 2*s.P50 {
		t.Errorf("FCT spread with 4 loops on an idle fabric: %+v", s)
	}
}

// rdmaPair builds requester host 0 and responder host 1 on a fabric.
func rdmaPair(t *testing.T, cfg rdma.Config) (*engine.Serial, *fabric, *rdma.Host, *rdma.Host) {
	eng := engine.NewSerial()
	fb := newFabric(eng)
	cfg.PropPs = hostProp
	b := rdma.MakeBuilder().WithEngine(eng).WithConfig(cfg).WithUplink(fb)
	a, err := b.WithHost(0, 0).Build("Req")
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.WithHost(1, 1).Build("Resp")
	if err != nil {
		t.Fatal(err)
	}
	fb.ends[a.IP()] = link.To(a, 0, wireProp)
	fb.ends[s.IP()] = link.To(s, 1, wireProp)
	return eng, fb, a, s
}

// TestRDMAFlows runs 143 B WRITEs back to back: lossless ones complete
// in the closed form (frame + RTT + ACK); losing the 30th flow's only
// packet costs it the transport timeout; parallel loops use their own
// QPs.
func TestRDMAFlows(t *testing.T) {
	cfg := rdma.DefaultConfig()
	for _, lose := range []bool{false, true} {
		eng, fb, a, s := rdmaPair(t, cfg)
		seen := 0
		fb.drop = func(p *packet.Packet, _ int) bool {
			if p.Len == rdma.AckLen {
				return false
			}
			seen++
			return lose && seen == 30
		}
		c, err := NewRDMA("Gen", Config{Bytes: 143, GapPs: 1e6, Flows: 60, Parallel: 2, FirstID: 7}, eng, a, 0, s, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		if err := eng.Run(); err != nil {
			t.Fatal(err)
		}
		// Two loops share the NIC: a WRITE may wait for the other
		// loop's frame or ACK (at most two frame times).
		lossless := baseRTT + ser(217, 100) + ser(rdma.AckLen, 100)
		st := c.FCT()
		n := c.Counters()
		if c.Done() != 60 || st.P50*1e6 < float64(lossless) || st.P50*1e6 > float64(lossless+2*ser(217, 100)) {
			t.Errorf("lose %v: done %d, FCT %+v, lossless %.4f us", lose, c.Done(), st, float64(lossless)/1e6)
		}
		if !lose && (n != Counters{} || st.Max*1e6 > float64(lossless+2*ser(217, 100))) {
			t.Errorf("lossless: counters %+v, max %.4f us", n, st.Max)
		}
		if lose && (n.Timeouts != 1 || n.Retransmits != 1 || math.Abs(st.Max*1e6-float64(lossless+cfg.TimeoutPs)) > 1e6) {
			t.Errorf("one lost WRITE: counters %+v, max FCT %.3f us, want ≈ %.3f (lossless + timeout)",
				n, st.Max, float64(lossless+cfg.TimeoutPs)/1e6)
		}
	}
}

// TestSummaryExact checks the quantiles against the sorted samples.
func TestSummaryExact(t *testing.T) {
	var s stats.Samples
	var xs []float64
	for i := 0; i < 20000; i++ {
		x := int64((i*7919)%20011) * 1e6
		s.Add(x)
		xs = append(xs, float64(x))
	}
	slices.Sort(xs)
	sum := Summarize(&s)
	rank := func(p float64) float64 { return xs[int(math.Ceil(p*float64(len(xs))))-1] / 1e6 }
	if sum.N != 20000 || !sum.Exact || sum.P50 != rank(0.5) || sum.P99 != rank(0.99) || sum.P999 != rank(0.999) ||
		sum.P9999 != rank(0.9999) || sum.Max != xs[len(xs)-1]/1e6 {
		t.Errorf("summary %+v, want p50 %g p99 %g p999 %g p9999 %g max %g", sum, rank(0.5), rank(0.99), rank(0.999), rank(0.9999), xs[len(xs)-1]/1e6)
	}
}

// TestBadConfig checks one-line errors for bad inputs.
func TestBadConfig(t *testing.T) {
	eng, _, a, s := tcpPair(t, dctcpConfig())
	for _, c := range []Config{
		{Bytes: 0, Flows: 1, Parallel: 1},
		{Bytes: 10, Flows: 1, Parallel: 0},
		{Bytes: 10, Parallel: 1},
		{Bytes: 10, Flows: 1, Parallel: 1, FirstID: tcp.MaxFlows},
		{Bytes: 10, Flows: 1, Parallel: 1, GapPs: -1},
	} {
		if _, err := NewTCP("G", c, eng, a, 0, s, 1); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestDeterminism runs a lossy TCP and RDMA workload twice.
func TestDeterminism(t *testing.T) {
	run := func() (Summary, Counters) {
		k := 0
		drop := func(*packet.Packet, int) bool { k++; return k%97 == 0 }
		c, _ := runTCP(t, dctcpConfig(), Config{Bytes: 24387, GapPs: 1e6, Flows: 200, Parallel: 3, SynRTTPs: baseRTT}, drop)
		return c.FCT(), c.Counters()
	}
	s1, n1 := run()
	s2, n2 := run()
	if s1 != s2 || n1 != n2 || n1.Retransmits == 0 {
		t.Errorf("runs differ or lost nothing: %+v %+v / %+v %+v", s1, n1, s2, n2)
	}
}

// TestIDClash: two clients on the same hosts with overlapping flow ids
// are refused (at Start, or as Err once a loop reaches a held id).
func TestIDClash(t *testing.T) {
	eng, _, a, s := tcpPair(t, dctcpConfig())
	g := Config{Bytes: 143, Flows: 10, Parallel: 1, IDsPerLoop: 2, SynRTTPs: baseRTT}
	c1, _ := NewTCP("A", g, eng, a, 0, s, 1)
	g.FirstID = 1
	c2, _ := NewTCP("B", g, eng, a, 0, s, 1)
	if c1.Start() != nil {
		t.Fatal("first client refused")
	}
	err := c2.Start()
	if err == nil {
		if e := eng.Run(); e != nil {
			t.Fatal(e)
		}
		err = c2.Err()
		if err == nil {
			err = c1.Err()
		}
	}
	if err == nil {
		t.Error("overlapping flow ids accepted")
	}
}
