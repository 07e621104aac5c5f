// Package tm models Tofino's traffic manager, the chip's largest block:
// the shared buffer, per-port egress queues with admission limits, strict
// priority and deficit weighted round robin, deflect-on-drop, mirroring,
// multicast, PFC pause, shaping and traffic-manager trimming, between the
// ingress and egress pipelines.
package tm

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/fifo"
	"archsim/components/packet"
	"archsim/programs"
)

// TrafficManager models Tofino's traffic manager: a shared buffer of cells,
// per port a set of egress queues with admission limits, strict priority
// between priority levels and deficit weighted round robin within one,
// draining at the port's rate into the egress thread of the port's pipe
// with the queue metadata egress sees (enqueue depth, dequeue depth,
// enqueue time, time in queue, deflection flag). Packets that ask for
// deflect-on-drop go, when their queue is full, whole (deflect) or as a
// truncated copy (mirror) to their ingress pipe's recirculation port.
// Mirror sessions copy packets (truncated) to a port and queue; multicast
// groups replicate to a port list; the unicast copy goes only if ingress
// chose a port. PFC pause stops a queue's transmission.
type TrafficManager struct {
	*sim.ComponentBase
	engine     sim.Engine
	cfg        Config
	prog       *programs.Program
	ledger     Ledger
	pool       packet.Pool // the run's packet pool, for copies (nil: allocate)
	egress     func(pipe int) sim.Handler
	mac        sim.Handler
	macBusy    func(port int) int64 // when a port's MAC finishes its last frame (nil: not known)
	pipeOf     func(dev int) int
	recirc     []int // pipe -> its recirculation port
	deadlinePs int64
	ports      []*port
	usedCells  int64
	totalCells int64
	mirrors    map[int]*programs.MirrorSession
	groups     map[int]*programs.MulticastGroup
	onDrop     programs.DropAction
	// bridgeBytes is the bridged metadata in front of a packet from
	// ingress (the program's bridged fields, whole bytes).
	bridgeBytes int

	Stats Stats

	trimPolicy *TrimPolicy
	pools      map[string]*pool

	// arb takes the packets that reach the queues at the same instant
	// (from the pipes' deparsers, mirror copies): per output port, their
	// ingress ports in the chip's arbitration order (WithArbitration),
	// mirror copies after arrivals (assumed: how the traffic manager
	// orders simultaneous enqueues into one port's queues is not
	// published).
	arb     *packet.Arbiter
	flushFn func(packet.Held)

	traceQ    *Queue
	traceFn   func(now int64, packets int)
	deflectFn func(now int64, pkt *packet.Packet)
	dodEnqFn  func(now int64, pkt *packet.Packet)
	dodDeqFn  func(now int64, pkt *packet.Packet)
}

// TraceQueue calls f with the depth (packets) of one queue after every
// enqueue and dequeue (for time-series plots).
func (t *TrafficManager) TraceQueue(port, qid int, f func(now int64, packets int)) {
	t.traceQ, t.traceFn = t.Queue(port, qid), f
}

// TraceDeflectQueue traces the deflect-on-drop queue of one pipe (its
// recirculation port's on-drop queue), like TraceQueue.
func (t *TrafficManager) TraceDeflectQueue(pipe int, f func(now int64, packets int)) {
	t.TraceQueue(t.recirc[pipe], t.onDrop.Queue, f)
}

// OnDeflect calls f whenever a packet is deflected (or mirrored) on drop.
func (t *TrafficManager) OnDeflect(f func(now int64, pkt *packet.Packet)) { t.deflectFn = f }

// OnDoDDequeue calls f whenever a deflected (or drop-mirrored) packet
// leaves a deflect-on-drop queue for the recirculation port's egress (the
// hook of the program's DoDSignal; f must not keep pkt).
func (t *TrafficManager) OnDoDDequeue(f func(now int64, pkt *packet.Packet)) { t.dodDeqFn = f }

// OnDoDEnqueue calls f whenever a deflected (or drop-mirrored) packet is
// admitted to a deflect-on-drop queue (the hook of a DoDSignal raised at
// deflection; f must not keep pkt).
func (t *TrafficManager) OnDoDEnqueue(f func(now int64, pkt *packet.Packet)) { t.dodEnqFn = f }

