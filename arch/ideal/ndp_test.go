// Integration tests of the NDP hosts (archsim/components/hosts) with the
// ideal output-queued switch: a chip may know shared parts, and the hosts'
// own tests know no chip.
package ideal_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch/ideal"
	"archsim/components/hosts"
	"archsim/components/link"
	"archsim/components/packet"
)

// Link and packet parameters shared by the network tests. The derived
// constants are worked out by hand from packet.SerializationPs (frame +
// 24 bytes of FCS, preamble and IFG, at 100 Gb/s = 80 ps per byte) and
// checked against it in TestNDPHandDerivedConstants.
const (
	gbps    = 100.0
	mss     = 1500
	ctrl    = 64
	propPs  = 200_000 // 200 ns per link
	serD    = 121_920 // (1500+24) B x 80 ps
	serC    = 7_040   // (64+24) B x 80 ps
	payload = mss - hosts.HeaderLen

	// loopPs is the time from a receiver releasing a pull until the data
	// packet it pulls reaches the receiver, with idle links: the control
	// packet crosses two links (serC + prop each) and the data packet
	// two (serD + prop each).
	loopPs = 2*serC + 2*propPs + 2*serD + 2*propPs // 1_057_920

	noDeadline = int64(1e12) // 1 s: longer than any test run
)

// wireRec is a packet seen at the far end of a link.
type wireRec struct {
	AtPs   int64 // the packet fully arrived at the end of the link
	BornPs int64 // the sending NIC started to serialize it
	Host   int   // the sending host (uplinks) or receiving host (downlinks)
	ID     uint64
	Len    int
	Hdr    hosts.Header
}

func (w wireRec) isData() bool { return w.Hdr.Flags&(hosts.FlagACK|hosts.FlagNACK|hosts.FlagPULL) == 0 }

// tap records the packets crossing a link and hands them on.
type tap struct {
	host int
	log  *[]wireRec
	next sim.Handler
}

func (t *tap) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	if ev.Kind == packet.KindArrive && ev.Pkt != nil {
		h, _ := hosts.Decode(ev.Pkt.Head)
		*t.log = append(*t.log, wireRec{AtPs: packet.SecToPs(ev.T), BornPs: ev.Pkt.BornPs, Host: t.host,
			ID: ev.Pkt.ID, Len: ev.Pkt.Len, Hdr: h})
	}
	return t.next.Handle(e)
}

type netParams struct {
	hosts     int
	cfg       hosts.NDPConfig
	queuePkts int // data queue of the ideal switch, in MSS-sized packets
	hdrPkts   int // header queue, in control packets
	seed      int64
	flows     []*hosts.Flow
}

// testNet is an ideal switch with NDP hosts on ports 0..hosts-1, wired as
// experiments.runOne wires them, with a tap on every link.
type testNet struct {
	eng   *sim.SerialEngine
	sw    *ideal.Switch
	hosts []*hosts.NDPHost
	rec   *hosts.Recorder
	up    []wireRec // host -> switch, in arrival order
	down  []wireRec // switch -> host, in arrival order
}

func ndpCfg(window int, pullRate float64) hosts.NDPConfig {
	return hosts.NDPConfig{NICGbps: gbps, PropPs: propPs, MSS: mss, CtrlBytes: ctrl, InitialWindow: window, PullRateMod: pullRate}
}

