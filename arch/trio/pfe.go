package trio

import (
	"fmt"
	"hash/crc32"
	"math/rand"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
	"archsim/components/stats"
	"archsim/programs"
)

// The PFE simulation. A packet's head goes to a PPE thread (or waits for
// one); the thread runs the program functionally at once — the
// interpreter executes the description on the packet and the shared state —
// and a tracer records what ran as a script of instruction segments and
// external transactions. The script is then played in simulated time:
//
//   - an instruction segment of k instructions takes k × max(D, R) cycles,
//     D the instruction's cycles and R the threads computing on that PPE
//     when it starts (a PPE issues one instruction per cycle, one in flight
//     per thread);
//   - a synchronous transaction crosses the crossbar (half the memory
//     latency), waits for its bank's read-modify-write engine (FIFO; the
//     engine is busy for the operation's cycles), and replies after the
//     other half; the thread is suspended meanwhile (other threads run);
//   - an asynchronous transaction only occupies its engine.
//
// Functional execution at dispatch means stateful outcomes follow dispatch
// order, while the engines serialise requests in arrival order; for the
// commutative updates the model's programs use (adds, ORs, counters) the
// results are the same. When the thread ends, the reorder engine releases
// the head once every earlier packet of its flow has been released. Then
// the packet is queued for its output port (drained at the port's rate);
// with egress code it is processed by a second thread (the egress PFE's
// role) before it leaves.

// step is one element of a thread's script.
type step struct {
	kind    stepKind
	n       int   // instructions (stepInstr)
	x       XKind // transaction kind
	bank    int   // RMW engine (-1: none, e.g. filter or tail)
	cycles  int   // engine cycles
	latency int64 // round-trip latency, ps
}

type stepKind uint8

const (
	stepInstr stepKind = iota
	stepSync
	stepAsync
	stepEmit // a packet the thread created leaves (n: index into emitted)
)

// thread is one packet's processing in one gress.
type thread struct {
	pkt      *packet.Packet
	gress    int // 0 ingress, 1 egress
	script   []step
	pc       int
	ppe      int
	arrivePs int64 // arrived at dispatch
	startPs  int64 // got a thread
	seq      int64 // position in its flow
	flow     int64
	instr    int
	xtxn     [xkinds]int
	drop     bool
	inSeg    bool // computing (counted in the PPE's active threads)
	id       int
	timer    *programs.Timer // a timer thread (no packet)
	timerIdx int
	emitted  []*packet.Packet // packets the thread created (emit())
	// Payload bookkeeping: where the payload starts and the tail chunks
	// already fetched.
	payloadAt   int
	tailFetched []uint64 // bitmap of the tail's 64-byte chunks already in local memory
}

type ppe struct {
	free      int   // free threads
	active    int   // threads in an instruction segment
	instr     int64 // instructions issued
	issueFree int64 // issue slots are reserved up to here (ps)
}

type flowOrder struct {
	next int64
	done map[int64]*thread
	seq  int64
}

type outQueue struct {
	pkts      []*packet.Packet
	busyUntil int64
	pending   bool
	maxLen    int
}

// PFE is one packet forwarding engine.
type PFE struct {
	*sim.ComponentBase
	cfg    *Config
	mc     *Microcode
	prog   *programs.Program
	engine sim.Engine
	state  *programs.State
	exec   *programs.Exec
	phv    []int64
	tr     tracer

	ppes     []ppe
	waiting  []*thread // heads waiting for a free thread (FIFO)
	threads  []*thread // by id (events carry the id)
	freeIDs  []int
	bankAt   []int64 // when each RMW engine is next free
	bankBusy []int64 // time each engine has been busy
	order    map[int64]*flowOrder
	out      map[int]*outQueue

	deadlinePs     int64
	nextDispatchPs int64
	emitID         uint64
	timersUntil    int64
	// unpaced skips the output ports' line rate (a saturation run measures
	// the PFE itself).
	unpaced bool
	// onDeliver, when set, sees every packet that leaves.
	onDeliver func(*packet.Packet)
	groups    map[int]*programs.MulticastGroup
	attached  map[int]attachment
	// Stats.
	Stats PFEStats
	drops map[string]int
}

