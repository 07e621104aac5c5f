// Package tofino is the timing model of a Tofino-family switch and its
// seam to the rest of archsim. A Builder assembles, from a chip description
// (arch/tofino/spec) and a program the compiler placed
// (arch/tofino/compiler), per pipe an ingress and an egress thread (parser,
// the placed MAU stages, deparser: pipe.go) sharing the pipe's stateful
// memory, one traffic manager (arch/tofino/tm) and the MACs. Chip and Target
// (chip.go) implement arch.Chip and arch.Target; Report (report.go,
// render.go) is the main job's output.
package tofino

import (
	"fmt"
	"math/rand"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/arch/tofino/compiler"
	"archsim/arch/tofino/pktgen"
	"archsim/arch/tofino/spec"
	"archsim/arch/tofino/tm"
	"archsim/components/link"
	"archsim/components/packet"
	"archsim/components/pfc"
	"archsim/components/stats"
	"archsim/programs"
)

// Switch is a Tofino-family switch assembled from a chip config and a placed
// program: per pipe an ingress and an egress thread sharing that pipe's
// stateful memory (no coherency between pipes), one traffic manager, and
// the ports.
type Switch struct {
	engine sim.Engine
	cfg    *Config
	prog   *programs.Program
	codec  *programs.Codec
	place  *compiler.Placement
	pipes  []*pipeUnits
	tm     *tm.TrafficManager
	ports  *Ports
	// framing is what the ports' links send per frame besides the frame.
	framing packet.Framing

	drops     arch.DropCounter
	Delivered int
	// Copies counts packets the switch created (mirror and multicast
	// copies); Replicated counts packets that ended as their copies
	// (multicast, or mirrored and then dropped, as a trimmed header is). Every packet (offered or created) ends exactly once:
	// offered + Copies = Delivered + dropped + Replicated.
	Copies     int
	Replicated int

	attached map[int]link.End
	// links and portSpeed mirror attached and speeds by device port (the
	// per-packet lookups; ok / > 0: set).
	links     []attachedLink
	portSpeed []float64
	dropHook  func(*packet.Packet, string)
	pool      packet.Pool  // the run's packet pool (nil: none)
	tap       arch.WireTap // packet captures (nil: none)
	// deadlinePs ends the run: packets still circulating (recirculation
	// loops) after it are counted, not processed, so every run terminates.
	deadlinePs int64
	E2E        stats.Samples
	name       string
	signal     *dodSignal      // the program's deflect-on-drop signal (nil: none)
	speeds     map[int]float64 // front-panel ports a network set to another speed
	pfc        *pfc.Receiver   // the MACs' PFC state (mac.go)
	// egressFixedPs is the egress pipeline's latency without the parts
	// that depend on the packet (the traffic manager's credit from the MAC).
	egressFixedPs int64
	*arch.StateControl
}

type attachedLink struct {
	end link.End
	ok  bool
}

type pipeUnits struct {
	state   *programs.State
	ingress *PipeThread
	egress  *PipeThread
	pktgen  *pktgen.Generator
}

// Builder assembles a Switch (Akita builder style: value receiver, WithX).
type Builder struct {
	engine sim.Engine
	cfg    *Config
	place  *compiler.Placement
	seed   int64
	stats  bool
	frame  packet.Framing
}

// MakeBuilder returns a builder whose chip defaults to the one the
// program was placed for (WithConfig overrides it).
func MakeBuilder() Builder { return Builder{} }

// WithEngine sets the Akita engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the chip config.
func (b Builder) WithConfig(c *Config) Builder { b.cfg = c; return b }

// WithPlacement sets the placed program.
func (b Builder) WithPlacement(p *compiler.Placement) Builder { b.place = p; return b }

// WithSeed sets the seed of the switch's random number generators.
func (b Builder) WithSeed(s int64) Builder { b.seed = s; return b }

// WithThreadStats makes the pipeline threads record each pass's latency
// and wait for issue (ThreadStats.Latency, WaitPs; arch.BuildSpec).
func (b Builder) WithThreadStats(on bool) Builder { b.stats = on; return b }

// WithFraming sets what the ports' links (and the recirculation ports)
// send per frame besides the frame; the default is Ethernet's.
func (b Builder) WithFraming(f packet.Framing) Builder { b.frame = f; return b }

