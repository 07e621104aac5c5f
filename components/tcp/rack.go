package tcp

// RACK-TLP (RFC 8985) as Linux runs it by default (net.ipv4.tcp_recovery
// = 1, net.ipv4.tcp_early_retrans = 3; net/ipv4/tcp_recovery.c,
// tcp_output.c tcp_schedule_loss_probe / tcp_send_loss_probe):
//
//   - RACK marks a segment lost when a segment sent after it has been
//     delivered and more than the newest RTT plus a reordering window
//     has passed since it was sent. The window is 0 in recovery or once
//     DupThresh segments are SACKed (no reordering is ever detected here),
//     else min(min_rtt/4, srtt); segments not yet due arm the reorder
//     timer. RACK also finds lost retransmissions.
//   - TLP: in Open or CWR, a probe timeout of 2·SRTT (+ TCP_RTO_MIN with one
//     segment outstanding, + 2 jiffies otherwise, capped by the RTO) sends
//     one new segment, or retransmits the last one, so that a tail loss
//     draws SACKs instead of waiting for the RTO. A retransmitted probe
//     that turns out to have repaired a loss reduces cwnd once.
//
// The RTO, the probe and the reorder timeout share one timer, as they
// share icsk_retransmit_timer in Linux.

// What the sender's timer is armed for (Linux icsk_pending).
const (
	pendNone = iota
	pendRTO
	pendPTO
	pendREO
)

// rackState is Linux tcp_sock.rack: the newest delivered transmission.
type rackState struct {
	mstamp   int64 // its send time
	endSeq   int64 // its segment index + 1 (breaks send-time ties)
	rttPs    int64 // its RTT
	advanced bool  // a delivery since the last loss detection
}

// tcpRTOMinPs is TCP_RTO_MIN = HZ/5 (include/net/tcp.h).
const tcpRTOMinPs = 200e9

// timeoutMinPs is TCP_TIMEOUT_MIN (include/net/tcp.h): 2 jiffies.
func (s *sender) timeoutMinPs() int64 { return 2e12 / int64(s.cfg.Cubic.HZ) }

func (s *sender) armTimer(kind int, due int64) {
	s.pend = kind
	s.rto.Set(due)
}

func (s *sender) stopTimer() {
	s.pend = pendNone
	s.rto.Stop()
}

// rtoDelta is tcp_rto_delta_us: how far in the future the RTO of the
// head segment (its last transmission plus RTO) lies.
func (s *sender) rtoDelta(now int64) int64 {
	return s.seg(s.una).sentPs + s.rtoPs - now
}

// rearmRTO is tcp_rearm_rto: off with nothing outstanding, else RTO from
// now, or from the head's transmission when a probe or reorder timeout
// held the slot.
func (s *sender) rearmRTO(now int64) {
	if s.nxt == s.una {
		s.stopTimer()
		return
	}
	d := s.rtoPs
	if s.pend == pendPTO || s.pend == pendREO {
		d = max(s.rtoDelta(now), 1)
	}
	s.armTimer(pendRTO, now+d)
}

// schedulePTO is tcp_schedule_loss_probe; it reports whether a probe
// was scheduled.
func (s *sender) schedulePTO(now int64, advancingRTO bool) bool {
	if !s.cfg.TLP || s.nxt == s.una || (s.state != stateOpen && s.state != stateCWR) {
		return false
	}
	pto := s.cfg.RTOInitPs
	if s.srttPs > 0 {
		pto = 2 * s.srttPs
		if s.nxt-s.una == 1 {
			// Room for a delayed ACK: the constant TCP_RTO_MIN (200 ms,
			// include/net/tcp.h), not the route's rto_min (Linux 5.4
			// tcp_schedule_loss_probe); the RTO caps the sum below.
			pto += tcpRTOMinPs
		} else {
			pto += s.timeoutMinPs()
		}
	}
	d := s.rtoPs
	if !advancingRTO {
		d = s.rtoDelta(now)
	}
	if d > 0 {
		pto = min(pto, d)
	}
	s.armTimer(pendPTO, now+pto)
	return true
}

// setXmitTimer is tcp_set_xmit_timer: after an ACK that advanced
// snd_una, a loss probe if allowed, else the RTO.
func (s *sender) setXmitTimer(now int64) {
	if !s.schedulePTO(now, true) {
		s.rearmRTO(now)
	}
}

// onTimer handles the sender's timer (tcp_write_timer_handler).
func (s *sender) onTimer(now int64) {
	switch s.pend {
	case pendREO:
		s.reoTimeout(now)
	case pendPTO:
		s.sendLossProbe(now)
	case pendRTO:
		s.pend = pendNone
		s.onRTO(now)
	}
}

// sendLossProbe is tcp_send_loss_probe: one new segment if the window
// allows, else the last outstanding one again, whatever cwnd says.
func (s *sender) sendLossProbe(now int64) {
	if s.done || s.nxt == s.una {
		s.stopTimer()
		return
	}
	if s.tlpHighSeq != 0 {
		s.rearmRTO(now) // a probe is already out
		return
	}
	if s.canSendNew() {
		s.send(s.nxt, false, now)
		s.tlpRetrans = false
	} else {
		i := s.nxt - 1
		if s.seg(i).flags&sSacked != 0 {
			s.rearmRTO(now)
			return
		}
		s.send(i, true, now)
		s.tlpRetrans = true
	}
	s.tlpHighSeq = s.nxt
	s.f.Stats.LossProbes++
	s.pend = pendNone // the RTO restarts from now
	s.rearmRTO(now)
	s.notify(now)
}