// Stats counts traffic-manager events.
type Stats struct {
	Enqueued        int `json:"enqueued"`
	QueueDrops      int `json:"queue_drops"`
	BufferDrops     int `json:"buffer_drops"`
	NoPortDrops     int `json:"no_destination_drops"`
	Deflected       int `json:"deflected"`
	DeflectDrops    int `json:"deflect_drops"`
	DropMirrors     int `json:"drop_mirrors"`
	MirrorCopies    int `json:"mirror_copies"`
	IngressMirrors  int `json:"ingress_mirror_copies"`
	EgressMirrors   int `json:"egress_mirror_copies"`
	MirrorDrops     int `json:"mirror_drops"`
	MulticastCopies int `json:"multicast_copies"`
	UnknownGroups   int `json:"unknown_multicast_groups"`
	AdminDownDrops  int `json:"admin_down_drops"`
	Trims           int `json:"trims"`
	TrimDrops       int `json:"trim_drops"`
	TrimDisabled    int `json:"trim_disabled_drops"`
	// BypassedEgress counts packets sent straight to their port, skipping
	// the egress pipeline (the program set std.bypass_egress). Not in the
	// JSON report (its keys are a contract); the tables explain with it
	// why egress saw fewer packets than were delivered.
	BypassedEgress int `json:"-"`
	Dequeued       int `json:"-"` // packets the ports sent on (to egress or past it)
}

// port is a port's queues and transmitter.
type port struct {
	dev       int
	gbps      float64
	queues    []*Queue
	order     []*Queue // queues sorted by priority, high first (stable by qid)
	rr        map[int]int
	busyUntil int64
	ser       packet.SerialMemo
	pending   bool
	down      bool // admin down: nothing is queued or sent
	// credit is transmit time the port is owed for frames the egress
	// pipeline resized or dropped after they were paced.
	credit packet.PaceCredit
}

// Queue is one egress queue.
type Queue struct {
	qid        int
	priority   int
	quantum    int64
	deficit    int64
	limitCells int64
	pkts       fifo.Queue[*packet.Packet]
	cells      int64
	bytes      int64
	paused     bool

	// Buffer profile (SONiC): with a pool, the queue may hold its reserve
	// plus 2^alpha times the pool's free cells (dynamic threshold) instead
	// of limitCells.
	pool    *pool
	reserve int64
	alpha   int
	// trim: a packet the queue refuses is trimmed (packet_discard_action).
	trim bool
	// Shaper: peak rate in bytes/s (0: none) and when the next packet may
	// start.
	pirBps    float64
	shapeNext int64

	MaxPackets int
	MaxCells   int64
	Enqueued   int
	Dropped    int
	Counters   QueueCounters
}

// QueueCounters are a queue's counters as SAI defines them: transmitted
// packets and bytes; dropped packets and bytes, including originals that
// were trimmed (saibuffer.h); and, on a trim-eligible queue, the packets
// trimmed, the trimmed copies sent to the trim queue and those dropped
// because the trim queue was full.
type QueueCounters struct {
	TxPackets   int64 `json:"packets"`
	TxBytes     int64 `json:"bytes"`
	DropPackets int64 `json:"dropped_packets"`
	DropBytes   int64 `json:"dropped_bytes"`
	Trim        int64 `json:"trimpacket"`
	TrimSent    int64 `json:"trimsentpacket"`
	TrimDrop    int64 `json:"trimdroppacket"`
}

// pool is a buffer pool queues share (SONiC BUFFER_POOL).
type pool struct {
	name       string
	totalCells int64
	usedCells  int64
}

// eligible tells whether the queue may send now.
func (q *Queue) eligible(now int64) bool {
	return q.len() > 0 && !q.paused && now >= q.shapeNext
}

func (q *Queue) len() int { return q.pkts.Len() }

// Len is the packets in the queue.
func (q *Queue) Len() int { return q.len() }

