package ideal

import (
	"archsim/components/link"
	"reflect"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// Test packets: Head[0] is the output port, Head[1] the kind. Data packets
// are 1000 B (81 920 ps at 100 Gb/s: (1000+24) B x 80 ps), headers 64 B
// (7 040 ps).
const (
	gbps     = 100.0
	dataLen  = 1000
	hdrLen   = 64
	serData  = 81_920
	serHdr   = 7_040
	kindData = 0
	kindCtrl = 1 // a control header (ACK, NACK, PULL)
	kindTrim = 2 // a trimmed data packet
)

type departure struct {
	AtPs int64 // fully received at the far end of the output link
	ID   uint64
	Port int
	Kind byte
	Len  int
}

type sink struct {
	port int
	log  *[]departure
}

func (s *sink) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	*s.log = append(*s.log, departure{AtPs: packet.SecToPs(ev.T), ID: ev.Pkt.ID, Port: s.port, Kind: ev.Pkt.Head[1], Len: ev.Pkt.Len})
	return nil
}

// harness is a switch on a serial engine with hooks that observe the data
// queue at every arrival and every trim.
type harness struct {
	t     *testing.T
	eng   *sim.SerialEngine
	sw    *Switch
	q     int // data queue, in data packets
	out   []departure
	drops map[uint64]string

	// Filled by the hooks.
	arrivals   int      // packets that reached arrive()
	curID      uint64   // the arriving packet
	curPre     int      // its output port's data queue length when it arrived
	curTail    uint64   // that queue's last packet when it arrived (0: empty)
	trimArr    []int    // arrival index of each trim
	trimmed    []uint64 // ids of trimmed packets, in trim order
	trimmedOld int      // trims that hit the queued tail, not the arrival
	trimPre    []int    // queue length seen by the arrival that caused each trim
	maxSeen    int      // the longest data queue seen at any arrival
	pres       []int    // curPre of every arrival, in order
}

func newHarness(t *testing.T, q, hdrQ int, seed int64, latencyPs int64) *harness {
	h := &harness{t: t, eng: sim.NewSerialEngine(), q: q, drops: map[uint64]string{}}
	h.sw = MakeBuilder().WithEngine(h.eng).WithConfig(Config{
		Ports: 2, PortGbps: gbps,
		DataQueueB:   int64(q * dataLen),
		HeaderQueueB: int64(hdrQ * hdrLen),
		HeaderBytes:  hdrLen,
		LatencyPs:    latencyPs,
		IsHeader:     func(p *packet.Packet) bool { return p.Head[1] != kindData },
		Trim:         h.trim,
		PortOfPacket: h.portOf,
		Seed:         seed,
	}).Build("SW")
	h.sw.OnDrop(func(p *packet.Packet, reason string) { h.drops[p.ID] = reason })
	for p := 0; p < 2; p++ {
		h.sw.Attach(p, link.To(&sink{port: p, log: &h.out}, p, 0))
	}
	return h
}

// portOf is called once per arrival, before the switch touches its queues.
func (h *harness) portOf(p *packet.Packet) int {
	pi := int(p.Head[0])
	h.arrivals++
	h.curID = p.ID
	h.curPre, h.curTail = -1, 0
	if pi >= 0 && pi < len(h.sw.ports) {
		d := h.sw.ports[pi].data
		h.curPre, h.curTail = len(d), 0
		if len(d) > 0 {
			h.curTail = d[len(d)-1].ID
		}
		h.maxSeen = max(h.maxSeen, len(d))
	}
	h.pres = append(h.pres, h.curPre)
	return pi
}

