package trio

// StopTimers ends the timer threads: none starts after ps (an experiment
// calls it when its workload is over, so the periodic threads do not keep
// the simulation going).
func (p *PFE) StopTimers(ps int64) { p.timersUntil = min(p.timersUntil, ps) }

// Drops lists the packets the PFE dropped, by reason (sorted by reason).
func (p *PFE) Drops() []DropCount { return p.dropList() }

// EngineBusy returns the read-modify-write engines' busy time so far: the
// sum over the engines and the busiest engine's (ps).
func (p *PFE) EngineBusy() (total, hottest int64) {
	for _, b := range p.bankBusy {
		total += b
		hottest = max(hottest, b)
	}
	return total, hottest
}

// Config is the PFE configuration the program was lowered for.
func (m *Microcode) Config() *Config { return m.cfg }