// Cells is the buffer cells the queue holds.
func (q *Queue) Cells() int64 { return q.cells }

// NotifyRecv is unused (see packet.Event).
func (t *TrafficManager) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (t *TrafficManager) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// newPort builds a port's queues from the chip's defaults and the program's
// queue settings.
func (t *TrafficManager) newPort(dev int, gbps float64) *port {
	c := t.cfg
	p := &port{dev: dev, gbps: gbps, rr: map[int]int{}}
	def := c.QueueLimitBytes / int64(c.CellBytes)
	for qid := 0; qid < c.QueuesPerPort; qid++ {
		q := &Queue{qid: qid, quantum: int64(c.DWRRQuantumBytes), limitCells: def}
		for _, qc := range t.prog.TM.Queues {
			if qc.Qid == qid {
				q.priority = qc.Priority
				q.quantum = int64(qc.Weight * c.DWRRQuantumBytes)
				if qc.LimitCells > 0 {
					q.limitCells = qc.LimitCells
				}
			}
		}
		p.queues = append(p.queues, q)
	}
	p.sortQueues()
	return p
}

// Queue returns a port's queue (nil if none), for statistics.
func (t *TrafficManager) Queue(port, qid int) *Queue {
	if port < 0 || port >= len(t.ports) || t.ports[port] == nil || qid < 0 || qid >= len(t.ports[port].queues) {
		return nil
	}
	return t.ports[port].queues[qid]
}

func (t *TrafficManager) cells(length int) int64 {
	return int64((length + t.cfg.CellBytes - 1) / t.cfg.CellBytes)
}

// DepthCells is the current depth of the queue a packet to port would join
// (all queues of the port: ingress does not know the queue yet).
func (t *TrafficManager) DepthCells(port int) int64 {
	if port < 0 || port >= len(t.ports) || t.ports[port] == nil {
		return 0
	}
	var n int64
	for _, q := range t.ports[port].queues {
		n += q.cells
	}
	return n
}

// Handle processes arrivals (from ingress, or mirror copies) and dequeue
// wake-ups.
func (t *TrafficManager) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := ev.AtPs()
	switch ev.Kind {
	case packet.KindArrive:
		if t.arb.Offer(ev, ev.Pkt.OutPort, ev.Pkt.InPort, 0) {
			t.arrive(ev.Pkt, now)
		}
	case evMirror:
		if t.arb.Offer(ev, ev.Pkt.OutPort, ev.Pkt.InPort, 1) {
			t.enqueue(ev.Pkt, ev.Pkt.OutPort, ev.Pkt.Qid, now)
		}
	case packet.KindArbitrate:
		t.arb.Flush(t.flushFn)
	case evDequeue:
		t.dequeue(t.ports[ev.Port], now)
	}
	return nil
}

// MirrorCopy sends a truncated copy of pkt to a mirror session's port and queue
// (ingress-to-egress or egress-to-egress mirroring). It reports whether the
// session exists.
func (t *TrafficManager) MirrorCopy(pkt *packet.Packet, session int, at int64, fromEgress bool) bool {
	s, ok := t.mirrors[session]
	if !ok {
		t.Stats.MirrorDrops++
		return false
	}
	c := packet.CopyFrom(t.pool, pkt)
	c.Mirror, c.McastGrp, c.Recirculate, c.DeflectOnDrop, c.BypassEgress, c.Drop = false, 0, false, false, false, false
	c.Deflected = false
	c.OutPort, c.Qid = s.Port, s.Queue
	c.Mirrored, c.MirrorSession = true, session
	c.NoBridge = fromEgress
	t.ledger.Copied()
	if s.Truncate > 0 && c.Len > s.Truncate {
		c.Len = s.Truncate
		if len(c.Head) > s.Truncate {
			c.Head = c.Head[:s.Truncate]
		}
	}
	t.Stats.MirrorCopies++
	if fromEgress {
		t.Stats.EgressMirrors++
	} else {
		t.Stats.IngressMirrors++
	}
	packet.Schedule(t.engine, t, at, evMirror, c, s.Port)
	return true
}