func (h *harness) trim(p *packet.Packet) {
	if p.Head[1] != kindData {
		h.t.Errorf("trimmed a header (packet %d)", p.ID)
	}
	h.trimArr = append(h.trimArr, h.arrivals)
	h.trimmed = append(h.trimmed, p.ID)
	h.trimPre = append(h.trimPre, h.curPre)
	switch p.ID {
	case h.curID:
	case h.curTail:
		h.trimmedOld++
	default:
		h.t.Errorf("trimmed packet %d: neither the arrival %d nor the queue's last packet %d", p.ID, h.curID, h.curTail)
	}
	p.Head = []byte{p.Head[0], kindTrim}
	p.Len = hdrLen
}

func (h *harness) inject(atPs int64, id uint64, port int, kind byte) {
	l := dataLen
	if kind != kindData {
		l = hdrLen
	}
	packet.Schedule(h.eng, h.sw, atPs, packet.KindArrive, &packet.Packet{ID: id, Head: []byte{byte(port), kind}, Len: l}, 0)
}

func (h *harness) run() {
	if err := h.eng.Run(); err != nil {
		h.t.Fatal(err)
	}
}

func ser(l int) int64 { return packet.SerializationPs(l, gbps) }

// overload sends 2·n data packets to port 0 from two line-rate inputs
// (packet i of input 0 at i·serData, of input 1 at i·serData + 1 000 ps):
// twice what the port can send. Ids follow arrival order (1, 2, ...).
func overload(h *harness, n int) {
	for i := 0; i < n; i++ {
		h.inject(int64(i*serData), uint64(2*i+1), 0, kindData)
		h.inject(int64(i*serData+1000), uint64(2*i+2), 0, kindData)
	}
}

func TestHandDerivedConstants(t *testing.T) {
	if ser(dataLen) != serData || ser(hdrLen) != serHdr {
		t.Fatalf("serialization %d / %d ps, derived %d / %d", ser(dataLen), ser(hdrLen), serData, serHdr)
	}
}

// TestQueueBoundAndTrimOnlyWhenFull: 2 x 60 packets at twice the port's
// rate into a 4-packet data queue.
//
//   - At every arrival the data queue holds at most q packets, and it does
//     reach q (MaxDataQueue == q).
//   - A data arrival causes exactly one trim if the queue is full (q
//     packets) and none otherwise; the trimmed packet is the arrival or
//     the queue's last packet, and both happen (the coin is fair: over
//     more than 50 trims each side gets 30-70 %).
//   - Every packet leaves exactly once: whole ones in arrival order,
//     trimmed ones as 64-byte headers; none is dropped.
//   - The port is work conserving: it is busy from the first arrival
//     (t = 0) to the end, so the last packet is received exactly the sum
//     of all serialization times after t = 0.
func TestQueueBoundAndTrimOnlyWhenFull(t *testing.T) {
	const q, n = 4, 60
	h := newHarness(t, q, 1000, 1, 0)
	overload(h, n)
	h.run()

	if h.arrivals != 2*n {
		t.Fatalf("%d arrivals, want %d", h.arrivals, 2*n)
	}
	if h.maxSeen > q || h.sw.MaxDataQueue() != q {
		t.Errorf("data queue: longest seen at an arrival %d, MaxDataQueue %d, want ≤ %d and = %d", h.maxSeen, h.sw.MaxDataQueue(), q, q)
	}
	for i, pre := range h.trimPre {
		if pre != q {
			t.Errorf("trim %d (packet %d) when the queue held %d < %d packets", i, h.trimmed[i], pre, q)
		}
	}
	// Exactly one trim per data arrival that found the queue full, none
	// for the others.
	if h.sw.Trims != len(h.trimmed) {
		t.Errorf("switch counted %d trims, hook saw %d", h.sw.Trims, len(h.trimmed))
	}
	trimsAt := map[int]int{}
	for _, a := range h.trimArr {
		trimsAt[a]++
	}
	full := 0
	for a, pre := range h.pres {
		want := 0
		if pre == q {
			want = 1
			full++
		}
		if trimsAt[a+1] != want {
			t.Errorf("arrival %d found %d queued packets and caused %d trims, want %d", a+1, pre, trimsAt[a+1], want)
		}
	}
	if full == 0 {
		t.Fatal("the queue was never full")
	}
	// 120 packets in; the port sends one per serData, so about half are
	// trimmed: at least 2n − (n + q + 1) (arrivals by the last one at
	// (n−1)·serData + 1 000 ps, minus the ≤ n starts by then and q queued).
	if h.sw.Trims < n-q-1 {
		t.Errorf("%d trims, want at least %d", h.sw.Trims, n-q-1)
	}
	old := h.trimmedOld
	if frac := float64(old) / float64(h.sw.Trims); frac < 0.3 || frac > 0.7 {
		t.Errorf("%d of %d trims hit the queued packet: the coin is not fair", old, h.sw.Trims)
	}

	seen := map[uint64]int{}
	var lastWhole uint64
	var busy int64
	for _, d := range h.out {
		seen[d.ID]++
		busy += ser(d.Len)
		switch d.Kind {
		case kindData:
			if d.ID < lastWhole {
				t.Errorf("whole packet %d left after %d: not FIFO", d.ID, lastWhole)
			}
			lastWhole = d.ID
			if d.Len != dataLen {
				t.Errorf("whole packet %d of %d B", d.ID, d.Len)
			}
		case kindTrim:
			if d.Len != hdrLen {
				t.Errorf("trimmed packet %d of %d B", d.ID, d.Len)
			}
		}
	}
	whole := 0
	for _, d := range h.out {
		if d.Kind == kindData {
			whole++
		}
	}
	if len(h.drops) != 0 || len(seen) != 2*n || whole != 2*n-h.sw.Trims || len(h.out) != 2*n {
		t.Errorf("drops %d, distinct departures %d, whole %d, departures %d; want 0, %d, %d, %d",
			len(h.drops), len(seen), whole, len(h.out), 2*n, 2*n-h.sw.Trims, 2*n)
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("packet %d left %d times", id, c)
		}
	}
	if last := h.out[len(h.out)-1].AtPs; last != busy {
		t.Errorf("last departure received at %d ps, want %d (port busy throughout)", last, busy)
	}
}