func newTestNet(p netParams) *testNet {
	n := &testNet{eng: sim.NewSerialEngine(), rec: hosts.NewRecorder(len(p.flows))}
	cfg := p.cfg
	n.sw = ideal.MakeBuilder().WithEngine(n.eng).WithConfig(ideal.Config{
		Ports: p.hosts, PortGbps: cfg.NICGbps,
		DataQueueB:   int64(p.queuePkts * cfg.MSS), // exactly queuePkts data packets
		HeaderQueueB: int64(p.hdrPkts * cfg.CtrlBytes),
		HeaderBytes:  cfg.CtrlBytes,
		IsHeader:     hosts.IsHeader,
		Trim:         func(pkt *packet.Packet) { hosts.Trim(pkt, cfg.CtrlBytes) },
		PortOfPacket: hosts.DstHost,
		Seed:         p.seed,
	}).Build("SW")
	n.sw.OnDrop(func(pkt *packet.Packet, reason string) { n.rec.Dropped(pkt.ID, reason) })
	for h := 0; h < p.hosts; h++ {
		up := &tap{host: h, log: &n.up, next: n.sw.IngressHandler(h)}
		host := hosts.MakeBuilder().WithEngine(n.eng).WithHost(h, h).WithUplink(up).WithRecorder(n.rec).WithDeadline(noDeadline).BuildNDP(fmt.Sprintf("H%d", h), cfg)
		n.hosts = append(n.hosts, host)
		n.sw.Attach(h, link.To(&tap{host: h, log: &n.down, next: host}, h, cfg.PropPs))
	}
	for _, f := range p.flows {
		n.hosts[f.Src].AddSource(f)
		n.hosts[f.Dst].AddSink(f)
	}
	return n
}

func (n *testNet) run(t *testing.T) {
	t.Helper()
	if err := n.eng.Run(); err != nil {
		t.Fatal(err)
	}
}

type flowSeq struct{ flow, seq int }

// fates counts the recorded fates of all data packets.
func (n *testNet) fates() (sent, whole, trimmed, dropped, inFlight int) {
	for id := uint64(1); id <= uint64(n.rec.Packets()); id++ {
		fate, data, _ := n.rec.FateOf(id)
		if !data {
			continue
		}
		sent++
		switch fate {
		case hosts.FateDelivered:
			whole++
		case hosts.FateTrimmed:
			trimmed++
		case hosts.FateDropped:
			dropped++
		default:
			inFlight++
		}
	}
	return
}

// checkPullService replays what source host src received for flow and
// checks what it sent: first its window of seq 0..W-1, then, for every
// pull number it gains, exactly one packet while it has any to send —
// the oldest NACKed sequence number first, else the next new one — and
// nothing else.
func checkPullService(t *testing.T, n *testNet, src, flow, W, N int) {
	t.Helper()
	var tx []int // seqs sent, in the NIC's (= decision) order
	for _, w := range n.up {
		if w.Host == src && w.isData() && int(w.Hdr.Flow) == flow {
			tx = append(tx, int(w.Hdr.Seq))
		}
	}
	if len(tx) < min(W, N) {
		t.Fatalf("flow %d: %d transmissions, less than the window", flow, len(tx))
	}
	for i := 0; i < min(W, N); i++ {
		if tx[i] != i {
			t.Fatalf("flow %d: window packet %d is seq %d", flow, i, tx[i])
		}
	}
	next, newSeq, lastPull := min(W, N), min(W, N), 0
	var rtx []int
	for _, w := range n.down {
		if w.Host != src || int(w.Hdr.Flow) != flow || w.isData() {
			continue
		}
		if w.Hdr.Flags&hosts.FlagNACK != 0 {
			rtx = append(rtx, int(w.Hdr.Seq))
		}
		if w.Hdr.Flags&hosts.FlagPULL == 0 || int(w.Hdr.Pull) <= lastPull {
			continue
		}
		for k := int(w.Hdr.Pull) - lastPull; k > 0; k-- {
			want := -1
			if len(rtx) > 0 {
				want, rtx = rtx[0], rtx[1:]
			} else if newSeq < N {
				want = newSeq
				newSeq++
			} else {
				break
			}
			if next >= len(tx) {
				t.Fatalf("flow %d: pull %d at %d ps sent nothing (want seq %d)", flow, w.Hdr.Pull, w.AtPs, want)
			}
			if tx[next] != want {
				t.Fatalf("flow %d: pull %d at %d ps sent seq %d, want %d (retransmissions first)", flow, w.Hdr.Pull, w.AtPs, tx[next], want)
			}
			next++
		}
		lastPull = int(w.Hdr.Pull)
	}
	if next != len(tx) || len(rtx) != 0 || newSeq != N {
		t.Errorf("flow %d: %d of %d transmissions explained by pulls, %d NACKed left, %d of %d new sent",
			flow, next, len(tx), len(rtx), newSeq, N)
	}
}

