package trio

import (
	"fmt"
	"math/bits"
	"math/rand"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/arch/trio/lower"
	"archsim/arch/trio/smem"
	"archsim/arch/trio/spec"
	"archsim/components/fifo"
	"archsim/components/link"
	"archsim/components/packet"
	"archsim/components/pfc"
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
	latency int64 // round-trip latency, ps
	busy    int64 // engine time, ps (the operation's cycles at the engine clock)
	n       int32 // instructions (stepInstr); transactions (stepAsync, see thread.addAsync); index into emitted (stepEmit)
	bank    int32 // RMW engine (-1: none, e.g. filter or tail)
	kind    stepKind
	x       uint8 // transaction kind (lower.XKind)
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
	order    *flowOrder // the reorder engine's timeline of the thread's flow
	instr    int
	xtxn     [lower.NumXKinds]int
	drop     bool
	inSeg    bool // computing (counted in the PPE's active threads)
	id       int
	timer    *programs.Timer // a timer thread (no packet)
	timerIdx int
	emitted  []*packet.Packet // packets the thread created (emit()) or sent again (resend())
	kept     []bool           // by emitted: sent again from a packet buffer (it keeps its identity)
	keptOut  []*packet.Packet // kept packets a packet thread sent, released with its head (reorder.go)
	// Payload bookkeeping: where the payload starts and the tail chunks
	// already fetched.
	payloadAt   int
	tailAt      int      // the tail's first byte (the head's size)
	tailLen     int      // the tail's bytes (0: none, or a timer thread)
	tailFetched []uint64 // bitmap of the tail's 64-byte chunks already in local memory
	// The script's open segment: 1 + the index of its instruction step
	// (0: none), and 1 + the index of its last transaction (0: none).
	seg, segLast int
}

type ppe struct {
	free      int   // free threads
	active    int   // threads in an instruction segment
	instr     int64 // instructions issued
	issueFree int64 // issue slots are reserved up to here (ps)
}

type flowOrder struct {
	next int64
	done map[int64]*thread // finished out of order (nil until one is)
	seq  int64
}

// PFE is one packet forwarding engine.
type PFE struct {
	*sim.ComponentBase
	gen []*genApp // the program's generator applications, as timer threads (pktgen.go)
	// bridgeBytes is the bridged metadata's length in front of a head
	// between the ingress and egress threads.
	bridgeBytes int
	genMade     int
	cfg         *spec.Config
	mc          *lower.Microcode
	prog        *programs.Program
	codec       *programs.Codec     // the program's parser and deparser, flattened
	pfc         *pfc.Receiver       // the ports' MACs: PFC frames (mac.go)
	freeIx      freeIndex           // the PPEs by free threads, for dispatch
	relq        fifo.Queue[relItem] // packets the reorder engine released, leaving in order (reorder.go)
	// view, for a program the codec parses selectively, is what a
	// thread's parse saw, for its deparse (nil: the full path).
	view   *programs.PassView
	engine sim.Engine
	state  *programs.State
	exec   *programs.Exec
	phv    []int64
	tr     tracer
	// hdrs is the deparser's scratch: a packet's new header bytes (see
	// deparse).
	hdrs []byte

	ppes    []ppe
	waiting []*thread // heads waiting for a free thread (FIFO)
	threads []*thread // by id (events carry the id)
	freeIDs []int
	smem    *smem.Memory
	order   map[int64]*flowOrder
	out     map[int]*outPort
	// beyondIn are the ports ≥ cfg.Ports packets arrived on (a program's
	// traffic written for another chip's port numbers; see PortsBeyond).
	beyondIn map[int]bool

	deadlinePs     int64
	nextDispatchPs int64
	emitID         uint64
	tailPs         int64 // a tail fetch's (or packet-buffer write's) round trip
	sramPs         int64 // an SRAM access's round trip (packet-buffer descriptors)
	filterPs       int64 // a filter lookup's
	tailShift      int   // log2 of xtxn.tail_chunk_bytes (-1: not a power of two)
	bankMask       int64 // smem.rmw_engines - 1 (-1: not a power of two)
	// bankLine is the 64-byte line bankOf last mapped (-1: none) and
	// bankLast its engine.
	bankLine    int64
	bankLast    int32
	timersUntil int64
	scriptCap   int // the longest script recorded (steps)
	// scripts are the script buffers of finished threads: a running
	// thread records into one, so they number the threads that ran at
	// once, not the heads waiting for a thread (a window of 8192 blocks
	// queued 32 768 heads, each with a script of the longest size, 0.7 GB).
	scripts [][]step
	// unpaced skips the output ports' line rate (a saturation run measures
	// the PFE itself).
	unpaced bool
	// threadStats records Stats.Latency and WaitPs (a latency run's
	// report reads them; a network run does not).
	threadStats bool
	// onDeliver, when set, sees every packet that leaves.
	onDeliver func(*packet.Packet)
	tap       arch.WireTap // packet captures (nil: none)
	groups    map[int]*programs.MulticastGroup
	// arb orders heads that reach the dispatcher from several ports at
	// one instant (trio.arbitration); flushFn takes them in that order.
	arb      *packet.Arbiter
	flushFn  func(packet.Held)
	attached map[int]link.End
	// Stats.
	Stats    PFEStats
	drops    arch.DropCounter
	dropHook func(*packet.Packet, string)
	speeds   map[int]float64 // ports a network set to another speed
	*arch.StateControl
}