// Build constructs the switch.
func (b Builder) Build(name string) *Switch {
	if b.engine == nil || b.place == nil {
		panic("tofino.Builder: engine and placement are required")
	}
	if b.cfg == nil {
		b.cfg = b.place.Chip
	}
	sw := &Switch{engine: b.engine, cfg: b.cfg, prog: b.place.Prog, codec: b.place.Prog.Codec(), place: b.place, name: name, framing: b.frame}
	// A dequeued frame reaches its MAC no sooner than the egress pipeline's
	// fixed latency (parser and deparser bases, the placed MAU stages).
	L := b.cfg.Latency
	sw.egressFixedPs = b.cfg.CyclesToPs(int64(L.ParserBase + b.place.MAUCycles[spec.Egress] + L.DeparserBase))
	sw.ports = &Ports{ComponentBase: sim.NewComponentBase(name + ".Ports"), sw: sw,
		busyUntil: make([]int64, sw.cfg.Pipes*sw.cfg.DevPortPipeStride)}
	c := b.cfg
	var ports []tm.Port
	var recirc []int
	for pipe := 0; pipe < c.Pipes; pipe++ {
		for local := 0; local < c.FrontPortsPerPipe; local++ {
			ports = append(ports, tm.Port{Dev: c.DevPort(pipe, local), Gbps: c.PortGbps, Framing: b.frame})
		}
		ports = append(ports, tm.Port{Dev: c.RecircPort(pipe), Gbps: c.RecircGbps, Framing: b.frame})
		recirc = append(recirc, c.RecircPort(pipe))
	}
	sw.tm = tm.MakeBuilder().WithEngine(b.engine).WithConfig(c.TM).WithProgram(sw.prog).
		WithPorts(ports, c.PipeOf, recirc).
		WithEgress(func(pipe int) sim.Handler { return sw.pipes[pipe].egress }, sw.ports).
		WithLedger(ledger{sw}).
		WithArbitration(c.ArbitrationPolicy(), b.seed*1000003+1<<21).
		WithMACBusy(func(port int) int64 { return sw.ports.busyUntil[port] - sw.egressFixedPs }).
		Build(name + ".TM")
	for pipe := 0; pipe < b.cfg.Pipes; pipe++ {
		st := programs.NewState(sw.prog)
		u := &pipeUnits{state: st}
		// One random generator per thread, seeded from the run seed.
		u.ingress = newPipeThread(sw, spec.Ingress, pipe, st, rand.New(rand.NewSource(b.seed*1000003+int64(2*pipe))), b.seed*1000003+int64(1<<20+pipe))
		u.egress = newPipeThread(sw, spec.Egress, pipe, st, rand.New(rand.NewSource(b.seed*1000003+int64(2*pipe+1))), 0)
		u.ingress.threadStats, u.egress.threadStats = b.stats, b.stats
		u.ingress.next = sw.tm
		u.egress.next = sw.ports
		u.pktgen = pktgen.New(sim.BuildNameWithIndex(name, "Pipe", pipe)+".PktGen", b.engine, c, pipe, u.ingress, sw.ports)
		sw.pipes = append(sw.pipes, u)
	}
	if sig := sw.prog.TM.OnDrop.Signal; sig.LatencyNs > 0 {
		sw.signal = newDoDSignal(sw, sig)
		if sig.AtDeflect {
			sw.tm.OnDoDEnqueue(sw.signal.raise)
		} else {
			sw.tm.OnDoDDequeue(sw.signal.raise)
		}
	}
	sw.StateControl = &arch.StateControl{Prog: sw.prog}
	for _, u := range sw.pipes {
		sw.StateControl.States = append(sw.StateControl.States, u.state)
	}
	return sw
}

func (sw *Switch) dropped(pkt *packet.Packet, reason string) {
	sw.count(reason)
	if sw.dropHook != nil {
		sw.dropHook(pkt, reason)
	}
	sw.recycle(pkt)
}

// recycle hands a packet that ended in the switch to the run's pool (if
// it shares one).
func (sw *Switch) recycle(pkt *packet.Packet) {
	if sw.pool != nil {
		sw.pool.Put(pkt)
	}
}