func TestNDPHandDerivedConstants(t *testing.T) {
	if got := packet.SerializationPs(mss, gbps); got != serD {
		t.Errorf("SerializationPs(%d) = %d, derived %d", mss, got, serD)
	}
	if got := packet.SerializationPs(ctrl, gbps); got != serC {
		t.Errorf("SerializationPs(%d) = %d, derived %d", ctrl, got, serC)
	}
	if loopPs != 1_057_920 {
		t.Errorf("loopPs = %d", loopPs)
	}
}

// TestNDPSingleFlowLineRate: one flow of N = 100 packets, window W = 16,
// alone on the ideal switch.
//
// Hand derivation (serD = 121 920 ps, serC = 7 040 ps, P = 200 000 ps):
//   - the source queues its W packets at t = 0; packet k starts at k·serD;
//   - the switch port is idle at each arrival (store and forward), so data
//     packet k reaches the receiver at (k+2)·serD + 2P;
//   - the receiver pulls once per arrival; the pull for packet W+j leaves
//     at the earliest at t0 + j·gap (t0 = 2·serD + 2P, gap = serD/0.99 =
//     123 151 ps) and reaches the source (two control hops plus at most
//     2·serC of waiting behind other control packets) by
//     2·serD + 4P + 4·serC + j·gap = 1 072 000 + j·gap ps;
//   - the source's NIC, busy with its backlog, would start packet W+j at
//     (W+j)·serD = 1 950 720 + j·serD; the pull is there in time while
//     j·(gap − serD) ≤ 878 720, i.e. j ≤ 713, which covers N − W = 84.
//     (At pull_rate 1, gap = serD and the condition holds for every j.)
//
// So the source never idles: every packet k leaves at exactly k·serD, the
// flow completes at (N+1)·serD + 2P = 12 713 920 ps, the lower bound for
// any transfer of N packets over two store-and-forward hops. The test
// runs at pull_rate 0.99 (htsim's main_ndp) and 1.
func TestNDPSingleFlowLineRate(t *testing.T) {
	const (
		W    = 16
		N    = 100
		done = (N+1)*serD + 2*propPs // 12_713_920
	)
	if W*serD < loopPs {
		t.Fatal("test setup: the window must cover the pull loop")
	}
	for _, rate := range []float64{0.99, 1} {
		t.Run(fmt.Sprintf("pull_rate=%g", rate), func(t *testing.T) { singleFlow(t, W, N, done, rate) })
	}
}

