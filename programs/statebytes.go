package programs

// StateBytes is about the memory NewState allocates for the program: 8 B
// per register cell, 16 B per counter cell (packets and bytes) and 64 B
// per meter cell (its buckets and rates); a caller estimating a run's
// memory before building its switches adds it per switch.
func (p *Program) StateBytes() float64 {
	if p == nil {
		return 0
	}
	b := 0.0
	for _, r := range p.Registers {
		b += 8 * float64(r.Size)
	}
	for _, c := range p.Counters {
		b += 16 * float64(c.Size)
	}
	for _, m := range p.Meters {
		b += 64 * float64(m.Size)
	}
	return b
}