// PFEStats are what a run measured.
type PFEStats struct {
	Packets      [2]int
	Latency      [2]stats.Samples // arrival at dispatch to release by the reorder engine, ps
	WaitPs       [2]stats.Samples // waiting for a free thread
	Instr        [2]stats.Samples // instructions per packet
	XTXN         [2][xkinds]int64
	EngineBusyPs int64
	BankBusyMax  int64
	MaxWaiting   int
	MaxThreads   int
	busy         int
	Delivered    int
	Copies       int // multicast copies made
	Emitted      int // packets threads created
	Replicated   int // packets that live on only as their copies
	E2E          stats.Samples
	FirstDonePs  int64
	LastDonePs   int64
	// Ingress threads: first and last to finish, and time threads were
	// held (for utilisation).
	FirstFinishPs int64
	LastFinishPs  int64
	ThreadPs      [2]int64
	// Timer threads: runs, time from start to exit, instructions per run.
	TimerRuns       int
	TimerNs         stats.Samples
	TimerInstr      stats.Samples
	LastThreadEndPs int64
}

// NotifyRecv is unused (events go straight to Handle).
func (p *PFE) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (p *PFE) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// NewPFE builds a PFE running a lowered program.
func NewPFE(engine sim.Engine, cfg *Config, mc *Microcode, seed int64) *PFE {
	p := &PFE{ComponentBase: sim.NewComponentBase("Trio.PFE"), cfg: cfg, mc: mc, prog: mc.Prog, engine: engine,
		order: map[int64]*flowOrder{}, out: map[int]*outQueue{}, drops: map[string]int{}}
	p.state = programs.NewState(p.prog)
	p.exec = programs.NewExec(p.state, rand.New(rand.NewSource(seed)))
	p.phv = make([]int64, len(p.prog.Fields))
	p.tr.p = p
	p.exec.Tracer = &p.tr
	p.exec.Emit = p.emit
	p.ppes = make([]ppe, cfg.PPEs)
	for i := range p.ppes {
		p.ppes[i].free = cfg.ThreadsPerPPE
	}
	p.groups = map[int]*programs.MulticastGroup{}
	for _, g := range p.prog.Multicast {
		p.groups[g.ID] = g
	}
	p.attached = map[int]attachment{}
	p.bankAt = make([]int64, cfg.SMem.RMWEngines)
	p.bankBusy = make([]int64, cfg.SMem.RMWEngines)
	p.deadlinePs = 1 << 62
	return p
}

// Event kinds on the PFE (packet.Event.Kind).
const (
	evArrive     = packet.KindArrive
	evResume     = packet.KindTimer
	evDequeue    = packet.KindDequeue
	evReleased   = packet.KindTx
	evTimerStart = packet.KindMirror // Port: timer index × 65536 + thread
)

// StartTimers starts the program's timer threads: the K threads of a timer
// with period P start at k·P/K and then every P (Trio's staggered timer
// threads, [TRIO] §5), until untilPs.
func (p *PFE) StartTimers(untilPs int64) {
	p.timersUntil = untilPs
	for ti, t := range p.prog.Timers {
		period := t.PeriodNs * 1000
		for k := 0; k < t.Threads; k++ {
			if at := int64(k) * period / int64(t.Threads); at <= untilPs {
				packet.Schedule(p.engine, p, at, evTimerStart, nil, ti<<16|k)
			}
		}
	}
}

// Inject schedules a packet's arrival at the dispatcher (on pkt.InPort).
func (p *PFE) Inject(pkt *packet.Packet, atPs int64) {
	packet.Schedule(p.engine, p, atPs, evArrive, pkt, pkt.InPort)
}

type attachment struct {
	h      sim.Handler
	propPs int64
}

// Attach connects a port to a host over a link with the given propagation
// delay: packets leaving the port arrive at h.
func (p *PFE) Attach(port int, h sim.Handler, propPs int64) { p.attached[port] = attachment{h, propPs} }

