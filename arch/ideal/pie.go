package ideal

import (
	"archsim/components/aqm/pie"
	"archsim/components/packet"
	"archsim/components/stats"
)

// PIEConfig turns every output port into a FIFO with a byte limit and a
// PIE controller (RFC 8033) deciding early drops on enqueue: the reference
// PIE the PIE-on-Tofino paper's ns-3 rows are (§VII).
type PIEConfig struct {
	// Params are each port's controller's parameters (flavour, no-drop
	// mode, ...); QueueLimitPs is set from LimitPs.
	Params pie.Params
	// LimitPs is the queue limit in time: a port holds at most LimitPs x
	// its rate in bytes (the paper's §VI.A 500 us limit).
	LimitPs int64
	// ECN marks ECN-capable packets (IP ECN ECT(0) or ECT(1)) with CE
	// instead of dropping them while drop_prob is below the flavour's
	// threshold (RFC 8033 §5.1).
	ECN bool
}

// Drop reasons of the PIE queue.
const (
	DropQueueFull = "ideal switch: queue full"
	DropPIE       = "ideal switch: pie drop"
)

// evPIEUpdate is a port's PIE update timer (Port: the port).
const evPIEUpdate = evDequeue + 1

// pieQueue is a port's PIE state. Queue delay is measured by timestamps at
// dequeue, as ns-3's PieQueueDisc does (ns-3.32 and later, DoDequeue):
// the sojourn time of the packet leaving for the wire, or 0 when that
// packet leaves the queue empty; the update uses the latest value.
type pieQueue struct {
	ctl      *pie.PIE
	limitB   int64
	qdelayPs int64 // the latest measured queue delay
	timerOn  bool  // an update event is pending
	lastUpd  int64 // when the last update ran (or was due)
	delays   stats.Samples
}

// PIEUpdateHook is called after every PIE update on a port: the time, the
// new drop probability and the queue delay the update used.
type PIEUpdateHook func(port int, nowPs int64, prob float64, qdelayPs int64)

// OnPIEUpdate sets the hook called after every PIE update.
func (s *Switch) OnPIEUpdate(f PIEUpdateHook) { s.pieHook = f }

// PIE is a port's controller (nil if the port has not carried a packet or
// the switch does not run PIE).
func (s *Switch) PIE(port int) *pie.PIE {
	if port < 0 || port >= len(s.ports) || s.ports[port].pq == nil {
		return nil
	}
	return s.ports[port].pq.ctl
}

// QueueDelays is the queue delay of every packet that left a port's PIE
// queue (enqueue to the start of its transmission), in picoseconds; nil
// like PIE.
func (s *Switch) QueueDelays(port int) *stats.Samples {
	if port < 0 || port >= len(s.ports) || s.ports[port].pq == nil {
		return nil
	}
	return &s.ports[port].pq.delays
}

// PIEUpdates is the number of PIE updates over all ports.
func (s *Switch) PIEUpdates() int {
	n := 0
	for _, p := range s.ports {
		if p.pq != nil {
			n += p.pq.ctl.Updates()
		}
	}
	return n
}

// pieOf returns a port's PIE queue, made on its first packet: the byte
// limit from the port's rate then, the controller, and the update timer.
func (s *Switch) pieOf(pi int, now int64) *pieQueue {
	p := s.ports[pi]
	if p.pq != nil {
		return p.pq
	}
	c := s.cfg.PIE
	params := c.Params
	params.QueueLimitPs = c.LimitPs
	// bytes = limit [ps] x rate [Gb/s] x 1e9 / 8 / 1e12.
	q := &pieQueue{ctl: pie.MustNew(params), limitB: int64(float64(c.LimitPs) * s.portGbps(pi) / 8000), lastUpd: now}
	p.pq = q
	s.armPIE(pi, now)
	return q
}

