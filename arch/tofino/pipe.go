package tofino

import (
	"math/rand"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch/tofino/compiler"
	"archsim/arch/tofino/spec"
	"archsim/arch/tofino/tm"
	"archsim/components/packet"
	"archsim/components/stats"
	"archsim/programs"
)

// NoPort is the egress port of a packet ingress gave no unicast
// destination.
const NoPort = tm.NoPort

// PipeThread is one thread (ingress or egress) of one pipe: parser, the
// placed MAU stages and deparser. It accepts packets_per_cycle packets per
// clock and never stalls; packets that arrive in the same cycle wait for
// the next issue slot, the only queueing inside a pipeline. A packet's
// latency is its wait plus the parser's cycles (states visited, bytes
// consumed), the MAU pipeline length derived from the placement's stage
// dependencies, and the deparser's cycles.
type PipeThread struct {
	*sim.ComponentBase
	engine sim.Engine
	cfg    *Config
	prog   *programs.Program
	place  *compiler.Placement
	gress  spec.Gress
	pipe   int
	state  *programs.State
	exec   *programs.Exec
	phv    []int64
	next   sim.Handler // traffic manager (ingress) or port (egress)
	sw     *Switch

	// drop reasons ("ingress parser reject", ...), built once
	rejectReason, dropReason string
	codec                    *programs.Codec // the program's parser and deparser, flattened
	view                     *programs.PassView

	nextIssuePs int64
	Stats       ThreadStats

	// arb arbitrates among the ingress ports of packets that reach the
	// parser at the same instant (ingress only; the chip config's
	// arbitration).
	arb     *packet.Arbiter
	flushFn func(packet.Held)

	// Per-packet constants, derived once from cfg and prog (the same
	// values the Config and Program methods compute).
	cyclePs float64                      // cfg.CyclePs()
	slotPs  int64                        // issue spacing: max(1, CyclesToPs(1)/PacketsPerCycle)
	slots   [len(programs.StdFields)]int // std field slots by StdID
	// fixed memoizes the parser + MAU + deparser latency of the last
	// pass by what it depends on (parser states and bytes, bytes
	// emitted): packets of one kind take the same path, and the
	// computation costs two integer divisions and a float product.
	fixed       fixedMemo
	threadStats bool // record Stats.Latency and WaitPs
}

type fixedMemo struct {
	states, bytes, emitted int
	ps                     int64
	ok                     bool
}

// ThreadStats counts what a pipeline thread did.
type ThreadStats struct {
	Packets      int
	ParserDrops  int
	ProgramDrops int
	// Latency (ps from arrival to deparser output, the wait for issue
	// included) and WaitPs are recorded only when the switch was built
	// WithThreadStats.
	Latency stats.Samples
	WaitPs  stats.Samples
}

// NotifyRecv is unused: packets arrive as scheduled events (components/packet/event.go).
func (p *PipeThread) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused (no Akita ports).
func (p *PipeThread) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// Handle processes a packet arriving at the thread: at ingress, on the
// event's port (from a host, a link, the recirculation port or the
// harness).
func (p *PipeThread) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	if p.gress == spec.Ingress {
		if ev.Kind == packet.KindArbitrate {
			p.arb.Flush(p.flushFn)
			return nil
		}
		if !p.arb.Offer(ev, 0, ev.Port, 0) {
			return nil
		}
		p.ingress(ev.Pkt, ev.Port, ev.AtPs())
		return nil
	}
	p.process(ev.Pkt, ev.AtPs())
	return nil
}

// ingress takes a packet that arrived on port into the pipe: the MAC
// consumes PFC frames, the parser takes the rest.
func (p *PipeThread) ingress(pkt *packet.Packet, port int, nowPs int64) {
	pkt.InPort = port
	if port%p.cfg.DevPortPipeStride < p.cfg.FrontPortsPerPipe && p.sw.macControl(pkt, port, nowPs) {
		p.sw.dropped(pkt, "mac: PFC frame consumed")
		return
	}
	p.process(pkt, nowPs)
}

func (p *PipeThread) std(id programs.StdID) int { return p.slots[id] }

