package tm

import (
	"fmt"
	"sort"

	"archsim/programs"
)

// The traffic manager's run-time configuration, as a control plane (SAI)
// programs it: buffer pools, per-queue buffer profiles and schedulers, port
// admin state and the trimming policy. None of it changes the program's
// placement.

// TrimPolicy is traffic-manager trimming (SONiC packet_discard_action =
// trim, SAI SAI_BUFFER_PROFILE_PACKET_ADMISSION_FAIL_ACTION_DROP_AND_TRIM):
// a packet a trim-eligible queue refuses is cut to Size bytes, remarked and
// sent to a trim queue.
type TrimPolicy struct {
	Size int
	// DSCP gives the trimmed copy's DSCP for its egress port; ok false
	// keeps the packet's own (e.g. no TC_TO_DSCP entry yet).
	DSCP func(port int) (dscp int, ok bool)
	// Queue gives the trim queue for a copy with the given (new) DSCP from
	// an ingress port to an egress port.
	Queue func(inPort, port, dscp int) int
}

// SetTrimPolicy installs (or, with nil, removes) the trimming policy.
func (t *TrafficManager) SetTrimPolicy(p *TrimPolicy) { t.trimPolicy = p }

// SetPool creates or resizes a buffer pool (0 bytes: the whole buffer).
// Cells in use stay counted.
func (t *TrafficManager) SetPool(name string, bytes int64) {
	cells := t.totalCells
	if bytes > 0 {
		cells = min(cells, bytes/int64(t.cfg.CellBytes))
	}
	if t.pools == nil {
		t.pools = map[string]*pool{}
	}
	if pl, ok := t.pools[name]; ok {
		pl.totalCells = cells
		return
	}
	t.pools[name] = &pool{name: name, totalCells: cells}
}

