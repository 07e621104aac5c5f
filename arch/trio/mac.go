package trio

import (
	"archsim/arch"
	"archsim/components/pfc"
)

// The ports' MACs consume IEEE 802.1Qbb PFC frames (components/pfc): a
// frame pauses the named priorities' output queues of the port it
// arrives on (priority i, queue i; one FIFO per port for a program
// without tm: queues, paused by priority 0), for its time in quanta or
// until a resume frame.

// evPauseEnd is a PFC pause timer of key port*8 + priority (Port).
const evPauseEnd = evPktGen + 1

// mac is the PFE's PFC receive side, wired to its output ports.
func (p *PFE) mac() *pfc.Receiver {
	if p.pfc == nil {
		p.pfc = &pfc.Receiver{
			Pause: p.pauseQueue,
			Timer: func(at int64, key int) { p.post(at, evPauseEnd, nil, key) },
		}
	}
	return p.pfc
}

// pauseQueue pauses or resumes queue class of port; a resume restarts an
// idle transmitter.
func (p *PFE) pauseQueue(port, class int, paused bool, now int64) {
	o := p.port(port)
	if class >= len(o.queues) {
		return
	}
	o.queues[class].paused = paused
	if !paused {
		p.kick(port, o, now)
	}
}

// PFCFrames reports the PFC frames the MACs consumed and the total time
// queues were paused (arch.PauseCounter).
func (p *PFE) PFCFrames() (pauses, resumes int, pausedPs int64) { return p.mac().Frames() }

var _ arch.PauseCounter = (*PFE)(nil)