// IngressHandler is what a host on any port sends into (the event's port
// is the ingress port).
func (p *PFE) IngressHandler(int) sim.Handler { return p }

// SetDeadline ends the run at ps: packets still in the PFE after it are
// counted as in flight.
func (p *PFE) SetDeadline(ps int64) { p.deadlinePs = ps }

// State is the shared memory's program state (registers, counters).
func (p *PFE) State() *programs.State { return p.state }

// Handle processes the PFE's events.
func (p *PFE) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := packet.SecToPs(ev.T)
	switch ev.Kind {
	case evArrive:
		ev.Pkt.InPort = ev.Port
		p.arrive(ev.Pkt, 0, now)
	case evResume:
		p.resume(p.threads[ev.Port], now)
	case evDequeue:
		p.dequeue(ev.Port, now)
	case evReleased:
		p.released(ev.Pkt, ev.Port, now)
	case evTimerStart:
		t := p.prog.Timers[ev.Port>>16]
		if next := now + t.PeriodNs*1000; next <= p.timersUntil {
			packet.Schedule(p.engine, p, next, evTimerStart, nil, ev.Port)
		}
		th := p.newThread(nil, 0, now)
		th.timer, th.timerIdx = t, ev.Port&0xffff
		p.dispatch(th, now)
	}
	return nil
}

// arrive hands a head to the dispatcher.
func (p *PFE) arrive(pkt *packet.Packet, gress int, now int64) {
	if now > p.deadlinePs {
		p.drops["still in flight at the end of the run"]++
		return
	}
	th := p.newThread(pkt, gress, now)
	fo := p.order[th.flow]
	if fo == nil {
		fo = &flowOrder{done: map[int64]*thread{}}
		p.order[th.flow] = fo
	}
	th.seq = fo.seq
	fo.seq++
	p.dispatch(th, now)
}

func (p *PFE) newThread(pkt *packet.Packet, gress int, now int64) *thread {
	var th *thread
	if n := len(p.freeIDs); n > 0 {
		id := p.freeIDs[n-1]
		p.freeIDs = p.freeIDs[:n-1]
		th = p.threads[id]
		*th = thread{id: id, script: th.script[:0], emitted: th.emitted[:0]}
	} else {
		th = &thread{id: len(p.threads)}
		p.threads = append(p.threads, th)
	}
	th.pkt, th.gress, th.arrivePs = pkt, gress, now
	if pkt != nil {
		th.flow = int64(pkt.Flow)<<1 | int64(gress)
	}
	return th
}

// dispatch gives the head a thread on the PPE with the most free threads
// (lowest index on ties), or queues it.
func (p *PFE) dispatch(th *thread, now int64) {
	best := -1
	for i := range p.ppes {
		if p.ppes[i].free > 0 && (best < 0 || p.ppes[i].free > p.ppes[best].free) {
			best = i
		}
	}
	if best < 0 {
		p.waiting = append(p.waiting, th)
		p.Stats.MaxWaiting = max(p.Stats.MaxWaiting, len(p.waiting))
		return
	}
	p.ppes[best].free--
	p.Stats.busy++
	p.Stats.MaxThreads = max(p.Stats.MaxThreads, p.Stats.busy)
	th.ppe = best
	// The dispatcher hands out a bounded number of heads per cycle.
	at := max(now, p.nextDispatchPs)
	p.nextDispatchPs = at + int64(p.cfg.CyclePs()/float64(p.cfg.DispatchPerCycle)+0.5)
	th.startPs = at + NsToPs(p.cfg.DispatchNs)
	if th.timer == nil {
		p.Stats.WaitPs[th.gress].Add(now - th.arrivePs)
	}
	p.run(th)
	p.resume(th, th.startPs)
}

