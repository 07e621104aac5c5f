package tcp

import (
	"math/rand"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/link"
	"archsim/components/packet"
	"archsim/engine"
)

// bottleneck is a test-only drop-tail FIFO feeding a link: frames are
// queued up to capPkts, sent at gbps and delivered through out. drop
// chooses frames to lose on purpose; lossProb loses frames at random
// from a seeded generator. It records every data segment it forwards or
// drops, by sequence number relative to the flow's ISN.
type bottleneck struct {
	*sim.ComponentBase
	engine   sim.Engine
	gbps     float64
	capPkts  int
	out      link.End
	departs  []int64
	free     int64
	drop     func(seq int64, tx int) bool // seq: segment index; tx: its transmission count so far
	rng      *rand.Rand
	lossProb float64
	mss      int64

	seen    map[int64]int     // data segment index -> transmissions seen (test bookkeeping, never iterated for results)
	times   map[int64][]int64 // arrival times per segment
	dropped []int64           // segment indices dropped, in order
	maxQ    int
	seg     Segment

	markAbove int // set CE on ECT frames arriving to this many queued (0: never)
	marked    int
	qSum, qN  int64 // queue length seen by arriving frames from lateFromPs on
	maxQLate  int   // the largest queue from lateFromPs on
	lateFrom  int64
	quiet     bool // record nothing (benchmarks)
	ids       map[uint64]bool
	badIDs    int     // frames with ID 0 or an ID seen before
	delivered []int64 // when each forwarded frame reaches the far end
}

func newBottleneck(e sim.Engine, name string, gbps float64, capPkts int, mss int) *bottleneck {
	return &bottleneck{ComponentBase: sim.NewComponentBase(name), engine: e, gbps: gbps, capPkts: capPkts,
		mss: int64(mss), seen: map[int64]int{}, times: map[int64][]int64{}, ids: map[uint64]bool{}}
}

func (b *bottleneck) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (b *bottleneck) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

func (b *bottleneck) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := ev.AtPs()
	for len(b.departs) > 0 && b.departs[0] <= now {
		b.departs = b.departs[1:]
	}
	pkt := ev.Pkt
	if now >= b.lateFrom {
		b.qSum += int64(len(b.departs))
		b.qN++
		b.maxQLate = max(b.maxQLate, len(b.departs)+1)
	}
	if !b.quiet {
		if pkt.ID == 0 || b.ids[pkt.ID] {
			b.badIDs++
		}
		b.ids[pkt.ID] = true
	}
	if b.quiet {
		b.seg.Payload = 0
	} else if Decode(pkt.Head, &b.seg) && b.seg.Payload > 0 {
		seq := int64(b.seg.Seq-isnOf(int(b.seg.SrcPort)-PortBase)) / b.mss
		tx := b.seen[seq]
		b.seen[seq] = tx + 1
		b.times[seq] = append(b.times[seq], now)
		if (b.drop != nil && b.drop(seq, tx)) || (b.rng != nil && b.rng.Float64() < b.lossProb) {
			b.dropped = append(b.dropped, seq)
			return nil
		}
	}
	if b.markAbove > 0 && len(b.departs) >= b.markAbove && b.seg.ECN != ECNNotECT {
		pkt.Head[ethLen+1] |= ECNCE
		b.marked++
	}
	if len(b.departs) >= b.capPkts {
		if b.seg.Payload > 0 {
			b.dropped = append(b.dropped, -1)
		}
		return nil
	}
	start := max(now, b.free)
	b.free = start + packet.SerializationPs(pkt.Len, b.gbps)
	b.departs = append(b.departs, b.free)
	b.maxQ = max(b.maxQ, len(b.departs))
	b.out.Deliver(b.engine, pkt, b.free)
	if !b.quiet {
		b.delivered = append(b.delivered, b.free+b.out.PropPs)
	}
	return nil
}

// testNet is sender host -> fwd bottleneck -> receiver host, with the
// ACKs on a separate reverse path (rev) that never drops.
type testNet struct {
	eng      *engine.Serial
	snd, rcv *Host
	fwd, rev *bottleneck
	trace    []cwndPoint
}

type cwndPoint struct {
	ps    int64
	cwnd  int
	state int
}

// newTestNet builds the network: hosts with cfg, a bottleneck of gbps
// with bufPkts, and propPs one way on each of the four link hops.
func newTestNet(t testing.TB, cfg Config, gbps float64, bufPkts int, propPs int64, deadlinePs int64) *testNet {
	n := &testNet{eng: engine.NewSerial()}
	n.fwd = newBottleneck(n.eng, "Fwd", gbps, bufPkts, cfg.MSS)
	n.rev = newBottleneck(n.eng, "Rev", cfg.NICGbps, 1<<30, cfg.MSS)
	cfg.PropPs = propPs
	b := MakeBuilder().WithEngine(n.eng).WithConfig(cfg).WithDeadline(deadlinePs)
	var err error
	n.snd, err = b.WithHost(0, 0).WithUplink(n.fwd).WithCwndHook(func(f int, ps int64, cwnd int) {
		n.trace = append(n.trace, cwndPoint{ps, cwnd, n.snd.senders[f].state})
	}).Build("Sender")
	if err != nil {
		t.Fatal(err)
	}
	n.rcv, err = b.WithHost(1, 1).WithUplink(n.rev).Build("Receiver")
	if err != nil {
		t.Fatal(err)
	}
	n.fwd.out = link.To(n.rcv, 1, propPs)
	n.rev.out = link.To(n.snd, 0, propPs)
	return n
}

func (n *testNet) flow(t testing.TB, bytes int64) *Flow {
	f := &Flow{ID: 0, Src: 0, Dst: 1, Bytes: bytes}
	if err := n.snd.AddSender(f); err != nil {
		t.Fatal(err)
	}
	if err := n.rcv.AddReceiver(f); err != nil {
		t.Fatal(err)
	}
	return f
}

func (n *testNet) run(t testing.TB) {
	if err := n.eng.Run(); err != nil {
		t.Fatal(err)
	}
}