// SetPacketPool makes the switch share a run's packet pool
// (arch.PacketPooler): its copies and its packet generators' packets come
// from it, and the packets it drops or replaces by their mirror copy go
// back to it.
func (sw *Switch) SetPacketPool(p packet.Pool) {
	sw.pool = p
	sw.tm.SetPacketPool(p)
	for _, u := range sw.pipes {
		if u.pktgen != nil {
			u.pktgen.SetPool(p)
		}
	}
}

// expired counts a packet still in the switch at the end of the run (not a
// drop: it is in flight).
func (sw *Switch) expired(pkt *packet.Packet) { sw.count("still in flight at the end of the run") }

// count adds one to a drop reason's counter.
func (sw *Switch) count(reason string) { sw.drops.Add(reason) }

// ledger is the switch's packet accounting as the traffic manager keeps it.
type ledger struct{ sw *Switch }

func (l ledger) Dropped(pkt *packet.Packet, reason string) { l.sw.dropped(pkt, reason) }
func (l ledger) Copied()                                   { l.sw.Copies++ }
func (l ledger) Replicated()                               { l.sw.Replicated++ }

// IngressHandler returns the component a host on port sends into.
func (sw *Switch) IngressHandler(port int) sim.Handler {
	return sw.pipes[sw.cfg.PipeOf(port)].ingress
}

// Attach connects a front-panel port to its link: packets leaving the port
// arrive at the far end.
func (sw *Switch) Attach(port int, to link.End) {
	if sw.attached == nil {
		sw.attached = map[int]link.End{}
	}
	sw.attached[port] = to
	if n := sw.cfg.Pipes * sw.cfg.DevPortPipeStride; port >= 0 && port < n {
		if sw.links == nil {
			sw.links = make([]attachedLink, n)
		}
		sw.links[port] = attachedLink{to, true}
	}
}

// OnDrop sets a hook called for every packet the switch drops.
func (sw *Switch) OnDrop(f func(*packet.Packet, string)) { sw.dropHook = f }

// SetDeadline ends the run at ps: packets still in the switch after it are
// counted as in flight.
func (sw *Switch) SetDeadline(ps int64) {
	sw.deadlinePs = ps
	sw.tm.SetDeadline(ps)
	for _, u := range sw.pipes {
		u.pktgen.SetDeadline(ps)
	}
}

// PktGen is a pipe's packet generator (nil for a pipe the chip lacks).
func (sw *Switch) PktGen(pipe int) *pktgen.Generator {
	if pipe < 0 || pipe >= len(sw.pipes) {
		return nil
	}
	return sw.pipes[pipe].pktgen
}

// ConfigurePktGen installs packet-generator applications, each in the
// generator of its port's pipe, checked against tofino.pktgen's limits.
func (sw *Switch) ConfigurePktGen(apps []*programs.PktgenApp) error {
	byPipe := make([][]*programs.PktgenApp, len(sw.pipes))
	for _, a := range apps {
		if !sw.cfg.IsPktgenPort(a.Port) {
			c := sw.cfg.Pktgen
			return fmt.Errorf("%s: pktgen %s: port %d is not a packet-generator port (pipe*%d + %d..%d, pipes 0..%d)", a.Pos, a.Name, a.Port,
				sw.cfg.DevPortPipeStride, c.FirstLocalPort, c.LastLocalPort, sw.cfg.Pipes-1)
		}
		pipe := sw.cfg.PipeOf(a.Port)
		byPipe[pipe] = append(byPipe[pipe], a)
	}
	for pipe, as := range byPipe {
		if err := sw.pipes[pipe].pktgen.Configure(as); err != nil {
			return err
		}
	}
	return nil
}

// EnablePktGen enables a configured application at atPs; its timer fires
// no trigger after untilPs (< 0: until the deadline).
func (sw *Switch) EnablePktGen(app string, atPs, untilPs int64) error {
	for _, u := range sw.pipes {
		if u.pktgen.App(app) != nil {
			return u.pktgen.Enable(app, atPs, untilPs)
		}
	}
	return fmt.Errorf("%s: no packet-generator application %q is configured", sw.name, app)
}

// PortDown signals that a port went down at atPs: every enabled port_down
// application fires (in every pipe; assumed: the port-down mask is not
// modelled).
func (sw *Switch) PortDown(port int, atPs int64) error {
	if port < 0 || sw.cfg.PipeOf(port) >= sw.cfg.Pipes {
		return fmt.Errorf("%s: port %d does not exist", sw.name, port)
	}
	for _, u := range sw.pipes {
		u.pktgen.PortDown(port, atPs)
	}
	return nil
}

