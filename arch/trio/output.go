package trio

import (
	"fmt"
	"sort"

	"archsim/arch"
	"archsim/components/fifo"
	"archsim/components/packet"
	"archsim/programs"
)

// Output: multicast replication, per-port output queues drained at line
// rate, the egress thread, and delivery to attached hosts.

// released moves a processed head on: an ingress packet to its output
// queue, its multicast group's ports, or back to the dispatcher to
// recirculate; an egress one to the wire. As Tofino's traffic manager
// does: a group's copies are made whatever else the packet does, a
// recirculating packet still makes them, and an unknown group drops only
// a packet that has nowhere else to go.
func (p *PFE) released(pkt *packet.Packet, gress int, now int64) {
	if gress == 1 { // egress done
		p.delivered(pkt, now)
		return
	}
	var g *programs.MulticastGroup
	if pkt.McastGrp != 0 {
		if g = p.groups[pkt.McastGrp]; g == nil {
			p.Stats.UnknownGroups++
		}
	}
	elsewhere := pkt.Recirculate || pkt.OutPort != NoPort // the packet itself goes on
	if g != nil {
		// A packet that goes nowhere else lives on as its copies: the last
		// copy is the packet itself (nothing else holds it or its head).
		last := len(g.Ports)
		if !elsewhere {
			last--
		}
		for i, port := range g.Ports {
			c := pkt
			if i != last {
				c = pkt.Copy()
			}
			c.McastGrp, c.OutPort, c.Recirculate = 0, port, false
			p.Stats.Copies++
			p.output(c, now)
		}
		if !elsewhere {
			p.Stats.Replicated++
			return
		}
	}
	if pkt.Recirculate {
		pkt.Recirculate, pkt.McastGrp = false, 0
		if n := p.bridgeBytes; !pkt.NoBridge && p.bridges() && len(pkt.Head) >= n {
			// The bridged metadata is for an egress thread, and a
			// recirculated head goes back to the dispatcher without one.
			pkt.Head, pkt.Len = pkt.Head[n:], pkt.Len-n
			pkt.NoBridge = true
		}
		p.arrive(pkt, 0, now)
		return
	}
	if pkt.OutPort == NoPort {
		if pkt.McastGrp != 0 && g == nil {
			p.dropped(pkt, fmt.Sprintf("no multicast group %d", pkt.McastGrp))
		} else {
			p.dropped(pkt, "no destination port")
		}
		return
	}
	p.output(pkt, now)
}

// Output ports. Each port has the program's traffic-manager queues (its
// tm: section: qid, strict priority level, cell limit; 8 queues per port
// as on Tofino), or, for a program that declares none, one FIFO for every
// qid. A port's transmitter sends the head of the highest-priority queue
// that holds a packet and is not paused (PFC, mac.go), round-robin among
// queues of one level, at the port's line rate; the port's
// queue_limit_bytes bounds all its queues together.

// outPort is one output port's queues and transmitter.
type outPort struct {
	queues    []*outQueue // by qid
	order     []*outQueue // by priority, highest first (qid order within a level)
	rr        map[int]int // the next queue of each priority level, round-robin
	busyUntil int64       // the transmitter is busy up to here
	wireFree  int64       // the wire is busy up to here (after the egress thread)
	pending   bool        // a dequeue is scheduled
	// credit is transmit time the port is owed for frames its egress
	// threads resized or dropped after they were paced.
	credit packet.PaceCredit
}

// outQueue is one queue of an output port.
type outQueue struct {
	qid, prio  int
	limitCells int64 // 0: none
	pkts       fifo.Queue[*packet.Packet]
	cells      int64
	bytes      int64 // frame bytes queued (queue_limit_bytes)
	paused     bool  // PFC
	peakCells  int64
	enqueued   int64
}

