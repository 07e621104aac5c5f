package trio

import (
	"archsim/arch/trio/lower"
	"archsim/arch/trio/smem"
)

// A thread's external transactions go over the crossbar to the shared
// memory (arch/trio/smem).

// send issues a script step's transaction to the shared memory at now: when
// its reply is back, and when the request found room in its engine's queue.
func (p *PFE) send(s step, now int64) (reply, room int64) {
	return p.smem.Serve(smem.Transaction{Bank: s.bank, Cycles: s.cycles, LatencyPs: s.latency}, now)
}

// bank maps an object's entry to the RMW engine of its address.
func (p *PFE) bank(o *lower.MemObject, entry int64) int {
	return p.smem.Bank(o.Base+entry*int64(o.EntryBytes), o.Memory == "dram")
}

// latency is the round trip to the object's memory.
func (p *PFE) latency(o *lower.MemObject) int64 { return p.smem.LatencyPs(o.Memory == "dram") }

// SharedMemory is the PFE's shared memory (its engines' statistics).
func (p *PFE) SharedMemory() *smem.Memory { return p.smem }
