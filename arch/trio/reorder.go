package trio

import (
	"archsim/arch/trio/lower"
)

// The reorder engine: a finished thread's head is released once every
// earlier packet of its flow has been released.

// finish frees the thread and passes the head to the reorder engine.
func (p *PFE) finish(th *thread, now int64) {
	p.ppes[th.ppe].free++
	p.Stats.busy--
	if th.timer != nil {
		p.Stats.TimerRuns++
		p.Stats.TimerNs.Add(now - th.arrivePs)
		p.Stats.TimerInstr.Add(int64(th.instr))
		p.freeIDs = append(p.freeIDs, th.id)
		p.next(now)
		return
	}
	g := th.gress
	p.Stats.Packets[g]++
	p.Stats.ThreadPs[g] += now - th.startPs
	p.Stats.LastThreadEndPs = max(p.Stats.LastThreadEndPs, now)
	if g == 0 {
		if p.Stats.FirstFinishPs == 0 {
			p.Stats.FirstFinishPs = now
		}
		p.Stats.LastFinishPs = now
	}
	p.Stats.Instr[g].Add(int64(th.instr))
	for k := lower.XKind(0); k < lower.NumXKinds; k++ {
		p.Stats.XTXN[g][k] += int64(th.xtxn[k])
	}
	fo := p.order[th.flow]
	fo.done[th.seq] = th
	for {
		t, ok := fo.done[fo.next]
		if !ok {
			break
		}
		delete(fo.done, fo.next)
		fo.next++
		p.Stats.Latency[t.gress].Add(now - t.arrivePs)
		if t.drop {
			p.freeIDs = append(p.freeIDs, t.id)
			continue
		}
		p.post(now+NsToPs(p.cfg.ReorderNs), evReleased, t.pkt, t.gress)
		p.freeIDs = append(p.freeIDs, t.id)
	}
	p.next(now)
}

// next gives the freed thread to the first waiting head, if any.
func (p *PFE) next(now int64) {
	if len(p.waiting) > 0 {
		next := p.waiting[0]
		p.waiting = p.waiting[1:]
		p.dispatch(next, now)
	}
}
