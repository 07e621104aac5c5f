package tcp

import (
	"fmt"

	"archsim/components/packet"
)

// Congestion-control states (Linux enum tcp_ca_state; Disorder is folded
// into Open: it changes nothing modelled here).
const (
	stateOpen = iota
	stateCWR
	stateRecovery
	stateLoss
)

// Scoreboard bits of a sent segment (Linux TCPCB_SACKED_ACKED, TCPCB_LOST,
// TCPCB_SACKED_RETRANS, TCPCB_EVER_RETRANS).
const (
	sSacked      = 1 << iota
	sLost        // marked lost and not yet SACKed or ACKed
	sRetrans     // a retransmission is in flight
	sEverRetrans // was retransmitted: no RTT sample from it (Karn)
	sInList      // on the time-ordered list RACK walks
)

// segState is a sent segment: its last transmission time, scoreboard bits
// and its links in the list of segments in transmission order that are
// neither SACKed nor waiting to be retransmitted (Linux
// tsorted_sent_queue).
type segState struct {
	sentPs     int64
	prev, next int64 // segment indices, -1: none
	flags      uint8
}

// sender is the sending end of a flow: CUBIC or DCTCP congestion control; a SACK
// scoreboard where a hole with DupThresh SACKed segments above it is lost
// (RFC 6675 IsLost, Linux tcp_mark_head_lost); fast recovery entered once
// per window with ssthresh = β·cwnd and cwnd driven by proportional rate
// reduction (RFC 6937, Linux tcp_cwnd_reduction); an RTO per RFC 6298
// with Linux's bounds and exponential backoff that marks everything lost
// and restarts from cwnd 1. The application always has data (bulk) or
// Bytes in total. Sequence numbers are counted in segments of MSS bytes.
type sender struct {
	h     *Host
	f     *Flow
	cfg   *Config
	mss   int64
	isn   uint32
	total int64 // segments to send, -1: unlimited

	una, nxt   int64
	ring       []segState // segment i at ring[i & (len-1)], for una <= i < nxt; len a power of 2
	sackedOut  int
	lostOut    int
	retransOut int

	w     Window
	cc    congestionControl
	state int

	highSeq      int64
	priorCwnd    int
	prrDelivered int
	prrOut       int
	cwrPending   bool // send CWR on the next new segment

	srttPs, rttvarPs int64
	rtoPs            int64
	rto              packet.Timer // the one retransmission-timer slot: RTO, loss probe or RACK reorder timeout
	pend             int          // what rto is armed for (pendRTO, pendPTO, pendREO)
	minRTTPs         int64
	rwnd             int64 // bytes the receiver allows beyond una

	retransHint    int64 // no lost, unretransmitted segment below it
	lostHint       int64 // the loss walk resumes here
	lostHintSacked int   // SACKed segments in [una, lostHint)
	cache          [4][2]int64
	ncache         int

	isCwndLimited bool // Linux tcp_cwnd_validate
	maxPacketsOut int
	cwndUsageSeq  int64

	rack       rackState
	tlpHighSeq int64 // snd_nxt when a loss probe went out; 0: none outstanding
	tlpRetrans bool  // the probe was a retransmission
	listHead   int64
	listTail   int64

	tsRecent uint32
	lastCwnd int
	lastSsth int
	started  bool
	done     bool
}

func newSender(h *Host, f *Flow) *sender {
	s := &sender{h: h, f: f, cfg: &h.cfg, mss: int64(h.cfg.MSS), isn: f.ISN(), total: -1, listHead: -1, listTail: -1}
	if f.Bytes > 0 {
		s.total = (f.Bytes + s.mss - 1) / s.mss
	}
	s.rto = packet.Timer{Engine: h.engine, Handler: h, Kind: evRTO, Port: f.ID}
	if h.cfg.CC == CCDCTCP {
		s.cc = NewDCTCP(h.cfg.DCTCP)
	} else {
		s.cc = NewCubic(h.cfg.Cubic)
	}
	return s
}

func (s *sender) start(now int64) {
	s.started = true
	s.w = Window{Cwnd: s.cfg.InitCwnd, Ssthresh: InfiniteSsthresh}
	s.rtoPs = s.cfg.RTOInitPs
	s.rwnd = s.cfg.RcvWndBytes
	s.cc.Init(now, 0)
	if s.f.SynRTTPs > 0 {
		s.rttSample(s.f.SynRTTPs) // the handshake's sample (tcp_synack_rtt_meas)
		s.minRTTPs = s.f.SynRTTPs
	}
	s.trySend(now)
	s.notify(now)
}