func singleFlow(t *testing.T, W, N int, done int64, rate float64) {
	n := newTestNet(netParams{hosts: 2, cfg: ndpCfg(W, rate), queuePkts: 8, hdrPkts: 1000, seed: 1,
		flows: []*hosts.Flow{{ID: 0, Src: 0, Dst: 1, Packets: N}}})
	n.run(t)

	// Data leaving the sender: N packets, seq 0..N-1 in order, back to back.
	var data []wireRec
	for _, w := range n.up {
		if w.Host == 0 {
			if !w.isData() {
				t.Fatalf("sender sent a control packet: %+v", w)
			}
			data = append(data, w)
		}
	}
	if len(data) != N || n.hosts[0].DataSent != N {
		t.Fatalf("sender sent %d data packets (DataSent %d), want %d", len(data), n.hosts[0].DataSent, N)
	}
	for k, w := range data {
		if int(w.Hdr.Seq) != k {
			t.Fatalf("data packet %d has seq %d", k, w.Hdr.Seq)
		}
		if k < W && w.BornPs != int64(k*serD) {
			t.Errorf("initial window packet %d left at %d ps, want %d (back to back at line rate)", k, w.BornPs, k*serD)
		}
		if w.BornPs != int64(k*serD) {
			t.Errorf("packet %d left at %d ps, want %d (window >= BDP: the sender never idles)", k, w.BornPs, k*serD)
		}
		if w.AtPs != w.BornPs+serD+propPs {
			t.Errorf("packet %d reached the switch at %d, want %d", k, w.AtPs, w.BornPs+serD+propPs)
		}
	}

	// Receiver side: each seq once, whole, at (k+2)·serD + 2P.
	k := 0
	for _, w := range n.down {
		if w.Host != 1 {
			continue
		}
		if w.Hdr.Flags != 0 {
			t.Fatalf("receiver got a non-data packet %+v", w)
		}
		if int(w.Hdr.Seq) != k || w.AtPs != int64((k+2)*serD+2*propPs) {
			t.Errorf("arrival %d: seq %d at %d ps, want seq %d at %d", k, w.Hdr.Seq, w.AtPs, k, (k+2)*serD+2*propPs)
		}
		k++
	}
	if k != N {
		t.Errorf("receiver got %d data packets, want %d", k, N)
	}
	if n.rec.Done[0] != done || n.rec.LastData[0] != done {
		t.Errorf("completion %d ps (last data %d), want exactly (N+1)·serD + 2P = %d", n.rec.Done[0], n.rec.LastData[0], done)
	}

	// No trims, every packet delivered whole exactly once.
	if n.sw.Trims != 0 || len(n.rec.Headers) != 0 {
		t.Errorf("trims %d, headers %d: want none", n.sw.Trims, len(n.rec.Headers))
	}
	if m := n.sw.MaxDataQueue(); m > 1 {
		t.Errorf("switch data queue reached %d packets with a single line-rate flow", m)
	}
	sent, whole, trimmed, dropped, inFlight := n.fates()
	if sent != N || whole != N || trimmed+dropped+inFlight != 0 || n.rec.Twice != 0 || n.rec.Both != 0 {
		t.Errorf("fates: sent %d whole %d trimmed %d dropped %d in flight %d twice %d both %d",
			sent, whole, trimmed, dropped, inFlight, n.rec.Twice, n.rec.Both)
	}
	if n.rec.Goodput[0] != int64(N*payload) {
		t.Errorf("goodput %d B, want %d", n.rec.Goodput[0], N*payload)
	}
	// One ACK per packet, no NACK; ACKs carry the packet's seq.
	acks := 0
	for _, w := range n.up {
		if w.Host != 1 {
			continue
		}
		if w.Hdr.Flags&hosts.FlagNACK != 0 {
			t.Errorf("NACK without trimming: %+v", w)
		}
		if w.Hdr.Flags&hosts.FlagACK != 0 {
			if int(w.Hdr.Seq) != acks {
				t.Errorf("ACK %d carries seq %d", acks, w.Hdr.Seq)
			}
			acks++
		}
	}
	if acks != N {
		t.Errorf("%d ACKs, want %d", acks, N)
	}
	checkPullService(t, n, 0, 0, W, N)

	// Pull piggybacking. The first arrival (t0 = 2·serD + 2P) finds the
	// pacer idle: its ACK carries pull 1. At pull_rate 1 the gap equals
	// serD, so each later arrival, serD after the previous pull, finds the
	// pacer idle again: every ACK but the last carries the next pull and
	// there are no separate PULLs. At 0.99 the gap (123 151 ps) is longer
	// than serD: the second ACK (t0 + serD) goes without a pull, and the
	// pacer releases PULL 2 one gap after pull 1, at t0 + 123 151 ps; the
	// NIC is then still sending that ACK (until t0 + serD + serC =
	// t0 + 128 960 ps), so PULL 2 starts right after it.
	const t0 = 2*serD + 2*propPs
	var ctl []wireRec
	for _, w := range n.up {
		if w.Host == 1 {
			ctl = append(ctl, w)
		}
	}
	first := ctl[0]
	if first.Hdr.Flags != hosts.FlagACK|hosts.FlagPULL || first.Hdr.Seq != 0 || first.Hdr.Pull != 1 || first.BornPs != t0 {
		t.Errorf("first control packet %+v, want ACK+PULL 1 for seq 0 at %d", first, t0)
	}
	if rate == 1 {
		for _, w := range ctl {
			wantFlags := uint8(hosts.FlagACK | hosts.FlagPULL)
			if int(w.Hdr.Seq) == N-1 {
				wantFlags = hosts.FlagACK
			}
			if w.Hdr.Flags != wantFlags || (wantFlags&hosts.FlagPULL != 0 && int(w.Hdr.Pull) != int(w.Hdr.Seq)+1) {
				t.Errorf("pull rate 1: control packet %+v, want flags %#x pull seq+1", w.Hdr, wantFlags)
			}
		}
		return
	}
	second, pull2 := ctl[1], ctl[2]
	if second.Hdr.Flags != hosts.FlagACK || second.Hdr.Seq != 1 || second.BornPs != t0+serD {
		t.Errorf("second control packet %+v at %d, want a plain ACK for seq 1 at %d", second.Hdr, second.BornPs, t0+serD)
	}
	if pull2.Hdr.Flags != hosts.FlagPULL || pull2.Hdr.Pull != 2 || pull2.BornPs != t0+serD+serC {
		t.Errorf("third control packet %+v at %d, want PULL 2 at %d", pull2.Hdr, pull2.BornPs, t0+serD+serC)
	}
}

