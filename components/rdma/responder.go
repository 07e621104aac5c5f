package rdma

// responder is the receiving side of an RC connection (IBA §9.7.5,
// facts only): it accepts only the expected PSN, placing the payload in
// memory; a PSN below it is a duplicate, dropped, and acknowledged if the
// packet asks for it (AckReq); a PSN above it is a sequence error: the
// packet is dropped and one NAK carrying the expected PSN is sent per
// gap (§9.7.5.2.2: no further NAK until the expected PSN arrives).
// Packets with the AckReq bit are acknowledged at once with the PSN of
// the newest in-order packet (coalesced ACK).
type responder struct {
	h       *Host
	c       *Conn
	epsn    int64 // expected PSN (unwrapped)
	nakSent bool
	msn     uint32 // message sequence number: WRITEs completed
}

func (p *responder) onData(x *Header, now int64) {
	st := &p.c.Stats
	st.PacketsRcvd++
	psn := unwrap(x.PSN, p.epsn)
	switch {
	case psn == p.epsn:
		p.epsn++
		p.nakSent = false
		st.BytesPlaced += int64(x.Payload)
		if x.Opcode == OpWriteLast || x.Opcode == OpWriteOnly {
			p.msn++
			st.WritesPlaced++
		}
		if x.AckReq {
			p.ack(SyndromeACK, p.epsn-1, now)
		}
	case psn < p.epsn:
		st.Duplicates++
		if x.AckReq {
			p.ack(SyndromeACK, p.epsn-1, now)
		}
	default:
		st.OutOfSequence++
		if !p.nakSent {
			p.nakSent = true
			st.NAKsSent++
			p.ack(SyndromeNAKSeqErr, p.epsn, now)
		}
	}
}

// ack sends an ACK (psn: the newest in-order PSN) or a NAK (psn: the
// expected one).
func (p *responder) ack(syndrome uint8, psn int64, now int64) {
	if syndrome == SyndromeACK {
		p.c.Stats.AcksSent++
	}
	p.h.sendCtrl(Header{Src: p.c.DstIP, Dst: p.c.SrcIP, SrcPort: 0xC000 | uint16(p.c.ID&0x3fff), Opcode: OpAcknowledge,
		DestQP: uint32(p.c.ID), PSN: uint32(psn) & PSNMask, Syndrome: syndrome, MSN: p.msn & PSNMask}, now)
}
