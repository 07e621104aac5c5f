// Package pfc is the receive side of IEEE 802.1Qbb priority flow control
// at a switch's MACs, shared by the chips: a PFC frame that arrives on a
// front-panel port is consumed by the port's MAC, never by the packet
// pipeline or threads; for every priority its class-enable vector names,
// the MAC pauses that priority's egress queue of the port for the frame's
// time (in quanta of 512 bit times at the port's rate), or resumes it at
// once when the time is 0. Priority i pauses queue i (assumed: the
// identity priority-to-queue map).
package pfc

import "encoding/binary"

// Frame layout.
const (
	EtherType = 0x8808 // IEEE 802.3 MAC control
	Opcode    = 0x0101 // 802.1Qbb priority-based flow control
	Classes   = 8
	FrameLen  = 14 + 2 + 2 + 2*Classes // Ethernet header, opcode, class vector, 8 times
)

// Stats counts the PFC frames a switch's MACs received and how long they
// kept queues paused.
type Stats struct {
	Pauses  int   `json:"pause_frames"`
	Resumes int   `json:"resume_frames"`
	PausePs int64 `json:"-"` // total time some queue was paused, summed over queues
}

// Receiver is the PFC state of one switch's MACs. Its chip gives it two
// hooks: Pause pauses or resumes a port's queue, and Timer schedules the
// chip's wake-up at atPs that calls Expire(key, atPs).
type Receiver struct {
	Pause  func(port, class int, paused bool, nowPs int64)
	Timer  func(atPs int64, key int)
	pauses map[int]*state
	Stats
}

// state is one (port, class)'s pause.
type state struct {
	until int64 // the pause ends then unless refreshed or resumed (0: not paused)
	since int64
}

// Consume takes a frame arriving on port (at gbps) and reports whether it
// was a PFC frame, which the MAC consumes.
func (r *Receiver) Consume(head []byte, port int, gbps float64, nowPs int64) bool {
	h := head
	if len(h) < FrameLen || binary.BigEndian.Uint16(h[12:]) != EtherType || binary.BigEndian.Uint16(h[14:]) != Opcode {
		return false
	}
	vector := binary.BigEndian.Uint16(h[16:])
	quantumPs := int64(512*1000/gbps + 0.5) // 512 bit times
	resumed := false
	for c := 0; c < Classes; c++ {
		if vector&(1<<c) == 0 {
			continue
		}
		quanta := int64(binary.BigEndian.Uint16(h[18+2*c:]))
		key := port*Classes + c
		if r.pauses == nil {
			r.pauses = map[int]*state{}
		}
		st := r.pauses[key]
		if st == nil {
			st = &state{}
			r.pauses[key] = st
		}
		if quanta == 0 {
			resumed = true
			r.unpause(port, c, st, nowPs)
			continue
		}
		if st.until == 0 {
			st.since = nowPs
			r.Pause(port, c, true, nowPs)
		}
		st.until = nowPs + quanta*quantumPs
		r.Timer(st.until, key)
	}
	if resumed {
		r.Resumes++
	} else {
		r.Pauses++
	}
	return true
}

// unpause ends a queue's pause.
func (r *Receiver) unpause(port, class int, st *state, nowPs int64) {
	if st.until == 0 {
		return
	}
	r.PausePs += nowPs - st.since
	st.until = 0
	r.Pause(port, class, false, nowPs)
}

// Expire handles a pause timer: the pause ends if no later frame
// refreshed it.
func (r *Receiver) Expire(key int, nowPs int64) {
	if st := r.pauses[key]; st != nil && st.until == nowPs {
		r.unpause(key/Classes, key%Classes, st, nowPs)
	}
}

// Frames reports the PFC frames consumed and the total time queues were
// paused (arch.PauseCounter's PFCFrames).
func (r *Receiver) Frames() (pauses, resumes int, pausedPs int64) {
	return r.Pauses, r.Resumes, r.PausePs
}

// Frame builds a minimum-size 802.1Qbb frame that pauses the priorities
// of vector for quanta (0: resumes them).
func Frame(vector uint16, quanta uint16) []byte {
	b := make([]byte, 60)
	copy(b, []byte{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01})
	binary.BigEndian.PutUint16(b[12:], EtherType)
	binary.BigEndian.PutUint16(b[14:], Opcode)
	binary.BigEndian.PutUint16(b[16:], vector)
	for c := 0; c < Classes; c++ {
		if vector&(1<<c) != 0 {
			binary.BigEndian.PutUint16(b[18+2*c:], quanta)
		}
	}
	return b
}