// port returns output port n's queues, made at its first packet.
func (p *PFE) port(n int) *outPort {
	o := p.out[n]
	if o != nil {
		return o
	}
	o = &outPort{rr: map[int]int{}}
	if tq := p.prog.TM.Queues; len(tq) == 0 {
		o.queues = []*outQueue{{}}
	} else {
		for qid := 0; qid < p.cfg.Output.QueuesPerPort; qid++ {
			q := &outQueue{qid: qid}
			for _, qc := range tq {
				if qc.Qid == qid {
					q.prio, q.limitCells = qc.Priority, qc.LimitCells
				}
			}
			o.queues = append(o.queues, q)
		}
	}
	o.order = append([]*outQueue(nil), o.queues...)
	sort.SliceStable(o.order, func(i, j int) bool { return o.order[i].prio > o.order[j].prio })
	p.out[n] = o
	return o
}

// queueOf is the queue a packet of qid joins.
func (o *outPort) queueOf(qid int) *outQueue {
	if qid < 0 || qid >= len(o.queues) {
		qid = 0
	}
	return o.queues[qid]
}

// cells is a frame's size in the traffic manager's cells.
func (p *PFE) cells(length int) int64 {
	c := p.cfg.Output.CellBytes
	return int64((length + c - 1) / c)
}

// output queues a processed packet for its port (or, in a saturation
// run, passes it on at once).
func (p *PFE) output(pkt *packet.Packet, now int64) {
	if p.unpaced {
		pkt.EnqPs, pkt.DeqDeltaPs = now, 0
		if p.hasEgress(pkt) {
			p.arrive(pkt, 1, now)
		} else {
			p.delivered(pkt, now)
		}
		return
	}
	o := p.port(pkt.OutPort)
	q := o.queueOf(pkt.Qid)
	wire, n := int64(p.wireLen(pkt)), p.cells(pkt.Len)
	if lim := p.cfg.QueueLimitBytes; lim > 0 && q.bytes+wire > lim {
		p.dropped(pkt, "output queue full")
		return
	}
	if q.limitCells > 0 && q.cells+n > q.limitCells {
		p.dropped(pkt, "output queue full")
		return
	}
	pkt.EnqPs = now
	pkt.EnqDepthCells = int(q.cells)
	q.pkts.Push(pkt)
	q.cells += n
	q.peakCells = max(q.peakCells, q.cells)
	q.enqueued++
	q.bytes += wire
	p.kick(pkt.OutPort, o, now)
}

// kick starts port n's transmitter if it is idle.
func (p *PFE) kick(n int, o *outPort, now int64) {
	if !o.pending {
		o.pending = true
		p.post(max(now, o.busyUntil), evDequeue, nil, n)
	}
}

// pick is the queue the transmitter serves next (nil: none may send).
func (o *outPort) pick() *outQueue {
	for i := 0; i < len(o.order); {
		prio := o.order[i].prio
		j := i
		for j < len(o.order) && o.order[j].prio == prio {
			j++
		}
		level := o.order[i:j]
		start := o.rr[prio]
		for k := range level {
			q := level[(start+k)%len(level)]
			if q.pkts.Len() > 0 && !q.paused {
				o.rr[prio] = (start + k + 1) % len(level)
				return q
			}
		}
		i = j
	}
	return nil
}

// dequeue sends the next packet of an output port at the port's rate.
func (p *PFE) dequeue(port int, now int64) {
	o := p.out[port]
	if fifo := packet.SerializationPs(p.cfg.Output.TxFIFOBytes, p.portGbps(port)); o.wireFree-now > fifo {
		// The transmit FIFO after the egress thread is full: wait until
		// the wire has drained it to its size.
		p.post(o.wireFree-fifo, evDequeue, nil, port)
		return
	}
	q := o.pick()
	if q == nil {
		o.pending = false // the next enqueue or resume restarts the transmitter
		return
	}
	pkt := q.pkts.Pop()
	wire := p.wireLen(pkt)
	q.cells -= p.cells(pkt.Len)
	q.bytes -= int64(wire)
	pkt.DeqDeltaPs = now - pkt.EnqPs
	pkt.DeqDepthCells = int(q.cells)
	// Egress threads may have changed earlier frames' length after they
	// were paced: the transmitter follows the frames the wire carries.
	ser := o.credit.Slot(packet.SerializationPs(wire, p.portGbps(port)), now, o.busyUntil)
	o.busyUntil = now + ser
	if p.hasEgress(pkt) {
		pkt.PacedLen = wire
		p.arrive(pkt, 1, now)
	} else {
		p.delivered(pkt, now)
	}
	p.post(o.busyUntil, evDequeue, nil, port)
}

