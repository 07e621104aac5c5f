package trio

// The shared memory system: banks interleaved every 64 bytes, each with a
// read-modify-write engine that serialises its requests ([TRIO] §2.3).

// engineOp sends a transaction at now. It returns when the reply is back
// and when the request found room in the engine's queue (engine_queue
// operations; later than now means the sender was back-pressured).
func (p *PFE) engineOp(s step, now int64) (reply, room int64) {
	half := s.latency / 2
	if s.bank < 0 {
		return now + s.latency, now
	}
	at := now + half
	busy := p.cfg.CyclesToPs(int64(s.cycles))
	// Room when no more than engine_queue operations are ahead of it.
	room = now
	if backlog := p.bankAt[s.bank] - at; backlog > int64(p.cfg.SMem.EngineQueue)*busy {
		room = now + backlog - int64(p.cfg.SMem.EngineQueue)*busy
	}
	start := max(at, p.bankAt[s.bank])
	p.bankAt[s.bank] = start + busy
	p.Stats.EngineBusyPs += busy
	p.bankBusy[s.bank] += busy
	p.Stats.BankBusyMax = max(p.Stats.BankBusyMax, p.bankAt[s.bank]-at)
	return start + busy + half, room
}

// bank maps an object's entry to the RMW engine of its address (64-byte
// interleave across the engines).
func (p *PFE) bank(o *MemObject, entry int64) int {
	addr := o.Base + entry*int64(o.EntryBytes)
	if o.Memory == "dram" {
		addr += p.cfg.SMem.SRAMBytes
	}
	return int((addr / 64) % int64(p.cfg.SMem.RMWEngines))
}

func (p *PFE) latency(o *MemObject) int64 {
	if o.Memory == "dram" {
		return NsToPs(p.cfg.SMem.DRAMLatencyNs)
	}
	return NsToPs(p.cfg.SMem.SRAMLatencyNs)
}