// TestHeadersBypassFullDataQueue: q = 3. Data packets 1..4 arrive at
// t = 0..3 ps: 1 starts at once (until 81 920 ps), 2..4 fill the data
// queue. Data packet 5 (t = 4 ps) finds it full: one of 4 and 5 is
// trimmed into the header queue. A control header (id 100) arrives at
// 10 000 ps behind the full data queue. Expected departures (no link
// delay): 1 received at 81 920; the trimmed header at 81 920 + 7 040 =
// 88 960; the control header at 96 000 — before any queued data; then
// the three remaining data packets in FIFO order at 96 000 + k·81 920.
func TestHeadersBypassFullDataQueue(t *testing.T) {
	for _, seed := range []int64{1, 2, 3, 4} {
		h := newHarness(t, 3, 1000, seed, 0)
		for i := 1; i <= 5; i++ {
			h.inject(int64(i-1), uint64(i), 0, kindData)
		}
		h.inject(10_000, 100, 0, kindCtrl)
		h.run()

		if h.sw.Trims != 1 || len(h.trimmed) != 1 || h.trimPre[0] != 3 {
			t.Fatalf("seed %d: trims %d (%v), want 1 at a full queue", seed, h.sw.Trims, h.trimPre)
		}
		tr := h.trimmed[0]
		if tr != 4 && tr != 5 {
			t.Fatalf("seed %d: trimmed packet %d, want 4 or 5", seed, tr)
		}
		var rest []uint64
		for _, id := range []uint64{2, 3, 4, 5} {
			if id != tr {
				rest = append(rest, id)
			}
		}
		want := []departure{
			{AtPs: serData, ID: 1, Kind: kindData, Len: dataLen},
			{AtPs: serData + serHdr, ID: tr, Kind: kindTrim, Len: hdrLen},
			{AtPs: serData + 2*serHdr, ID: 100, Kind: kindCtrl, Len: hdrLen},
		}
		for k, id := range rest {
			want = append(want, departure{AtPs: serData + 2*serHdr + int64(k+1)*serData, ID: id, Kind: kindData, Len: dataLen})
		}
		if !reflect.DeepEqual(h.out, want) {
			t.Errorf("seed %d: departures\n got %+v\nwant %+v", seed, h.out, want)
		}
	}
}