// TestNDPIncastTrimRecovery: two sources with W = 12 into one receiver
// through a 4-packet data queue.
//
// Lower bound on trims: both initial windows (24 packets) reach the switch
// at (k+1)·serD + P, k = 0..11, so all of them are there by 12·serD + P.
// The first pulled packet cannot arrive before then (the sources' NICs are
// busy with their windows until 12·serD, plus serD + P of link). By that
// time the output port has started at most 12 transmissions and its data
// queue holds at most 4, so at least 24 − 12 − 4 = 8 packets were trimmed.
func TestNDPIncastTrimRecovery(t *testing.T) {
	const (
		W = 12
		N = 40
	)
	flows := []*hosts.Flow{{ID: 0, Src: 0, Dst: 2, Packets: N}, {ID: 1, Src: 1, Dst: 2, Packets: N}}
	n := newTestNet(netParams{hosts: 3, cfg: ndpCfg(W, 0.99), queuePkts: 4, hdrPkts: 1000, seed: 1, flows: flows})
	n.run(t)

	if n.sw.Trims < 8 {
		t.Fatalf("trims = %d, want at least 8 (derived)", n.sw.Trims)
	}
	t.Logf("trims %d, completion %d / %d ps", n.sw.Trims, n.rec.Done[0], n.rec.Done[1])
	checkPullService(t, n, 0, 0, W, N)
	checkPullService(t, n, 1, 1, W, N)
	if n.sw.HeaderDrop != 0 {
		t.Fatalf("header drops %d with a 1000-packet header queue", n.sw.HeaderDrop)
	}
	if m := n.sw.MaxDataQueue(); m != 4 {
		t.Errorf("max data queue %d, want 4 (full, never more)", m)
	}

	sentTx := map[flowSeq][]int64{} // data transmissions (BornPs) per seq
	nackOut := map[flowSeq]int{}    // NACKs the receiver sent
	nackIn := map[flowSeq][]int64{} // NACKs reaching the source (arrival time)
	trimmedIn := map[flowSeq]int{}  // trimmed headers reaching the receiver
	wholeIn := map[flowSeq]int{}    // whole packets reaching the receiver
	for _, w := range n.up {
		fs := flowSeq{int(w.Hdr.Flow), int(w.Hdr.Seq)}
		switch {
		case w.Host < 2 && w.isData():
			sentTx[fs] = append(sentTx[fs], w.BornPs)
		case w.Host == 2 && w.Hdr.Flags&hosts.FlagNACK != 0:
			nackOut[fs]++
		}
	}
	for _, w := range n.down {
		fs := flowSeq{int(w.Hdr.Flow), int(w.Hdr.Seq)}
		switch {
		case w.Host == 2 && w.Hdr.Flags&hosts.FlagTrimmed != 0:
			trimmedIn[fs]++
		case w.Host == 2 && w.Hdr.Flags == 0:
			wholeIn[fs]++
		case w.Host < 2 && w.Hdr.Flags&hosts.FlagNACK != 0:
			nackIn[fs] = append(nackIn[fs], w.AtPs)
		}
	}
	totalTrimmed := 0
	for _, c := range trimmedIn {
		totalTrimmed += c
	}
	if totalTrimmed != n.sw.Trims || len(n.rec.Headers) != n.sw.Trims {
		t.Errorf("trimmed headers at the receiver %d (recorded %d), switch trims %d", totalTrimmed, len(n.rec.Headers), n.sw.Trims)
	}
	for f := 0; f < 2; f++ {
		for s := 0; s < N; s++ {
			fs := flowSeq{f, s}
			if wholeIn[fs] != 1 {
				t.Errorf("flow %d seq %d delivered whole %d times, want 1", f, s, wholeIn[fs])
			}
			if nackOut[fs] != trimmedIn[fs] {
				t.Errorf("flow %d seq %d: %d trimmed headers but %d NACKs", f, s, trimmedIn[fs], nackOut[fs])
			}
			if len(sentTx[fs]) != 1+trimmedIn[fs] {
				t.Errorf("flow %d seq %d sent %d times, want 1 + %d trims", f, s, len(sentTx[fs]), trimmedIn[fs])
			}
			// The i-th retransmission follows the i-th NACK's arrival.
			for i := 1; i < len(sentTx[fs]); i++ {
				if i-1 >= len(nackIn[fs]) || sentTx[fs][i] < nackIn[fs][i-1] {
					t.Errorf("flow %d seq %d: transmission %d at %d before its NACK arrived", f, s, i, sentTx[fs][i])
				}
			}
		}
		if n.rec.Goodput[f] != N*payload {
			t.Errorf("flow %d goodput %d B, want %d", f, n.rec.Goodput[f], N*payload)
		}
		if n.rec.Done[f] == 0 {
			t.Errorf("flow %d did not complete", f)
		}
	}

	// Conservation: sent = whole + trimmed + dropped, nothing left over.
	sent, whole, trimmed, dropped, inFlight := n.fates()
	if sent != n.hosts[0].DataSent+n.hosts[1].DataSent {
		t.Errorf("recorder saw %d data packets, hosts sent %d", sent, n.hosts[0].DataSent+n.hosts[1].DataSent)
	}
	if whole+trimmed+dropped+inFlight != sent || inFlight != 0 || dropped != 0 {
		t.Errorf("conservation: sent %d = whole %d + trimmed %d + dropped %d + in flight %d", sent, whole, trimmed, dropped, inFlight)
	}
	if whole != 2*N || trimmed != n.sw.Trims || sent != 2*N+n.sw.Trims {
		t.Errorf("whole %d (want %d), trimmed %d (want %d), sent %d (want %d)", whole, 2*N, trimmed, n.sw.Trims, sent, 2*N+n.sw.Trims)
	}
	if n.rec.Twice != 0 || n.rec.Both != 0 {
		t.Errorf("twice %d both %d", n.rec.Twice, n.rec.Both)
	}
}