func (p *PipeThread) process(pkt *packet.Packet, nowPs int64) {
	if nowPs > p.sw.deadlinePs {
		p.sw.expired(pkt)
		return
	}
	c := p.cfg
	cyc := p.cyclePs
	issueCycle := int64(float64(max(nowPs, p.nextIssuePs))/cyc + 0.999999)
	issuePs := int64(float64(issueCycle)*cyc + 0.5) // c.CyclesToPs(issueCycle)
	p.nextIssuePs = issuePs + p.slotPs
	p.Stats.Packets++

	for i := range p.phv {
		p.phv[i] = 0
	}
	phv := p.phv
	phv[p.std(programs.StdPacketLength)] = int64(pkt.Len)
	phv[p.std(programs.StdTstamp)] = (issuePs / 1000) & (1<<48 - 1)
	if p.gress == spec.Ingress {
		phv[p.std(programs.StdIngressPort)] = int64(pkt.InPort)
		phv[p.std(programs.StdEgressPort)] = NoPort
	} else {
		phv[p.std(programs.StdEgressPort)] = int64(pkt.OutPort)
		phv[p.std(programs.StdQid)] = int64(pkt.Qid)
		phv[p.std(programs.StdEnqQdepth)] = int64(pkt.EnqDepthCells)
		phv[p.std(programs.StdDeqQdepth)] = int64(pkt.DeqDepthCells)
		phv[p.std(programs.StdEnqTstamp)] = (pkt.EnqPs / 1000) & (1<<32 - 1)
		phv[p.std(programs.StdDeqTimedelta)] = min(pkt.DeqDeltaPs/1000, 1<<32-1)
		if pkt.Deflected {
			phv[p.std(programs.StdDeflected)] = 1
		}
		if pkt.Mirrored {
			phv[p.std(programs.StdMirrorCopy)] = int64(pkt.MirrorSession)
		}
	}
	res := p.codec.ParsePass(pkt.Head, pkt.Len, phv, p.gress == spec.Egress, p.gress == spec.Egress && !pkt.NoBridge, p.view)
	if res.Rejected {
		p.Stats.ParserDrops++
		p.paced(pkt, 0)
		p.sw.dropped(pkt, p.rejectReason)
		return
	}
	p.exec.NowPs = issuePs
	var ctl *programs.Control
	if p.gress == spec.Ingress {
		ctl = p.prog.Ingress
	} else {
		ctl = p.prog.Egress
	}
	p.exec.PHV = phv
	p.exec.Dirty = 0
	p.exec.RunControl(ctl)

	// The packet owns its head bytes (hosts and generators make them
	// fresh, copies get their own), so the deparser may rewrite them.
	head, length := p.codec.DeparsePass(phv, pkt.Head, pkt.Len, res.Offset, p.gress == spec.Ingress, p.view, p.exec.Dirty)
	emitted := len(head) - max(0, len(pkt.Head)-res.Offset)
	m := &p.fixed
	if !m.ok || m.states != res.States || m.bytes != res.Bytes || m.emitted != emitted {
		L := c.Latency
		parser := L.ParserBase + L.ParserPerState*res.States + ceilDiv(res.Bytes, L.ParserWindowBytes)
		deparser := L.DeparserBase + ceilDiv(emitted, L.DeparserBytesPerCycle)
		*m = fixedMemo{states: res.States, bytes: res.Bytes, emitted: emitted, ok: true,
			ps: int64(float64(int64(parser+p.place.MAUCycles[p.gress]+deparser))*cyc + 0.5)} // c.CyclesToPs
	}
	outPs := issuePs + m.ps
	if p.threadStats {
		p.Stats.Latency.Add(outPs - nowPs)
		p.Stats.WaitPs.Add(issuePs - nowPs)
	}
	pkt.Head, pkt.Len = head, length

	mirrored := false
	if phv[p.std(programs.StdMirror)] != 0 {
		mirrored = p.sw.tm.MirrorCopy(pkt, int(phv[p.std(programs.StdMirrorSession)]), outPs, p.gress == spec.Egress)
	}
	if phv[p.std(programs.StdDrop)] != 0 {
		p.Stats.ProgramDrops++
		p.paced(pkt, 0)
		if mirrored {
			p.sw.Replicated++ // the packet lives on as its mirror copy (e.g. a trimmed header)
			p.sw.recycle(pkt)
		} else {
			p.sw.dropped(pkt, p.dropReason)
		}
		return
	}
	if p.gress == spec.Ingress {
		pkt.IngressInPs, pkt.IngressOutPs = nowPs, outPs
		pkt.OutPort = int(phv[p.std(programs.StdEgressPort)])
		pkt.Qid = int(phv[p.std(programs.StdQid)])
		pkt.DeflectOnDrop = phv[p.std(programs.StdDeflectOnDrop)] != 0
		pkt.McastGrp = int(phv[p.std(programs.StdMcastGrp)])
		pkt.Recirculate = phv[p.std(programs.StdRecirculate)] != 0
		pkt.BypassEgress = phv[p.std(programs.StdBypassEgress)] != 0
		pkt.TrimDisable = phv[p.std(programs.StdTrimDisable)] != 0
		packet.Schedule(p.engine, p.next, outPs, packet.KindArrive, pkt, 0)
		return
	}
	pkt.EgressInPs, pkt.EgressOutPs = nowPs, outPs
	p.paced(pkt, pkt.Len)
	packet.Schedule(p.engine, p.next, outPs, packet.KindArrive, pkt, pkt.OutPort)
}

