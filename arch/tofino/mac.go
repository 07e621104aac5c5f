package tofino

import (
	"encoding/binary"

	"archsim/components/packet"
)

// MAC control (IEEE 802.1Qbb priority flow control). A PFC frame that
// arrives on a front-panel port is consumed by the port's MAC, never by
// the ingress pipeline: for every priority its class-enable vector names,
// the MAC pauses that priority's egress queue of the port for the frame's
// time (in quanta of 512 bit times at the port's rate), or resumes it at
// once when the time is 0. Priority i pauses queue i (assumed: the
// identity priority-to-queue map).
const (
	pfcEtherType = 0x8808 // IEEE 802.3 MAC control
	pfcOpcode    = 0x0101 // 802.1Qbb priority-based flow control
	pfcClasses   = 8
	pfcFrameLen  = 14 + 2 + 2 + 2*pfcClasses // Ethernet header, opcode, class vector, 8 times
	evPauseEnd   = packet.KindLocal          // Ports: a PFC pause timer may expire
)

// PFCStats counts the PFC frames a switch's MACs received and how long
// they kept queues paused.
type PFCStats struct {
	Pauses  int   `json:"pause_frames"`
	Resumes int   `json:"resume_frames"`
	PausePs int64 `json:"-"` // total time some queue was paused, summed over queues
}

// pauseState is one (port, queue)'s PFC pause.
type pauseState struct {
	until int64 // the pause ends then unless refreshed or resumed (0: not paused)
	since int64
}

// macControl consumes a PFC frame arriving on a front-panel port and
// reports whether it did.
func (sw *Switch) macControl(pkt *packet.Packet, port int, now int64) bool {
	h := pkt.Head
	if len(h) < pfcFrameLen || binary.BigEndian.Uint16(h[12:]) != pfcEtherType || binary.BigEndian.Uint16(h[14:]) != pfcOpcode {
		return false
	}
	vector := binary.BigEndian.Uint16(h[16:])
	quantumPs := int64(512*1000/sw.portGbps(port) + 0.5) // 512 bit times
	resumed := false
	for c := 0; c < pfcClasses; c++ {
		if vector&(1<<c) == 0 {
			continue
		}
		quanta := int64(binary.BigEndian.Uint16(h[18+2*c:]))
		key := port*pfcClasses + c
		if sw.pauses == nil {
			sw.pauses = map[int]*pauseState{}
		}
		st := sw.pauses[key]
		if st == nil {
			st = &pauseState{}
			sw.pauses[key] = st
		}
		if quanta == 0 {
			resumed = true
			sw.unpause(port, c, st, now)
			continue
		}
		if st.until == 0 {
			st.since = now
			sw.tm.Pause(port, c, true, now)
		}
		st.until = now + quanta*quantumPs
		packet.Schedule(sw.engine, sw.ports, st.until, evPauseEnd, nil, key)
	}
	if resumed {
		sw.PFC.Resumes++
	} else {
		sw.PFC.Pauses++
	}
	return true
}

// unpause ends a queue's pause.
func (sw *Switch) unpause(port, class int, st *pauseState, now int64) {
	if st.until == 0 {
		return
	}
	sw.PFC.PausePs += now - st.since
	st.until = 0
	sw.tm.Pause(port, class, false, now)
}

// pauseTimer handles a pause timer: the pause ends if no later frame
// refreshed it.
func (sw *Switch) pauseTimer(key int, now int64) {
	if st := sw.pauses[key]; st != nil && st.until == now {
		sw.unpause(key/pfcClasses, key%pfcClasses, st, now)
	}
}

// PFCFrames reports the PFC frames the MACs consumed and the total time
// queues were paused (arch.PauseCounter).
func (sw *Switch) PFCFrames() (pauses, resumes int, pausedPs int64) {
	return sw.PFC.Pauses, sw.PFC.Resumes, sw.PFC.PausePs
}