// TestNDPHeaderDropIsRecorded: with a header queue of a single control
// packet, trimmed headers are dropped; the recorder books them as dropped
// with the switch's reason and conservation still holds (the flows then
// stall, as htsim without RTO does: no assertion on completion).
func TestNDPHeaderDropIsRecorded(t *testing.T) {
	// Three senders: their windows reach the switch three packets at a
	// time, so a full data queue trims two or three at once and the
	// one-header queue overflows.
	flows := []*hosts.Flow{{ID: 0, Src: 0, Dst: 3, Packets: 20}, {ID: 1, Src: 1, Dst: 3, Packets: 20}, {ID: 2, Src: 2, Dst: 3, Packets: 20}}
	n := newTestNet(netParams{hosts: 4, cfg: ndpCfg(12, 0.99), queuePkts: 2, hdrPkts: 1, seed: 3, flows: flows})
	n.run(t)
	if n.sw.HeaderDrop == 0 {
		t.Fatal("no header drops with a one-packet header queue")
	}
	sent, whole, trimmed, dropped, inFlight := n.fates()
	if dropped == 0 || whole+trimmed+dropped+inFlight != sent {
		t.Errorf("sent %d whole %d trimmed %d dropped %d in flight %d", sent, whole, trimmed, dropped, inFlight)
	}
	for id := uint64(1); id <= uint64(n.rec.Packets()); id++ {
		if fate, _, reason := n.rec.FateOf(id); fate == hosts.FateDropped && reason != "ideal switch: header queue full" {
			t.Errorf("packet %d dropped for %q", id, reason)
		}
	}
}