// PFEStats are what a run measured.
type PFEStats struct {
	Packets       [2]int
	Latency       [2]stats.Samples // arrival at dispatch to release by the reorder engine, ps (WithThreadStats)
	WaitPs        [2]stats.Samples // waiting for a free thread (WithThreadStats)
	Instr         [2]stats.Samples // instructions per packet
	XTXN          [2][lower.NumXKinds]int64
	MaxWaiting    int
	MaxThreads    int
	busy          int
	Delivered     int
	Copies        int // multicast copies made
	Emitted       int // packets threads created
	Resent        int // packets threads sent again from a packet buffer
	Replicated    int // packets that live on only as their copies
	UnknownGroups int // packets that named a multicast group the program does not have
	E2E           stats.Samples
	FirstDonePs   int64
	LastDonePs    int64
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

// Builder builds a PFE (Akita style: value receiver, WithX, Build(name)).
type Builder struct {
	engine  sim.Engine
	cfg     *spec.Config
	mc      *lower.Microcode
	seed    int64
	unpaced bool
	stats   bool
}

// MakeBuilder returns a builder whose PFE configuration defaults to the
// one the program was lowered for (WithConfig overrides it).
func MakeBuilder() Builder { return Builder{} }

// WithEngine sets the Akita engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the PFE's configuration.
func (b Builder) WithConfig(c *spec.Config) Builder { b.cfg = c; return b }

// WithMicrocode sets the lowered program the PPEs run.
func (b Builder) WithMicrocode(m *lower.Microcode) Builder { b.mc = m; return b }

// WithSeed seeds the program's random draws.
func (b Builder) WithSeed(s int64) Builder { b.seed = s; return b }

// WithUnpaced makes the output ports pass packets on at once instead of at
// line rate (a rate probe measures the PFE alone).
func (b Builder) WithUnpaced(u bool) Builder { b.unpaced = u; return b }

// WithThreadStats makes the PFE record each packet thread's latency and
// wait for a thread (PFEStats.Latency, WaitPs; arch.BuildSpec).
func (b Builder) WithThreadStats(on bool) Builder { b.stats = on; return b }

// Build constructs the PFE.
func (b Builder) Build(name string) *PFE {
	if b.engine == nil || b.mc == nil {
		panic("trio.Builder: engine and microcode are required")
	}
	if b.cfg == nil {
		b.cfg = b.mc.Config()
	}
	p := newPFE(name, b.engine, b.cfg, b.mc, b.seed)
	p.unpaced, p.threadStats = b.unpaced, b.stats
	return p
}

func newPFE(name string, engine sim.Engine, cfg *spec.Config, mc *lower.Microcode, seed int64) *PFE {
	p := &PFE{ComponentBase: sim.NewComponentBase(name), cfg: cfg, mc: mc, prog: mc.Prog, engine: engine,
		order: map[int64]*flowOrder{}, out: map[int]*outPort{}}
	p.codec = p.prog.Codec()
	if p.codec.Selective() {
		p.view = p.codec.NewPassView()
	}
	p.bridgeBytes = (p.prog.BridgeBits + 7) / 8
	p.hdrs = make([]byte, 0, 256)
	p.state = programs.NewState(p.prog)
	p.StateControl = &arch.StateControl{Prog: p.prog, States: []*programs.State{p.state}}
	p.exec = programs.NewExec(p.state, rand.New(rand.NewSource(seed)))
	p.phv = make([]int64, len(p.prog.Fields))
	p.tr.p = p
	p.exec.Tracer = &p.tr
	p.exec.Emit = p.emit
	p.exec.Send = p.send
	p.ppes = make([]ppe, cfg.PPEs)
	for i := range p.ppes {
		p.ppes[i].free = cfg.ThreadsPerPPE
	}
	p.freeIx.init(cfg.PPEs, cfg.ThreadsPerPPE)
	p.groups = map[int]*programs.MulticastGroup{}
	for _, g := range p.prog.Multicast {
		p.groups[g.ID] = g
	}
	p.attached = map[int]link.End{}
	p.smem = smem.MakeBuilder().WithConfig(cfg.SMem).WithClockMHz(cfg.ClockMHz).Build(p.Name() + ".SMem")
	p.deadlinePs = 1 << 62
	p.arb = packet.NewArbiter(engine, p, cfg.ArbitrationPolicy(), seed^0x5bd1e995)
	p.flushFn = func(h packet.Held) { p.portArrive(h.Pkt, h.Port, p.arb.AtPs()) }
	p.tailPs, p.filterPs = NsToPs(cfg.SMem.DRAMLatencyNs), NsToPs(cfg.Lookup.FilterLatencyNs)
	p.sramPs = NsToPs(cfg.SMem.SRAMLatencyNs)
	p.tailShift = -1
	p.bankMask, p.bankLine = -1, -1
	if n := cfg.SMem.RMWEngines; n > 0 && n&(n-1) == 0 {
		p.bankMask = int64(n - 1)
	}
	if c := cfg.XTXN.TailChunkBytes; c > 0 && c&(c-1) == 0 {
		p.tailShift = bits.TrailingZeros(uint(c))
	}
	return p
}

// Event kinds of the PFE's own wake-ups (packet.Event.Kind); a head
// arriving at the dispatcher is packet.KindArrive (Port: the ingress
// port).
const (
	evResume   = packet.KindLocal + iota // a thread's segment ends or its transaction replies (Port: the thread)
	evDequeue                            // an output port's transmitter is free (Port: the port)
	evReleased                           // the reorder engine passes its oldest released packet on (reorder.go)
)

// evTimer starts one thread of a timer ([TRIO] §5) (Port: the timer's
// index << 16 | which of its threads). A packet event, so the engine
// recycles it like the others.
const evTimer = evPauseEnd + 1

func (p *PFE) scheduleTimer(atPs int64, timer, thread int) {
	p.post(atPs, evTimer, nil, timer<<16|thread)
}

// StartTimers starts the program's timer threads: the K threads of a timer
// with period P start at k·P/K and then every P (Trio's staggered timer
// threads, [TRIO] §5), until untilPs.
func (p *PFE) StartTimers(untilPs int64) {
	p.timersUntil = untilPs
	for ti, t := range p.prog.Timers {
		period := t.PeriodNs * 1000
		for k := 0; k < t.Threads; k++ {
			if at := int64(k) * period / int64(t.Threads); at <= untilPs {
				p.scheduleTimer(at, ti, k)
			}
		}
	}
}

// Inject schedules a packet's arrival at the dispatcher (on pkt.InPort).
func (p *PFE) Inject(pkt *packet.Packet, atPs int64) {
	packet.Schedule(p.engine, p, atPs, packet.KindArrive, pkt, pkt.InPort)
}

// Attach connects a port to a host over a link with the given propagation
// delay: packets leaving the port arrive at h.
func (p *PFE) Attach(port int, to link.End) { p.attached[port] = to }

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
	now := ev.AtPs()
	kind, pkt, port := ev.Kind, ev.Pkt, ev.Port
	switch kind {
	case packet.KindArbitrate:
		p.arb.Flush(p.flushFn)
	case packet.KindArrive:
		if !p.arb.Offer(ev, 0, port, 0) {
			return nil // heads from several ports at once: the arbiter orders them
		}
		p.portArrive(pkt, port, now)
	case evResume:
		p.resume(p.threads[port], now)
	case evDequeue:
		p.dequeue(port, now)
	case evReleased:
		p.releaseNext(now)
	case evPktGen:
		p.pktGen(port, now)
	case evPauseEnd:
		p.mac().Expire(port, now)
	case evTimer:
		p.startTimer(port>>16, port&0xFFFF, now)
	}
	return nil
}