// SetPacketPool makes the traffic manager take its copies (multicast,
// mirror, trimmed and deflect-on-drop) from a run's packet pool, and give
// it back the packets that live on only as their copies (a multicast
// packet with no unicast port, a packet trimmed into a header copy) and
// the copies no queue took. Its ledger recycles the packets it drops,
// after the drop hook.
func (t *TrafficManager) SetPacketPool(p packet.Pool) { t.pool = p }

// replicated accounts a packet that lives on only as its copies and
// gives it back to the run's pool. (One call where the ledger's was: the
// profile-guided build matches its profile by line offsets within a
// function, and arrive is hot.)
func (t *TrafficManager) replicated(pkt *packet.Packet) {
	t.ledger.Replicated()
	t.recycle(pkt)
}

// recycle gives a packet nothing holds any more to the run's pool (if
// the traffic manager shares one).
func (t *TrafficManager) recycle(pkt *packet.Packet) {
	if t.pool != nil {
		t.pool.Put(pkt)
	}
}

func (t *TrafficManager) arrive(pkt *packet.Packet, now int64) {
	grp := false
	if pkt.McastGrp != 0 {
		if g, ok := t.groups[pkt.McastGrp]; ok {
			grp = true
			for _, port := range g.Ports {
				c := packet.CopyFrom(t.pool, pkt)
				c.McastGrp = 0
				t.Stats.MulticastCopies++
				t.ledger.Copied()
				t.enqueue(c, port, pkt.Qid, now)
			}
		} else {
			t.Stats.UnknownGroups++
		}
	}
	port := pkt.OutPort
	if pkt.Recirculate {
		port = t.recircOf(pkt.InPort)
	}
	if port == NoPort {
		switch {
		case grp:
			t.replicated(pkt) // the packet lives on as its multicast copies
		case pkt.McastGrp != 0:
			t.Stats.NoPortDrops++
			t.ledger.Dropped(pkt, fmt.Sprintf("traffic manager: no multicast group %d", pkt.McastGrp))
		default:
			t.Stats.NoPortDrops++
			t.ledger.Dropped(pkt, "traffic manager: no destination port")
		}
		return
	}
	t.enqueue(pkt, port, pkt.Qid, now)
}

// enqueue admits a packet to a port's queue: the queue's cell limit and the
// shared buffer must both hold it; otherwise deflect-on-drop applies or the
// packet is dropped.
func (t *TrafficManager) enqueue(pkt *packet.Packet, port, qid int, now int64) {
	if port < 0 || port >= len(t.ports) || t.ports[port] == nil {
		t.Stats.NoPortDrops++
		t.ledger.Dropped(pkt, "traffic manager: no such port")
		return
	}
	p := t.ports[port]
	if qid < 0 || qid >= len(p.queues) {
		qid = 0
	}
	q := p.queues[qid]
	if p.down {
		q.Dropped++
		q.Counters.DropPackets++
		q.Counters.DropBytes += int64(pkt.Len)
		t.Stats.AdminDownDrops++
		t.ledger.Dropped(pkt, "traffic manager: port admin down")
		return
	}
	need := t.cells(pkt.Len)
	if reason := t.admits(q, need); reason != "" {
		q.Dropped++
		if reason == reasonQueueFull {
			t.Stats.QueueDrops++
		} else {
			t.Stats.BufferDrops++
		}
		if q.trim && t.trimPolicy != nil {
			t.trimOnDrop(pkt, port, q, now)
			return
		}
		if !pkt.DeflectOnDrop {
			q.Counters.DropPackets++
			q.Counters.DropBytes += int64(pkt.Len)
		}
		t.overflow(pkt, port, reason, now)
		return
	}
	pkt.OutPort, pkt.Qid = port, qid
	pkt.EnqDepthCells = int(q.cells)
	pkt.EnqPs = now
	q.pkts.Push(pkt)
	q.cells += need
	q.bytes += int64(pkt.Len)
	t.usedCells += need
	if q.pool != nil {
		q.pool.usedCells += need
	}
	q.Enqueued++
	q.MaxPackets = max(q.MaxPackets, q.len())
	q.MaxCells = max(q.MaxCells, q.cells)
	if q == t.traceQ {
		t.traceFn(now, q.len())
	}
	t.Stats.Enqueued++
	t.kick(p, now)
}