// TestNDPPullPacer: two flows into one receiver, pull rate 0.5, so the
// pacer gap is serD / 0.5 = 243 840 ps (components/hosts TestNDPPullGap
// checks an NDP host's pacer against this number) and the receiver can
// take data at half the line rate only. The data queue (64) never fills.
//
// In steady state (after both initial windows have arrived, before either
// flow completes) the pacer is never idle: 16 packets are in flight and a
// pull needs loopPs = 4.34 gaps to come back as data. Every pull (separate
// PULL or carried on an ACK) is released on the pacer's gap, and reaches
// the wire after at most two control packets (2·serC) of NIC queueing, so
// for any two pulls i < j in that window
//
//	(j−i)·gap − 2·serC ≤ t_j − t_i ≤ (j−i)·gap + 2·serC,
//
// i.e. the aggregate pull rate is pull_rate × line rate, no more and no
// less, and pulls alternate between the flows (round robin). The run
// ends when the last of 2N − 2W pulled packets arrives: the first pull is
// at t0 = 2·serD + 2P (first arrival), the last pulled packet's pull is
// released about (2N − 2W − 1) gaps later and arrives loopPs after that.
func TestNDPPullPacer(t *testing.T) {
	const (
		W   = 8
		N   = 150
		gap = 243_840 // int64(serD / 0.5)
	)
	flows := []*hosts.Flow{{ID: 0, Src: 0, Dst: 2, Packets: N}, {ID: 1, Src: 1, Dst: 2, Packets: N}}
	n := newTestNet(netParams{hosts: 3, cfg: ndpCfg(W, 0.5), queuePkts: 64, hdrPkts: 1000, seed: 1, flows: flows})
	n.run(t)
	if n.sw.Trims != 0 {
		t.Fatalf("%d trims: the test wants no trimming", n.sw.Trims)
	}
	checkPullService(t, n, 0, 0, W, N)
	checkPullService(t, n, 1, 1, W, N)

	// The time the initial windows have all arrived at the receiver.
	var steadyFrom int64
	dataIn := 0
	var dataTimes []int64
	for _, w := range n.down {
		if w.Host == 2 && w.isData() {
			dataIn++
			dataTimes = append(dataTimes, w.AtPs)
			if dataIn == 2*W {
				steadyFrom = w.AtPs
			}
		}
	}
	steadyTo := min(n.rec.Done[0], n.rec.Done[1])
	if steadyFrom == 0 || steadyTo == 0 {
		t.Fatalf("flows did not complete: done %v", n.rec.Done)
	}

	type pull struct {
		t    int64
		flow int
	}
	var pulls []pull
	for _, w := range n.up {
		if w.Host == 2 && w.Hdr.Flags&hosts.FlagPULL != 0 && w.BornPs >= steadyFrom && w.BornPs < steadyTo {
			pulls = append(pulls, pull{w.BornPs, int(w.Hdr.Flow)})
		}
	}
	if len(pulls) < 100 {
		t.Fatalf("only %d steady-state pulls", len(pulls))
	}
	t.Logf("%d steady-state pulls from %d to %d ps; done %v", len(pulls), steadyFrom, steadyTo, n.rec.Done)
	for i := range pulls {
		for j := i + 1; j < len(pulls); j++ {
			d := pulls[j].t - pulls[i].t
			lo, hi := int64(j-i)*gap-2*serC, int64(j-i)*gap+2*serC
			if d < lo {
				t.Fatalf("pulls %d..%d: %d pulls in %d ps, faster than pull_rate x line rate (gap %d)", i, j, j-i, d, gap)
			}
			if d > hi {
				t.Fatalf("pulls %d..%d: %d pulls in %d ps, the pacer idled with pulls pending (gap %d)", i, j, j-i, d, gap)
			}
		}
	}
	// Round robin: strictly alternating flows, equal shares.
	share := [2]int{}
	for i, p := range pulls {
		share[p.flow]++
		if i > 0 && p.flow == pulls[i-1].flow {
			t.Errorf("pulls %d and %d both for flow %d: not round robin", i-1, i, p.flow)
		}
	}
	if d := share[0] - share[1]; d < -1 || d > 1 {
		t.Errorf("pull shares %v: want equal within one", share)
	}
	// Delivered data rate over the steady window: one packet per gap.
	in := 0
	for _, at := range dataTimes {
		if at > steadyFrom+loopPs && at <= steadyTo {
			in++
		}
	}
	span := steadyTo - (steadyFrom + loopPs)
	if want := span / gap; int64(in) < want-1 || int64(in) > want+1 {
		t.Errorf("%d data packets in %d ps, want %d (half the line rate)", in, span, want)
	}
	// Completion of the whole transfer, derived above, within 2·serD.
	end := max(n.rec.Done[0], n.rec.Done[1])
	want := int64(2*serD+2*propPs) + int64(2*N-2*W-1)*gap + loopPs
	if end < want-2*serD || end > want+2*serD {
		t.Errorf("last completion %d ps, derived %d ± %d", end, want, 2*serD)
	}
	for f := 0; f < 2; f++ {
		if n.rec.Goodput[f] != N*payload {
			t.Errorf("flow %d goodput %d", f, n.rec.Goodput[f])
		}
	}
}