// PoolNames lists the pools in name order.
func (t *TrafficManager) PoolNames() []string {
	names := make([]string, 0, len(t.pools))
	for n := range t.pools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// QueueSetup is one queue's buffer profile and scheduler.
type QueueSetup struct {
	// Buffer profile. With Pool set the limit is ReserveBytes plus a
	// share of the pool's free space (DynamicTh: 2^DynamicTh of it) or,
	// without DynamicTh, StaticBytes; with no pool, StaticBytes (0: the
	// program's or chip's default limit).
	Pool         string
	ReserveBytes int64
	DynamicTh    *int
	StaticBytes  int64
	Trim         bool // refused packets are trimmed
	// Scheduler. Strict queues are served before DWRR ones; Weight scales
	// the DWRR quantum (0: keep); PIRBps shapes the queue (0: unshaped).
	Strict bool
	Weight int
	PIRBps float64
}

// SetupQueue applies a buffer profile and scheduler to a port's queue at
// time now. Packets already queued stay (and move to the new pool's
// account); a changed shaper rate starts a fresh token bucket, and a port
// with packets its new setup lets go starts sending.
func (t *TrafficManager) SetupQueue(port, qid int, s QueueSetup, now int64) error {
	q := t.Queue(port, qid)
	if q == nil {
		return fmt.Errorf("port %d has no queue %d", port, qid)
	}
	var pl *pool
	if s.Pool != "" {
		var ok bool
		if pl, ok = t.pools[s.Pool]; !ok {
			return fmt.Errorf("no buffer pool %q", s.Pool)
		}
	}
	if q.pool != pl {
		if q.pool != nil {
			q.pool.usedCells -= q.cells
		}
		if pl != nil {
			pl.usedCells += q.cells
		}
	}
	q.pool = pl
	cell := int64(t.cfg.CellBytes)
	q.reserve = (s.ReserveBytes + cell - 1) / cell
	q.alpha = 0
	q.limitCells = t.defaultLimit(qid)
	switch {
	case pl != nil && s.DynamicTh != nil:
		q.alpha = *s.DynamicTh
	case pl != nil:
		// Static threshold inside a pool: a fixed limit, and the pool
		// must hold the packet.
		q.alpha = -62
		q.reserve = max(q.reserve, (s.StaticBytes+cell-1)/cell)
	case s.StaticBytes > 0:
		q.limitCells = (s.StaticBytes + cell - 1) / cell
	}
	q.trim = s.Trim
	p := t.ports[port]
	prio := 0
	if s.Strict {
		prio = 8 + qid // strict queues above DWRR ones, higher qid first
	}
	if prio != q.priority {
		q.priority = prio
		p.sortQueues()
	}
	if s.Weight > 0 {
		q.quantum = int64(s.Weight * t.cfg.DWRRQuantumBytes)
	}
	if s.PIRBps != q.pirBps {
		q.pirBps = s.PIRBps
		q.shapeNext = 0
	}
	if !p.down && p.hasWork() {
		t.kick(p, now)
	}
	return nil
}

// defaultLimit is a queue's limit from the program's tm section, else the
// chip's default.
func (t *TrafficManager) defaultLimit(qid int) int64 {
	for _, qc := range t.prog.TM.Queues {
		if qc.Qid == qid && qc.LimitCells > 0 {
			return qc.LimitCells
		}
	}
	return t.cfg.QueueLimitBytes / int64(t.cfg.CellBytes)
}

// sortQueues orders the port's queues by priority, high first, stable by
// qid.
func (p *port) sortQueues() {
	p.order = append(p.order[:0], p.queues...)
	sort.SliceStable(p.order, func(i, j int) bool { return p.order[i].priority > p.order[j].priority })
}

// SetPortAdmin brings a port's transmitter up or down. Going down flushes
// its queues (the packets are dropped: "port admin down"); configuration
// and counters stay.
func (t *TrafficManager) SetPortAdmin(port int, up bool, now int64) {
	if port < 0 || port >= len(t.ports) || t.ports[port] == nil {
		return
	}
	p := t.ports[port]
	if p.down == !up {
		return
	}
	p.down = !up
	if up {
		if p.hasWork() {
			t.kick(p, now)
		}
		return
	}
	for _, q := range p.queues {
		for q.len() > 0 {
			pkt := q.pkts.Pop()
			n := t.cells(pkt.Len)
			q.cells -= n
			q.bytes -= int64(pkt.Len)
			t.usedCells -= n
			if q.pool != nil {
				q.pool.usedCells -= n
			}
			q.Counters.DropPackets++
			q.Counters.DropBytes += int64(pkt.Len)
			t.Stats.AdminDownDrops++
			t.ledger.Dropped(pkt, "traffic manager: port admin down")
		}
		q.pkts.Clear()
		q.deficit = 0
	}
}

// PortUp reports a port's admin state.
func (t *TrafficManager) PortUp(port int) bool {
	return port >= 0 && port < len(t.ports) && t.ports[port] != nil && !t.ports[port].down
}

// Counters returns a queue's counters (zero for no such queue).
func (t *TrafficManager) Counters(port, qid int) QueueCounters {
	if q := t.Queue(port, qid); q != nil {
		return q.Counters
	}
	return QueueCounters{}
}

// QueuesPerPort is the number of queues each port has.
func (t *TrafficManager) QueuesPerPort() int { return t.cfg.QueuesPerPort }

// UsedCells is the shared buffer's cells in use.
func (t *TrafficManager) UsedCells() int64 { return t.usedCells }

// TotalCells is the shared buffer's size in cells.
func (t *TrafficManager) TotalCells() int64 { return t.totalCells }

// SetPortGbps sets the rate a port's queues drain at.
func (t *TrafficManager) SetPortGbps(port int, gbps float64) error {
	if port < 0 || port >= len(t.ports) || t.ports[port] == nil {
		return fmt.Errorf("traffic manager: no port %d", port)
	}
	t.ports[port].gbps = gbps
	return nil
}

// SetGroup replaces a multicast group's port list (the control plane's
// group update); a port may be listed more than once (one copy each).
func (t *TrafficManager) SetGroup(id int, ports []int) error {
	if id <= 0 || id >= 1<<16 {
		return fmt.Errorf("multicast group %d: want 1..65535", id)
	}
	for _, p := range ports {
		if p < 0 || p >= len(t.ports) || t.ports[p] == nil {
			return fmt.Errorf("multicast group %d: port %d does not exist", id, p)
		}
	}
	if t.groups == nil {
		t.groups = map[int]*programs.MulticastGroup{}
	}
	t.groups[id] = &programs.MulticastGroup{ID: id, Ports: append([]int(nil), ports...)}
	return nil
}

// Queued is the number of packets in every queue now (at the end of a
// run: still in flight, e.g. a self-replenishing queue's one packet).
func (t *TrafficManager) Queued() int {
	n := 0
	for _, p := range t.ports {
		if p == nil {
			continue
		}
		for _, q := range p.queues {
			n += q.len()
		}
	}
	return n
}
