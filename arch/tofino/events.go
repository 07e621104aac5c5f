package tofino

import (
	"math"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// Components here hand packets to each other by scheduling a packet event
// on the receiving component at the time the packet arrives there, instead
// of sending Akita messages through ports and connections. Every path in
// this model is a fixed-latency, non-blocking pipeline or a queue the
// receiver owns, so a port buffer would never hold back-pressure worth
// modelling, and a DirectConnection costs two extra events per message
// (measured ~380 ns per event here, ../shared/references/akita-v3.md). One
// event per packet per block keeps the model fast.
type evKind uint8

const (
	evIngressArrive evKind = iota
	evTMArrive
	evTMDequeue
	evEgressArrive
	evPortTx
)

// pktEvent is a packet (or a port wake-up) arriving at a component.
type pktEvent struct {
	t    sim.VTimeInSec
	h    sim.Handler
	kind evKind
	pkt  *packet.Packet
	port int
}

func (e *pktEvent) Time() sim.VTimeInSec { return e.t }
func (e *pktEvent) Handler() sim.Handler { return e.h }
func (e *pktEvent) IsSecondary() bool    { return false }

// psToSec converts integer picoseconds (the model's clock) to Akita time.
func psToSec(ps int64) sim.VTimeInSec { return sim.VTimeInSec(float64(ps) * 1e-12) }

// secToPs converts Akita time back to picoseconds.
func secToPs(t sim.VTimeInSec) int64 { return int64(math.Round(float64(t) * 1e12)) }

// schedule posts a packet event for handler h at time ps.
func schedule(e sim.Engine, h sim.Handler, ps int64, kind evKind, pkt *packet.Packet, port int) {
	e.Schedule(&pktEvent{t: psToSec(ps), h: h, kind: kind, pkt: pkt, port: port})
}
