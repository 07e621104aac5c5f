package trio

import (
	"fmt"

	"archsim/components/packet"
)

// Output: multicast replication, per-port output queues drained at line
// rate, the egress thread, and delivery to attached hosts.

// released moves a processed head on: an ingress packet to its output
// queue (or back to the dispatcher to recirculate), an egress one to the
// wire.
func (p *PFE) released(pkt *packet.Packet, gress int, now int64) {
	if gress == 1 { // egress done
		p.delivered(pkt, now)
		return
	}
	if pkt.Recirculate {
		pkt.Recirculate = false
		p.arrive(pkt, 0, now)
		return
	}
	if pkt.McastGrp != 0 {
		g := p.groups[pkt.McastGrp]
		if g == nil {
			p.dropped(pkt, fmt.Sprintf("no multicast group %d", pkt.McastGrp))
			return
		}
		// A packet that goes nowhere else lives on as its copies: the last
		// copy is the packet itself (nothing else holds it or its head).
		last := len(g.Ports)
		if pkt.OutPort == NoPort {
			last--
		}
		for i, port := range g.Ports {
			c := pkt
			if i != last {
				c = pkt.Copy()
			}
			c.McastGrp, c.OutPort = 0, port
			p.Stats.Copies++
			p.output(c, now)
		}
		if last < len(g.Ports) {
			p.Stats.Replicated++
			return
		}
	}
	if pkt.OutPort == NoPort {
		p.dropped(pkt, "no destination port")
		return
	}
	p.output(pkt, now)
}

// output queues a processed packet for its port (or, in a saturation
// run, passes it on at once).
func (p *PFE) output(pkt *packet.Packet, now int64) {
	if p.unpaced {
		pkt.EnqPs, pkt.DeqDeltaPs = now, 0
		if p.prog.Egress != nil && len(p.prog.Egress.Body) > 0 {
			p.arrive(pkt, 1, now)
		} else {
			p.delivered(pkt, now)
		}
		return
	}
	q := p.out[pkt.OutPort]
	if q == nil {
		q = &outQueue{}
		p.out[pkt.OutPort] = q
	}
	if lim := p.cfg.QueueLimitBytes; lim > 0 && q.bytes+int64(p.wireLen(pkt)) > lim {
		p.dropped(pkt, "output queue full")
		return
	}
	pkt.EnqPs = now
	pkt.EnqDepthCells = len(q.pkts)
	q.pkts = append(q.pkts, pkt)
	q.bytes += int64(p.wireLen(pkt))
	q.maxLen = max(q.maxLen, len(q.pkts))
	if !q.pending {
		q.pending = true
		p.post(max(now, q.busyUntil), evDequeue, nil, pkt.OutPort)
	}
}

// dequeue sends the next packet of an output queue at the port's rate.
func (p *PFE) dequeue(port int, now int64) {
	q := p.out[port]
	if len(q.pkts) == 0 {
		q.pending = false
		return
	}
	pkt := q.pkts[0]
	q.pkts[0] = nil
	q.pkts = q.pkts[1:]
	q.bytes -= int64(p.wireLen(pkt))
	pkt.DeqDeltaPs = now - pkt.EnqPs
	pkt.DeqDepthCells = len(q.pkts)
	q.busyUntil = now + packet.SerializationPs(p.wireLen(pkt), p.portGbps(port))
	if p.prog.Egress != nil && len(p.prog.Egress.Body) > 0 {
		p.arrive(pkt, 1, now)
	} else {
		p.delivered(pkt, now)
	}
	p.post(q.busyUntil, evDequeue, nil, port)
}

func (p *PFE) delivered(pkt *packet.Packet, now int64) {
	if p.onDeliver != nil {
		p.onDeliver(pkt)
	}
	if p.tap != nil {
		p.tap(pkt.OutPort, pkt, now)
	}
	if a, ok := p.attached[pkt.OutPort]; ok {
		a.Deliver(p.engine, pkt, now+packet.SerializationPs(pkt.Len, p.portGbps(pkt.OutPort)))
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