// TestNDPDeterminism: the same seed gives the same recorder and the same
// packets on every link, time for time.
func TestNDPDeterminism(t *testing.T) {
	run := func(seed int64) *testNet {
		flows := []*hosts.Flow{{ID: 0, Src: 0, Dst: 3, Packets: 40}, {ID: 1, Src: 1, Dst: 3, Packets: 40},
			{ID: 2, Src: 2, Dst: 3, Packets: 40, StartPs: 300_000}}
		n := newTestNet(netParams{hosts: 4, cfg: ndpCfg(12, 0.99), queuePkts: 4, hdrPkts: 1000, seed: seed, flows: flows})
		n.run(t)
		return n
	}
	a, b := run(7), run(7)
	if a.sw.Trims == 0 {
		t.Fatal("no trims: the run does not exercise the seeded trimming")
	}
	if a.sw.Trims != b.sw.Trims || !reflect.DeepEqual(a.rec, b.rec) {
		t.Errorf("same seed, different recorder (trims %d vs %d)", a.sw.Trims, b.sw.Trims)
	}
	if !reflect.DeepEqual(a.up, b.up) || !reflect.DeepEqual(a.down, b.down) {
		t.Error("same seed, different packets on the links")
	}
}

// TestNDPLongFlowSequenceWrap guards the 16-bit wrap. The NDP shim
// carries seq and pull numbers in 16 bits (hosts' wire.go encode:
// uint16(seq), uint16(pull)) while the hosts keep them as ints, so they
// must compare them with serial-number arithmetic (ndp.go unwrap16). A
// flow longer than 65 536 packets (the runner's "longer than any run"
// flows are 1<<20 packets, and runs of up to 1 s are accepted; at 100 Gb/s
// with 1564 B packets 65 536 packets take 8.3 ms) otherwise breaks: data
// packet 65 536 arrives as seq 0, is taken for a duplicate and earns no
// goodput; and once the receiver's pull number passes 65 535 it goes on
// the wire as 0, the source ignores it as an old pull and the flow stalls
// for good.
func TestNDPLongFlowSequenceWrap(t *testing.T) {
	const N = 65536 + 64
	n := newTestNet(netParams{hosts: 2, cfg: ndpCfg(16, 0.99), queuePkts: 8, hdrPkts: 1000, seed: 1,
		flows: []*hosts.Flow{{ID: 0, Src: 0, Dst: 1, Packets: N}}})
	n.run(t)
	if n.rec.Goodput[0] != N*payload || n.rec.Done[0] == 0 {
		t.Errorf("flow of %d packets: goodput %d B (want %d), done at %d ps, source sent %d packets",
			N, n.rec.Goodput[0], N*payload, n.rec.Done[0], n.hosts[0].DataSent)
	}
}
