package trio

import (
	"archsim/arch/trio/lower"
	"archsim/components/packet"
)

// The reorder engine: a finished thread's head is released once every
// earlier packet of its flow has been released.

// finish frees the thread and passes the head to the reorder engine.
func (p *PFE) finish(th *thread, now int64) {
	p.scripts = append(p.scripts, th.script)
	th.script = nil
	p.ppes[th.ppe].free++
	p.freeIx.move(th.ppe, p.ppes[th.ppe].free-1, p.ppes[th.ppe].free)
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
	fo := th.order
	if th.seq != fo.next {
		// Earlier packets of the flow are still being processed.
		if fo.done == nil {
			fo.done = map[int64]*thread{}
		}
		fo.done[th.seq] = th
		p.next(now)
		return
	}
	// The flow's next head, and the finished ones waiting behind it, go.
	for t := th; t != nil; {
		fo.next++
		p.release(t, now)
		if t = fo.done[fo.next]; t != nil {
			delete(fo.done, fo.next)
		}
	}
	p.next(now)
}

// release hands a finished head, in flow order, on; the kept packets the
// thread sent again leave just before it, in the order it sent them.
func (p *PFE) release(t *thread, now int64) {
	if p.threadStats {
		p.Stats.Latency[t.gress].Add(now - t.arrivePs)
	}
	for _, pkt := range t.keptOut {
		p.toRelease(pkt, 0, now)
	}
	if !t.drop {
		p.toRelease(t.pkt, t.gress, now)
	}
	p.freeIDs = append(p.freeIDs, t.id)
}

// relItem is a packet the reorder engine has released, on its way out.
type relItem struct {
	pkt   *packet.Packet
	gress int
}

// toRelease queues a packet to leave the reorder engine ReorderNs from
// now. Every packet takes the same time, so the engine's output is a FIFO:
// each evReleased event passes on the oldest packet, and packets released
// at the same instant leave in the order they were released, whatever
// order the event engine gives events of the same time.
func (p *PFE) toRelease(pkt *packet.Packet, gress int, now int64) {
	p.relq.Push(relItem{pkt, gress})
	p.post(now+NsToPs(p.cfg.ReorderNs), evReleased, nil, 0)
}

// releaseNext passes the oldest released packet on.
func (p *PFE) releaseNext(now int64) {
	it := p.relq.Pop()
	p.released(it.pkt, it.gress, now)
}

// next gives the freed thread to the first waiting head, if any.
func (p *PFE) next(now int64) {
	if len(p.waiting) > 0 {
		next := p.waiting[0]
		p.waiting = p.waiting[1:]
		p.dispatch(next, now)
	}
}