// PktGenerated is the number of packets the packet generators made.
func (sw *Switch) PktGenerated() int {
	n := 0
	for _, u := range sw.pipes {
		n += u.pktgen.Generated()
	}
	return n
}

// TM returns the traffic manager (statistics, and a control plane's
// buffer, queue and trimming setup).
func (sw *Switch) TM() *tm.TrafficManager { return sw.tm }

// DoDSignals is how many deflect-on-drop signals (the program's
// tm.on_drop.signal) were raised and how many reached the pipes before the
// end of the run (0, 0 without a signal).
func (sw *Switch) DoDSignals() (raised, arrived int) {
	if sw.signal == nil {
		return 0, 0
	}
	return sw.signal.Raised, sw.signal.Arrived
}

// Config is the chip the switch models.
func (sw *Switch) Config() *Config { return sw.cfg }

// Drops returns drop counts by reason, sorted by reason.
func (sw *Switch) Drops() []DropCount {
	if sw.drops.Len() == 0 {
		return nil
	}
	return sw.drops.Sorted()
}

// MaxDeflectQueue is the longest deflect-on-drop queue (the recirculation
// ports' deflect queue) seen in any pipe, in packets.
func (sw *Switch) MaxDeflectQueue() int {
	m := 0
	for pipe := 0; pipe < sw.cfg.Pipes; pipe++ {
		if q := sw.tm.Queue(sw.cfg.RecircPort(pipe), sw.prog.TM.OnDrop.Queue); q != nil {
			m = max(m, q.MaxPackets)
		}
	}
	return m
}

// TraceRegister calls f whenever a register action runs, in any pipe (for
// experiments that plot a program's state changes, e.g. pessimistic-mode
// activations).
func (sw *Switch) TraceRegister(f func(pipe int, ra *programs.RegisterAction, index int64, nowPs int64)) {
	for i, u := range sw.pipes {
		pipe := i
		for _, th := range []*PipeThread{u.ingress, u.egress} {
			th.exec.OnRegister = func(ra *programs.RegisterAction, index int64, now int64) { f(pipe, ra, index, now) }
		}
		if sw.signal != nil {
			sw.signal.execs[i].OnRegister = func(ra *programs.RegisterAction, index int64, now int64) { f(pipe, ra, index, now) }
		}
	}
}

// Ports models the MACs: a front-panel port delivers the packet out of the
// switch; a recirculation port feeds it back into its pipe's ingress after
// serializing it.
type Ports struct {
	*sim.ComponentBase
	sw *Switch
	// busyUntil is when each device port's wire is free. The traffic
	// manager paces a port by the length a packet had when it was queued;
	// egress may grow or shrink it, so the MAC serializes frames back to
	// back at line rate and never overlaps them.
	busyUntil []int64
}

// NotifyRecv is unused: packets arrive as scheduled events (components/packet/event.go).
func (p *Ports) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (p *Ports) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// Handle transmits a packet leaving an egress deparser.
func (p *Ports) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	sw := p.sw
	now := ev.AtPs()
	if ev.Kind == evPauseEnd {
		sw.pauseTimer(ev.Port, now)
		return nil
	}
	pkt := ev.Pkt
	pipe := sw.cfg.PipeOf(pkt.OutPort)
	start := now
	if o := pkt.OutPort; o >= 0 && o < len(p.busyUntil) {
		start = max(now, p.busyUntil[o])
	}
	if pkt.OutPort == sw.cfg.RecircPort(pipe) {
		pkt.InPort = pkt.OutPort
		pkt.Passes++
		pkt.Deflected, pkt.Mirrored, pkt.NoBridge = false, false, false
		txEnd := start + sw.framing.Ps(pkt.Len, sw.cfg.RecircGbps)
		p.busyUntil[pkt.OutPort] = txEnd
		packet.Schedule(sw.engine, sw.pipes[pipe].ingress, txEnd+int64(sw.cfg.RecircLatencyNs*1000), packet.KindArrive, pkt, pkt.InPort)
		return nil
	}
	txEnd := start + sw.framing.Ps(pkt.Len, sw.portGbps(pkt.OutPort))
	if o := pkt.OutPort; o >= 0 && o < len(p.busyUntil) {
		p.busyUntil[o] = txEnd
	}
	sw.Delivered++
	if sw.tap != nil {
		sw.tap(pkt.OutPort, pkt, start)
	}
	if a, ok := sw.link(pkt.OutPort); ok {
		a.Deliver(sw.engine, pkt, txEnd)
		return nil
	}
	sw.E2E.Add(txEnd - pkt.BornPs)
	return nil
}