// processTLPAck is tcp_process_tlp_ack: an ACK beyond a retransmitted
// probe (and no DSACK saying it was needless: this receiver sends none)
// means the probe repaired a loss: reduce cwnd once (CWR and back).
func (s *sender) processTLPAck(ack int64, advanced, sacked bool) {
	switch {
	case ack < s.tlpHighSeq:
	case !s.tlpRetrans:
		s.tlpHighSeq = 0
	case ack > s.tlpHighSeq:
		s.initReduction() // clears tlpHighSeq
		s.endReduction()
		s.f.Stats.TLPRecoveries++
	case !advanced && !sacked:
		s.tlpHighSeq = 0 // a pure duplicate ACK: no loss
	}
}

// rackAdvance is tcp_rack_advance for a newly delivered segment i.
func (s *sender) rackAdvance(g *segState, i, now int64) {
	rtt := now - g.sentPs
	if g.flags&(sRetrans|sEverRetrans) != 0 && rtt < s.minRTTPs {
		return // probably the original's ACK: ambiguous
	}
	s.rack.advanced = true
	s.rack.rttPs = rtt
	if g.sentPs > s.rack.mstamp || (g.sentPs == s.rack.mstamp && i+1 > s.rack.endSeq) {
		s.rack.mstamp, s.rack.endSeq = g.sentPs, i+1
	}
}

// reoWnd is tcp_rack_reo_wnd without reordering ever seen.
func (s *sender) reoWnd() int64 {
	if s.state == stateRecovery || s.state == stateLoss || s.sackedOut >= s.cfg.DupThresh {
		return 0
	}
	return min(s.minRTTPs/4, s.srttPs)
}

// rackDetectLoss is tcp_rack_detect_loss: walk the segments in
// transmission order that were sent before the newest delivered one;
// mark those overdue lost, and return the longest wait of the others.
func (s *sender) rackDetectLoss(now int64) (lost int, wait int64) {
	reo := s.reoWnd()
	for i := s.listHead; i >= 0; {
		g := s.seg(i)
		next := g.next
		if !(s.rack.mstamp > g.sentPs || (s.rack.mstamp == g.sentPs && s.rack.endSeq > i+1)) {
			break
		}
		if rem := s.rack.rttPs + reo - (now - g.sentPs); rem <= 0 {
			if s.markSegLost(i) {
				lost++
			}
			s.listRemove(i)
		} else {
			wait = max(wait, rem)
		}
		i = next
	}
	return lost, wait
}

// markSegLost is tcp_mark_skb_lost; it reports a newly lost segment (a
// lost retransmission counts: it is to be sent again).
func (s *sender) markSegLost(i int64) bool {
	g := s.seg(i)
	if g.flags&sSacked != 0 {
		return false
	}
	s.retransHint = min(s.retransHint, i)
	if g.flags&sLost != 0 {
		if g.flags&sRetrans != 0 {
			g.flags &^= sRetrans
			s.retransOut--
			s.f.Stats.LostRetransmits++
			return true
		}
		return false
	}
	g.flags |= sLost
	s.lostOut++
	return true
}

// rackMarkLost is tcp_rack_mark_lost: loss detection after an ACK that
// delivered something; a reorder timeout for segments not yet due. It
// reports the newly lost segments and whether the timer was taken.
func (s *sender) rackMarkLost(now int64) (int, bool) {
	if !s.rack.advanced {
		return 0, false
	}
	s.rack.advanced = false
	n, wait := s.rackDetectLoss(now)
	if wait > 0 {
		s.armTimer(pendREO, now+wait+s.timeoutMinPs())
		return n, true
	}
	return n, false
}

// reoTimeout is tcp_rack_reo_timeout: detect again; if something was
// lost, enter recovery and retransmit; then the RTO takes the timer.
func (s *sender) reoTimeout(now int64) {
	if s.done {
		return
	}
	prior := s.inFlight()
	s.rackDetectLoss(now)
	if s.inFlight() != prior {
		if s.state != stateRecovery {
			s.enterRecovery()
			s.cwndReduction(1, 0, false)
		}
		s.trySend(now)
	}
	if s.pend != pendRTO {
		s.rearmRTO(now)
	}
	s.notify(now)
}

func (s *sender) listAppend(i int64) {
	g := s.seg(i)
	g.flags |= sInList
	g.prev, g.next = s.listTail, -1
	if s.listTail >= 0 {
		s.seg(s.listTail).next = i
	} else {
		s.listHead = i
	}
	s.listTail = i
}

func (s *sender) listRemove(i int64) {
	g := s.seg(i)
	if g.flags&sInList == 0 {
		return
	}
	g.flags &^= sInList
	if g.prev >= 0 {
		s.seg(g.prev).next = g.next
	} else {
		s.listHead = g.next
	}
	if g.next >= 0 {
		s.seg(g.next).prev = g.prev
	} else {
		s.listTail = g.prev
	}
	g.prev, g.next = -1, -1
}
