// Package ideal models the reference the trimming paper compares Tofino
// with: an ideal output-queued NDP switch (htsim's CompositeQueue on every
// port). Each output port has a data queue and a header queue served with
// strict priority; when a data packet finds the data queue full, the switch
// trims either the arriving packet or the most recently queued one (each
// with probability 1/2) to a header in the header queue.
//
// With Config.PIE set (chip config ideal.queue.discipline: pie) every port
// is instead a FIFO with a byte limit whose early drops a PIE controller
// (RFC 8033, components/aqm/pie) decides: the reference PIE of the
// PIE-on-Tofino paper's ns-3 rows (pie.go).
package ideal

import (
	"fmt"
	"math/rand"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/components/link"
	"archsim/components/packet"
)

// Config holds the ideal switch's parameters.
type Config struct {
	Ports        int
	PortGbps     float64
	DataQueueB   int64 // data queue limit in bytes (htsim: q x MSS)
	HeaderQueueB int64 // header queue limit in bytes (htsim: 2 x data)
	HeaderBytes  int   // size of a trimmed header
	LatencyPs    int64 // fixed forwarding latency (htsim switch_latency: 0)
	IsHeader     func(pkt *packet.Packet) bool
	Trim         func(pkt *packet.Packet) // turn a data packet into its header
	PortOfPacket func(pkt *packet.Packet) int
	Seed         int64
	// PIE, if set, makes every port a PIE queue (IsHeader and Trim are
	// then unused).
	PIE *PIEConfig
	// Framing is the ports' links' (the zero value: Ethernet).
	Framing packet.Framing
}

// Event kinds of the switch's own wake-ups.
const (
	evForwarded = packet.KindLocal + iota // the forwarding latency has passed: the packet reaches its output queue
	evDequeue                             // a port's transmitter is free (Port: the port)
)

// Switch is the ideal trimming switch.
type Switch struct {
	*sim.ComponentBase
	engine sim.Engine
	cfg    Config
	rng    *rand.Rand
	ports  []*port
	out    []link.End
	drop   func(*packet.Packet, string)
	tap    arch.WireTap // packet captures (nil: none)

	Trims      int
	HeaderDrop int
	Delivered  int
	drops      arch.DropCounter
	pieHook    PIEUpdateHook
	deadline   int64 // 0: none (PIE timers stop after it)
	arch.NoControl
}

type port struct {
	gbps           float64 // 0: the switch's rate
	data, hdr      []*packet.Packet
	dataB, hdrB    int64
	busyUntil      int64
	ser            packet.SerialMemo
	pending        bool
	MaxDataPackets int
	MaxHdrPackets  int
	pq             *pieQueue // the PIE queue (discipline pie), from the port's first packet
}

// Builder builds the ideal switch (Akita style).
type Builder struct {
	engine sim.Engine
	cfg    Config
}

// MakeBuilder returns a builder with no inputs set.
func MakeBuilder() Builder { return Builder{} }

// WithEngine sets the Akita engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the ports, queues and packet-format hooks.
func (b Builder) WithConfig(c Config) Builder { b.cfg = c; return b }

// Build constructs the switch.
func (b Builder) Build(name string) *Switch {
	c := b.cfg
	if b.engine == nil || c.Ports < 1 || c.PortOfPacket == nil || (c.PIE == nil && (c.IsHeader == nil || c.Trim == nil)) {
		panic("ideal.Builder: engine, ports and packet-format hooks are required")
	}
	if c.PIE != nil {
		p := c.PIE.Params
		p.QueueLimitPs = c.PIE.LimitPs
		if err := p.Validate(); err != nil {
			panic("ideal.Builder: " + err.Error())
		}
	}
	return newSwitch(name, b.engine, c)
}

func newSwitch(name string, engine sim.Engine, cfg Config) *Switch {
	s := &Switch{ComponentBase: sim.NewComponentBase(name), engine: engine, cfg: cfg,
		rng: rand.New(rand.NewSource(cfg.Seed)), ports: make([]*port, cfg.Ports), out: make([]link.End, cfg.Ports)}
	for i := range s.ports {
		s.ports[i] = &port{ser: packet.SerialMemo{Framing: cfg.Framing}}
	}
	return s
}

// NotifyRecv is unused (see packet.Event).
func (s *Switch) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (s *Switch) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// IngressHandler returns where hosts send packets.
func (s *Switch) IngressHandler(int) sim.Handler { return s }

// Attach connects an output port to its link.
func (s *Switch) Attach(p int, to link.End) { s.out[p] = to }

// OnDrop sets a hook called for every packet the switch drops.
func (s *Switch) OnDrop(f func(*packet.Packet, string)) { s.drop = f }

// TapWire sees every frame leaving a port (arch.Tappable).
func (s *Switch) TapWire(f arch.WireTap) { s.tap = f }

// FrontPorts are the ports 0..ports-1 (one per host).
func (s *Switch) FrontPorts() []int {
	out := make([]int, len(s.ports))
	for i := range out {
		out[i] = i
	}
	return out
}

// IngressGbps is a port's rate.
func (s *Switch) IngressGbps(port int) (float64, error) { return s.portGbps(port), nil }

func (s *Switch) portGbps(port int) float64 {
	if port >= 0 && port < len(s.ports) && s.ports[port].gbps > 0 {
		return s.ports[port].gbps
	}
	return s.cfg.PortGbps
}

// SetPortGbps sets a port's speed.
func (s *Switch) SetPortGbps(port int, gbps float64) error {
	if port < 0 || port >= len(s.ports) || !(gbps > 0 && gbps <= 3200) {
		return fmt.Errorf("%s: port %d at %g Gb/s: want a port 0..%d and a rate in (0, 3200]", s.Name(), port, gbps, len(s.ports)-1)
	}
	s.ports[port].gbps = gbps
	return nil
}