// Transmit serializes a frame entering on a port (the packet generator's
// packets) on the wire the port shares with recirculation: it starts when
// ready and the wire is free, and the time its last bit is sent is
// returned.
func (p *Ports) Transmit(port int, readyPs int64, length int, gbps float64) int64 {
	start := readyPs
	if port >= 0 && port < len(p.busyUntil) {
		start = max(start, p.busyUntil[port])
	}
	end := start + p.sw.framing.Ps(length, gbps)
	if port >= 0 && port < len(p.busyUntil) {
		p.busyUntil[port] = end
	}
	return end
}

// Name is the switch's name.
func (sw *Switch) Name() string { return sw.name }

// TapWire sees every frame leaving a front-panel port (arch.Tappable).
func (sw *Switch) TapWire(f arch.WireTap) { sw.tap = f }

// FrontPorts are the front-panel ports, pipe by pipe.
func (sw *Switch) FrontPorts() []int { return frontPorts(sw.cfg) }

// frontPorts lists a chip's front-panel device ports, pipe by pipe.
func frontPorts(c *Config) []int {
	out := make([]int, 0, c.Pipes*c.FrontPortsPerPipe)
	for pipe := 0; pipe < c.Pipes; pipe++ {
		for local := 0; local < c.FrontPortsPerPipe; local++ {
			out = append(out, c.DevPort(pipe, local))
		}
	}
	return out
}

// IngressGbps is a port's rate: front-panel ports run at the port speed,
// the recirculation and packet-generator ports at the recirculation rate.
func (sw *Switch) IngressGbps(port int) (float64, error) {
	c := sw.cfg
	if !isIngressPort(c, port) {
		return 0, fmt.Errorf("port %d is not an ingress port of %s (device port = pipe*%d + local; local 0..%d front panel, %d recirculation/packet generator)",
			port, c.Name, c.DevPortPipeStride, c.FrontPortsPerPipe-1, c.RecircLocalPort)
	}
	if port%c.DevPortPipeStride >= c.FrontPortsPerPipe {
		return c.RecircGbps, nil
	}
	return sw.portGbps(port), nil
}

// portGbps is a front-panel port's speed: the chip's, unless the network
// set it.
func (sw *Switch) portGbps(port int) float64 {
	if port >= 0 && port < len(sw.portSpeed) {
		if g := sw.portSpeed[port]; g > 0 {
			return g
		}
		return sw.cfg.PortGbps
	}
	if g, ok := sw.speeds[port]; ok {
		return g
	}
	return sw.cfg.PortGbps
}

// link is the link attached to a port.
func (sw *Switch) link(port int) (link.End, bool) {
	if port >= 0 && port < len(sw.links) {
		return sw.links[port].end, sw.links[port].ok
	}
	a, ok := sw.attached[port]
	return a, ok
}

// SetPortGbps sets a front-panel port's speed: its MAC serializes and its
// traffic-manager queues drain at that rate.
func (sw *Switch) SetPortGbps(port int, gbps float64) error {
	c := sw.cfg
	if port < 0 || port%c.DevPortPipeStride >= c.FrontPortsPerPipe || c.PipeOf(port) >= c.Pipes || !(gbps > 0 && gbps <= 3200) {
		return fmt.Errorf("%s: port %d at %g Gb/s: want a front-panel port and a rate in (0, 3200]", sw.name, port, gbps)
	}
	if sw.speeds == nil {
		sw.speeds = map[int]float64{}
	}
	sw.speeds[port] = gbps
	if n := c.Pipes * c.DevPortPipeStride; port < n { // port >= 0 (checked above)
		if sw.portSpeed == nil {
			sw.portSpeed = make([]float64, n)
		}
		sw.portSpeed[port] = gbps
	}
	return sw.tm.SetPortGbps(port, gbps)
}