func (s *sender) inFlight() int {
	return int(s.nxt-s.una) - s.sackedOut - s.lostOut + s.retransOut
}

func (s *sender) seg(i int64) *segState { return &s.ring[i&int64(len(s.ring)-1)] }

// push records a new segment sent at now, doubling the ring when full.
func (s *sender) push(now int64) {
	if int(s.nxt-s.una) == len(s.ring) {
		r := make([]segState, max(64, 2*len(s.ring)))
		for i := s.una; i < s.nxt; i++ {
			r[i&int64(len(r)-1)] = *s.seg(i)
		}
		s.ring = r
	}
	*s.seg(s.nxt) = segState{sentPs: now, prev: -1, next: -1}
	s.listAppend(s.nxt)
	s.nxt++
}

// segLen is segment i's payload.
func (s *sender) segLen(i int64) int {
	if s.total >= 0 && i == s.total-1 {
		return int(s.f.Bytes - i*s.mss)
	}
	return int(s.mss)
}

// trySend sends lost segments first, then new data, while cwnd allows
// (Linux tcp_xmit_retransmit_queue, tcp_write_xmit).
func (s *sender) trySend(now int64) {
	sent, sentNew := 0, 0
	prior := s.nxt - s.una
	headRetrans := false
	limited := false
	for {
		if s.inFlight() >= s.w.Cwnd {
			limited = s.hasData()
			break
		}
		if i := s.nextRetransmit(); i >= 0 {
			s.send(i, true, now)
			headRetrans = headRetrans || i == s.una
		} else if s.canSendNew() {
			s.send(s.nxt, false, now)
			sentNew++
		} else {
			break
		}
		sent++
	}
	if sent > 0 || limited {
		po := int(s.nxt - s.una)
		if s.una >= s.cwndUsageSeq || limited || (!s.isCwndLimited && po > s.maxPacketsOut) {
			s.isCwndLimited = limited
			s.maxPacketsOut = po
			s.cwndUsageSeq = s.nxt
		}
	}
	// Timers as Linux arms them: new data (re)starts the RTO if nothing
	// was outstanding or a probe was pending (tcp_event_new_data_sent)
	// and schedules a loss probe (tcp_write_xmit); retransmitting the
	// head restarts the RTO (tcp_xmit_retransmit_queue).
	if sentNew > 0 {
		if prior == 0 || s.pend == pendPTO {
			s.rearmRTO(now)
		}
		s.schedulePTO(now, false)
	}
	if headRetrans && s.pend != pendREO {
		s.armTimer(pendRTO, now+s.rtoPs)
	}
	if s.nxt > s.una && !s.rto.Armed() {
		s.armTimer(pendRTO, now+s.rtoPs)
	}
}

// canSendNew reports whether the application and the receive window
// allow a new segment.
func (s *sender) canSendNew() bool {
	return s.hasData() && (s.nxt+1-s.una)*s.mss <= s.rwnd
}

func (s *sender) hasData() bool { return s.total < 0 || s.nxt < s.total }

// cwndLimited is tcp_is_cwnd_limited.
func (s *sender) cwndLimited() bool {
	if s.isCwndLimited {
		return true
	}
	return s.w.InSlowStart() && s.w.Cwnd < 2*s.maxPacketsOut
}

func (s *sender) nextRetransmit() int64 {
	if s.lostOut == 0 {
		return -1
	}
	for i := max(s.retransHint, s.una); i < s.nxt; i++ {
		if s.seg(i).flags&(sLost|sRetrans|sSacked) == sLost {
			s.retransHint = i
			return i
		}
	}
	s.retransHint = s.nxt
	return -1
}