// SetDeadline ends the run: the ideal switch drains its queues, takes no
// packet that arrives after it (it stays in flight) and stops PIE's
// update timers.
func (s *Switch) SetDeadline(ps int64) { s.deadline = ps }

// Counters are the switch's deliveries, drops and trims.
func (s *Switch) Counters() arch.Counters {
	return arch.Counters{Delivered: s.Delivered, Drops: s.drops.Sorted(), QueueTrims: s.Trims}
}

// MaxDataQueue is the longest data queue seen on any port, in packets.
func (s *Switch) MaxDataQueue() int {
	m := 0
	for _, p := range s.ports {
		m = max(m, p.MaxDataPackets)
	}
	return m
}

// Handle receives packets from hosts and serves the ports.
func (s *Switch) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := ev.AtPs()
	switch ev.Kind {
	case packet.KindArrive:
		if s.cfg.LatencyPs > 0 {
			// The forwarding latency passes before the packet reaches its
			// output queue.
			packet.Schedule(s.engine, s, now+s.cfg.LatencyPs, evForwarded, ev.Pkt, 0)
			return nil
		}
		s.arrive(ev.Pkt, now)
	case evForwarded:
		s.arrive(ev.Pkt, now)
	case evDequeue:
		if s.cfg.PIE != nil {
			s.servePIE(ev.Port, now)
		} else {
			s.serve(ev.Port, now)
		}
	case evPIEUpdate:
		s.updatePIE(ev.Port, now)
	}
	return nil
}

func (s *Switch) arrive(pkt *packet.Packet, now int64) {
	if s.deadline > 0 && now > s.deadline {
		// The run is over (hosts' NICs may still be draining what they
		// queued before it): the packet stays in flight, as on Tofino and
		// Trio, instead of being queued or trimmed after the end.
		s.drops.Add("still in flight at the end of the run")
		return
	}
	pi := s.cfg.PortOfPacket(pkt)
	if pi < 0 || pi >= len(s.ports) {
		s.dropped(pkt, "ideal switch: no route")
		return
	}
	if s.cfg.PIE != nil {
		s.arrivePIE(pi, pkt, now)
		return
	}
	p := s.ports[pi]
	if s.cfg.IsHeader(pkt) {
		s.enqueueHeader(p, pkt)
	} else if p.dataB+int64(pkt.Len) <= s.cfg.DataQueueB {
		p.data = append(p.data, pkt)
		p.dataB += int64(pkt.Len)
		p.MaxDataPackets = max(p.MaxDataPackets, len(p.data))
	} else if s.rng.Float64() < 0.5 && len(p.data) > 0 {
		// Trim the most recently queued packet and admit the arrival.
		last := p.data[len(p.data)-1]
		p.data = p.data[:len(p.data)-1]
		p.dataB -= int64(last.Len)
		s.trim(p, last)
		p.data = append(p.data, pkt)
		p.dataB += int64(pkt.Len)
	} else {
		s.trim(p, pkt)
	}
	s.kick(p, pi, now)
}

// kick starts a port's transmitter for the packet just queued: at once
// when it is idle (htsim's CompositeQueue begins service on the arrival),
// otherwise when its frame on the wire ends, unless that wake-up is
// already due.
func (s *Switch) kick(p *port, pi int, now int64) {
	if p.pending {
		return
	}
	if now >= p.busyUntil {
		if s.cfg.PIE != nil {
			s.servePIE(pi, now)
		} else {
			s.send(p, pi, now)
		}
		return
	}
	p.pending = true
	packet.Schedule(s.engine, s, p.busyUntil, evDequeue, nil, pi)
}

// next wakes the port's transmitter when its frame ends if a packet waits
// (htsim: completeService begins the next service if the queue is not
// empty); an empty port sleeps until an arrival kicks it.
func (s *Switch) next(p *port, pi int) {
	p.pending = len(p.hdr) > 0 || len(p.data) > 0
	if p.pending {
		packet.Schedule(s.engine, s, p.busyUntil, evDequeue, nil, pi)
	}
}

func (s *Switch) trim(p *port, pkt *packet.Packet) {
	s.Trims++
	s.cfg.Trim(pkt)
	s.enqueueHeader(p, pkt)
}

func (s *Switch) enqueueHeader(p *port, pkt *packet.Packet) {
	if p.hdrB+int64(pkt.Len) > s.cfg.HeaderQueueB {
		s.HeaderDrop++
		s.dropped(pkt, "ideal switch: header queue full")
		return
	}
	p.hdr = append(p.hdr, pkt)
	p.hdrB += int64(pkt.Len)
	p.MaxHdrPackets = max(p.MaxHdrPackets, len(p.hdr))
}

func (s *Switch) dropped(pkt *packet.Packet, reason string) {
	s.drops.Add(reason)
	if s.drop != nil {
		s.drop(pkt, reason)
	}
}

// serve transmits the next packet of a port: headers first.
func (s *Switch) serve(pi int, now int64) { s.send(s.ports[pi], pi, now) }

func (s *Switch) send(p *port, pi int, now int64) {
	var pkt *packet.Packet
	switch {
	case len(p.hdr) > 0:
		pkt = p.hdr[0]
		p.hdr[0] = nil
		p.hdr = p.hdr[1:]
		p.hdrB -= int64(pkt.Len)
	case len(p.data) > 0:
		pkt = p.data[0]
		p.data[0] = nil
		p.data = p.data[1:]
		p.dataB -= int64(pkt.Len)
	default:
		p.pending = false
		return
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
