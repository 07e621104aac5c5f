package tofino

import (
	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// TrafficManager is the foundation's traffic manager: one FIFO output queue
// per port with a byte limit, drained at the port's line rate, handing each
// dequeued packet to the egress thread of the port's pipe with the queue
// metadata Tofino's egress sees (enqueue depth in cells, dequeue depth,
// enqueue time, time in queue). Multicast, mirroring, deflect-on-drop,
// priorities and PFC belong to the traffic-manager issue; packets asking for
// them are counted (Unmodelled*) and otherwise forwarded as unicast.
type TrafficManager struct {
	*sim.ComponentBase
	engine sim.Engine
	cfg    *Config
	sw     *Switch
	queues []*portQueue

	Enqueued          int
	QueueDrops        int
	BadPortDrops      int
	UnmodelledMcast   int
	UnmodelledMirror  int
	UnmodelledDeflect int
}

type portQueue struct {
	port      int
	pkts      []*packet.Packet
	bytes     int64
	busyUntil int64
	pending   bool
	rateGbps  float64
}

// NotifyRecv is unused (see events.go).
func (t *TrafficManager) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (t *TrafficManager) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

func newTrafficManager(sw *Switch) *TrafficManager {
	t := &TrafficManager{ComponentBase: sim.NewComponentBase("Tofino.TM"), engine: sw.engine, cfg: sw.cfg, sw: sw}
	c := sw.cfg
	t.queues = make([]*portQueue, c.Pipes*c.DevPortPipeStride)
	for pipe := 0; pipe < c.Pipes; pipe++ {
		for local := 0; local < c.FrontPortsPerPipe; local++ {
			dp := c.DevPort(pipe, local)
			t.queues[dp] = &portQueue{port: dp, rateGbps: c.PortGbps}
		}
		dp := c.RecircPort(pipe)
		t.queues[dp] = &portQueue{port: dp, rateGbps: c.RecircGbps}
	}
	return t
}

// serializationPs is the time a port takes to send length bytes, counting
// the 20 bytes of preamble and inter-frame gap and the 4-byte FCS the
// frame length here excludes (IEEE 802.3).
func serializationPs(length int, gbps float64) int64 {
	return int64(float64(length+24)*8*1000/gbps + 0.5)
}

func (t *TrafficManager) depthCells(port int) int64 {
	if port < 0 || port >= len(t.queues) || t.queues[port] == nil {
		return 0
	}
	return int64(ceilDiv(int(t.queues[port].bytes), t.cfg.TM.CellBytes))
}

// Handle processes arrivals from ingress and dequeue wake-ups.
func (t *TrafficManager) Handle(e sim.Event) error {
	ev := e.(*pktEvent)
	now := secToPs(ev.t)
	switch ev.kind {
	case evTMArrive:
		t.arrive(ev.pkt, now)
	case evTMDequeue:
		t.dequeue(t.queues[ev.port], now)
	}
	return nil
}

func (t *TrafficManager) arrive(pkt *packet.Packet, now int64) {
	if pkt.McastGrp != 0 {
		t.UnmodelledMcast++
	}
	if pkt.Mirror {
		t.UnmodelledMirror++
	}
	port := pkt.OutPort
	if pkt.Recirculate {
		port = t.cfg.RecircPort(t.cfg.PipeOf(pkt.InPort))
		pkt.OutPort = port
	}
	if port < 0 || port >= len(t.queues) || t.queues[port] == nil {
		t.BadPortDrops++
		t.sw.dropped(pkt, "traffic manager: no such port")
		return
	}
	q := t.queues[port]
	if q.bytes+int64(pkt.Len) > t.cfg.TM.QueueLimitBytes {
		if pkt.DeflectOnDrop {
			t.UnmodelledDeflect++
		}
		t.QueueDrops++
		t.sw.dropped(pkt, "traffic manager: queue full")
		return
	}
	pkt.EnqDepthCells = int(t.depthCells(port))
	pkt.EnqPs = now
	q.pkts = append(q.pkts, pkt)
	q.bytes += int64(pkt.Len)
	t.Enqueued++
	if !q.pending {
		q.pending = true
		schedule(t.engine, t, max(now, q.busyUntil), evTMDequeue, nil, port)
	}
}

func (t *TrafficManager) dequeue(q *portQueue, now int64) {
	pkt := q.pkts[0]
	q.pkts[0] = nil
	q.pkts = q.pkts[1:]
	q.bytes -= int64(pkt.Len)
	pkt.DeqDepthCells = int(t.depthCells(q.port))
	pkt.DeqDeltaPs = now - pkt.EnqPs
	q.busyUntil = now + serializationPs(pkt.Len, q.rateGbps)
	if pkt.BypassEgress {
		// The egress parser would have consumed the bridged metadata the
		// ingress deparser prepended; without egress, strip it here.
		if n := (t.sw.prog.BridgeBits + 7) / 8; n > 0 && len(pkt.Head) >= n {
			pkt.Head, pkt.Len = pkt.Head[n:], pkt.Len-n
		}
		schedule(t.engine, t.sw.ports, now, evPortTx, pkt, q.port)
	} else {
		pipe := t.cfg.PipeOf(q.port)
		schedule(t.engine, t.sw.pipes[pipe].egress, now, evEgressArrive, pkt, 0)
	}
	if len(q.pkts) > 0 {
		schedule(t.engine, t, q.busyUntil, evTMDequeue, nil, q.port)
	} else {
		q.pending = false
	}
}