// run executes the program on the packet (or the timer's code) and
// records the script.
func (p *PFE) run(th *thread) {
	for i := range p.phv {
		p.phv[i] = 0
	}
	phv := p.phv
	prog := p.prog
	p.tr.th = th
	if th.timer != nil {
		phv[prog.Std[programs.StdTstamp].Slot] = (th.startPs / 1000) & (1<<48 - 1)
		phv[prog.Std[programs.StdEgressPort].Slot] = NoPort
		p.exec.PHV, p.exec.NowPs, p.exec.Payload = phv, th.startPs, nil
		p.exec.RunTimer(th.timer, th.timerIdx)
		th.add(step{kind: stepInstr, n: 1}) // the thread's exit (assumed one instruction)
		return
	}
	pkt := th.pkt
	phv[prog.Std[programs.StdPacketLength].Slot] = int64(pkt.Len)
	phv[prog.Std[programs.StdTstamp].Slot] = (th.startPs / 1000) & (1<<48 - 1)
	egress := th.gress == 1
	if egress {
		phv[prog.Std[programs.StdEgressPort].Slot] = int64(pkt.OutPort)
		phv[prog.Std[programs.StdQid].Slot] = int64(pkt.Qid)
		phv[prog.Std[programs.StdEnqQdepth].Slot] = int64(pkt.EnqDepthCells)
		phv[prog.Std[programs.StdDeqQdepth].Slot] = int64(pkt.DeqDepthCells)
		phv[prog.Std[programs.StdEnqTstamp].Slot] = (pkt.EnqPs / 1000) & (1<<32 - 1)
		phv[prog.Std[programs.StdDeqTimedelta].Slot] = min(pkt.DeqDeltaPs/1000, 1<<32-1)
	} else {
		phv[prog.Std[programs.StdIngressPort].Slot] = int64(pkt.InPort)
		phv[prog.Std[programs.StdEgressPort].Slot] = NoPort
	}
	res := prog.Parse(pkt.Head, pkt.Len, phv, egress, false)
	th.add(step{kind: stepInstr, n: res.States})
	if res.Rejected {
		th.drop = true
		p.drops["parser reject"]++
		return
	}
	// Headers beyond the head are fetched from the tail in chunks.
	if extra := res.Offset - p.cfg.HeadBytes; extra > 0 {
		for k := 0; k < (extra+p.cfg.XTXN.TailChunkBytes-1)/p.cfg.XTXN.TailChunkBytes; k++ {
			th.add(step{kind: stepSync, x: XTail, bank: -1, latency: NsToPs(p.cfg.SMem.DRAMLatencyNs)})
		}
	}
	p.exec.PHV = phv
	p.exec.NowPs = th.startPs
	p.exec.Payload = programs.PayloadBytes(pkt.Head, pkt.Len, res.Offset)
	th.payloadAt = res.Offset
	th.tailFetched = th.tailFetched[:0]
	if n := (pkt.Len - p.cfg.HeadBytes + p.cfg.XTXN.TailChunkBytes - 1) / p.cfg.XTXN.TailChunkBytes; n > 0 {
		for range (n + 63) / 64 {
			th.tailFetched = append(th.tailFetched, 0)
		}
	}
	ctl := prog.Ingress
	if egress {
		ctl = prog.Egress
	}
	p.exec.RunControl(ctl)
	// One instruction hands the head to the reorder engine (assumed).
	th.add(step{kind: stepInstr, n: 1})
	head, length := prog.Deparse(phv, pkt.Head, pkt.Len, res.Offset, false)
	pkt.Head, pkt.Len = head, length
	if phv[prog.Std[programs.StdDrop].Slot] != 0 {
		th.drop = true
		p.drops[map[bool]string{false: "ingress program drop", true: "egress program drop"}[egress]]++
	}
	if !egress {
		pkt.OutPort = int(phv[prog.Std[programs.StdEgressPort].Slot])
		pkt.Qid = int(phv[prog.Std[programs.StdQid].Slot])
		pkt.Recirculate = phv[prog.Std[programs.StdRecirculate].Slot] != 0
		pkt.McastGrp = int(phv[prog.Std[programs.StdMcastGrp].Slot])
	}
}