// post schedules one of the PFE's own wake-ups (kind ≥ evResume) at ps
// (the engine recycles handled packet events).
func (p *PFE) post(ps int64, kind packet.Kind, pkt *packet.Packet, port int) {
	packet.Schedule(p.engine, p, ps, kind, pkt, port)
}

// wake schedules the thread's resumption at ps.
func (p *PFE) wake(th *thread, ps int64) { p.post(ps, evResume, nil, th.id) }

// startTimer starts a timer thread and schedules the timer's next start.
func (p *PFE) startTimer(timer, thread int, now int64) {
	if now > p.timersUntil {
		return // stopped since this start was scheduled
	}
	t := p.prog.Timers[timer]
	if next := now + t.PeriodNs*1000; next <= p.timersUntil {
		p.scheduleTimer(next, timer, thread)
	}
	th := p.newThread(nil, 0, now)
	th.timer, th.timerIdx = t, thread
	p.dispatch(th, now)
}

// arrive hands a head to the dispatcher.
// portArrive takes a head that arrived on a port: the MAC consumes PFC
// frames, the dispatcher the rest.
func (p *PFE) portArrive(pkt *packet.Packet, port int, now int64) {
	pkt.InPort = port
	if port >= 0 && port < p.cfg.Ports && p.mac().Consume(pkt.Head, port, p.portGbps(port), now) {
		p.dropped(pkt, "mac: PFC frame consumed")
		return
	}
	if port >= p.cfg.Ports && !p.beyondIn[port] {
		p.noteBeyondIn(port)
	}
	p.arrive(pkt, 0, now)
}