// kick starts the port's transmitter if it is idle: at once if the line is
// free (no extra event), else at the end of the current frame.
func (t *TrafficManager) kick(p *port, now int64) {
	if p.pending {
		return
	}
	p.pending = true
	if now >= p.busyUntil {
		t.dequeue(p, now)
		return
	}
	packet.Schedule(t.engine, t, p.busyUntil, evDequeue, nil, p.dev)
}

const (
	reasonQueueFull  = "traffic manager: queue full"
	reasonBufferFull = "traffic manager: shared buffer full"
)

// admits tells why a queue cannot take need more cells ("" if it can).
// A queue with a pool (a SONiC buffer profile) may hold its reserve plus
// 2^alpha times the pool's free cells: the dynamic threshold.
func (t *TrafficManager) admits(q *Queue, need int64) string {
	limit := q.limitCells
	if pl := q.pool; pl != nil {
		if pl.usedCells+need > pl.totalCells {
			return reasonBufferFull
		}
		free := pl.totalCells - pl.usedCells
		if q.alpha >= 0 {
			limit = q.reserve + free<<q.alpha
		} else {
			limit = q.reserve + free>>(-q.alpha)
		}
	}
	switch {
	case q.cells+need > limit:
		return reasonQueueFull
	case t.usedCells+need > t.totalCells:
		return reasonBufferFull
	}
	return ""
}

// trimOnDrop handles a packet a trim-eligible queue refused: it counts as
// dropped on that queue, and a copy cut to the policy's size, with its DSCP
// rewritten (ECN kept), goes to the trim queue; if that queue refuses the
// copy too it is a trim drop. A packet marked trim-disable (an ACL
// DISABLE_TRIM match) is just dropped.
func (t *TrafficManager) trimOnDrop(pkt *packet.Packet, port int, q *Queue, now int64) {
	q.Counters.DropPackets++
	q.Counters.DropBytes += int64(pkt.Len)
	if pkt.TrimDisable {
		t.Stats.TrimDisabled++
		t.ledger.Dropped(pkt, "traffic manager: queue full, trimming disabled (ACL)")
		return
	}
	tp := t.trimPolicy
	q.Counters.Trim++
	c := packet.CopyFrom(t.pool, pkt)
	if c.Len > tp.Size {
		c.Len = tp.Size
		if len(c.Head) > tp.Size {
			c.Head = c.Head[:tp.Size]
		}
	}
	if tp.DSCP != nil {
		if d, ok := tp.DSCP(port); ok {
			packet.SetDSCP(c.Head, d)
		}
	}
	tq := q.qid
	if tp.Queue != nil {
		dscp, _, _ := packet.DSCPECN(c.Head)
		tq = tp.Queue(pkt.InPort, port, dscp)
	}
	trimQ := t.Queue(port, tq)
	if trimQ == nil || t.ports[port].down || t.admits(trimQ, t.cells(c.Len)) != "" {
		q.Counters.TrimDrop++
		t.Stats.TrimDrops++
		t.recycle(c) // never seen by anything
		t.ledger.Dropped(pkt, "traffic manager: trim queue full")
		return
	}
	c.DeflectOnDrop = false
	c.Trimmed = true
	q.Counters.TrimSent++ // counted when the trim queue takes the copy, so Trim = TrimSent + TrimDrop always
	t.Stats.Trims++
	t.ledger.Copied()
	t.replicated(pkt) // the packet lives on as its trimmed copy
	t.enqueue(c, port, tq, now)
}