// Counters are the switch's observations: deliveries, drops and the
// traffic manager's trims, deflections and mirror copies.
func (sw *Switch) Counters() arch.Counters {
	st := sw.tm.Stats
	return arch.Counters{Delivered: sw.Delivered, Drops: sw.Drops(), Copies: sw.Copies, IngressMirrors: st.IngressMirrors,
		Deflected: st.Deflected, DropMirrors: st.DropMirrors, TMTrims: st.Trims, MaxDeflectQueue: sw.MaxDeflectQueue()}
}

// TraceQueue records a queue's depth after every change.
func (sw *Switch) TraceQueue(port, qid int, f func(now int64, packets int)) {
	sw.tm.TraceQueue(port, qid, f)
}

// TraceDeflectQueue records a pipe's deflect-on-drop queue depth.
func (sw *Switch) TraceDeflectQueue(pipe int, f func(now int64, packets int)) error {
	if pipe < 0 || pipe >= sw.cfg.Pipes {
		return fmt.Errorf("pipe %d, the chip has %d", pipe, sw.cfg.Pipes)
	}
	sw.tm.TraceDeflectQueue(pipe, f)
	return nil
}

// OnDeflect calls f for every packet deflected (or mirrored) on drop.
func (sw *Switch) OnDeflect(f func(now int64, pkt *packet.Packet)) { sw.tm.OnDeflect(f) }

// isIngressPort reports whether a device port can inject packets: a
// front-panel port, or the recirculation/packet-generator port of a pipe.
func isIngressPort(c *Config, dp int) bool {
	if dp < 0 {
		return false
	}
	pipe, local := dp/c.DevPortPipeStride, dp%c.DevPortPipeStride
	if pipe >= c.Pipes {
		return false
	}
	return local < c.FrontPortsPerPipe || local == c.RecircLocalPort || local == c.PktgenLocalPort
}

// ThreadSummary is what one thread kind (all pipes) measured.
type ThreadSummary struct {
	Packets       int           `json:"packets"`
	ParserDrops   int           `json:"parser_drops"`
	ProgramDrops  int           `json:"program_drops"`
	LatencyNs     stats.Summary `json:"latency_ns"`
	LatencyCycles stats.Summary `json:"latency_cycles"`
	WaitNs        stats.Summary `json:"issue_wait_ns"`
}

// DropCount is packets dropped for one reason.
type DropCount = arch.DropCount

// RunResult is a latency measurement's outcome.
type RunResult struct {
	Offered     int           `json:"offered"`
	Copies      int           `json:"copies_created"`
	Delivered   int           `json:"delivered"`
	Replicated  int           `json:"replicated"`
	Drops       []DropCount   `json:"drops"`
	Ingress     ThreadSummary `json:"ingress"`
	Egress      ThreadSummary `json:"egress"`
	EndToEndNs  stats.Summary `json:"end_to_end_ns"`
	Events      int64         `json:"events"`
	SimulatedNs float64       `json:"simulated_ns"`
	TM          tm.Stats      `json:"traffic_manager"`
}

// The Tofino switch has a packet generator.
var _ arch.PacketGenerator = (*Switch)(nil)

// SetMulticastGroup replaces a multicast group's ports (arch.Replicator).
func (sw *Switch) SetMulticastGroup(id int, ports []int) error { return sw.tm.SetGroup(id, ports) }

// QueueUse is what a queue saw during the run (arch.QueueUser).
func (sw *Switch) QueueUse(port, qid int) (arch.QueueUse, bool) {
	q := sw.tm.Queue(port, qid)
	if q == nil {
		return arch.QueueUse{}, false
	}
	return arch.QueueUse{PeakCells: q.MaxCells, PeakBytes: q.MaxCells * int64(sw.cfg.TM.CellBytes), Enqueued: int64(q.Enqueued)}, true
}

// PipePacketsPerSecond is one pipe's packet capacity: one packet issue
// slot per clock per thread (packets_per_cycle).
func (sw *Switch) PipePacketsPerSecond() float64 {
	return 1e12 / sw.cfg.CyclePs() * float64(sw.cfg.PacketsPerCycle)
}

// DisablePktGen stops a configured application from atPs on (no trigger
// fires after that), in the pipe that has it.
func (sw *Switch) DisablePktGen(app string, atPs int64) error {
	for _, u := range sw.pipes {
		if u.pktgen.App(app) != nil {
			return u.pktgen.Disable(app, max(atPs, 1))
		}
	}
	return fmt.Errorf("%s: no packet-generator application %q is configured", sw.name, app)
}