// send transmits segment i (new, or a retransmission).
func (s *sender) send(i int64, retrans bool, now int64) {
	f := s.f
	if retrans {
		g := s.seg(i)
		if g.flags&sRetrans == 0 {
			s.retransOut++
		}
		g.flags |= sRetrans | sEverRetrans
		g.sentPs = now
		s.listRemove(i)
		s.listAppend(i)
		f.Stats.Retransmits++
	} else {
		s.push(now)
	}
	if s.state == stateRecovery || s.state == stateCWR {
		s.prrOut++
	}
	seg := Segment{Src: f.SrcIP, Dst: f.DstIP, SrcPort: uint16(PortBase + f.ID), DstPort: DataPort,
		Seq: s.isn + uint32(i*s.mss), Ack: f.ISN() ^ 0x5a5a5a5a, Flags: FlagACK,
		Window: uint16(min(s.cfg.RcvWndBytes>>uint(s.cfg.WScale), 65535)),
		TSval:  s.h.tsNow(now), TSecr: s.tsRecent, Payload: s.segLen(i)}
	if s.cfg.ECN && (!retrans || s.cfg.CC == CCDCTCP) {
		// RFC 3168 §6.1.5: retransmissions are not ECT; DCTCP keeps ECT
		// on every packet (Linux tcp_ecn_send: tcp_ca_needs_ecn).
		seg.ECN = ECNECT0
		if s.cwrPending && !retrans {
			seg.Flags |= FlagCWR
			s.cwrPending = false
		}
	}
	f.Stats.SegmentsSent++
	s.h.transmit(&seg, now)
}

// unwrapAck turns an ACK or SACK sequence number into bytes from the ISN,
// nearest to una.
func (s *sender) unwrapAck(seq uint32) int64 {
	base := s.una * s.mss
	return base + int64(int32(seq-(s.isn+uint32(base))))
}

// segOf is the number of whole segments in the first b bytes (the end of
// the last, short segment counts as a whole one).
func (s *sender) segOf(b int64) int64 {
	if s.total >= 0 && b >= s.f.Bytes {
		return s.total
	}
	return b / s.mss
}

// onAck processes an ACK in Linux tcp_ack's order: SACK blocks, the
// cumulative ACK and RTT samples, loss marking and the recovery state
// machine, then the cwnd change and sending.
func (s *sender) onAck(a *Segment, now int64) {
	if !s.started || s.done {
		return
	}
	ackB := s.unwrapAck(a.Ack)
	ack := s.segOf(ackB)
	if ack > s.nxt || ackB < s.una*s.mss {
		return // ACKs unsent data, or an old ACK
	}
	s.rwnd = int64(a.Window) << uint(s.cfg.WScale)
	s.tsRecent = a.TSval
	advanced := ack > s.una

	sacked, sackFirst, sackLast := s.tagSACK(a, now)
	acked, ackFirst, ackLast := s.cleanRtx(ack, now)
	delivered := acked + sacked

	seqRTT, caRTT := int64(-1), int64(-1)
	switch {
	case ackFirst >= 0:
		seqRTT, caRTT = now-ackFirst, now-ackLast
	case sackFirst >= 0:
		seqRTT, caRTT = now-sackFirst, now-sackLast
	case acked > 0 && a.TSecr != 0:
		// Linux tcp_rtt_tsopt_us: the timestamp echo, at least one tick.
		if d := int32(s.h.tsNow(now) - a.TSecr); d >= 0 {
			seqRTT = int64(max(d, 1)) * (1e12 / int64(s.cfg.TimestampHZ))
			caRTT = seqRTT
		}
	}
	if seqRTT >= 0 {
		s.rttSample(seqRTT)
	}
	if caRTT >= 0 && (s.minRTTPs == 0 || caRTT < s.minRTTPs) {
		s.minRTTPs = caRTT // tcp_update_rtt_min (runs are far shorter than its 300 s window)
	}
	if s.tlpHighSeq != 0 {
		s.processTLPAck(ack, advanced, sacked > 0)
	}
	if delivered > 0 {
		rtt := int64(-1)
		if caRTT >= 0 {
			rtt = caRTT / 1e6
		}
		s.cc.PktsAcked(&s.w, AckSample{NowPs: now, RTTUs: rtt, SndUna: s.una * s.mss, SndNxt: s.nxt * s.mss,
			PacingRate: s.pacingRate()})
	}

	ece := a.Flags&FlagECE != 0 && s.cfg.ECN
	s.cc.onAck(delivered, ece, s.una*s.mss, s.nxt*s.mss)

	newlyLost, reoArmed := 0, false
	if s.cfg.RACK {
		newlyLost, reoArmed = s.rackMarkLost(now)
	} else {
		newlyLost = s.markLost()
	}
	s.stateMachine(ece)
	if advanced && !reoArmed {
		s.setXmitTimer(now) // Linux FLAG_SET_XMIT_TIMER
	}

	if s.state == stateRecovery || s.state == stateCWR {
		s.cwndReduction(delivered, newlyLost, advanced)
	} else if advanced && delivered > 0 {
		// Linux tcp_may_raise_cwnd: only an ACK that advances snd_una
		// grows cwnd (by everything it delivered, SACKed included).
		s.cc.CongAvoid(&s.w, now, delivered, s.cwndLimited())
	}

	if s.total >= 0 && s.una >= s.total {
		s.done = true
		s.f.Stats.DonePs = now
		s.stopTimer()
		s.notify(now)
		if s.f.OnDone != nil {
			s.f.OnDone(s.f)
		}
		return
	}
	s.trySend(now)
	s.notify(now)
}

