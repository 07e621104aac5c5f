package tcp

import "archsim/components/packet"

// receiver is the receiving end of a flow: it delivers in-order bytes to
// the application at once (an application that always reads, so the
// advertised window stays RcvWndBytes), keeps out-of-order data as byte
// intervals, and ACKs like Linux's __tcp_ack_snd_check: at once when more
// than one full segment is unacknowledged (every second segment), in
// quick-ACK mode (the first QuickAcks ACKs of a connection or after a
// long idle gap), on out-of-order or duplicate data, when a hole is
// filled and on a newly seen CE mark; otherwise after the delayed-ACK
// timeout. Every ACK carries SACK blocks (RFC 2018: the block holding the
// newest segment first) and the timestamp option.
type receiver struct {
	h        *Host
	f        *Flow
	isn      uint32 // the sender's initial sequence number
	ownSeq   uint32 // the receiver's sequence number (it sends no data)
	rcvNxt   int64  // bytes received in order
	rcvWup   int64  // rcvNxt when the last ACK was sent
	ooo      []interval
	stamp    int64
	quick    int
	ece      bool // set ECE on ACKs
	ce       bool // DCTCP: the CE state of the last data segment (RFC 8257 §3.2)
	rcvMSS   int  // Linux icsk_ack.rcv_mss: the sender's segment size as seen
	lastSeg  int  // Linux icsk_ack.last_seg_size
	tsRecent uint32
	lastRcv  int64
	delack   packet.Timer
}

// interval is out-of-order data [l, r) in bytes from the ISN; stamp
// orders SACK blocks by recency.
type interval struct {
	l, r  int64
	stamp int64
}

func newReceiver(h *Host, f *Flow) *receiver {
	r := &receiver{h: h, f: f, isn: f.ISN(), ownSeq: f.ISN() ^ 0x5a5a5a5a, quick: h.cfg.QuickAcks,
		rcvMSS: min(h.cfg.MSS, tcpMSSDefault)} // tcp_initialize_rcv_mss
	r.delack = packet.Timer{Engine: h.engine, Handler: h, Kind: evDelAck, Port: f.ID}
	return r
}

// isnOf is a flow's initial sequence number: fixed per flow id (no
// handshake is modelled; both ends derive it), spread over the sequence
// space so wrap-around is exercised.
func isnOf(id int) uint32 {
	x := uint64(id)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	return uint32(x >> 32)
}

// unwrap turns a sequence number into bytes from the ISN, nearest to
// rcvNxt (RFC 1982 serial arithmetic).
func (r *receiver) unwrap(seq uint32) int64 {
	return r.rcvNxt + int64(int32(seq-(r.isn+uint32(r.rcvNxt))))
}

func (r *receiver) onData(s *Segment, now int64) {
	st := &r.f.Stats
	st.SegmentsRcvd++
	off := r.unwrap(s.Seq)
	end := off + int64(s.Payload)
	if off > r.rcvNxt+r.h.cfg.RcvWndBytes {
		// Beyond the window (a stale frame of an earlier connection on
		// this id): dropped with a duplicate ACK (Linux tcp_sequence,
		// tcp_send_dupack).
		r.sendAck(now)
		return
	}
	// RFC 7323 §4.3: keep the newest TSval of a segment at or below the
	// last ACK sent, to echo.
	if off <= r.rcvWup && int32(s.TSval-r.tsRecent) >= 0 {
		r.tsRecent = s.TSval
	}
	// Linux tcp_event_data_recv: after an idle gap longer than an RTO the
	// receiver ACKs quickly again (the receiver's RTO is taken as RTOMin:
	// its RTT is small).
	if r.lastRcv > 0 && now-r.lastRcv > r.h.cfg.RTOMinPs {
		r.quick = r.h.cfg.QuickAcks
	}
	r.lastRcv = now
	ackNow := false
	if r.h.cfg.CC == CCDCTCP {
		ackNow = r.dctcpCE(s.ECN == ECNCE, now)
	} else if s.Flags&FlagCWR != 0 {
		r.ece = false // RFC 3168 §6.1.3
	}
	if r.h.cfg.CC != CCDCTCP && r.h.cfg.ECN && s.ECN == ECNCE {
		if !r.ece {
			ackNow = true // Linux tcp_ecn_check_ce: quick ACK on the first CE
		}
		r.ece = true
	}
	switch {
	case end <= r.rcvNxt:
		ackNow = true // a duplicate: ACK at once (Linux tcp_data_queue)
	case off <= r.rcvNxt:
		if r.measureRcvMSS(s.Payload) {
			ackNow = true // a short segment the application reads at once (see measureRcvMSS)
		}
		had := len(r.ooo) > 0
		prev := r.rcvNxt
		r.rcvNxt = end
		for len(r.ooo) > 0 && r.ooo[0].l <= r.rcvNxt {
			r.rcvNxt = max(r.rcvNxt, r.ooo[0].r)
			r.ooo = r.ooo[1:]
		}
		if len(r.ooo) == 0 {
			r.ooo = nil
		}
		st.Delivered += r.rcvNxt - prev
		if had {
			ackNow = true // filling a hole (RFC 5681 §4.2)
		}
	default:
		r.insert(off, end)
		ackNow = true // out of order (RFC 5681 §4.2)
	}
	if ackNow || r.quick > 0 || r.rcvNxt-r.rcvWup > int64(r.h.cfg.MSS) {
		r.sendAck(now)
		return
	}
	if !r.delack.Armed() {
		r.delack.Set(now + r.h.cfg.DelAckPs)
	}
}