// paced reports to the traffic manager the length an egress pass let a
// packet leave with (0: dropped) when it differs from the length the
// port's transmitter was paced by.
func (p *PipeThread) paced(pkt *packet.Packet, length int) {
	if p.gress != spec.Egress || pkt.PacedLen == 0 {
		return
	}
	if pkt.PacedLen != length {
		p.sw.tm.EgressSized(pkt.OutPort, pkt.PacedLen, length)
	}
	pkt.PacedLen = 0
}

func newPipeThread(sw *Switch, gress spec.Gress, pipe int, state *programs.State, rng *rand.Rand, arbSeed int64) *PipeThread {
	name := sim.BuildNameWithIndex(sw.name, "Pipe", pipe) + "." + map[spec.Gress]string{spec.Ingress: "Ingress", spec.Egress: "Egress"}[gress]
	p := &PipeThread{
		ComponentBase: sim.NewComponentBase(name),
		engine:        sw.engine, cfg: sw.cfg, prog: sw.prog, place: sw.place,
		gress: gress, pipe: pipe, state: state, sw: sw,
		phv:          make([]int64, len(sw.prog.Fields)),
		rejectReason: gress.String() + " parser reject",
		dropReason:   gress.String() + " program drop",
	}
	p.codec = sw.codec
	p.view = sw.codec.NewPassView()
	p.cyclePs = sw.cfg.CyclePs()
	p.slotPs = max(1, sw.cfg.CyclesToPs(1)/int64(sw.cfg.PacketsPerCycle))
	for id := range p.slots {
		if f := sw.prog.Std[id]; f != nil {
			p.slots[id] = f.Slot
		}
	}
	p.exec = programs.NewExec(state, rng)
	p.exec.Gress = gress.String()
	// Metadata no code reads is not computed (ndp.p4's unused flow
	// hash): a compiler's dead-code elimination, no change to any result.
	p.exec.ElideDeadStores = true
	if gress == spec.Ingress {
		p.arb = packet.NewArbiter(sw.engine, p, sw.cfg.ArbitrationPolicy(), arbSeed)
		p.flushFn = func(h packet.Held) { p.ingress(h.Pkt, h.Port, p.arb.AtPs()) }
	}
	if gress == spec.Ingress && sw.cfg.Features.IngressQueueVisibility {
		// Tofino 2 ghost thread: ingress reads the current depth of the
		// queue its packet is heading for.
		egress := sw.prog.Std[programs.StdEgressPort].Slot
		p.exec.DynSlot = sw.prog.Std[programs.StdEnqQdepth].Slot
		p.exec.Dyn = func() int64 { return sw.tm.DepthCells(int(p.phv[egress])) }
	}
	return p
}

// ceilDiv is a/b rounded up (0 when b <= 0): whole cycles for a number of
// bytes at a rate per cycle.
func ceilDiv(a, b int) int {
	if b <= 0 {
		return 0
	}
	return (a + b - 1) / b
}