// armPIE (re)starts a port's update timer, on the grid of t_update from
// its first packet; the updates it skipped while the port was idle and its
// controller quiescent changed nothing and are counted (pie.SkipIdle).
func (s *Switch) armPIE(pi int, now int64) {
	q := s.ports[pi].pq
	if q.timerOn {
		return
	}
	t := q.ctl.Params().TUpdatePs
	j := (now-q.lastUpd)/t + 1
	at := q.lastUpd + j*t
	if s.deadline > 0 && at > s.deadline {
		return // the run is over
	}
	q.ctl.SkipIdle(int(j - 1))
	q.lastUpd = at - t
	q.timerOn = true
	packet.Schedule(s.engine, s, at, evPIEUpdate, nil, pi)
}

// updatePIE runs a port's PIE update and schedules the next one while the
// port is in use: the timer stops when the queue is empty and the
// controller quiescent, or past the run's deadline.
func (s *Switch) updatePIE(pi int, now int64) {
	p := s.ports[pi]
	q := p.pq
	q.ctl.Update(q.qdelayPs)
	q.lastUpd = now
	if s.pieHook != nil {
		s.pieHook(pi, now, q.ctl.Prob(), q.qdelayPs)
	}
	next := now + q.ctl.Params().TUpdatePs
	if (len(p.data) == 0 && q.ctl.Quiescent()) || (s.deadline > 0 && next > s.deadline) {
		q.timerOn = false
		return
	}
	packet.Schedule(s.engine, s, next, evPIEUpdate, nil, pi)
}

// arrivePIE enqueues a packet on a PIE port: tail drop at the byte limit
// (checked first, as ns-3's PieQueueDisc::DoEnqueue does), else PIE's
// decision.
func (s *Switch) arrivePIE(pi int, pkt *packet.Packet, now int64) {
	p := s.ports[pi]
	q := s.pieOf(pi, now)
	if !q.timerOn {
		s.armPIE(pi, now)
	}
	if p.dataB+int64(pkt.Len) > q.limitB {
		s.dropped(pkt, DropQueueFull)
		return
	}
	ect := false
	if s.cfg.PIE.ECN {
		_, ecn, ok := packet.DSCPECN(pkt.Head)
		ect = ok && (ecn == 1 || ecn == 2)
	}
	switch q.ctl.Decide(p.dataB, pkt.Len, ect, s.rng) {
	case pie.Drop:
		s.dropped(pkt, DropPIE)
		return
	case pie.Mark:
		setCE(pkt.Head)
	}
	pkt.EnqPs = now
	p.data = append(p.data, pkt)
	p.dataB += int64(pkt.Len)
	p.MaxDataPackets = max(p.MaxDataPackets, len(p.data))
	s.kick(p, pi, now)
}

// servePIE transmits the next packet of a PIE port and measures its queue
// delay.
func (s *Switch) servePIE(pi int, now int64) {
	p := s.ports[pi]
	if len(p.data) == 0 {
		p.pending = false
		return
	}
	pkt := p.data[0]
	p.data[0] = nil
	p.data = p.data[1:]
	p.dataB -= int64(pkt.Len)
	q := p.pq
	d := now - pkt.EnqPs
	pkt.DeqDeltaPs = d // the queueing delay, as a Tofino traffic manager reports it to egress
	q.delays.Add(d)
	q.qdelayPs = d
	if len(p.data) == 0 {
		q.qdelayPs = 0 // ns-3 PieQueueDisc::DoDequeue: an emptied queue has no delay
	}
	p.busyUntil = now + p.ser.Ps(pkt.Len, s.portGbps(pi))
	if s.tap != nil {
		s.tap(pi, pkt, now)
	}
	if a := s.out[pi]; a.To != nil {
		s.Delivered++
		a.Deliver(s.engine, pkt, p.busyUntil)
	}
	s.next(p, pi)
}

// setCE sets an IP packet's ECN field to CE (11). Like SONiC's DSCP remark
// (packet.SetDSCP), the IPv4 checksum is left as it is.
func setCE(head []byte) {
	off, v, ok := packet.IPHeader(head)
	if !ok {
		return
	}
	if v == 4 {
		head[off+1] |= 3
	} else {
		head[off+1] |= 0x30
	}
}