// emit builds the packet a thread creates (emit()) from its current
// headers, payload and destination, and schedules it in the thread's
// script (after the payload's copy, charged by tracer.Bulk).
func (p *PFE) emit(payload []byte) {
	th := p.tr.th
	phv := p.exec.PHV
	prog := p.prog
	head, length := prog.BuildEmitted(phv, payload)
	p.emitID++
	pkt := &packet.Packet{ID: 1<<62 | p.emitID, Flow: -1, Head: head, Len: length, Passes: 1,
		OutPort: int(phv[prog.Std[programs.StdEgressPort].Slot]), Qid: int(phv[prog.Std[programs.StdQid].Slot]),
		McastGrp: int(phv[prog.Std[programs.StdMcastGrp].Slot])}
	th.emitted = append(th.emitted, pkt)
	th.script = append(th.script, step{kind: stepEmit, n: len(th.emitted) - 1})
}

// NoPort is the egress port of a packet the program sent nowhere.
const NoPort = 511

func (th *thread) add(s step) {
	if s.kind == stepInstr {
		if s.n == 0 {
			return
		}
		th.instr += s.n
		if n := len(th.script); n > 0 && th.script[n-1].kind == stepInstr {
			th.script[n-1].n += s.n
			return
		}
	} else {
		th.xtxn[s.x]++
	}
	th.script = append(th.script, s)
}

// resume plays the script from its current step at time now.
func (p *PFE) resume(th *thread, now int64) {
	pp := &p.ppes[th.ppe]
	if th.inSeg {
		th.inSeg = false
		pp.active--
	}
	for th.pc < len(th.script) {
		s := th.script[th.pc]
		th.pc++
		switch s.kind {
		case stepInstr:
			// The PPE issues one instruction per cycle across its threads
			// (its issue slots are reserved in order); one thread's
			// instructions are D cycles apart. A run of instructions and
			// asynchronous transactions (the thread does not wait for
			// those) is played as one segment, one event instead of one per
			// instruction: its transactions are sent when the segment
			// starts (a run is at most a loop body, about a hundred ns —
			// sending them at their exact issue times would need the
			// engines to take requests out of time order), and a full
			// engine queue stalls the segment by the wait (back-pressure).
			k := int64(s.n)
			stall := int64(0)
			for th.pc < len(th.script) && (th.script[th.pc].kind == stepInstr || th.script[th.pc].kind == stepAsync) {
				st := th.script[th.pc]
				th.pc++
				if st.kind == stepInstr {
					k += int64(st.n)
					continue
				}
				if _, room := p.engineOp(st, now); room-now > stall {
					stall = room - now
				}
			}
			slots := p.cfg.CyclesToPs(k)
			pp.issueFree = max(pp.issueFree, now) + slots
			end := max(now+p.cfg.CyclesToPs(k*int64(p.cfg.Instr.Cycles)), pp.issueFree) + stall
			pp.active++
			pp.instr += k
			th.inSeg = true
			packet.Schedule(p.engine, p, end, evResume, nil, th.id)
			return
		case stepAsync:
			// The thread goes on, unless the engine's queue is full: then
			// the crossbar back-pressures it until there is room.
			if _, room := p.engineOp(s, now); room > now {
				packet.Schedule(p.engine, p, room, evResume, nil, th.id)
				return
			}
		case stepSync:
			reply, _ := p.engineOp(s, now)
			packet.Schedule(p.engine, p, reply, evResume, nil, th.id)
			return
		case stepEmit:
			// A created packet needs no reordering behind others.
			pkt := th.emitted[s.n]
			pkt.BornPs = now
			p.Stats.Emitted++
			packet.Schedule(p.engine, p, now+NsToPs(p.cfg.ReorderNs), evReleased, pkt, 0)
		}
	}
	p.finish(th, now)
}

// engineOp sends a transaction at now. It returns when the reply is back
// and when the request found room in the engine's queue (engine_queue
// operations; later than now means the sender was back-pressured).
func (p *PFE) engineOp(s step, now int64) (reply, room int64) {
	half := s.latency / 2
	if s.bank < 0 {
		return now + s.latency, now
	}
	at := now + half
	busy := p.cfg.CyclesToPs(int64(s.cycles))
	// Room when no more than engine_queue operations are ahead of it.
	room = now
	if backlog := p.bankAt[s.bank] - at; backlog > int64(p.cfg.SMem.EngineQueue)*busy {
		room = now + backlog - int64(p.cfg.SMem.EngineQueue)*busy
	}
	start := max(at, p.bankAt[s.bank])
	p.bankAt[s.bank] = start + busy
	p.Stats.EngineBusyPs += busy
	p.bankBusy[s.bank] += busy
	p.Stats.BankBusyMax = max(p.Stats.BankBusyMax, p.bankAt[s.bank]-at)
	return start + busy + half, room
}