// overflow handles a packet its queue (for port) cannot take: dropped, or,
// if it asked for deflect-on-drop, sent whole (deflect) or as a truncated
// copy (mirror) to its ingress pipe's recirculation port. A deflection
// counts only if that queue takes it; otherwise the packet is dropped.
func (t *TrafficManager) overflow(pkt *packet.Packet, port int, reason string, now int64) {
	if !pkt.DeflectOnDrop {
		t.ledger.Dropped(pkt, reason)
		return
	}
	dod := t.recircOf(pkt.InPort)
	q := t.ports[dod].queues[t.onDrop.Queue]
	out := pkt
	if t.onDrop.Mode == "mirror" {
		out = packet.CopyFrom(t.pool, pkt)
		out.DeflectOnDrop, out.McastGrp, out.Mirror = false, 0, false
		out.Mirrored = true
		if tr := t.onDrop.Truncate; tr > 0 && out.Len > tr {
			out.Len = tr
			if len(out.Head) > tr {
				out.Head = out.Head[:tr]
			}
		}
	}
	if why := t.admits(q, t.cells(out.Len)); why != "" {
		t.Stats.DeflectDrops++
		if why == reasonQueueFull {
			why = "traffic manager: deflect-on-drop queue full"
		}
		t.ledger.Dropped(pkt, why)
		return
	}
	out.DeflectOnDrop = false
	out.Deflected = true
	out.OrigPort, out.OutPort = port, port // enqueue moves it to the recirculation port
	if t.deflectFn != nil {
		t.deflectFn(now, out)
	}
	if t.dodEnqFn != nil {
		t.dodEnqFn(now, out)
	}
	if out != pkt {
		t.Stats.DropMirrors++
		t.ledger.Copied()
		t.ledger.Replicated() // the packet lives on as its truncated copy
	} else {
		t.Stats.Deflected++
	}
	t.enqueue(out, dod, t.onDrop.Queue, now)
}

// pick chooses the next queue to serve: the highest priority level with a
// packet (and not paused); deficit round robin within the level.
func (p *port) pick(now int64) *Queue {
	for i := 0; i < len(p.order); {
		prio := p.order[i].priority
		j := i
		ready, only := 0, (*Queue)(nil)
		for j < len(p.order) && p.order[j].priority == prio {
			if q := p.order[j]; q.eligible(now) {
				ready++
				only = q
			}
			j++
		}
		if ready == 1 {
			return only
		}
		if ready > 1 {
			level := p.order[i:j]
			start := p.rr[prio]
			for round := 0; round < 1<<20; round++ {
				k := (start + round) % len(level)
				q := level[k]
				if !q.eligible(now) {
					continue
				}
				if n := int64(q.pkts.Front().Len); q.deficit >= n {
					q.deficit -= n
					p.rr[prio] = k
					return q
				}
				q.deficit += q.quantum
			}
		}
		i = j
	}
	return nil
}

