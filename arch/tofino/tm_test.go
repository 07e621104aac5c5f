package tofino

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch/tofino/compiler"
	"archsim/arch/tofino/spec"
	tmpkg "archsim/arch/tofino/tm"
	"archsim/components/link"
	"archsim/components/packet"
	"archsim/programs"
)

// Traffic-manager tests. Every packet carries a 20-byte header (eth + ctl)
// whose ctl fields tell ingress where to send it: egress port, queue,
// deflect-on-drop, ingress mirror session, multicast group. Egress marks
// packets the TM deflected (std.deflected) in ctl.defl, and ingress sends a
// recirculated packet with ctl.defl set to port 15 (and does not multicast
// it again), so a deflected packet
// shows up at port 15 only if egress saw std.deflected == 1.
//
// Hand-derived numbers below use configs/tofino.yaml (checked in
// newTMRig): 100 Gb/s ports, 80-byte cells, 1.25 GHz clock (800 ps cycle),
// 1518-byte DWRR quantum, and a wire time of (len + 24) * 8 bits at 100 Gb/s
// = (len + 24) * 80 ps (4-byte FCS + 20 bytes of preamble and IFG on top of
// Packet.Len).
const tmProgram = `program: tmtest
headers:
  eth: {dst: 48, src: 48, etype: 16}
  ctl: {port: 9, qid: 5, dod: 1, mir: 1, sess: 10, grp: 16, defl: 1, pad: 5}
#HEADERS
parser:
  start: s
  states:
    s:
      extract: [eth, ctl]
ingress: |
  if ctl.defl == 1 {
    std.egress_port = 15
  } else {
    std.egress_port = ctl.port
    std.mcast_grp = ctl.grp
  }
  std.qid = ctl.qid
  std.deflect_on_drop = ctl.dod
  std.mirror = ctl.mir
  std.mirror_session = ctl.sess
egress: |
  if std.deflected == 1 {
    ctl.defl = 1
  }
#EGRESS
`

const (
	tmHeadBytes = 20   // eth (14) + ctl (6)
	tmProp      = 1000 // ps of link propagation to the sinks
	tmDeflPort  = 15   // where ingress sends recirculated deflected packets
)

// tmWire is the hand-derived wire time of a frame at 100 Gb/s.
func tmWire(length int) int64 { return int64(length+24) * 80 }

// tmHdr is what ctl tells ingress.
type tmHdr struct {
	port, qid int
	dod, mir  bool
	sess, grp int
}

func tmBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (h tmHdr) head() []byte {
	b := make([]byte, tmHeadBytes)
	b[12], b[13] = 0x88, 0xb5
	v := uint64(h.port)<<39 | uint64(h.qid)<<34 | tmBit(h.dod)<<33 | tmBit(h.mir)<<32 | uint64(h.sess)<<22 | uint64(h.grp)<<6
	for i := 0; i < 6; i++ {
		b[14+i] = byte(v >> (40 - 8*i))
	}
	return b
}

// tmDefl reads ctl.defl of a packet's head.
func tmDefl(head []byte) bool { return len(head) >= tmHeadBytes && head[19]>>5&1 == 1 }

type tmArrival struct {
	port   int
	at     int64
	id     uint64
	length int
	qid    int
	defl   bool
	pkt    *packet.Packet
}

type tmDrop struct {
	id     uint64
	reason string
}

// tmRig is a switch on a serial Akita engine with a sink on every front
// panel port.
type tmRig struct {
	t       *testing.T
	cfg     *Config
	place   *compiler.Placement
	eng     sim.Engine
	sw      *Switch
	offered int
	lastID  uint64
	got     []tmArrival
	drops   []tmDrop
}

type tmSink struct{ r *tmRig }

func (s *tmSink) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	p := ev.Pkt
	s.r.got = append(s.r.got, tmArrival{port: ev.Port, at: packet.SecToPs(ev.T), id: p.ID, length: p.Len, qid: p.Qid, defl: tmDefl(p.Head), pkt: p})
	return nil
}

type tmTimer struct{ f func(now int64) }

func (x *tmTimer) Handle(e sim.Event) error { x.f(packet.SecToPs(e.Time())); return nil }