// TestHeaderQueueOverflowAndNoRoute: headers beyond the header queue are
// dropped (never queued with data), and a packet for a port the switch
// does not have is dropped as unroutable. Five control headers arrive at
// t = 0..4 ps on an idle port with a two-header queue: the first starts
// at once, the next two wait, the last two are dropped.
func TestHeaderQueueOverflowAndNoRoute(t *testing.T) {
	h := newHarness(t, 3, 2, 1, 0)
	for i := 1; i <= 5; i++ {
		h.inject(int64(i-1), uint64(i), 1, kindCtrl)
	}
	h.inject(0, 9, 7, kindData)
	h.run()
	wantDrops := map[uint64]string{4: "ideal switch: header queue full", 5: "ideal switch: header queue full", 9: "ideal switch: no route"}
	if !reflect.DeepEqual(h.drops, wantDrops) || h.sw.HeaderDrop != 2 {
		t.Errorf("drops %v (header drops %d), want %v", h.drops, h.sw.HeaderDrop, wantDrops)
	}
	if len(h.out) != 3 || h.out[2].AtPs != 3*serHdr || h.sw.MaxDataQueue() != 0 {
		t.Errorf("departures %+v, max data queue %d", h.out, h.sw.MaxDataQueue())
	}
}

// TestSeededTrimmingIsReproducible: the same seed trims the same packets
// and gives the same departures, time for time.
func TestSeededTrimmingIsReproducible(t *testing.T) {
	run := func(seed int64) *harness {
		h := newHarness(t, 4, 1000, seed, 0)
		overload(h, 60)
		h.run()
		return h
	}
	for _, seed := range []int64{1, 42, -7} {
		a, b := run(seed), run(seed)
		if len(a.trimmed) == 0 {
			t.Fatal("no trims")
		}
		if !reflect.DeepEqual(a.trimmed, b.trimmed) || !reflect.DeepEqual(a.out, b.out) {
			t.Errorf("seed %d: two runs trimmed %v and %v", seed, a.trimmed, b.trimmed)
		}
	}
}

// TestForwardingLatencyHonoured: with LatencyPs > 0 no packet leaves before its arrival plus the latency (a regression test: the switch once queued it at once).
// Switch.Handle calls arrive(pkt, now+LatencyPs), which puts the packet in
// the output queue at once and only delays the dequeue wake-up it
// schedules when the port is idle. If the port is already busy, the
// pending wake-up at busyUntil serves the packet, even when busyUntil is
// earlier than its arrival plus the latency.
//
// Here L = 1 µs. Packet 1 arrives at 0, is served at L and sends until
// L + 81 920 ps. Packet 2 arrives at 100 000 ps and may not start before
// 100 000 + L = 1 100 000 ps (the port is then idle), so it must be
// received at 1 181 920 ps; the model starts it at 1 081 920 ps, 18 080
// ps before it has cleared the switch's pipeline.
func TestForwardingLatencyHonoured(t *testing.T) {
	const L = 1_000_000
	h := newHarness(t, 4, 1000, 1, L)
	h.inject(0, 1, 0, kindData)
	h.inject(100_000, 2, 0, kindData)
	h.run()
	want := []departure{
		{AtPs: L + serData, ID: 1, Kind: kindData, Len: dataLen},
		{AtPs: 100_000 + L + serData, ID: 2, Kind: kindData, Len: dataLen},
	}
	if !reflect.DeepEqual(h.out, want) {
		t.Errorf("departures\n got %+v\nwant %+v", h.out, want)
	}
}
