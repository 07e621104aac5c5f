package trio

// StopTimers ends the timer threads: none starts after ps (an experiment
// calls it when its workload is over, so the periodic threads do not keep
// the simulation going).
func (p *PFE) StopTimers(ps int64) { p.timersUntil = min(p.timersUntil, ps) }

// Drops lists the packets the PFE dropped, by reason (sorted by reason).
func (p *PFE) Drops() []DropCount { return p.dropList() }