// hasEgress reports whether a packet leaving its queue gets an egress
// thread: the program has egress code and the packet's ingress did not
// set std.bypass_egress.
func (p *PFE) hasEgress(pkt *packet.Packet) bool {
	return p.prog.Egress != nil && len(p.prog.Egress.Body) > 0 && !pkt.BypassEgress
}

// QueueUse is what a queue of an output port saw during the run
// (arch.QueueUser): its peak in cells and in bytes of cells, and the
// packets that entered it.
func (p *PFE) QueueUse(port, qid int) (arch.QueueUse, bool) {
	o := p.out[port]
	if o == nil || qid < 0 || qid >= len(o.queues) {
		return arch.QueueUse{}, false
	}
	q := o.queues[qid]
	return arch.QueueUse{PeakCells: q.peakCells, PeakBytes: q.peakCells * int64(p.cfg.Output.CellBytes), Enqueued: q.enqueued}, true
}

// egressSized tells the transmitter of the port a packet was paced on
// (pkt.PacedLen bytes, when it went to an egress thread) the length it
// leaves with (0: dropped), so that the port drains at the rate of the
// frames the wire carries.
func (p *PFE) egressSized(pkt *packet.Packet, length int) {
	if pkt.PacedLen == 0 {
		return
	}
	if pkt.PacedLen != length {
		if o := p.out[pkt.OutPort]; o != nil {
			g := p.portGbps(pkt.OutPort)
			left := int64(0)
			if length > 0 {
				left = packet.SerializationPs(length, g)
			}
			o.credit.Resized(packet.SerializationPs(pkt.PacedLen, g), left)
		}
	}
	pkt.PacedLen = 0
}

func (p *PFE) delivered(pkt *packet.Packet, now int64) {
	p.egressSized(pkt, pkt.Len)
	if p.onDeliver != nil {
		p.onDeliver(pkt)
	}
	// The frame's last bit reaches the far end one serialization time
	// after it starts on the wire; the wire takes one frame at a time, so
	// frames that egress threads finish together go back to back (and a
	// capture stamps the frame when its first bit leaves, not before).
	a, attached := p.attached[pkt.OutPort]
	start := now
	var o *outPort
	if attached {
		o = p.port(pkt.OutPort)
		start = max(now, o.wireFree)
	}
	if p.tap != nil {
		p.tap(pkt.OutPort, pkt, start)
	}
	if attached {
		o.wireFree = start + packet.SerializationPs(pkt.Len, p.portGbps(pkt.OutPort))
		a.Deliver(p.engine, pkt, o.wireFree)
	}
	p.Stats.Delivered++
	p.Stats.E2E.Add(now - pkt.BornPs)
	if p.Stats.FirstDonePs == 0 {
		p.Stats.FirstDonePs = now
	}
	p.Stats.LastDonePs = now
}

// wireLen is a queued packet's length on the wire: without the bridged
// metadata the ingress thread put in front of it for the egress thread
// (internal to the PFE, like a Trio notification's fields).
func (p *PFE) wireLen(pkt *packet.Packet) int {
	if !pkt.NoBridge && p.bridges() {
		return pkt.Len - p.bridgeBytes
	}
	return pkt.Len
}