// tagSACK marks the segments the ACK's SACK blocks cover (Linux
// tcp_sacktag_write_queue). Parts of a block already processed for an
// earlier ACK are skipped. It returns the newly SACKed segments and the
// send times of the oldest and newest never-retransmitted ones (-1: none).
func (s *sender) tagSACK(a *Segment, now int64) (n int, first, last int64) {
	first, last = -1, -1
	var cache [4][2]int64
	nc := 0
	for b := 0; b < a.NSack; b++ {
		l, r := s.unwrapAck(a.Sack[b].Left), s.unwrapAck(a.Sack[b].Right)
		lo := max((l+s.mss-1)/s.mss, s.una)
		hi := min(s.segOf(r), s.nxt)
		if lo >= hi {
			continue
		}
		cache[nc] = [2]int64{lo, hi}
		nc++
		for c := 0; c < s.ncache; c++ {
			ca, cb := s.cache[c][0], s.cache[c][1]
			if ca <= lo && lo < cb {
				lo = cb
			}
			if ca < hi && hi <= cb {
				hi = ca
			}
		}
		for i := lo; i < hi; i++ {
			g := s.seg(i)
			if g.flags&sSacked != 0 {
				continue
			}
			if g.flags&sLost != 0 {
				s.lostOut--
			}
			if g.flags&sRetrans != 0 {
				s.retransOut--
			}
			if g.flags&sEverRetrans == 0 {
				if first < 0 || g.sentPs < first {
					first = g.sentPs
				}
				last = max(last, g.sentPs)
			}
			s.rackAdvance(g, i, now)
			s.listRemove(i)
			g.flags = g.flags&sEverRetrans | sSacked
			s.sackedOut++
			if i < s.lostHint {
				s.lostHintSacked++
			}
			n++
		}
	}
	s.cache, s.ncache = cache, nc
	return n, first, last
}

// cleanRtx removes the cumulatively ACKed segments (Linux
// tcp_clean_rtx_queue): it returns those not SACKed before and the send
// times of the oldest and newest never-retransmitted, never-SACKed ones.
func (s *sender) cleanRtx(ack, now int64) (n int, first, last int64) {
	first, last = -1, -1
	for i := s.una; i < ack; i++ {
		g := s.seg(i)
		if g.flags&sSacked != 0 {
			s.sackedOut--
			if i < s.lostHint {
				s.lostHintSacked--
			}
			continue
		}
		n++
		s.rackAdvance(g, i, now)
		s.listRemove(i)
		if g.flags&sLost != 0 {
			s.lostOut--
		}
		if g.flags&sRetrans != 0 {
			s.retransOut--
		}
		if g.flags&sEverRetrans == 0 {
			if first < 0 {
				first = g.sentPs
			}
			last = g.sentPs
		}
	}
	s.una = max(s.una, ack)
	if s.lostHint <= s.una {
		s.lostHint, s.lostHintSacked = s.una, 0
	}
	return n, first, last
}