func (t *TrafficManager) dequeue(p *port, now int64) {
	if d := t.deadlinePs; d > 0 && now > d {
		// The run is over: what is queued stays queued (in flight).
		p.pending = false
		return
	}
	if t.macBusy != nil {
		// Credits from the MAC: a frame is dequeued only if the MAC will be
		// within its FIFO of free when the frame comes out of egress (the
		// MAC's time is given net of the egress pipeline's latency).
		if mb, slack := t.macBusy(p.dev), t.macSlack(p); mb > now+slack {
			packet.Schedule(t.engine, t, mb-slack, evDequeue, nil, p.dev)
			return
		}
	}
	q := p.pick(now)
	if q == nil {
		t.idle(p, now)
		return
	}
	pkt := q.pkts.Pop()
	n := t.cells(pkt.Len)
	q.cells -= n
	q.bytes -= int64(pkt.Len)
	t.usedCells -= n
	if q.pool != nil {
		q.pool.usedCells -= n
	}
	if q.len() == 0 {
		q.deficit = 0
	}
	if q.pirBps > 0 {
		q.shapeNext = max(now, q.shapeNext) + int64(float64(pkt.Len)*1e12/q.pirBps)
	}
	q.Counters.TxPackets++
	q.Counters.TxBytes += int64(pkt.Len)
	if q == t.traceQ {
		t.traceFn(now, q.len())
	}
	pkt.DeqDepthCells = int(q.cells)
	pkt.DeqDeltaPs = now - pkt.EnqPs
	if t.dodDeqFn != nil && pkt.Deflected && q.qid == t.onDrop.Queue {
		t.dodDeqFn(now, pkt)
	}
	// The port is paced by the frame the MAC will send: the bridged
	// metadata the ingress deparser put in front occupies buffer cells but
	// the egress parser consumes it, so it never reaches the wire.
	wire := pkt.Len
	if !pkt.NoBridge {
		wire -= t.bridgeBytes
	}
	// Egress may have changed earlier frames' length after they were
	// paced: the transmitter follows the frames the MAC really sends.
	ser := p.credit.Slot(p.ser.Ps(wire, p.gbps), now, p.busyUntil)
	p.busyUntil = now + ser
	if t.macBusy != nil {
		// The next frame may leave once this one is within the MAC's FIFO
		// of being sent (see dequeue's credit check): one wake-up, not two.
		if mb := t.macBusy(p.dev) + ser - t.macSlack(p); mb > p.busyUntil {
			p.busyUntil = mb
		}
	}
	t.Stats.Dequeued++
	if pkt.BypassEgress {
		t.Stats.BypassedEgress++
		// The egress parser would have consumed the bridged metadata the
		// ingress deparser prepended; without egress, strip it here.
		if n := t.bridgeBytes; n > 0 && len(pkt.Head) >= n {
			pkt.Head, pkt.Len = pkt.Head[n:], pkt.Len-n
		}
		packet.Schedule(t.engine, t.mac, now, packet.KindArrive, pkt, p.dev)
	} else {
		pkt.PacedLen = wire
		packet.Schedule(t.engine, t.egress(t.pipeOf(p.dev)), now, packet.KindArrive, pkt, 0)
	}
	if p.hasWork() {
		packet.Schedule(t.engine, t, p.busyUntil, evDequeue, nil, p.dev)
	} else {
		p.pending = false // the next enqueue restarts the transmitter
	}
}

// EgressSized tells port dev's transmitter that a frame it paced by
// paced bytes leaves egress with length bytes (0: egress dropped it), so
// that the port drains at the rate of the frames its MAC sends. (The MAC
// returns credit for the bytes it transmits; the traffic manager cannot
// know how a program's egress resizes a packet.)
func (t *TrafficManager) EgressSized(dev, paced, length int) {
	if dev < 0 || dev >= len(t.ports) || t.ports[dev] == nil {
		return
	}
	p := t.ports[dev]
	left := int64(0)
	if length > 0 {
		left = p.ser.Ps(length, p.gbps)
	}
	p.credit.Resized(p.ser.Ps(paced, p.gbps), left)
}

// macSlack is how far a port's MAC may be behind: its transmit FIFO,
// 2048 bytes (assumed), at the port's rate.
func (t *TrafficManager) macSlack(p *port) int64 { return int64(2048*8*1000/p.gbps + 0.5) }

// idle handles a transmitter with nothing it may send now: it sleeps until
// the next enqueue, or until a shaped queue may send again (if that is
// before the end of the run).
func (t *TrafficManager) idle(p *port, now int64) {
	next := int64(-1)
	for _, q := range p.queues {
		if q.len() > 0 && !q.paused && q.shapeNext > now && (next < 0 || q.shapeNext < next) {
			next = q.shapeNext
		}
	}
	if next >= 0 && (t.deadlinePs == 0 || next <= t.deadlinePs) {
		packet.Schedule(t.engine, t, next, evDequeue, nil, p.dev)
		return
	}
	p.pending = false // the next enqueue (or resume) restarts the transmitter
}

// hasWork reports whether any queue has a packet it is not paused from
// sending (a shaped queue's wait is handled when the transmitter wakes).
func (p *port) hasWork() bool {
	for _, q := range p.queues {
		if q.len() > 0 && !q.paused {
			return true
		}
	}
	return false
}

// Pause sets or clears PFC pause on a port's queue (a pause frame from the
// link partner).
func (t *TrafficManager) Pause(port, qid int, paused bool, now int64) {
	q := t.Queue(port, qid)
	if q == nil {
		return
	}
	q.paused = paused
	if p := t.ports[port]; !paused && q.len() > 0 {
		t.kick(p, now)
	}
}
