package tofino

import (
	"archsim/components/packet"
	"archsim/components/pfc"
)

// MAC control: the front-panel ports' MACs consume IEEE 802.1Qbb PFC
// frames and pause the port's egress queues (components/pfc).
const (
	pfcEtherType = pfc.EtherType
	pfcOpcode    = pfc.Opcode
	pfcClasses   = pfc.Classes
	evPauseEnd   = packet.KindLocal // Ports: a PFC pause timer may expire
)

// PFCStats counts the PFC frames a switch's MACs received and how long
// they kept queues paused.
type PFCStats = pfc.Stats

// macReceiver is the switch's PFC receive side, wired to its traffic
// manager and to the ports' timer events.
func (sw *Switch) macReceiver() *pfc.Receiver {
	if sw.pfc == nil {
		sw.pfc = &pfc.Receiver{
			Pause: func(port, class int, paused bool, now int64) { sw.tm.Pause(port, class, paused, now) },
			Timer: func(at int64, key int) { packet.Schedule(sw.engine, sw.ports, at, evPauseEnd, nil, key) },
		}
	}
	return sw.pfc
}

// macControl consumes a PFC frame arriving on a front-panel port and
// reports whether it did.
func (sw *Switch) macControl(pkt *packet.Packet, port int, now int64) bool {
	return sw.macReceiver().Consume(pkt.Head, port, sw.portGbps(port), now)
}

// pauseTimer handles a pause timer: the pause ends if no later frame
// refreshed it.
func (sw *Switch) pauseTimer(key int, now int64) { sw.macReceiver().Expire(key, now) }

// PFCFrames reports the PFC frames the MACs consumed and the total time
// queues were paused (arch.PauseCounter).
func (sw *Switch) PFCFrames() (pauses, resumes int, pausedPs int64) {
	return sw.macReceiver().Frames()
}
