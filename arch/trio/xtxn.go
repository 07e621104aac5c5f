package trio

import (
	"archsim/arch/trio/lower"
	"archsim/arch/trio/smem"
)

// A thread's external transactions go over the crossbar to the shared
// memory (arch/trio/smem): resume sends a script step's transaction with
// smem.ServeBusy (ServeN for a segment's run of identical ones).

// latency is the round trip to the object's memory.
func (p *PFE) latency(o *lower.MemObject) int64 { return p.smem.LatencyPs(o.Memory == "dram") }

// SharedMemory is the PFE's shared memory (its engines' statistics).
func (p *PFE) SharedMemory() *smem.Memory { return p.smem }