// tmProg builds the test program: extra headers, extra egress code and
// extra top-level sections (tm, mirror_sessions, multicast_groups).
func tmProg(t testing.TB, headers, egress, sections string) *programs.Program {
	t.Helper()
	src := strings.Replace(tmProgram, "#HEADERS\n", headers, 1)
	src = strings.Replace(src, "#EGRESS\n", egress, 1)
	prog, err := programs.Load([]byte(src+sections), "tm_test.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

func newTMRig(t *testing.T, sections string, sets ...string) *tmRig {
	t.Helper()
	return newTMRigProg(t, tmProg(t, "", "", sections), sets...)
}

func newTMRigProg(t *testing.T, prog *programs.Program, sets ...string) *tmRig {
	t.Helper()
	return newTMRigOn(t, sim.NewSerialEngine(), prog, sets...)
}

// newTMRigOn builds the rig on engine eng.
func newTMRigOn(t *testing.T, eng sim.Engine, prog *programs.Program, sets ...string) *tmRig {
	t.Helper()
	c := chip(t, sets...)
	if c.PortGbps != 100 || c.RecircGbps != 100 || c.TM.CellBytes != 80 || c.CyclePs() != 800 || c.TM.DWRRQuantumBytes != 1518 || c.TM.QueuesPerPort != 8 {
		t.Fatalf("the hand-derived numbers assume 100G ports, 80-byte cells, 800-ps cycles, 1518-byte quantum, 8 queues: %+v", c.TM)
	}
	if packet.SerializationPs(976, c.PortGbps) != tmWire(976) || packet.SerializationPs(64, c.PortGbps) != 7040 {
		t.Fatalf("SerializationPs(976) = %d, want (976+24)*80 = %d", packet.SerializationPs(976, c.PortGbps), tmWire(976))
	}
	place, err := compiler.Place(c, prog)
	if err != nil {
		t.Fatal(err)
	}
	r := &tmRig{t: t, cfg: c, place: place, eng: eng}
	r.sw = MakeBuilder().WithEngine(r.eng).WithConfig(c).WithPlacement(place).WithSeed(1).Build("Tofino")
	// 100 us: far beyond every test's traffic (a few us), short enough that
	// a packet looping through recirculation stops soon.
	r.sw.SetDeadline(100_000_000)
	for pipe := 0; pipe < c.Pipes; pipe++ {
		for local := 0; local < c.FrontPortsPerPipe; local++ {
			r.sw.Attach(c.DevPort(pipe, local), link.To(&tmSink{r}, c.DevPort(pipe, local), tmProp))
		}
	}
	r.sw.OnDrop(func(p *packet.Packet, reason string) { r.drops = append(r.drops, tmDrop{p.ID, reason}) })
	return r
}

// send injects a packet of length bytes into ingress port in at time at;
// it returns the packet's id (ids count from 1 in send order).
func (r *tmRig) send(in int, at int64, length int, h tmHdr) uint64 {
	r.lastID++
	r.offered++
	p := &packet.Packet{ID: r.lastID, Head: h.head(), Len: length, InPort: in, BornPs: at, Passes: 1}
	packet.Schedule(r.eng, r.sw.IngressHandler(in), at, packet.KindArrive, p, in)
	return r.lastID
}

// at runs f at simulated time ps.
func (r *tmRig) at(ps int64, f func(now int64)) {
	packet.Schedule(r.eng, &tmTimer{f}, ps, packet.KindLocal, nil, 0)
}

func (r *tmRig) run() {
	r.t.Helper()
	if err := r.eng.Run(); err != nil {
		r.t.Fatal(err)
	}
}

// threadPs is the fixed latency of one pipeline thread for the 20-byte
// header (one parse state, one 32-byte parser window, 20 bytes deparsed):
// what TestMeasuredLatencyIsDerived checks. Arrivals at a cycle boundary
// with a free issue slot wait nothing.
func (r *tmRig) threadPs(g spec.Gress) int64 {
	L := r.cfg.Latency
	parser := L.ParserBase + L.ParserPerState + ceilDiv(tmHeadBytes, L.ParserWindowBytes)
	deparser := L.DeparserBase + ceilDiv(tmHeadBytes, L.DeparserBytesPerCycle)
	return r.cfg.CyclesToPs(int64(parser + r.place.MAUCycles[g] + deparser))
}

// arrivalPs is when a packet dequeued at deq (a multiple of the cycle)
// reaches its sink: egress thread, the frame's wire time, propagation.
func (r *tmRig) arrivalPs(deq int64, length int) int64 {
	return deq + r.threadPs(spec.Egress) + tmWire(length) + tmProp
}

func (r *tmRig) at800(ps int64) int64 { return (ps + 799) / 800 * 800 }

func (r *tmRig) port(p int) []tmArrival {
	var out []tmArrival
	for _, a := range r.got {
		if a.port == p {
			out = append(out, a)
		}
	}
	return out
}

func (r *tmRig) dropCount() int {
	n := 0
	for _, d := range r.sw.Drops() {
		n += d.Packets
	}
	return n
}

// conserve checks offered + copies = delivered + dropped + replicated and
// that every delivered packet reached a sink.
func (r *tmRig) conserve() {
	r.t.Helper()
	sw := r.sw
	if r.offered+sw.Copies != sw.Delivered+r.dropCount()+sw.Replicated {
		r.t.Errorf("conservation: offered %d + copies %d != delivered %d + dropped %d + replicated %d",
			r.offered, sw.Copies, sw.Delivered, r.dropCount(), sw.Replicated)
	}
	if sw.Delivered != len(r.got) {
		r.t.Errorf("switch counted %d delivered, sinks saw %d", sw.Delivered, len(r.got))
	}
	if len(r.drops) != r.dropCount() {
		r.t.Errorf("OnDrop hook saw %d drops, Drops() counts %d", len(r.drops), r.dropCount())
	}
}

// dequeueTrace records the times a traced queue's depth went down.
type dequeueTrace struct {
	prev   int
	deqs   []int64
	depths []int
}

func (d *dequeueTrace) f(now int64, pkts int) {
	if pkts < d.prev {
		d.deqs = append(d.deqs, now)
	}
	d.prev = pkts
	d.depths = append(d.depths, pkts)
}

// TestTMLineRateDrain: a burst to one idle 100G port leaves back to back.
// The first packet leaves the TM the moment it arrives (no added latency),
// the k-th exactly k wire times later; the queue metadata egress sees
// follows from the same arithmetic.
func TestTMLineRateDrain(t *testing.T) {
	for _, length := range []int{976, 1500, 64} {
		t.Run(fmt.Sprint(length), func(t *testing.T) {
			r := newTMRig(t, "")
			const n = 12
			var tr dequeueTrace
			r.sw.TM().TraceQueue(1, 0, tr.f)
			for k := 0; k < n; k++ {
				r.send(0, int64(k)*800, length, tmHdr{port: 1})
			}
			r.run()
			ser := tmWire(length)
			cells := (length + 79) / 80
			d0 := r.threadPs(spec.Ingress) // first packet reaches the idle port's TM queue
			got := r.port(1)
			if len(got) != n || len(r.drops) != 0 {
				t.Fatalf("delivered %d of %d, drops %v", len(got), n, r.drops)
			}
			if len(tr.deqs) != n {
				t.Fatalf("%d dequeues traced, want %d", len(tr.deqs), n)
			}
			maxPkts := 0
			prevAt := int64(0)
			for k, a := range got {
				deq := d0 + int64(k)*ser
				if tr.deqs[k] != deq {
					t.Errorf("packet %d left the queue at %d ps, want %d + %d*%d = %d", k, tr.deqs[k], d0, k, ser, deq)
				}
				if a.id != uint64(k+1) || a.length != length {
					t.Errorf("arrival %d: id %d len %d, want id %d len %d", k, a.id, a.length, k+1, length)
				}
				// The egress thread issues on the next clock edge; the MAC
				// starts a frame no earlier than the end of the previous one.
				want := r.arrivalPs(r.at800(deq), length)
				if k > 0 {
					want = max(want, prevAt+ser)
				}
				if a.at != want {
					t.Errorf("packet %d arrived at %d ps, want %d", k, a.at, want)
				}
				prevAt = want
				// Queue metadata egress sees, from the arrival times at the
				// TM (a_j = d0 + 800 j) and departures (d_j = d0 + j ser): at
				// its enqueue, packet k finds the earlier packets not yet
				// gone; at its dequeue, the later packets already there.
				enq, deqd := 0, 0
				for j := 0; j < n; j++ {
					aj, dj := d0+int64(j)*800, d0+int64(j)*ser
					if j < k && dj > d0+int64(k)*800 {
						enq++
					}
					if j > k && aj < deq {
						deqd++
					}
				}
				maxPkts = max(maxPkts, enq+1)
				p := a.pkt
				if p.EnqDepthCells != enq*cells || p.DeqDepthCells != deqd*cells {
					t.Errorf("packet %d: enq depth %d deq depth %d cells, want %d and %d", k, p.EnqDepthCells, p.DeqDepthCells, enq*cells, deqd*cells)
				}
				if want := int64(k)*ser - int64(k)*800; p.DeqDeltaPs != want {
					t.Errorf("packet %d: %d ps in the queue, want %d", k, p.DeqDeltaPs, want)
				}
			}
			if length == 976 && got[n-1].at-got[0].at != int64(n-1)*80_000 {
				t.Errorf("976-byte frames (1000 bytes on the wire = 80 ns): span %d ps, want %d", got[n-1].at-got[0].at, (n-1)*80_000)
			}
			q := r.sw.TM().Queue(1, 0)
			// 976 and 1500 bytes: all 12 arrive before the second departure,
			// so 11 wait; 64-byte frames drain during the burst.
			if w := map[int]int{976: n - 1, 1500: n - 1, 64: 10}[length]; maxPkts != w {
				t.Fatalf("derived max queue %d, want %d", maxPkts, w)
			}
			if q.MaxPackets != maxPkts || q.MaxCells != int64(maxPkts*cells) || q.Enqueued != n || q.Dropped != 0 {
				t.Errorf("queue stats: max %d packets %d cells, enqueued %d dropped %d; want %d, %d, %d, 0",
					q.MaxPackets, q.MaxCells, q.Enqueued, q.Dropped, maxPkts, maxPkts*cells, n)
			}
			if q.Len() != 0 || q.Cells() != 0 || r.sw.TM().UsedCells() != 0 {
				t.Errorf("after draining: %d packets, %d cells in the queue, %d cells of the buffer used", q.Len(), q.Cells(), r.sw.TM().UsedCells())
			}
			if st := r.sw.TM().Stats; st.Enqueued != n {
				t.Errorf("Stats.Enqueued %d, want %d", st.Enqueued, n)
			}
			r.conserve()
		})
	}
}

// TestTMStrictPriority: low- and high-priority packets alternate into one
// port. The first (low) packet finds the port idle and goes at once (no
// preemption); then every high-priority packet leaves before any other
// low-priority one, back to back. The high queue has the higher qid, so
// serving by qid would fail.
func TestTMStrictPriority(t *testing.T) {
	r := newTMRig(t, `tm:
  queues:
    - {qid: 1, priority: 2}
    - {qid: 4, priority: 7}
`)
	const n, length = 16, 1496 // 1520 bytes on the wire = 121.6 ns, a whole number of cycles
	for k := 0; k < n; k++ {
		qid := 1
		if k%2 == 1 {
			qid = 4
		}
		r.send(0, int64(k)*800, length, tmHdr{port: 1, qid: qid})
	}
	r.run()
	var want []uint64
	want = append(want, 1)
	for id := uint64(2); id <= n; id += 2 {
		want = append(want, id)
	}
	for id := uint64(3); id <= n; id += 2 {
		want = append(want, id)
	}
	got := r.port(1)
	if len(got) != n {
		t.Fatalf("delivered %d of %d", len(got), n)
	}
	d0 := r.threadPs(spec.Ingress)
	for i, a := range got {
		if a.id != want[i] {
			t.Fatalf("departure %d is packet %d (qid %d), want packet %d; order %v", i, a.id, a.qid, want[i], ids(got))
		}
		if wq := map[bool]int{true: 4, false: 1}[a.id%2 == 0]; a.qid != wq {
			t.Errorf("packet %d on queue %d, want %d", a.id, a.qid, wq)
		}
		if w := r.arrivalPs(d0+int64(i)*tmWire(length), length); a.at != w {
			t.Errorf("departure %d arrived at %d ps, want %d (back to back)", i, a.at, w)
		}
	}
	r.conserve()
}

func ids(as []tmArrival) []uint64 {
	var out []uint64
	for _, a := range as {
		out = append(out, a.id)
	}
	return out
}

// TestTMDWRR: two queues of one priority level, one with 1500-byte and one
// with 100-byte packets, both backlogged. Deficit round robin gives each
// weight * quantum bytes per round, so while both are backlogged the bytes
// sent (divided by weight) never differ by more than one quantum plus one
// maximum packet, whatever the packet sizes.
func TestTMDWRR(t *testing.T) {
	for _, tc := range []struct {
		w1     int
		n0, n1 int
	}{
		{w1: 1, n0: 40, n1: 700},
		{w1: 3, n0: 20, n1: 1100},
	} {
		t.Run(fmt.Sprintf("weights 1:%d", tc.w1), func(t *testing.T) {
			r := newTMRig(t, fmt.Sprintf(`tm:
  queues:
    - {qid: 0, priority: 3, limit_cells: 100000}
    - {qid: 1, priority: 3, weight: %d, limit_cells: 100000}
`, tc.w1))
			// Two ingress pipes, so both queues fill at one packet per cycle.
			for k := 0; k < tc.n0; k++ {
				r.send(128, int64(k)*800, 1500, tmHdr{port: 1, qid: 0})
			}
			for k := 0; k < tc.n1; k++ {
				r.send(256, int64(k)*800+400, 100, tmHdr{port: 1, qid: 1})
			}
			r.run()
			got := r.port(1)
			if len(got) != tc.n0+tc.n1 || len(r.drops) != 0 {
				t.Fatalf("delivered %d of %d, drops %d", len(got), tc.n0+tc.n1, len(r.drops))
			}
			var bytes, sent [2]int
			maxDiff := 0.0
			w := [2]float64{1, float64(tc.w1)}
			for _, a := range got {
				bytes[a.qid] += a.length
				sent[a.qid]++
				diff := float64(bytes[0])/w[0] - float64(bytes[1])/w[1]
				maxDiff = max(maxDiff, diff, -diff)
				if sent[0] == tc.n0 || sent[1] == tc.n1 {
					break // one queue ran dry
				}
			}
			if sent[0] != tc.n0 {
				t.Fatalf("queue 1 ran dry first (%v packets sent): the test needs queue 0 to", sent)
			}
			bound := float64(r.cfg.TM.DWRRQuantumBytes + 1500)
			t.Logf("while both backlogged: %v bytes, %v packets, max normalised difference %.0f bytes (bound %.0f)", bytes, sent, maxDiff, bound)
			if maxDiff > bound {
				t.Errorf("byte shares / weight drifted %.0f bytes apart, more than quantum + max packet = %.0f", maxDiff, bound)
			}
			r.conserve()
		})
	}
}

// TestTMAdmission: a paused queue (so nothing drains) with limit_cells
// takes exactly floor(limit / cells per packet) packets of a burst; packets
// use ceil(len / 80) cells and a packet that exactly fills the limit is
// admitted. The rest are dropped as "queue full". When the pause ends, the
// admitted packets leave at once.
func TestTMAdmission(t *testing.T) {
	for _, tc := range []struct {
		limit, length, burst, admit int
	}{
		{50, 200, 30, 16}, // 3 cells each: 48 <= 50 < 51
		{48, 160, 30, 24}, // exactly 2 cells: 48 = limit is admitted
		{48, 161, 30, 16}, // one byte more: 3 cells
		{48, 80, 60, 48},  // 1 cell
	} {
		t.Run(fmt.Sprintf("limit %d len %d", tc.limit, tc.length), func(t *testing.T) {
			r := newTMRig(t, fmt.Sprintf("tm:\n  queues:\n    - {qid: 3, priority: 1, limit_cells: %d}\n", tc.limit))
			tm := r.sw.TM()
			tm.Pause(1, 3, true, 0)
			for k := 0; k < tc.burst; k++ {
				r.send(0, int64(k)*800, tc.length, tmHdr{port: 1, qid: 3})
			}
			const resume = 1_000_000
			r.at(resume, func(now int64) { tm.Pause(1, 3, false, now) })
			r.run()
			drops := tc.burst - tc.admit
			cells := (tc.length + 79) / 80
			if len(r.drops) != drops {
				t.Fatalf("%d drops, want %d", len(r.drops), drops)
			}
			for i, d := range r.drops {
				if d.reason != "traffic manager: queue full" || d.id != uint64(tc.admit+i+1) {
					t.Errorf("drop %d: packet %d %q, want packet %d \"traffic manager: queue full\"", i, d.id, d.reason, tc.admit+i+1)
				}
			}
			if st := tm.Stats; st.QueueDrops != drops || st.BufferDrops != 0 || st.Enqueued != tc.admit {
				t.Errorf("stats %+v: want %d queue drops, 0 buffer drops, %d enqueued", st, drops, tc.admit)
			}
			q := tm.Queue(1, 3)
			if q.Dropped != drops || q.Enqueued != tc.admit || q.MaxPackets != tc.admit || q.MaxCells != int64(tc.admit*cells) {
				t.Errorf("queue: dropped %d enqueued %d max %d packets %d cells; want %d %d %d %d",
					q.Dropped, q.Enqueued, q.MaxPackets, q.MaxCells, drops, tc.admit, tc.admit, tc.admit*cells)
			}
			got := r.port(1)
			if len(got) != tc.admit {
				t.Fatalf("delivered %d, want %d", len(got), tc.admit)
			}
			if len(r.got) != tc.admit || got[0].id != 1 || got[len(got)-1].id != uint64(tc.admit) {
				t.Errorf("delivered ids %v, want 1..%d", ids(got), tc.admit)
			}
			if w := r.arrivalPs(resume, tc.length); got[0].at != w {
				t.Errorf("first packet after the pause arrived at %d ps, want %d (dequeued at the resume)", got[0].at, w)
			}
			if tm.UsedCells() != 0 {
				t.Errorf("%d cells still in use after draining", tm.UsedCells())
			}
			if ds := r.sw.Drops(); len(ds) != 1 || ds[0].Reason != "traffic manager: queue full" || ds[0].Packets != drops {
				t.Errorf("Drops() = %+v", ds)
			}
			r.conserve()
		})
	}
}

// TestTMSharedBuffer: a 4000-byte buffer is 50 cells for all ports
// together. Bursts of 200-byte packets (3 cells) alternating between two
// paused ports fill it after 16 packets; the rest are "shared buffer full".
// After the queues drain, the freed cells admit the same 16 again.
func TestTMSharedBuffer(t *testing.T) {
	r := newTMRig(t, "", "tofino.tm.buffer_bytes=4000")
	tm := r.sw.TM()
	if tm.TotalCells() != 50 {
		t.Fatalf("buffer of %d cells, want 4000/80 = 50", tm.TotalCells())
	}
	pause := func(paused bool) func(int64) {
		return func(now int64) {
			tm.Pause(1, 0, paused, now)
			tm.Pause(2, 0, paused, now)
		}
	}
	const burst = 30
	for phase, start := range []int64{0, 3_000_000} {
		r.at(start, pause(true))
		for k := 0; k < burst; k++ {
			r.send(0, start+800+int64(k)*800, 200, tmHdr{port: 1 + k%2})
		}
		r.at(start+1_000_000, pause(false))
		_ = phase
	}
	r.run()
	if len(r.drops) != 2*14 {
		t.Fatalf("%d drops, want 28", len(r.drops))
	}
	for i, d := range r.drops {
		phase := i / 14
		if want := uint64(phase*burst + 17 + i%14); d.reason != "traffic manager: shared buffer full" || d.id != want {
			t.Errorf("drop %d: packet %d %q, want packet %d \"traffic manager: shared buffer full\"", i, d.id, d.reason, want)
		}
	}
	if st := tm.Stats; st.BufferDrops != 28 || st.QueueDrops != 0 || st.Enqueued != 32 {
		t.Errorf("stats %+v: want 28 buffer drops, 0 queue drops, 32 enqueued", st)
	}
	if a, b := len(r.port(1)), len(r.port(2)); a != 16 || b != 16 {
		t.Errorf("delivered %d to port 1 and %d to port 2, want 16 and 16", a, b)
	}
	for _, p := range []int{1, 2} {
		if q := tm.Queue(p, 0); q.MaxPackets != 8 || q.MaxCells != 24 {
			t.Errorf("port %d: max %d packets %d cells, want 8 and 24", p, q.MaxPackets, q.MaxCells)
		}
	}
	if tm.UsedCells() != 0 {
		t.Errorf("%d cells still in use", tm.UsedCells())
	}
	r.conserve()
}

const tmDoD = `tm:
  queues:
    - {qid: 0, priority: 0, limit_cells: 30}
    - {qid: 1, priority: 6%s}
  on_drop: {mode: %s, queue: 1%s}
`

// TestTMDeflectOnDrop: 20 deflect-on-drop packets of 200 bytes (3 cells)
// into a paused 30-cell queue: 10 are admitted, 10 go whole to pipe 0's
// recirculation port (68), queue 1, marked deflected. Egress sees
// std.deflected = 1 (ingress then routes them to port 15). The recirculation
// port sends a 200-byte frame every 17.92 ns while the overflow arrives
// every 0.8 ns, so its queue peaks at 9.
func TestTMDeflectOnDrop(t *testing.T) {
	r := newTMRig(t, fmt.Sprintf(tmDoD, "", "deflect", ""))
	tm := r.sw.TM()
	tm.Pause(1, 0, true, 0)
	var trace []int
	tm.TraceDeflectQueue(0, func(_ int64, pkts int) { trace = append(trace, pkts) })
	var deflected []int64
	tm.OnDeflect(func(now int64, p *packet.Packet) {
		deflected = append(deflected, now)
		if p.OutPort != 1 || p.InPort != 0 {
			t.Errorf("OnDeflect: packet %d heading for port %d from %d, want 1 from 0", p.ID, p.OutPort, p.InPort)
		}
	})
	for k := 0; k < 20; k++ {
		r.send(0, int64(k)*800, 200, tmHdr{port: 1, dod: true})
	}
	r.at(5_000_000, func(now int64) { tm.Pause(1, 0, false, now) })
	r.run()
	if len(r.drops) != 0 {
		t.Fatalf("drops: %v", r.drops)
	}
	st := tm.Stats
	if st.Deflected != 10 || st.QueueDrops != 10 || st.DeflectDrops != 0 || st.DropMirrors != 0 || st.Enqueued != 30 {
		t.Errorf("stats %+v: want 10 deflected, 10 queue drops, 30 enqueued (10 at port 1, 10 at port 68, 10 at port 15)", st)
	}
	if len(deflected) != 10 {
		t.Fatalf("OnDeflect called %d times, want 10", len(deflected))
	}
	for k, at := range deflected {
		if w := r.threadPs(spec.Ingress) + int64(10+k)*800; at != w {
			t.Errorf("deflection %d at %d ps, want %d", k, at, w)
		}
	}
	want := []int{1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}
	if fmt.Sprint(trace) != fmt.Sprint(want) {
		t.Errorf("deflect queue depths %v, want %v", trace, want)
	}
	if m := r.sw.MaxDeflectQueue(); m != 9 {
		t.Errorf("MaxDeflectQueue %d, want 9", m)
	}
	home, defl := r.port(1), r.port(tmDeflPort)
	if len(home) != 10 || len(defl) != 10 {
		t.Fatalf("port 1 got %d, port 15 got %d; want 10 and 10", len(home), len(defl))
	}
	for i, a := range home {
		if a.id != uint64(i+1) || a.defl || a.length != 200 {
			t.Errorf("port 1 arrival %d: packet %d deflected %v len %d", i, a.id, a.defl, a.length)
		}
	}
	for i, a := range defl {
		if a.id != uint64(11+i) || !a.defl || a.length != 200 || a.pkt.Passes != 2 || a.pkt.OrigPort != 1 {
			t.Errorf("port 15 arrival %d: packet %d marked %v len %d passes %d orig port %d; want packet %d, deflected, whole (200), 2 passes, orig 1",
				i, a.id, a.defl, a.length, a.pkt.Passes, a.pkt.OrigPort, 11+i)
		}
	}
	r.conserve()
}

// TestTMDeflectQueueFull: the deflect queue (queue 1, 6 cells = two
// 200-byte packets) overflows too: the first deflected packet leaves at
// once, the next two wait, the other 7 are dropped.
func TestTMDeflectQueueFull(t *testing.T) {
	r := newTMRig(t, fmt.Sprintf(tmDoD, ", limit_cells: 6", "deflect", ""))
	tm := r.pausedBurst()
	if len(r.drops) != 7 {
		t.Fatalf("%d drops, want 7: %v", len(r.drops), r.drops)
	}
	for i, d := range r.drops {
		if d.reason != "traffic manager: deflect-on-drop queue full" || d.id != uint64(14+i) {
			t.Errorf("drop %d: packet %d %q", i, d.id, d.reason)
		}
	}
	if st := tm.Stats; st.DeflectDrops != 7 || st.QueueDrops != 10 {
		t.Errorf("stats %+v: want 7 deflect drops and 10 queue drops", st)
	}
	if a, b := len(r.port(1)), len(r.port(tmDeflPort)); a != 10 || b != 3 {
		t.Errorf("port 1 got %d, port 15 got %d; want 10 and 3", a, b)
	}
	if m := r.sw.MaxDeflectQueue(); m != 2 {
		t.Errorf("MaxDeflectQueue %d, want 2", m)
	}
	r.conserve()
}

// TestTMDeflectedCountsOnlyDeflections: Stats.Deflected and OnDeflect
// should count packets that were deflected, not packets the deflect queue
// then dropped (experiments add Stats.Deflected to the trim count and
// take the first deflection time from OnDeflect).
func TestTMDeflectedCountsOnlyDeflections(t *testing.T) {
	r := newTMRig(t, fmt.Sprintf(tmDoD, ", limit_cells: 6", "deflect", ""))
	tm := r.sw.TM()
	tm.Pause(1, 0, true, 0)
	calls := 0
	tm.OnDeflect(func(int64, *packet.Packet) { calls++ })
	for k := 0; k < 20; k++ {
		r.send(0, int64(k)*800, 200, tmHdr{port: 1, dod: true})
	}
	r.at(5_000_000, func(now int64) { tm.Pause(1, 0, false, now) })
	r.run()
	delivered := len(r.port(tmDeflPort))
	if tm.Stats.Deflected != delivered || calls != delivered {
		t.Errorf("Stats.Deflected = %d and OnDeflect ran %d times, but only %d packets were deflected (%d were dropped by the full deflect queue): "+
			"tm.go overflow counts and reports a deflection before enqueueDeflected decides to drop it, so Deflected double-counts DeflectDrops and "+
			"experiments' trims_dod (Deflected + DropMirrors) overstates trims", tm.Stats.Deflected, calls, delivered, tm.Stats.DeflectDrops)
	}
}

// TestTMMirrorOnDrop: with on_drop mode mirror and truncate 64, the same
// overflow sends 64-byte copies (1 cell) to the recirculation port; the
// originals end as their copies. Egress sees the copies as deflected.
func TestTMMirrorOnDrop(t *testing.T) {
	r := newTMRig(t, fmt.Sprintf(tmDoD, "", "mirror", ", truncate: 64"))
	tm := r.pausedBurst()
	if len(r.drops) != 0 {
		t.Fatalf("drops: %v", r.drops)
	}
	st := tm.Stats
	if st.DropMirrors != 10 || st.Deflected != 0 || st.QueueDrops != 10 || st.MirrorCopies != 0 {
		t.Errorf("stats %+v: want 10 drop mirrors, no deflections", st)
	}
	if r.sw.Copies != 10 || r.sw.Replicated != 10 || r.sw.Delivered != 20 {
		t.Errorf("copies %d replicated %d delivered %d, want 10 10 20", r.sw.Copies, r.sw.Replicated, r.sw.Delivered)
	}
	defl := r.port(tmDeflPort)
	if len(defl) != 10 {
		t.Fatalf("port 15 got %d copies, want 10", len(defl))
	}
	for i, a := range defl {
		if a.id != uint64(11+i) || a.length != 64 || !a.defl {
			t.Errorf("copy %d: packet %d len %d deflected %v; want packet %d, 64 bytes, deflected", i, a.id, a.length, a.defl, 11+i)
		}
	}
	// 64-byte copies take 7.04 ns on the recirculation port: the 9 copies
	// after the first arrive every 0.8 ns, and the first dequeue after
	// the immediate one (7.04 ns) falls between the 9th and 10th arrival.
	if m := r.sw.MaxDeflectQueue(); m != 8 {
		t.Errorf("MaxDeflectQueue %d, want 8", m)
	}
	if len(r.port(1)) != 10 {
		t.Errorf("port 1 got %d, want 10", len(r.port(1)))
	}
	r.conserve()
}

// TestTMIngressMirror: an ingress mirror to session 5 (port 131, queue 1,
// truncate 64) sends a 64-byte copy while the 500-byte original continues;
// session 6 has no truncation; session 9 does not exist (counted, the
// original still goes).
func TestTMIngressMirror(t *testing.T) {
	r := newTMRig(t, `mirror_sessions:
  - {id: 5, port: 131, queue: 1, truncate: 64}
  - {id: 6, port: 132, queue: 2}
`)
	const step = 1_000_000
	for i, sess := range []int{5, 9, 6} {
		r.send(0, int64(i)*step, 500, tmHdr{port: 1, mir: true, sess: sess})
	}
	r.run()
	st := r.sw.TM().Stats
	if st.IngressMirrors != 2 || st.MirrorCopies != 2 || st.EgressMirrors != 0 || st.MirrorDrops != 1 {
		t.Errorf("stats %+v: want 2 ingress mirror copies, 1 mirror drop", st)
	}
	if r.sw.Copies != 2 || r.sw.Delivered != 5 || len(r.drops) != 0 {
		t.Errorf("copies %d delivered %d drops %d, want 2 5 0", r.sw.Copies, r.sw.Delivered, len(r.drops))
	}
	orig, c5, c6 := r.port(1), r.port(131), r.port(132)
	if len(orig) != 3 || len(c5) != 1 || len(c6) != 1 {
		t.Fatalf("port 1 got %d, port 131 %d, port 132 %d; want 3 1 1", len(orig), len(c5), len(c6))
	}
	d0 := r.threadPs(spec.Ingress)
	for i, a := range orig {
		if a.id != uint64(i+1) || a.length != 500 || a.qid != 0 {
			t.Errorf("original %d: packet %d len %d qid %d", i, a.id, a.length, a.qid)
		}
		if w := r.arrivalPs(int64(i)*step+d0, 500); a.at != w {
			t.Errorf("original %d arrived at %d ps, want %d", i, a.at, w)
		}
	}
	// The copy reaches the TM with the original and its port (pipe 1)
	// is idle: it leaves at once, 64 bytes on the wire.
	if a := c5[0]; a.id != 1 || a.length != 64 || a.qid != 1 || a.at != r.arrivalPs(d0, 64) || len(a.pkt.Head) > 64 {
		t.Errorf("session 5 copy: packet %d len %d qid %d at %d (want 1, 64, 1, %d)", a.id, a.length, a.qid, a.at, r.arrivalPs(d0, 64))
	}
	if a := c6[0]; a.id != 3 || a.length != 500 || a.qid != 2 || a.at != r.arrivalPs(2*step+d0, 500) {
		t.Errorf("session 6 copy: packet %d len %d qid %d at %d (want 3, 500, 2, %d)", a.id, a.length, a.qid, a.at, r.arrivalPs(2*step+d0, 500))
	}
	r.conserve()
}

// TestTMMulticast: group 7 replicates to ports 2, 130 and 258 (pipes 0, 1,
// 2). A packet with no unicast port ends as its 3 copies; one with port 1
// is delivered there too.
func TestTMMulticast(t *testing.T) {
	r := newTMRig(t, "multicast_groups:\n  7: [2, 130, 258]\n")
	const step = 1_000_000
	r.send(0, 0, 300, tmHdr{port: NoPort, grp: 7, qid: 3})
	r.send(0, step, 300, tmHdr{port: 1, grp: 7, qid: 3})
	r.run()
	st := r.sw.TM().Stats
	if st.MulticastCopies != 6 || st.NoPortDrops != 0 {
		t.Errorf("stats %+v: want 6 multicast copies", st)
	}
	if r.sw.Copies != 6 || r.sw.Replicated != 1 || r.sw.Delivered != 7 || len(r.drops) != 0 {
		t.Errorf("copies %d replicated %d delivered %d drops %d, want 6 1 7 0", r.sw.Copies, r.sw.Replicated, r.sw.Delivered, len(r.drops))
	}
	d0 := r.threadPs(spec.Ingress)
	for _, p := range []int{2, 130, 258} {
		got := r.port(p)
		if len(got) != 2 || got[0].id != 1 || got[1].id != 2 {
			t.Errorf("port %d got %v, want packets 1 and 2", p, ids(got))
			continue
		}
		for _, a := range got {
			if a.qid != 3 || a.length != 300 || a.pkt.McastGrp != 0 {
				t.Errorf("port %d copy of %d: qid %d len %d group %d", p, a.id, a.qid, a.length, a.pkt.McastGrp)
			}
		}
		if p != 2 {
			// Alone in its pipe: leaves the TM and egress at once.
			if w := r.arrivalPs(d0, 300); got[0].at != w {
				t.Errorf("port %d: copy arrived at %d, want %d", p, got[0].at, w)
			}
		}
	}
	if got := r.port(1); len(got) != 1 || got[0].id != 2 || len(r.port(2)) != 2 {
		t.Errorf("port 1 got %v, want packet 2", ids(got))
	} else {
		// Ports 1 and 2 share pipe 0's egress thread: one of the two waits
		// one issue slot (800 ps).
		a, b := got[0].at, r.port(2)[1].at
		w := r.arrivalPs(step+d0, 300)
		if min(a, b) != w || max(a, b) != w+800 {
			t.Errorf("packet 2 at ports 1 and 2 at %d and %d ps, want %d and %d", a, b, w, w+800)
		}
	}
	r.conserve()
}

// TestTMUnknownMulticastGroupIsDropped: a packet with no unicast port and a
// multicast group that does not exist has no copies; it must be counted
// as dropped, not as replicated.
func TestTMUnknownMulticastGroupIsDropped(t *testing.T) {
	r := newTMRig(t, "multicast_groups:\n  7: [2, 130, 258]\n")
	r.send(0, 0, 300, tmHdr{port: NoPort, grp: 99})
	r.run()
	r.conserve()
	if len(r.got) != 0 || r.sw.Copies != 0 {
		t.Fatalf("delivered %d, copies %d", len(r.got), r.sw.Copies)
	}
	if len(r.drops) != 1 || r.sw.Replicated != 0 {
		t.Errorf("packet with unconfigured multicast group 99 and no unicast port vanished without a drop (OnDrop calls %d, Drops() %v) "+
			"and was counted as Replicated = %d though it has no copies: tm.go arrive treats any McastGrp != 0 as \"lives on as its multicast copies\" "+
			"without checking that the group exists", len(r.drops), r.sw.Drops(), r.sw.Replicated)
	}
}

// TestTMPause: PFC pause. The high-priority queue is paused from the start,
// so the low one drains; resuming it mid-burst lets it take over at the next
// frame boundary (no preemption), and the low queue finishes after it. The
// port never idles: departure n leaves at d0 + n wire times.
func TestTMPause(t *testing.T) {
	r := newTMRig(t, `tm:
  queues:
    - {qid: 0, priority: 0}
    - {qid: 1, priority: 7}
`)
	tm := r.sw.TM()
	tm.Pause(1, 1, true, 0)
	tm.Pause(1, 99, true, 0)  // no such queue: ignored
	tm.Pause(999, 0, true, 0) // no such port: ignored
	const length = 1496       // 121.6 ns on the wire, a whole number of cycles
	ser := tmWire(length)
	// Packets 1,3,5,7 high (qid 1), 2,4,...,16 low: hi first, then the
	// remaining low packets.
	for k := 0; k < 4; k++ {
		r.send(0, int64(2*k)*800, length, tmHdr{port: 1, qid: 1})
		r.send(0, int64(2*k+1)*800, length, tmHdr{port: 1, qid: 0})
	}
	for k := 8; k < 12; k++ {
		r.send(0, int64(k)*800, length, tmHdr{port: 1, qid: 0})
	}
	d0 := r.threadPs(spec.Ingress) + 800 // the first low packet reaches the idle port
	// Resume between the 3rd low packet's start (d0 + 2 ser) and its end.
	resume := d0 + 2*ser + 3*800
	r.at(resume, func(now int64) { tm.Pause(1, 1, false, now) })
	r.run()
	got := r.port(1)
	want := []uint64{2, 4, 6, 1, 3, 5, 7, 8, 9, 10, 11, 12}
	if fmt.Sprint(ids(got)) != fmt.Sprint(want) {
		t.Fatalf("departure order %v, want %v", ids(got), want)
	}
	for n, a := range got {
		if w := r.arrivalPs(d0+int64(n)*ser, length); a.at != w {
			t.Errorf("departure %d (packet %d) arrived at %d ps, want %d", n, a.id, a.at, w)
		}
	}
	// Pause while a queue is the only one with packets: the port idles
	// until the resume, which starts it at once.
	r2 := newTMRig(t, "")
	tm2 := r2.sw.TM()
	for k := 0; k < 3; k++ {
		r2.send(0, int64(k)*800, length, tmHdr{port: 1})
	}
	pauseAt := r2.threadPs(spec.Ingress) + 800 // packet 1 is on the wire, 2 and 3 wait
	const resume2 = 2_000_000
	r2.at(pauseAt, func(now int64) { tm2.Pause(1, 0, true, now) })
	r2.at(resume2, func(now int64) { tm2.Pause(1, 0, false, now) })
	r2.run()
	got2 := r2.port(1)
	if len(got2) != 3 {
		t.Fatalf("delivered %d of 3", len(got2))
	}
	d := r2.threadPs(spec.Ingress)
	for n, w := range []int64{r2.arrivalPs(d, length), r2.arrivalPs(resume2, length), r2.arrivalPs(resume2+ser, length)} {
		if got2[n].at != w {
			t.Errorf("paused mid-burst: packet %d arrived at %d ps, want %d", got2[n].id, got2[n].at, w)
		}
	}
	r.conserve()
	r2.conserve()
}

// TestTMDeterministic: the same mixed workload (DWRR, strict priority,
// deflect-on-drop, multicast, mirror) twice gives identical departures.
func TestTMDeterministic(t *testing.T) {
	run := func() string {
		r := newTMRig(t, `tm:
  queues:
    - {qid: 0, priority: 1, limit_cells: 40}
    - {qid: 1, priority: 1, weight: 2}
    - {qid: 2, priority: 5}
  on_drop: {mode: deflect, queue: 2}
mirror_sessions:
  - {id: 5, port: 3, queue: 2, truncate: 64}
multicast_groups:
  7: [1, 2, 130]
`)
		for k := 0; k < 300; k++ {
			size := []int{64, 700, 1500}[k%3]
			r.send(128*(k%3), int64(k)*937, size, tmHdr{port: 1, qid: k % 3, dod: k%4 == 0, mir: k%11 == 0, sess: 5, grp: 7 * tmBitInt(k%13 == 0)})
		}
		r.run()
		r.conserve()
		var b strings.Builder
		for _, a := range r.got {
			fmt.Fprintf(&b, "%d %d %d %d %d %v\n", a.port, a.at, a.id, a.length, a.qid, a.defl)
		}
		fmt.Fprintf(&b, "%+v %v", r.sw.TM().Stats, r.sw.Drops())
		if r.sw.TM().Stats.Deflected == 0 || r.sw.TM().Stats.MulticastCopies == 0 {
			t.Errorf("workload exercises too little: %+v", r.sw.TM().Stats)
		}
		return b.String()
	}
	a, b := run(), run()
	if a != b {
		t.Fatal("same workload, different departures")
	}
}

func tmBitInt(b bool) int { return int(tmBit(b)) }

// TestTMEgressGrowthKeepsLineRate: egress adds a 40-byte header to every
// packet; the wire carries the grown frames, so a 100G port cannot deliver
// them closer together than their own wire time.
func TestTMEgressGrowthKeepsLineRate(t *testing.T) {
	prog := tmProg(t, "  tag: {a: 64, b: 64, c: 64, d: 64, e: 64}\n", "  tag.setValid()\n", "")
	r := newTMRigProg(t, prog)
	const n, length = 10, 1456 // 1480 bytes at the TM (118.4 ns), 1496 on the wire (121.6 ns)
	for k := 0; k < n; k++ {
		r.send(0, int64(k)*800, length, tmHdr{port: 1})
	}
	r.run()
	got := r.port(1)
	if len(got) != n || got[0].length != length+40 {
		t.Fatalf("delivered %d, first %d bytes; want %d of %d", len(got), got[0].length, n, length+40)
	}
	for k := 1; k < n; k++ {
		if gap := got[k].at - got[k-1].at; gap < tmWire(length+40) {
			t.Errorf("frames %d and %d of %d bytes reached the host %d ps apart, less than their %d-ps wire time: the 100G port sends %.1f Gb/s. "+
				"tm.go dequeue paces the port by the length before egress (busyUntil = now + SerializationPs(pkt.Len)), and switch.go Ports.Handle "+
				"computes each frame's end as egress-out + its wire time without tracking when the port's previous frame ends, so frames overlap on the wire",
				k-1, k, length+40, gap, tmWire(length+40), 100*float64(tmWire(length+40))/float64(gap))
		}
	}
}

// TestTMDeflectedMulticastCopyOrigPort: a multicast copy for port 2 that
// overflows its queue is deflected; Packet.OrigPort ("the port a deflected
// packet was heading for") must be 2, and OnDeflect should see it heading
// for port 2.
func TestTMDeflectedMulticastCopyOrigPort(t *testing.T) {
	r := newTMRig(t, "tm:\n  queues:\n    - {qid: 0, limit_cells: 3}\nmulticast_groups:\n  7: [2]\n")
	tm := r.sw.TM()
	tm.Pause(2, 0, true, 0)
	var heading []int
	tm.OnDeflect(func(_ int64, p *packet.Packet) { heading = append(heading, p.OutPort) })
	r.send(0, 0, 200, tmHdr{port: NoPort, grp: 7, dod: true})
	r.send(0, 800, 200, tmHdr{port: NoPort, grp: 7, dod: true})
	r.at(5_000_000, func(now int64) { tm.Pause(2, 0, false, now) })
	r.run()
	r.conserve()
	defl := r.port(tmDeflPort)
	if len(defl) != 1 || defl[0].id != 2 || !defl[0].defl || len(r.port(2)) != 1 || tm.Stats.Deflected != 1 {
		t.Fatalf("port 15 got %v, port 2 got %v, stats %+v: want the second copy deflected", ids(defl), ids(r.port(2)), tm.Stats)
	}
	if o := defl[0].pkt.OrigPort; o != 2 || heading[0] != 2 {
		t.Errorf("deflected multicast copy has OrigPort %d and OnDeflect saw it heading for port %d, want 2", o, heading[0])
	}
}

// pausedBurst sends 20 back-to-back 200-byte deflect-on-drop packets from
// port 0 to port 1 while port 1's queue 0 is paused (un-paused at 5 us),
// runs them, and returns the traffic manager.
func (r *tmRig) pausedBurst() *tmpkg.TrafficManager {
	t := r.sw.TM()
	t.Pause(1, 0, true, 0)
	for k := 0; k < 20; k++ {
		r.send(0, int64(k)*800, 200, tmHdr{port: 1, dod: true})
	}
	r.at(5_000_000, func(now int64) { t.Pause(1, 0, false, now) })
	r.run()
	return t
}

// recordingPool is a packet pool that records what it is given.
type recordingPool struct {
	got  int
	put  []uint64
	seen func(id uint64) bool // whether the drop hook saw the packet first
	late int
}

func (p *recordingPool) Get() *packet.Packet {
	p.got++
	return &packet.Packet{Head: make([]byte, 0, 80)}
}

func (p *recordingPool) Put(pkt *packet.Packet) {
	p.put = append(p.put, pkt.ID)
	if !p.seen(pkt.ID) {
		p.late++
	}
}

// TestTMDropsGoToThePool: with a run's packet pool, the switch gives it
// each packet it drops after its drop hook saw it, and takes its copies
// (here the deflect-on-drop mirrors) from it; what reaches the ports is
// what TestTMMirrorOnDrop and TestTMDeflectQueueFull see without a pool.
func TestTMDropsGoToThePool(t *testing.T) {
	r := newTMRig(t, fmt.Sprintf(tmDoD, ", limit_cells: 6", "deflect", ""))
	pool := &recordingPool{}
	pool.seen = func(id uint64) bool {
		for _, d := range r.drops {
			if d.id == id {
				return true
			}
		}
		return false
	}
	r.sw.SetPacketPool(pool)
	r.pausedBurst()
	if len(r.drops) != 7 || len(pool.put) != 7 || pool.late != 0 {
		t.Fatalf("%d drops, %d packets put in the pool (%d before the hook saw them); want 7, 7, 0", len(r.drops), len(pool.put), pool.late)
	}
	if a, b := len(r.port(1)), len(r.port(tmDeflPort)); a != 10 || b != 3 {
		t.Errorf("port 1 got %d, port 15 got %d; want 10 and 3", a, b)
	}

	m := newTMRig(t, fmt.Sprintf(tmDoD, "", "mirror", ", truncate: 64"))
	mp := &recordingPool{seen: func(uint64) bool { return true }}
	m.sw.SetPacketPool(mp)
	m.pausedBurst()
	if mp.got != 10 {
		t.Errorf("%d copies taken from the pool, want the 10 drop mirrors", mp.got)
	}
	if defl := m.port(tmDeflPort); len(defl) != 10 || defl[0].length != 64 || defl[0].id != 11 {
		t.Errorf("port 15 got %d copies (first %+v), want 10 of 64 bytes from packet 11", len(defl), defl)
	}
	m.conserve()
}

// TestTMMulticastOriginalGoesToThePool: a multicast packet with no unicast
// port lives on only as its copies, so with a run's pool it goes back to
// it (a packet that also has a port does not); the copies come from the
// pool and reach their ports as in TestTMMulticast.
func TestTMMulticastOriginalGoesToThePool(t *testing.T) {
	r := newTMRig(t, "multicast_groups:\n  7: [2, 130, 258]\n")
	pool := &recordingPool{seen: func(uint64) bool { return true }}
	r.sw.SetPacketPool(pool)
	r.send(0, 0, 300, tmHdr{port: NoPort, grp: 7, qid: 3})
	r.send(0, 1_000_000, 300, tmHdr{port: 1, grp: 7, qid: 3})
	r.run()
	if pool.got != 6 || len(pool.put) != 1 || pool.put[0] != 1 {
		t.Errorf("%d copies from the pool, packets %v given back; want 6 and [1]", pool.got, pool.put)
	}
	for _, p := range []int{2, 130, 258} {
		if got := r.port(p); len(got) != 2 || got[0].id != 1 || got[1].id != 2 || got[0].length != 300 {
			t.Errorf("port %d got %v, want packets 1 and 2", p, ids(got))
		}
	}
	r.conserve()
}