// finish frees the thread and passes the head to the reorder engine.
func (p *PFE) finish(th *thread, now int64) {
	p.ppes[th.ppe].free++
	p.Stats.busy--
	if th.timer != nil {
		p.Stats.TimerRuns++
		p.Stats.TimerNs.Add(now - th.arrivePs)
		p.Stats.TimerInstr.Add(int64(th.instr))
		p.freeIDs = append(p.freeIDs, th.id)
		p.next(now)
		return
	}
	g := th.gress
	p.Stats.Packets[g]++
	p.Stats.ThreadPs[g] += now - th.startPs
	p.Stats.LastThreadEndPs = max(p.Stats.LastThreadEndPs, now)
	if g == 0 {
		if p.Stats.FirstFinishPs == 0 {
			p.Stats.FirstFinishPs = now
		}
		p.Stats.LastFinishPs = now
	}
	p.Stats.Instr[g].Add(int64(th.instr))
	for k := XKind(0); k < xkinds; k++ {
		p.Stats.XTXN[g][k] += int64(th.xtxn[k])
	}
	fo := p.order[th.flow]
	fo.done[th.seq] = th
	for {
		t, ok := fo.done[fo.next]
		if !ok {
			break
		}
		delete(fo.done, fo.next)
		fo.next++
		p.Stats.Latency[t.gress].Add(now - t.arrivePs)
		if t.drop {
			p.freeIDs = append(p.freeIDs, t.id)
			continue
		}
		packet.Schedule(p.engine, p, now+NsToPs(p.cfg.ReorderNs), evReleased, t.pkt, t.gress)
		p.freeIDs = append(p.freeIDs, t.id)
	}
	p.next(now)
}