// tcpMSSDefault is TCP_MSS_DEFAULT (include/net/tcp.h): the initial
// rcv_mss estimate.
const tcpMSSDefault = 536

// measureRcvMSS is Linux tcp_measure_rcv_mss for in-order data: a
// segment at least rcv_mss long updates the estimate; a shorter one is
// "pushed" (ICSK_ACK_PUSHED; the last segment of a write, which Linux
// sends with PSH) unless it repeats the last short size (then it is the
// new rcv_mss). A pushed segment is ACKed at once: tcp_cleanup_rbuf ACKs
// when the reading application empties the queue after a small segment
// on a connection not in ping-pong mode (this receiver sends no data).
func (r *receiver) measureRcvMSS(payload int) bool {
	lss := r.lastSeg
	r.lastSeg = 0
	if payload >= r.rcvMSS {
		r.rcvMSS = min(payload, r.h.cfg.MSS)
		return false
	}
	// Linux compares the length with the TCP header (20 + the 12-byte
	// timestamp option) against TCP_MSS_DEFAULT + 20.
	if payload+tcpLen+tsLen >= tcpMSSDefault+tcpLen {
		r.lastSeg = payload
		if payload == lss {
			r.rcvMSS = payload
			return false
		}
	}
	return true
}

// dctcpCE is the DCTCP receiver's two-state CE machine (RFC 8257 §3.2,
// Linux dctcp_ece_ack_update): ECE on an ACK tells the CE state of the
// data it acknowledges. When the state changes and a delayed ACK is
// pending, that ACK goes out first (before this segment is counted) with
// the old state; the segment itself is then ACKed at once with the new
// state. It reports whether to ACK at once.
func (r *receiver) dctcpCE(ce bool, now int64) bool {
	if ce == r.ce {
		r.ece = ce
		return false
	}
	if r.delack.Armed() && r.rcvNxt > r.rcvWup {
		r.sendAck(now) // ECE = the old state, ACKs up to the prior rcv_nxt
	}
	r.ce, r.ece = ce, ce
	return true
}

// insert adds [l, r) to the out-of-order intervals, merging neighbours.
func (r *receiver) insert(l, rr int64) {
	r.stamp++
	i := 0
	for i < len(r.ooo) && r.ooo[i].r < l {
		i++
	}
	j := i
	for j < len(r.ooo) && r.ooo[j].l <= rr {
		l = min(l, r.ooo[j].l)
		rr = max(rr, r.ooo[j].r)
		j++
	}
	iv := interval{l, rr, r.stamp}
	if i == j {
		r.ooo = append(r.ooo, interval{})
		copy(r.ooo[i+1:], r.ooo[i:])
		r.ooo[i] = iv
		return
	}
	r.ooo[i] = iv
	r.ooo = append(r.ooo[:i+1], r.ooo[j:]...)
}

func (r *receiver) onDelAck(now int64) {
	if r.rcvNxt > r.rcvWup {
		r.sendAck(now)
	}
}

// sendAck sends a pure ACK with up to MaxSACKBlocks SACK blocks, newest
// first.
func (r *receiver) sendAck(now int64) {
	h := r.h
	s := Segment{Src: r.f.DstIP, Dst: r.f.SrcIP, SrcPort: DataPort, DstPort: uint16(PortBase + r.f.ID),
		Seq: r.ownSeq, Ack: r.isn + uint32(r.rcvNxt), Flags: FlagACK,
		Window: uint16(min(h.cfg.RcvWndBytes>>uint(h.cfg.WScale), 65535)),
		TSval:  h.tsNow(now), TSecr: r.tsRecent}
	if r.ece {
		s.Flags |= FlagECE
	}
	// Pick the newest blocks (few intervals: a selection per block).
	var used [4]int
	for n := 0; n < h.cfg.MaxSACKBlocks && n < len(r.ooo); n++ {
		best := -1
		for i := range r.ooo {
			taken := false
			for k := 0; k < n; k++ {
				taken = taken || used[k] == i
			}
			if !taken && (best < 0 || r.ooo[i].stamp > r.ooo[best].stamp) {
				best = i
			}
		}
		used[n] = best
		s.Sack[n] = SackBlock{r.isn + uint32(r.ooo[best].l), r.isn + uint32(r.ooo[best].r)}
		s.NSack = n + 1
	}
	r.rcvWup = r.rcvNxt
	r.delack.Stop()
	if r.quick > 0 {
		r.quick--
	}
	r.f.Stats.AcksSent++
	h.transmit(&s, now)
}