func (p *PFE) arrive(pkt *packet.Packet, gress int, now int64) {
	if now > p.deadlinePs {
		p.drops.Add("still in flight at the end of the run")
		return
	}
	th := p.newThread(pkt, gress, now)
	var fo *flowOrder
	if pkt.Flow == -1 && p.cfg.ReorderCreated == spec.ReorderOwnFlow {
		fo = &flowOrder{} // a flow of its own (trio.reorder_created)
	} else if fo = p.order[th.flow]; fo == nil {
		fo = &flowOrder{}
		p.order[th.flow] = fo
	}
	th.order, th.seq = fo, fo.seq
	fo.seq++
	p.dispatch(th, now)
}

func (p *PFE) newThread(pkt *packet.Packet, gress int, now int64) *thread {
	var th *thread
	if n := len(p.freeIDs); n > 0 {
		id := p.freeIDs[n-1]
		p.freeIDs = p.freeIDs[:n-1]
		th = p.threads[id]
		*th = thread{id: id, emitted: th.emitted[:0], kept: th.kept[:0], keptOut: th.keptOut[:0], tailFetched: th.tailFetched[:0]}
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
	best := p.freeIx.best()
	if best < 0 {
		p.waiting = append(p.waiting, th)
		p.Stats.MaxWaiting = max(p.Stats.MaxWaiting, len(p.waiting))
		return
	}
	p.ppes[best].free--
	p.freeIx.move(best, p.ppes[best].free+1, p.ppes[best].free)
	p.Stats.busy++
	p.Stats.MaxThreads = max(p.Stats.MaxThreads, p.Stats.busy)
	th.ppe = best
	// The dispatcher hands out a bounded number of heads per cycle.
	at := max(now, p.nextDispatchPs)
	p.nextDispatchPs = at + int64(p.cfg.CyclePs()/float64(p.cfg.DispatchPerCycle)+0.5)
	th.startPs = at + NsToPs(p.cfg.DispatchNs)
	if th.timer == nil && p.threadStats {
		p.Stats.WaitPs[th.gress].Add(now - th.arrivePs)
	}
	p.run(th)
	p.resume(th, th.startPs)
}

// Fault fails the run when a thread's loop was cut at
// programs.MaxLoopIterations: a PPE would have run it on, so the results
// would not be the program's.
func (p *PFE) Fault() error {
	if f := p.exec.LoopCut; f != nil {
		return fmt.Errorf("%s: for loop: still running after %d iterations, cut (allowed: at most %d per thread); the run is not valid", f.Pos, programs.MaxLoopIterations, programs.MaxLoopIterations)
	}
	return nil
}

// run executes the program on the packet (or the timer's code) and
// records the script.
func (p *PFE) run(th *thread) {
	// The script buffer of a finished thread, or a new one with room for
	// the longest script so far (it then grows at most once more).
	if n := len(p.scripts); n > 0 {
		th.script = p.scripts[n-1][:0]
		p.scripts = p.scripts[:n-1]
	} else {
		th.script = make([]step, 0, p.scriptCap)
	}
	p.runScript(th)
	p.scriptCap = max(p.scriptCap, len(th.script))
}

// runScript is run without the script's bookkeeping.
func (p *PFE) runScript(th *thread) {
	for i := range p.phv {
		p.phv[i] = 0
	}
	phv := p.phv
	prog := p.prog
	p.tr.th = th
	if th.timer != nil {
		phv[prog.Std[programs.StdTstamp].Slot] = (th.startPs / 1000) & (1<<48 - 1)
		phv[prog.Std[programs.StdEgressPort].Slot] = NoPort
		p.exec.PHV, p.exec.NowPs, p.exec.Payload, p.exec.PayloadLen = phv, th.startPs, nil, 0
		p.exec.Ident = programs.PacketIdent{} // no packet: what it stores gets an identity when sent
		p.exec.RunTimer(th.timer, th.timerIdx)
		th.addInstr(1) // the thread's exit (assumed one instruction)
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
	// The ingress thread bridges the program's bridged metadata to the
	// egress thread in front of the head (a PPE writes what it likes into
	// the head), as a Tofino ingress deparser does.
	var res programs.ParseResult
	if p.view != nil {
		res = p.codec.ParsePass(pkt.Head, pkt.Len, phv, egress, egress && p.bridges() && !pkt.NoBridge, p.view)
	} else {
		res = p.codec.Parse(pkt.Head, pkt.Len, phv, egress, egress && p.bridges() && !pkt.NoBridge)
	}
	th.addInstr(res.States)
	if res.Rejected {
		th.drop = true
		p.dropped(pkt, "parser reject")
		return
	}
	// Headers beyond the head are fetched from the tail in chunks.
	if extra := res.Offset - p.cfg.HeadBytes; extra > 0 {
		for k := 0; k < (extra+p.cfg.XTXN.TailChunkBytes-1)/p.cfg.XTXN.TailChunkBytes; k++ {
			th.addSync(step{x: uint8(lower.XTail), bank: -1, latency: p.tailPs})
		}
	}
	p.exec.PHV = phv
	p.exec.NowPs = th.startPs
	p.exec.Payload = programs.PayloadBytes(pkt.Head, pkt.Len, res.Offset)
	p.exec.PayloadLen = max(0, pkt.Len-res.Offset)
	p.exec.Ident = programs.PacketIdent{ID: pkt.ID, Flow: pkt.Flow, BornPs: pkt.BornPs}
	th.payloadAt = res.Offset
	th.tailAt, th.tailLen = p.cfg.HeadBytes, max(0, pkt.Len-p.cfg.HeadBytes)
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
	p.exec.Dirty = 0
	p.exec.RunControl(ctl)
	// One instruction hands the head to the reorder engine (assumed).
	th.addInstr(1)
	// A packet whose ingress code sets std.bypass_egress leaves without an
	// egress thread, as on Tofino, so it carries no bridged metadata (the
	// egress parser would expect headers only egress-bound packets have).
	bypass := !egress && phv[prog.Std[programs.StdBypassEgress].Slot] != 0
	bridge := !egress && p.bridges() && !bypass
	if p.view != nil {
		// The packet owns its head (hosts and generators make heads
		// fresh, copies get their own): it is rewritten in place.
		pkt.Head, pkt.Len = p.codec.DeparsePass(phv, pkt.Head, pkt.Len, res.Offset, bridge, p.view, p.exec.Dirty)
	} else {
		pkt.Head, pkt.Len = p.deparse(phv, pkt.Head, pkt.Len, res.Offset, bridge)
	}
	if !egress {
		pkt.NoBridge = !bridge
		pkt.BypassEgress = bypass
	}
	if phv[prog.Std[programs.StdDrop].Slot] != 0 {
		th.drop = true
		reason := "ingress program drop"
		if egress {
			reason = "egress program drop"
		}
		p.dropped(pkt, reason)
	}
	if !egress {
		pkt.OutPort = int(phv[prog.Std[programs.StdEgressPort].Slot])
		pkt.Qid = int(phv[prog.Std[programs.StdQid].Slot])
		pkt.Recirculate = phv[prog.Std[programs.StdRecirculate].Slot] != 0
		pkt.McastGrp = int(phv[prog.Std[programs.StdMcastGrp].Slot])
	}
}

// deparse is Program.Deparse (the head's bytes are not modified), without
// its new array when the packet leaves with the header bytes it came with:
// the headers are serialized into the PFE's scratch first, and when they
// are the head's first bytes, byte for byte, and the payload starts right
// after them, Deparse's result would be a copy of head — head is returned.
// (Trio-ML consumes its contributions and forwards results with their
// headers as they came.)
func (p *PFE) deparse(phv []int64, head []byte, length, payloadOff int, withBridge bool) ([]byte, int) {
	hdrs, n := p.codec.DeparseInPlace(phv, p.hdrs[:0], length, payloadOff, withBridge)
	if cap(hdrs) > cap(p.hdrs) {
		p.hdrs = hdrs[:0] // grown: keep the larger scratch
	}
	if len(hdrs) == payloadOff && payloadOff <= len(head) && string(hdrs) == string(head[:payloadOff]) {
		return head, n
	}
	// Deparse's result, from the headers already in the scratch: they,
	// then the stored bytes after the old headers.
	rest := 0
	if payloadOff < len(head) {
		rest = len(head) - payloadOff
	}
	out := make([]byte, len(hdrs)+rest)
	copy(out, hdrs)
	copy(out[len(hdrs):], head[min(payloadOff, len(head)):])
	return out, n
}

// bridges reports whether ingress threads bridge metadata to egress
// threads: the program has bridged metadata and an egress control.
func (p *PFE) bridges() bool {
	return p.prog.BridgeBits > 0 && p.prog.Egress != nil && len(p.prog.Egress.Body) > 0
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
	pkt := &packet.Packet{ID: 1<<62 | p.emitID, Flow: -1, Head: head, Len: length, Passes: 1, NoBridge: true,
		OutPort: int(phv[prog.Std[programs.StdEgressPort].Slot]), Qid: int(phv[prog.Std[programs.StdQid].Slot]),
		McastGrp: int(phv[prog.Std[programs.StdMcastGrp].Slot])}
	th.emitted, th.kept = append(th.emitted, pkt), append(th.kept, false)
	th.addEmit(len(th.emitted) - 1)
}

// NoPort is the egress port of a packet the program sent nowhere.
const NoPort = 511

// NsToPs converts nanoseconds to picoseconds.
func NsToPs(ns float64) int64 { return int64(ns*1000 + 0.5) }

// The script is recorded as segments: a segment is a run of instructions
// and asynchronous transactions that starts with an instruction and ends
// at the next synchronous transaction or emitted packet (resume plays it
// as one: its instructions take their time, its transactions are all sent
// when it starts). Within a segment the order of instructions and
// transactions does not matter, so a segment is kept as one instruction
// step (every instruction of the segment) followed by its transactions,
// consecutive identical ones (same kind, engine, time and latency: a
// loop's adds to one 64-byte line) as one step of n. Transactions before
// a segment's first instruction are played one by one (each may be
// back-pressured): they stay single steps.

// addInstr records n instructions.
func (th *thread) addInstr(n int) {
	if n == 0 {
		return
	}
	th.instr += n
	if th.seg > 0 {
		th.script[th.seg-1].n += int32(n)
		return
	}
	th.script = append(th.script, step{kind: stepInstr, n: int32(n)})
	th.seg, th.segLast = len(th.script), 0
}

// addAsync records an asynchronous transaction.
func (th *thread) addAsync(s step) {
	th.xtxn[s.x]++
	s.kind, s.n = stepAsync, 1
	if th.seg == 0 {
		th.script = append(th.script, s)
		return
	}
	if th.segLast > 0 {
		if l := &th.script[th.segLast-1]; l.bank == s.bank && l.busy == s.busy && l.latency == s.latency && l.x == s.x {
			l.n++
			return
		}
	}
	th.script = append(th.script, s)
	th.segLast = len(th.script)
}

// addSync records a synchronous transaction (it ends the segment).
func (th *thread) addSync(s step) {
	th.xtxn[s.x]++
	s.kind = stepSync
	th.script = append(th.script, s)
	th.seg, th.segLast = 0, 0
}

// addEmit records that emitted packet i leaves (it ends the segment).
func (th *thread) addEmit(i int) {
	th.script = append(th.script, step{kind: stepEmit, n: int32(i)})
	th.seg, th.segLast = 0, 0
}

// resume plays the script from its current step at time now.
func (p *PFE) resume(th *thread, now int64) {
	pp := &p.ppes[th.ppe]
	if th.inSeg {
		th.inSeg = false
		pp.active--
	}
	for th.pc < len(th.script) {
		s := &th.script[th.pc]
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
				st := &th.script[th.pc]
				th.pc++
				if st.kind == stepInstr {
					k += int64(st.n)
					continue
				}
				if room := p.smem.ServeN(int(st.bank), st.busy, st.latency, now, int(st.n)); room-now > stall {
					stall = room - now
				}
			}
			slots := p.cfg.CyclesToPs(k)
			pp.issueFree = max(pp.issueFree, now) + slots
			end := max(now+p.cfg.CyclesToPs(k*int64(p.cfg.Instr.Cycles)), pp.issueFree) + stall
			pp.active++
			pp.instr += k
			th.inSeg = true
			// Synchronous transactions that go to no engine (a tail
			// fetch) take their latency whatever else happens, so the
			// segment's wake-up is their reply: one event instead of
			// one more per fetch (the same times).
			for th.pc < len(th.script) && th.script[th.pc].kind == stepSync && th.script[th.pc].bank < 0 {
				end += th.script[th.pc].latency
				th.pc++
			}
			p.wake(th, end)
			return
		case stepAsync:
			// The thread goes on, unless the engine's queue is full: then
			// the crossbar back-pressures it until there is room. (One
			// transaction: only a segment's are grouped.)
			if _, room := p.smem.ServeBusy(int(s.bank), s.busy, s.latency, now); room > now {
				p.wake(th, room)
				return
			}
		case stepSync:
			reply, _ := p.smem.ServeBusy(int(s.bank), s.busy, s.latency, now)
			p.wake(th, reply)
			return
		case stepEmit:
			// A created packet needs no reordering behind others; a kept
			// one a packet thread sends again is a frame of the flow the
			// thread works on: it leaves with the thread's head, in the
			// flow's order (reorder.go).
			pkt := th.emitted[s.n]
			if th.kept[s.n] {
				p.Stats.Resent++
				if th.timer == nil {
					th.keptOut = append(th.keptOut, pkt)
					continue
				}
			} else {
				pkt.BornPs = now
				p.Stats.Emitted++
			}
			p.toRelease(pkt, 0, now)
		}
	}
	p.finish(th, now)
}