// next gives the freed thread to the first waiting head, if any.
func (p *PFE) next(now int64) {
	if len(p.waiting) > 0 {
		next := p.waiting[0]
		p.waiting = p.waiting[1:]
		p.dispatch(next, now)
	}
}

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
			p.drops[fmt.Sprintf("no multicast group %d", pkt.McastGrp)]++
			return
		}
		for _, port := range g.Ports {
			c := pkt.Clone()
			c.McastGrp, c.OutPort = 0, port
			p.Stats.Copies++
			p.output(c, now)
		}
		if pkt.OutPort == NoPort {
			p.Stats.Replicated++ // the packet lives on as its copies
			return
		}
	}
	if pkt.OutPort == NoPort {
		p.drops["no destination port"]++
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
	pkt.EnqPs = now
	pkt.EnqDepthCells = len(q.pkts)
	q.pkts = append(q.pkts, pkt)
	q.maxLen = max(q.maxLen, len(q.pkts))
	if !q.pending {
		q.pending = true
		packet.Schedule(p.engine, p, max(now, q.busyUntil), evDequeue, nil, pkt.OutPort)
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
	pkt.DeqDeltaPs = now - pkt.EnqPs
	pkt.DeqDepthCells = len(q.pkts)
	q.busyUntil = now + packet.SerializationPs(pkt.Len, p.cfg.PortGbps)
	if p.prog.Egress != nil && len(p.prog.Egress.Body) > 0 {
		p.arrive(pkt, 1, now)
	} else {
		p.delivered(pkt, now)
	}
	packet.Schedule(p.engine, p, q.busyUntil, evDequeue, nil, port)
}

func (p *PFE) delivered(pkt *packet.Packet, now int64) {
	if p.onDeliver != nil {
		p.onDeliver(pkt)
	}
	if a, ok := p.attached[pkt.OutPort]; ok {
		packet.Schedule(p.engine, a.h, now+packet.SerializationPs(pkt.Len, p.cfg.PortGbps)+a.propPs, packet.KindArrive, pkt, pkt.OutPort)
	}
	p.Stats.Delivered++
	p.Stats.E2E.Add(now - pkt.BornPs)
	if p.Stats.FirstDonePs == 0 {
		p.Stats.FirstDonePs = now
	}
	p.Stats.LastDonePs = now
}

// tracer turns what the interpreter runs into script steps.
type tracer struct {
	p  *PFE
	th *thread
}

func (t *tracer) Stmt(s programs.Stmt) {
	if c := t.p.mc.stmt[s]; c != nil {
		t.th.add(step{kind: stepInstr, n: c.Instr})
	}
}

func (t *tracer) Lookup(tb *programs.Table, key []int64, hit bool, a *programs.Action) {
	p := t.p
	if !exactOnly(tb) {
		t.th.add(step{kind: stepSync, x: XFilter, bank: -1, latency: NsToPs(p.cfg.Lookup.FilterLatencyNs)})
		return
	}
	o := p.mc.object[tb]
	h := crc32.NewIEEE()
	var b [8]byte
	for _, k := range key {
		for i := range b {
			b[i] = byte(k >> (8 * i))
		}
		h.Write(b[:])
	}
	entry := int64(h.Sum32()) % int64(max(1, tb.Size))
	t.th.add(step{kind: stepSync, x: XHash, bank: p.bank(o, entry), cycles: (o.EntryBytes+p.cfg.SMem.BytesPerCycle-1)/p.cfg.SMem.BytesPerCycle + p.cfg.Lookup.HashCycles,
		latency: p.latency(o)})
}

func (t *tracer) Register(ra *programs.RegisterAction, index int) {
	p := t.p
	rc := p.mc.reg[ra]
	o := p.mc.object[ra.Register]
	bank, lat := p.bank(o, int64(index)), p.latency(o)
	if rc.Atomic {
		k := stepAsync
		if rc.Sync {
			k = stepSync
		}
		t.th.add(step{kind: k, x: XRMW, bank: bank, cycles: rc.Cycles, latency: lat})
		return
	}
	t.th.add(step{kind: stepSync, x: XRead, bank: bank, cycles: rc.Cycles, latency: lat})
	t.th.add(step{kind: stepInstr, n: rc.Instr})
	t.th.add(step{kind: stepAsync, x: XWrite, bank: bank, cycles: p.mc.engineCycles("write", rc.Bytes), latency: lat})
}

func (t *tracer) Meter(m *programs.Meter, index int) {
	p := t.p
	o := p.mc.object[m]
	t.th.add(step{kind: stepSync, x: XPolicer, bank: p.bank(o, int64(index)), cycles: p.mc.engineCycles("add", o.EntryBytes), latency: p.latency(o)})
}

func (t *tracer) Count(c *programs.Counter, index int) {
	p := t.p
	o := p.mc.object[c]
	t.th.add(step{kind: stepAsync, x: XCounter, bank: p.bank(o, int64(index)), cycles: p.mc.engineCycles("add", o.EntryBytes), latency: p.latency(o)})
}

// Payload charges a tail fetch the first time a thread touches a 64-byte
// chunk of the packet beyond its head.
func (t *tracer) Payload(word int) {
	p, th := t.p, t.th
	if th.pkt == nil {
		return // a timer thread has no packet: every word reads 0
	}
	off := th.payloadAt + 4*word
	if off < p.cfg.HeadBytes || off >= th.pkt.Len {
		return
	}
	chunk := (off - p.cfg.HeadBytes) / p.cfg.XTXN.TailChunkBytes
	if th.tailFetched[chunk/64]&(1<<(chunk%64)) != 0 {
		return
	}
	th.tailFetched[chunk/64] |= 1 << (chunk % 64)
	th.add(step{kind: stepSync, x: XTail, bank: -1, latency: NsToPs(p.cfg.SMem.DRAMLatencyNs)})
}

// Bulk charges emit(REG, START, CELLS)'s copy of register cells into the
// new packet's tail as Trio-ML builds its Result packet ([TRIO] §4): a
// loop whose iterations each pull an xtxn.result_chunk_bytes chunk from
// the shared memory (DMEM) into local memory, in synchronous reads of at
// most xtxn.max_bytes on the register's banks, then write it to the packet
// buffer (PMEM, asynchronous, no RMW engine).
func (t *tracer) Bulk(r *programs.Register, start, cells int) {
	p, th := t.p, t.th
	o := p.mc.object[r]
	w := r.Type.Bits / 8
	lat := p.latency(o)
	total := cells * w
	for off := 0; off < total; off += p.cfg.XTXN.ResultChunkBytes {
		chunk := min(p.cfg.XTXN.ResultChunkBytes, total-off)
		// The chunk's reads are issued back to back and the thread waits
		// for the last reply (replies return in order); then one write
		// puts the chunk in the packet buffer. Each transaction needs an
		// instruction to issue it.
		reads := (chunk + p.cfg.XTXN.MaxBytes - 1) / p.cfg.XTXN.MaxBytes
		for i := 0; i < reads; i++ {
			k := i * p.cfg.XTXN.MaxBytes
			n := min(p.cfg.XTXN.MaxBytes, chunk-k)
			cell := int64(start + (off+k)/w)
			kind := stepAsync
			if i == reads-1 {
				kind = stepSync
			}
			th.add(step{kind: kind, x: XRead, bank: p.bank(o, cell), cycles: p.mc.engineCycles("read", n), latency: lat})
		}
		th.add(step{kind: stepAsync, x: XPMEM, bank: -1, latency: NsToPs(p.cfg.SMem.DRAMLatencyNs)})
		th.add(step{kind: stepInstr, n: max(bulkLoopInstr, (reads+1+p.cfg.Instr.XTXNPerInstr-1)/p.cfg.Instr.XTXNPerInstr)})
	}
}

// Clear charges clear(REG, START, CELLS)'s reset of register cells, the
// way Trio-ML empties a block's aggregation buffer ([TRIO] §4): the range
// (cells × the cell's bytes) is written with the largest transactions
// ([TRIO] §2.3: up to xtxn.max_bytes; the last one shorter but at least
// xtxn.min_bytes), asynchronous, each on the bank of its first cell. The loop's body is bulkLoopInstr
// instructions, each issuing instr.xtxn_per_instr writes (the offset
// increment and the branch ride on them): one issue instruction per write
// when xtxn_per_instr is 1.
func (t *tracer) Clear(r *programs.Register, start, cells int) {
	p, th := t.p, t.th
	o := p.mc.object[r]
	w := max(1, (r.Type.Bits+7)/8)
	lat := p.latency(o)
	total := cells * w
	perIter := bulkLoopInstr * p.cfg.Instr.XTXNPerInstr
	writes := (total + p.cfg.XTXN.MaxBytes - 1) / p.cfg.XTXN.MaxBytes
	for i := 0; i < writes; i++ {
		k := i * p.cfg.XTXN.MaxBytes
		n := max(p.cfg.XTXN.MinBytes, min(p.cfg.XTXN.MaxBytes, total-k))
		cell := int64(start + k/w)
		th.add(step{kind: stepAsync, x: XWrite, bank: p.bank(o, cell), cycles: p.mc.engineCycles("write", n), latency: lat})
		if (i+1)%perIter == 0 || i == writes-1 {
			th.add(step{kind: stepInstr, n: bulkLoopInstr})
		}
	}
}

// bank maps an object's entry to the RMW engine of its address (64-byte
// interleave across the engines).
func (p *PFE) bank(o *MemObject, entry int64) int {
	addr := o.Base + entry*int64(o.EntryBytes)
	if o.Memory == "dram" {
		addr += p.cfg.SMem.SRAMBytes
	}
	return int((addr / 64) % int64(p.cfg.SMem.RMWEngines))
}

func (p *PFE) latency(o *MemObject) int64 {
	if o.Memory == "dram" {
		return NsToPs(p.cfg.SMem.DRAMLatencyNs)
	}
	return NsToPs(p.cfg.SMem.SRAMLatencyNs)
}
