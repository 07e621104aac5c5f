package tm

import (
	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
	"archsim/programs"
)

// Config is the traffic manager's hardware (configs/tofino.yaml tofino.tm,
// sources there).
type Config struct {
	BufferBytes      int64 `mapstructure:"buffer_bytes"`
	CellBytes        int   `mapstructure:"cell_bytes"`
	QueuesPerPort    int   `mapstructure:"queues_per_port"`
	QueueLimitBytes  int64 `mapstructure:"queue_limit_bytes"`
	DWRRQuantumBytes int   `mapstructure:"dwrr_quantum_bytes"`
}

// Port is one egress port the traffic manager serves.
type Port struct {
	Dev     int            // device port id
	Gbps    float64        // line rate its queues drain at
	Framing packet.Framing // what its link sends per frame besides the frame (zero: Ethernet)
}

// Ledger is the switch's packet accounting: every packet (offered or
// created) ends exactly once, as delivered, dropped or replicated.
type Ledger interface {
	Dropped(pkt *packet.Packet, reason string)
	Copied()     // the traffic manager made a copy (mirror, multicast, trim)
	Replicated() // a packet lives on only as its copies
}

// NoPort is the egress port of a packet ingress gave no unicast
// destination (the last device id of the last pipe, never a real port:
// local ports stop well below the pipe stride).
const NoPort = 511

// Event kinds of the traffic manager's own wake-ups.
const (
	evMirror  = packet.KindLocal + iota // a mirror copy reaches the queues
	evDequeue                           // a port's transmitter is free
)

// Builder builds a traffic manager (Akita style: value receiver, WithX,
// Build(name)).
type Builder struct {
	engine  sim.Engine
	cfg     Config
	prog    *programs.Program
	ports   []Port
	recirc  []int
	pipeOf  func(dev int) int
	egress  func(pipe int) sim.Handler
	mac     sim.Handler
	macBusy func(port int) int64
	ledger  Ledger

	arbitration packet.Arbitration
	arbSeed     int64
}

// MakeBuilder returns a builder with no inputs set.
func MakeBuilder() Builder { return Builder{} }

// WithEngine sets the Akita engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the buffer and queue parameters.
func (b Builder) WithConfig(c Config) Builder { b.cfg = c; return b }

// WithProgram sets the program whose tm section (queues, deflect-on-drop),
// mirror sessions and multicast groups the traffic manager follows.
func (b Builder) WithProgram(p *programs.Program) Builder { b.prog = p; return b }

// WithPorts sets the egress ports, the pipe of any device port, and per
// pipe its recirculation port (where deflected and recirculated packets
// go).
func (b Builder) WithPorts(ports []Port, pipeOf func(dev int) int, recircPerPipe []int) Builder {
	b.ports, b.pipeOf, b.recirc = ports, pipeOf, recircPerPipe
	return b
}

// WithEgress sets where a dequeued packet goes: its pipe's egress thread,
// or straight to the MACs when it bypasses egress.
func (b Builder) WithEgress(egress func(pipe int) sim.Handler, mac sim.Handler) Builder {
	b.egress, b.mac = egress, mac
	return b
}

// WithMACBusy gives the traffic manager the MACs' transmit state: when a
// port's MAC is still busy (egress grew the frames it sends), the port
// dequeues no more than a frame ahead of it, so the backlog stays in the
// queues (and their limits, marks and drops apply), as a MAC's credits to
// the traffic manager keep it.
func (b Builder) WithMACBusy(f func(port int) int64) Builder { b.macBusy = f; return b }

// WithArbitration sets how simultaneous arrivals at a port's queues are
// ordered, and the seed of ArbitrateRandom's generator (the default:
// random with seed 0).
func (b Builder) WithArbitration(policy packet.Arbitration, seed int64) Builder {
	b.arbitration, b.arbSeed = policy, seed
	return b
}

// WithLedger sets the switch's packet accounting.
func (b Builder) WithLedger(l Ledger) Builder { b.ledger = l; return b }

// Build constructs the traffic manager.
func (b Builder) Build(name string) *TrafficManager {
	if b.engine == nil || b.prog == nil || b.egress == nil || b.mac == nil || b.ledger == nil || len(b.ports) == 0 || b.pipeOf == nil {
		panic("tm.Builder: engine, program, ports, egress and ledger are required")
	}
	t := &TrafficManager{ComponentBase: sim.NewComponentBase(name), engine: b.engine, cfg: b.cfg, prog: b.prog, ledger: b.ledger,
		egress: b.egress, mac: b.mac, macBusy: b.macBusy, recirc: b.recirc, pipeOf: b.pipeOf,
		mirrors: map[int]*programs.MirrorSession{}, groups: map[int]*programs.MulticastGroup{}, onDrop: b.prog.TM.OnDrop,
		bridgeBytes: (b.prog.BridgeBits + 7) / 8}
	t.totalCells = b.cfg.BufferBytes / int64(b.cfg.CellBytes)
	t.arb = packet.NewArbiter(b.engine, t, b.arbitration, b.arbSeed)
	t.flushFn = func(h packet.Held) {
		if h.Kind == evMirror {
			t.enqueue(h.Pkt, h.Pkt.OutPort, h.Pkt.Qid, t.arb.AtPs())
			return
		}
		t.arrive(h.Pkt, t.arb.AtPs())
	}
	for _, m := range b.prog.Mirrors {
		t.mirrors[m.ID] = m
	}
	for _, g := range b.prog.Multicast {
		t.groups[g.ID] = g
	}
	n := 0
	for _, p := range b.ports {
		n = max(n, p.Dev+1)
	}
	t.ports = make([]*port, n)
	for _, p := range b.ports {
		t.ports[p.Dev] = t.newPort(p.Dev, p.Gbps)
		t.ports[p.Dev].ser.Framing = p.Framing
	}
	return t
}

// SetDeadline ends the run at ps: transmitters stop, what is queued stays
// (in flight).
func (t *TrafficManager) SetDeadline(ps int64) { t.deadlinePs = ps }

// recircOf is the recirculation port of the pipe a port belongs to.
func (t *TrafficManager) recircOf(dev int) int { return t.recirc[t.pipeOf(dev)] }