// markLost marks every hole with at least DupThresh SACKed segments above
// it lost (RFC 6675 §4 IsLost; Linux tcp_mark_head_lost with
// sacked_out - reordering). It returns the newly lost segments.
func (s *sender) markLost() int {
	th := s.cfg.DupThresh
	if s.sackedOut < th {
		return 0
	}
	n := 0
	i, below := max(s.lostHint, s.una), s.lostHintSacked
	for ; i < s.nxt; i++ {
		g := s.seg(i)
		if g.flags&sSacked != 0 {
			below++
			continue
		}
		if s.sackedOut-below < th {
			break
		}
		if g.flags&sLost == 0 {
			g.flags |= sLost
			s.lostOut++
			n++
			s.retransHint = min(s.retransHint, i)
			if g.flags&sRetrans == 0 {
				s.listRemove(i)
			}
		}
	}
	s.lostHint, s.lostHintSacked = i, below
	return n
}

// stateMachine is the part of Linux tcp_fastretrans_alert modelled here:
// leave CWR or Recovery when high_seq is ACKed (cwnd = ssthresh), leave
// Loss likewise; enter Recovery on a lost segment, CWR on an ECN echo.
func (s *sender) stateMachine(ece bool) {
	switch s.state {
	case stateCWR:
		if s.una > s.highSeq {
			s.endReduction()
		}
	case stateRecovery:
		if s.una >= s.highSeq {
			s.endReduction()
		}
	case stateLoss:
		if s.una >= s.highSeq {
			s.state = stateOpen
		}
	}
	if (s.state == stateOpen || s.state == stateCWR) && s.lostOut > 0 {
		s.enterRecovery()
	}
	if ece && s.state == stateOpen {
		s.f.Stats.ECNReductions++
		s.initReduction()
		s.state = stateCWR
	}
}

// enterRecovery is tcp_enter_recovery: a cwnd reduction (unless one for
// ECN is already under way) until everything sent so far is ACKed.
func (s *sender) enterRecovery() {
	s.f.Stats.FastRecoveries++
	if s.state != stateCWR {
		s.initReduction()
	}
	s.cc.onRecovery(&s.w)
	s.highSeq = s.nxt
	s.state = stateRecovery
}

// initReduction is tcp_init_cwnd_reduction: ssthresh from CUBIC or DCTCP, PRR
// counters from zero, a CWR for the receiver when ECN is on, and no loss
// probe outstanding any more.
func (s *sender) initReduction() {
	s.highSeq = s.nxt
	s.w.CwndCnt = 0
	s.priorCwnd = s.w.Cwnd
	s.prrDelivered, s.prrOut = 0, 0
	s.w.Ssthresh = s.cc.Ssthresh(&s.w)
	s.cwrPending = s.cfg.ECN
	s.tlpHighSeq = 0 // the reduction covers a loss a probe repaired
}

// endReduction is tcp_end_cwnd_reduction: cwnd = ssthresh.
func (s *sender) endReduction() {
	if s.w.Ssthresh < InfiniteSsthresh {
		s.w.Cwnd = s.w.Ssthresh
	}
	s.state = stateOpen
}

// cwndReduction is Linux tcp_cwnd_reduction (PRR, RFC 6937): while pipe
// exceeds ssthresh send in proportion to what was delivered; below it,
// slow-start back up to ssthresh (PRR-SSRB).
func (s *sender) cwndReduction(delivered, newlyLost int, advanced bool) {
	if delivered <= 0 || s.priorCwnd == 0 {
		return
	}
	pipe := s.inFlight()
	delta := s.w.Ssthresh - pipe
	s.prrDelivered += delivered
	var sndcnt int
	if delta < 0 {
		sndcnt = int((int64(s.w.Ssthresh)*int64(s.prrDelivered)+int64(s.priorCwnd)-1)/int64(s.priorCwnd)) - s.prrOut
	} else {
		sndcnt = max(s.prrDelivered-s.prrOut, delivered)
		if advanced && newlyLost == 0 {
			sndcnt++
		}
		sndcnt = min(delta, sndcnt)
	}
	if s.prrOut == 0 {
		sndcnt = max(sndcnt, 1) // the fast retransmit goes out at once
	}
	s.w.Cwnd = pipe + max(sndcnt, 0)
}

