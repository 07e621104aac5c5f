// Package hosts models end hosts attached to a switch by links: NDP
// senders and receivers (NDP as modelled in htsim: initial window at line
// rate, receiver-driven pulls paced per receiver port, NACK + pull for a
// trimmed header, retransmission of trimmed packets).
package hosts

import (
	"encoding/binary"

	"archsim/components/packet"
)

// Wire format of the NDP packets hosts exchange: Ethernet, IPv4, UDP to
// port 666 and the 8-byte NDP shim (flags, next protocol, sequence number,
// pull number, reserved), as the ndp programs parse them.
const (
	ethLen    = 14
	ipLen     = 20
	udpLen    = 8
	ndpLen    = 8
	HeaderLen = ethLen + ipLen + udpLen + ndpLen // 50 bytes
	NDPPort   = 666

	// NDP shim flags: a control packet sets one of bits 3..1; the switch
	// marks a trimmed header with bit 7 (ndp.p4's set_ndp_data_flags).
	FlagACK     = 0x02
	FlagNACK    = 0x04
	FlagPULL    = 0x08
	FlagTrimmed = 0x80
)

// ndpHeader is the part of an NDP packet hosts read and write.
type ndpHeader struct {
	src, dst uint32 // IPv4 addresses
	flow     uint16 // UDP source port: the flow id
	flags    uint8
	seq      uint16
	pull     uint16
}

func encode(h ndpHeader, length int) []byte {
	b := make([]byte, HeaderLen)
	binary.BigEndian.PutUint16(b[12:], 0x0800)
	ip := b[ethLen:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(length-ethLen))
	ip[8] = 64
	ip[9] = 17
	binary.BigEndian.PutUint32(ip[12:], h.src)
	binary.BigEndian.PutUint32(ip[16:], h.dst)
	udp := ip[ipLen:]
	binary.BigEndian.PutUint16(udp[0:], h.flow)
	binary.BigEndian.PutUint16(udp[2:], NDPPort)
	binary.BigEndian.PutUint16(udp[4:], uint16(length-ethLen-ipLen))
	n := udp[udpLen:]
	n[0] = h.flags
	binary.BigEndian.PutUint16(n[2:], h.seq)
	binary.BigEndian.PutUint16(n[4:], h.pull)
	return b
}

// decode reads an NDP packet's header; ok is false for anything else.
func decode(b []byte) (h ndpHeader, ok bool) {
	if len(b) < HeaderLen || binary.BigEndian.Uint16(b[12:]) != 0x0800 {
		return h, false
	}
	ip := b[ethLen:]
	if ip[9] != 17 {
		return h, false
	}
	udp := ip[ipLen:]
	if binary.BigEndian.Uint16(udp[2:]) != NDPPort {
		return h, false
	}
	n := udp[udpLen:]
	h.src = binary.BigEndian.Uint32(ip[12:])
	h.dst = binary.BigEndian.Uint32(ip[16:])
	h.flow = binary.BigEndian.Uint16(udp[0:])
	h.flags = n[0]
	h.seq = binary.BigEndian.Uint16(n[2:])
	h.pull = binary.BigEndian.Uint16(n[4:])
	return h, true
}

// Event kinds of the hosts' own wake-ups (packet.Event.Kind).
const (
	evFlowTimer = packet.KindLocal + iota // a flow starts (cbr: its next packet is due); Port: the flow
	evPace                                // the NDP pull pacer may send the next PULL
	evNICFree                             // the NIC's transmitter is free
)

// HostIP is the address of host h (10.1.h.1); the ndp programs route the
// /24 of host h to its port.
func HostIP(h int) uint32 { return 10<<24 | 1<<16 | uint32(h)<<8 | 1 }

// IsHeader reports whether an NDP packet is a header: a control packet
// (ACK, NACK, PULL) or a trimmed data packet.
func IsHeader(p *packet.Packet) bool {
	h, ok := decode(p.Head)
	return ok && h.flags&(FlagACK|FlagNACK|FlagPULL|FlagTrimmed) != 0
}

// Trim turns a data packet into its header of size bytes, marked trimmed.
func Trim(p *packet.Packet, size int) {
	if len(p.Head) > HeaderLen {
		p.Head = p.Head[:HeaderLen]
	}
	p.Head = append([]byte(nil), p.Head...)
	if len(p.Head) >= HeaderLen {
		p.Head[ethLen+ipLen+udpLen] |= FlagTrimmed
	}
	p.Len = size
}

// DstHost is the host index a packet is addressed to (10.1.h.1), or -1.
func DstHost(p *packet.Packet) int {
	if len(p.Head) < ethLen+ipLen {
		return -1
	}
	dst := binary.BigEndian.Uint32(p.Head[ethLen+16:])
	if dst>>16 != 10<<8|1 {
		return -1
	}
	return int(dst >> 8 & 0xff)
}
