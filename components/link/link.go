// Package link models the wire from a port to its peer: a frame that
// finishes leaving a port's MAC reaches the component at the far end
// after the propagation delay, as arriving on the far end's port, unless
// the link's loss process (corrupt.go) corrupts it.
package link

import (
	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// End is the far end of a port's link.
type End struct {
	To     sim.Handler // the component at the far end (a host, another switch's ingress)
	Port   int         // the port the frame arrives on there (a host: the switch port it sits on)
	PropPs int64       // one-way propagation delay
	Loss   *Corruption // frames this direction corrupts (nil: none)
}

// To is the far end of a link to h, arriving as port, after propPs.
func To(h sim.Handler, port int, propPs int64) End { return End{To: h, Port: port, PropPs: propPs} }

// WithLoss is the end with frames sent toward it corrupted by k.
func (e End) WithLoss(k *Corruption) End { e.Loss = k; return e }

// Deliver schedules a frame's arrival at the far end: it finished leaving
// the near end at txEndPs.
func (e End) Deliver(engine sim.Engine, pkt *packet.Packet, txEndPs int64) {
	if e.Loss != nil && !e.Loss.pass(pkt, txEndPs+e.PropPs) {
		return
	}
	packet.Schedule(engine, e.To, txEndPs+e.PropPs, packet.KindArrive, pkt, e.Port)
}