// rttSample updates SRTT, RTTVAR and the RTO (RFC 6298 §2 with Linux's
// floor: the variance term is at least RTOMin, tcp_rtt_estimator and
// tcp_set_rto) and clears the backoff.
func (s *sender) rttSample(r int64) {
	if s.srttPs == 0 {
		s.srttPs, s.rttvarPs = r, r/2
	} else {
		d := s.srttPs - r
		if d < 0 {
			d = -d
		}
		s.rttvarPs = (3*s.rttvarPs + d) / 4
		s.srttPs = (7*s.srttPs + r) / 8
	}
	s.rtoPs = min(s.srttPs+max(4*s.rttvarPs, s.cfg.RTOMinPs), s.cfg.RTOMaxPs)
	s.f.Stats.SRTTPs = s.srttPs
}

// pacingRate is Linux tcp_update_pacing_rate's sk_pacing_rate in bytes/s
// (HyStart's ACK-delay cushion reads it; the host does not pace).
func (s *sender) pacingRate() int64 {
	if s.srttPs == 0 {
		return 0
	}
	ratio := s.cfg.PacingCARatio
	if s.w.Cwnd < s.w.Ssthresh/2 {
		ratio = s.cfg.PacingSSRatio
	}
	w := max(s.w.Cwnd, int(s.nxt-s.una))
	return int64(float64(s.mss) * float64(ratio) / 100 * float64(w) * 1e12 / float64(s.srttPs))
}

// onRTO is the retransmission timeout (Linux tcp_retransmit_timer,
// tcp_enter_loss): ssthresh from the congestion control unless already
// reduced for this window (DCTCP then halves), CUBIC reset, every unSACKed segment lost, cwnd 1, RTO doubled
// up to RTOMax.
func (s *sender) onRTO(now int64) {
	if s.done || s.nxt == s.una {
		return
	}
	s.f.Stats.Timeouts++
	reduced := s.state == stateOpen || s.una >= s.highSeq
	if reduced {
		s.priorCwnd = s.w.Cwnd
		s.w.Ssthresh = s.cc.Ssthresh(&s.w)
	}
	s.cc.onRTO(&s.w, reduced, now, s.nxt*s.mss)
	for i := s.una; i < s.nxt; i++ {
		g := s.seg(i)
		if g.flags&sSacked == 0 {
			g.flags = g.flags&sEverRetrans | sLost
		}
	}
	s.listHead, s.listTail = -1, -1
	s.lostOut = int(s.nxt-s.una) - s.sackedOut
	s.retransOut = 0
	s.retransHint = s.una
	s.w.Cwnd = s.inFlight() + 1
	s.w.CwndCnt = 0
	s.highSeq = s.nxt
	s.state = stateLoss
	s.cwrPending = s.cfg.ECN
	s.tlpHighSeq = 0
	s.rtoPs = min(2*s.rtoPs, s.cfg.RTOMaxPs)
	s.armTimer(pendRTO, now+s.rtoPs)
	s.trySend(now)
	s.notify(now)
}

// debugChecks makes every ACK and timer verify the scoreboard counters
// (tests set it).
var debugChecks bool

// check recounts the scoreboard and panics on a mismatch.
func (s *sender) check() {
	sacked, lost, retrans, listed := 0, 0, 0, 0
	for i := s.una; i < s.nxt; i++ {
		g := s.seg(i)
		if g.flags&sSacked != 0 {
			sacked++
		}
		if g.flags&sLost != 0 {
			lost++
		}
		if g.flags&sRetrans != 0 {
			retrans++
		}
		if g.flags&sInList != 0 {
			listed++
		}
	}
	n := 0
	for i := s.listHead; i >= 0; i = s.seg(i).next {
		n++
	}
	if sacked != s.sackedOut || lost != s.lostOut || retrans != s.retransOut || listed != n || s.inFlight() < 0 {
		panic(fmt.Sprintf("tcp: flow %d scoreboard: sacked %d/%d lost %d/%d retrans %d/%d list %d/%d in flight %d",
			s.f.ID, sacked, s.sackedOut, lost, s.lostOut, retrans, s.retransOut, listed, n, s.inFlight()))
	}
}

// notify reports a cwnd change to the stats and the hook.
func (s *sender) notify(now int64) {
	if debugChecks {
		s.check()
	}
	st := &s.f.Stats
	st.Cwnd, st.Ssthresh = s.w.Cwnd, s.w.Ssthresh
	if s.w.Cwnd != s.lastCwnd {
		s.lastCwnd = s.w.Cwnd
		if s.h.hook != nil {
			s.h.hook(s.f.ID, now, s.w.Cwnd)
		}
	}
}
