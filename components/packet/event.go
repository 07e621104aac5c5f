package packet

import (
	"math"

	"github.com/sarchlab/akita/v3/sim"
)

// Kind tells the receiving component what an Event carries. KindArrive
// is the one kind every component understands: a packet arrives (every
// hand-off between blocks). A component's own wake-ups (a transmitter is
// free, a timer fires) are kinds it defines itself, numbered from
// KindLocal; they mean nothing to any other component.
type Kind uint8

const (
	KindArrive    Kind = iota // a packet arrives at the receiving component
	KindArbitrate             // the receiver's Arbiter flushes a tie (Arbiter.Flush)
	KindLocal                 // the first kind a component may define for itself
)

// Event is a packet (or a wake-up) reaching a component at a time.
// Components in archsim hand packets to each other by scheduling an Event on
// the receiver at the moment the packet arrives there: every path is a
// fixed-latency non-blocking pipeline, a link, or a queue the receiver owns,
// so Akita ports and connections (two extra events per message, ~380 ns per
// event measured here) would add cost without modelled behaviour.
type Event struct {
	T    sim.VTimeInSec
	Ps   int64 // T in picoseconds, as scheduled (0 if the event was built without it)
	H    sim.Handler
	Kind Kind
	Pkt  *Packet
	Port int
}

// AtPs is the event's time in picoseconds: Ps as Schedule set it, or T
// converted for an event built by hand.
func (e *Event) AtPs() int64 {
	if e.Ps != 0 || e.T == 0 {
		return e.Ps
	}
	return SecToPs(e.T)
}

// Time returns when the event happens.
func (e *Event) Time() sim.VTimeInSec { return e.T }

// Handler returns the receiving component.
func (e *Event) Handler() sim.Handler { return e.H }

// IsSecondary is false: packet events are primary.
func (e *Event) IsSecondary() bool { return false }

// PsToSec converts integer picoseconds (archsim's clock) to Akita time.
func PsToSec(ps int64) sim.VTimeInSec { return sim.VTimeInSec(float64(ps) * 1e-12) }

// SecToPs converts Akita time to picoseconds.
func SecToPs(t sim.VTimeInSec) int64 { return int64(math.Round(float64(t) * 1e12)) }

// Scheduler is an engine that schedules packet events itself (archsim's
// engine.Serial, which recycles them instead of allocating one per
// hand-off).
type Scheduler interface {
	SchedulePacket(ps int64, h sim.Handler, kind Kind, pkt *Packet, port int)
}

// Schedule posts an event for handler h at time ps.
func Schedule(e sim.Engine, h sim.Handler, ps int64, kind Kind, pkt *Packet, port int) {
	if s, ok := e.(Scheduler); ok {
		s.SchedulePacket(ps, h, kind, pkt, port)
		return
	}
	e.Schedule(&Event{T: PsToSec(ps), Ps: ps, H: h, Kind: kind, Pkt: pkt, Port: port})
}

// SerializationPs is the time a link of gbps takes to send a frame of
// length bytes: the frame plus its 4-byte FCS and the 20 bytes of
// preamble and inter-frame gap (IEEE 802.3).
func SerializationPs(length int, gbps float64) int64 {
	return Ethernet.Ps(length, gbps)
}

// Framing is what a link sends for a frame besides the frame's own bytes.
// The zero value is Ethernet's.
type Framing uint8

const (
	// Ethernet adds the 4-byte FCS and 20 bytes of preamble and
	// inter-frame gap to every frame (IEEE 802.3): SerializationPs.
	Ethernet Framing = iota
	// Bare sends the frame's bytes only: a packet of n bytes holds the
	// link for n bytes' time, as in htsim (Broadcom/csg-htsim
	// sim/queue.h drainTime: size × ps per byte), whose packet sizes
	// already count everything on the wire.
	Bare
)

// Overhead is the bytes the link sends per frame besides the frame.
func (f Framing) Overhead() int {
	if f == Bare {
		return 0
	}
	return 24
}

// Ps is the time a link of gbps with this framing takes to send a frame
// of length bytes.
func (f Framing) Ps(length int, gbps float64) int64 {
	return int64(float64(length+f.Overhead())*8*1000/gbps + 0.5)
}

// String names the framing as scenarios spell it.
func (f Framing) String() string {
	if f == Bare {
		return "htsim"
	}
	return "ethernet"
}

// Clone copies a packet (its own head bytes) for mirroring or multicast.
func (p *Packet) Clone() *Packet {
	c := *p
	c.Head = append([]byte(nil), p.Head...)
	return &c
}

// SerialMemo remembers the last two serialization times a transmitter
// computed (a flow's data and control frames alternate), saving the float
// division per frame; the values are Framing.Ps's.
type SerialMemo struct {
	Framing Framing // the link's (the zero value: Ethernet)
	len     [2]int
	gbps    [2]float64
	ps      [2]int64
	next    int
}

// Ps is m.Framing.Ps(length, gbps).
func (m *SerialMemo) Ps(length int, gbps float64) int64 {
	for i := range m.len {
		if m.len[i] == length && m.gbps[i] == gbps && m.ps[i] != 0 {
			return m.ps[i]
		}
	}
	ps := m.Framing.Ps(length, gbps)
	i := m.next
	m.len[i], m.gbps[i], m.ps[i] = length, gbps, ps
	m.next ^= 1
	return ps
}
