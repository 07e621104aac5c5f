package rdma

import "archsim/components/packet"

// requester is the sending side of an RC connection doing RDMA WRITEs
// (IBA §9.7 "Reliable service", facts only): each posted WRITE is cut
// into packets of PathMTU payload numbered by consecutive 24-bit PSNs and
// sent at line rate (no congestion control: DCQCN is not modelled). ACKs
// are cumulative; a NAK (PSN sequence error) acknowledges everything
// before its PSN and makes the requester resend from that PSN on
// (go-back-N, §9.7.5.2.2 "Sequence error NAK"); the transport timer
// (§9.7.6.1.3), running while packets are outstanding and restarted on
// every ACK or NAK that acknowledges something new, makes it resend from
// the oldest unacknowledged PSN. A WRITE completes when the ACK covering
// its last PSN arrives.
type requester struct {
	h        *Host
	c        *Conn
	posted   []*Write // posted, not yet active
	msgs     []*Write // active and not complete, in PSN order
	hint     int      // index in msgs of the WRITE holding nxt
	una      int64    // oldest unacknowledged PSN (unwrapped)
	nxt      int64    // next PSN to send
	sent     int64    // one past the highest PSN sent
	end      int64    // next PSN to allocate
	lastPost int64
	inReady  bool
	timer    packet.Timer
	srcPort  uint16
}

func newRequester(h *Host, c *Conn) *requester {
	return &requester{h: h, c: c, timer: packet.Timer{Engine: h.engine, Handler: h, Kind: evTimeout, Port: c.ID},
		srcPort: 0xC000 | uint16(c.ID&0x3fff)} // UDP source port: per-QP entropy (A17.4.5.1)
}

// activate starts the oldest posted WRITE: it gets its PSNs.
func (r *requester) activate(now int64) {
	if len(r.posted) == 0 {
		return
	}
	w := r.posted[0]
	r.posted[0] = nil
	r.posted = r.posted[1:]
	mtu := int64(r.h.cfg.PathMTU)
	n := (w.Bytes + mtu - 1) / mtu
	w.first, w.last = r.end, r.end+n-1
	r.end += n
	r.msgs = append(r.msgs, w)
	r.h.wantTx(r, now)
}

func (r *requester) pending() bool { return r.nxt < r.end }

// next fills x with the packet of PSN nxt and advances nxt; false when
// nothing is left to send.
func (r *requester) next(x *Header, now int64) bool {
	if r.nxt >= r.end {
		return false
	}
	i := r.hint
	if i >= len(r.msgs) || r.msgs[i].first > r.nxt {
		i = 0
	}
	for r.msgs[i].last < r.nxt {
		i++
	}
	r.hint = i
	w := r.msgs[i]
	cfg := &r.h.cfg
	psn := r.nxt
	*x = Header{Src: r.c.SrcIP, Dst: r.c.DstIP, SrcPort: r.srcPort, DestQP: uint32(r.c.ID), PSN: uint32(psn) & PSNMask,
		Payload: cfg.PathMTU}
	switch {
	case w.first == w.last:
		x.Opcode = OpWriteOnly
	case psn == w.first:
		x.Opcode = OpWriteFirst
	case psn == w.last:
		x.Opcode = OpWriteLast
	default:
		x.Opcode = OpWriteMiddle
	}
	if psn == w.last {
		x.Payload = int(w.Bytes - (w.last-w.first)*int64(cfg.PathMTU))
	}
	if hasRETH(x.Opcode) {
		x.VA, x.RKey, x.DMALen = 0x10000000, uint32(r.c.ID), uint32(w.Bytes)
	}
	x.AckReq = psn == w.last || (psn+1)%int64(cfg.AckEvery) == 0
	st := &r.c.Stats
	st.PacketsSent++
	if psn < r.sent {
		st.Retransmits++
	}
	r.nxt++
	r.sent = max(r.sent, r.nxt)
	if !r.timer.Armed() {
		r.timer.Set(now + cfg.TimeoutPs)
	}
	return true
}

// unwrap turns a 24-bit PSN into the unwrapped PSN nearest to ref.
func unwrap(psn uint32, ref int64) int64 {
	d := int32((psn-uint32(ref))<<8) >> 8
	return ref + int64(d)
}

// onAck handles an ACK or NAK.
func (r *requester) onAck(x *Header, now int64) {
	psn := unwrap(x.PSN, r.una)
	nak := x.Syndrome&0x60 == 0x60
	newUna := psn + 1
	if nak {
		newUna = psn
	}
	if newUna < r.una || newUna > r.sent {
		return // stale, or acknowledges what was never sent
	}
	st := &r.c.Stats
	progress := newUna > r.una
	if progress {
		r.una = newUna
		r.nxt = max(r.nxt, r.una)
		r.complete(now)
	}
	if nak && x.Syndrome == SyndromeNAKSeqErr {
		st.NAKsRcvd++
		r.nxt = psn // go back N
		r.h.wantTx(r, now)
	}
	if progress || nak {
		if r.una < r.sent {
			r.timer.Set(now + r.h.cfg.TimeoutPs)
		} else {
			r.timer.Stop()
		}
	}
}

// complete retires the WRITEs whose last PSN is acknowledged.
func (r *requester) complete(now int64) {
	n := 0
	for n < len(r.msgs) && r.msgs[n].last < r.una {
		w := r.msgs[n]
		r.msgs[n] = nil
		w.DonePs = now
		r.c.Stats.WritesDone++
		n++
		if w.OnDone != nil {
			w.OnDone(w)
		}
	}
	if n > 0 {
		r.msgs = r.msgs[n:]
		r.hint = 0
	}
}

// onTimeout is the transport timer's expiry: resend from the oldest
// unacknowledged PSN.
func (r *requester) onTimeout(now int64) {
	if r.una >= r.sent {
		return
	}
	r.c.Stats.Timeouts++
	r.nxt = r.una
	r.timer.Set(now + r.h.cfg.TimeoutPs)
	r.h.wantTx(r, now)
}
