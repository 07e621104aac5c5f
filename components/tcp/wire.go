package tcp

import (
	"encoding/binary"

	"archsim/components/hosts"
	"archsim/components/packet"
)

// Wire format: Ethernet II (ethertype 0x0800), IPv4 without options
// (protocol 6, DF, TTL 64, header checksum), TCP with the options Linux
// sends on an established connection with timestamps and SACK:
// NOP NOP TS (12 bytes) on every segment, and NOP NOP SACK (4 + 8n bytes)
// on an ACK that reports out-of-order data (RFC 7323 appendix A layout,
// RFC 2018 §3). The TCP checksum is left zero (NIC offload).
const (
	ethLen = 14
	ipLen  = 20
	tcpLen = 20
	tsLen  = 12 // NOP NOP kind=8 len=10 TSval TSecr

	// HeaderLen is the headers of a data segment: 14 + 20 + 32 = 66 bytes.
	HeaderLen = ethLen + ipLen + tcpLen + tsLen
	// headCap is room for the largest header (60-byte TCP header).
	headCap = ethLen + ipLen + 60 + 2

	// PortBase is the TCP source port of flow 0; flow f uses PortBase+f,
	// to DataPort at the receiver (so flow ids are below 65536-PortBase).
	PortBase = 1024
	DataPort = 5201

	// TCP flags.
	FlagFIN = 0x01
	FlagSYN = 0x02
	FlagRST = 0x04
	FlagPSH = 0x08
	FlagACK = 0x10
	FlagECE = 0x40
	FlagCWR = 0x80

	// ECN codepoints of the IPv4 TOS byte (RFC 3168 §5).
	ECNNotECT = 0
	ECNECT0   = 2
	ECNCE     = 3
)

// MaxFlows is the number of flow ids the port numbering allows.
const MaxFlows = 65536 - PortBase

// HostIP is the address of host h, 10.1.h.1 (as hosts.HostIP: the switch
// programs route the /24 of host h to its port).
func HostIP(h int) uint32 { return hosts.HostIP(h) }

// SackBlock is a SACK block: sequence numbers [Left, Right).
type SackBlock struct{ Left, Right uint32 }

// Segment is what a TCP frame's headers carry.
type Segment struct {
	Src, Dst     uint32 // IPv4 addresses
	ECN          uint8  // IPv4 ECN bits
	SrcPort      uint16
	DstPort      uint16
	Seq, Ack     uint32
	Flags        uint8
	Window       uint16 // unscaled
	TSval, TSecr uint32
	NSack        int
	Sack         [4]SackBlock
	Payload      int // TCP payload bytes (from the IPv4 total length)
}

// optLen is the TCP option bytes of s.
func (s *Segment) optLen() int {
	n := tsLen
	if s.NSack > 0 {
		n += 4 + 8*s.NSack
	}
	return n
}

// FrameLen is the frame length of s: headers plus payload.
func (s *Segment) FrameLen() int { return ethLen + ipLen + tcpLen + s.optLen() + s.Payload }

// encode writes s's headers into b (cap >= headCap) and returns them.
func encode(b []byte, s *Segment, ipID uint16) []byte {
	hl := ethLen + ipLen + tcpLen + s.optLen()
	b = b[:hl]
	clear(b)
	// Ethernet: locally administered MACs made from the IP addresses.
	b[0], b[6] = 0x02, 0x02
	binary.BigEndian.PutUint32(b[2:], s.Dst)
	binary.BigEndian.PutUint32(b[8:], s.Src)
	binary.BigEndian.PutUint16(b[12:], 0x0800)
	ip := b[ethLen:]
	ip[0] = 0x45
	ip[1] = s.ECN & 3
	binary.BigEndian.PutUint16(ip[2:], uint16(hl-ethLen+s.Payload))
	binary.BigEndian.PutUint16(ip[4:], ipID)
	ip[6] = 0x40 // DF
	ip[8] = 64
	ip[9] = 6
	binary.BigEndian.PutUint32(ip[12:], s.Src)
	binary.BigEndian.PutUint32(ip[16:], s.Dst)
	binary.BigEndian.PutUint16(ip[10:], packet.IPv4Checksum(ip[:ipLen]))
	t := ip[ipLen:]
	binary.BigEndian.PutUint16(t[0:], s.SrcPort)
	binary.BigEndian.PutUint16(t[2:], s.DstPort)
	binary.BigEndian.PutUint32(t[4:], s.Seq)
	binary.BigEndian.PutUint32(t[8:], s.Ack)
	t[12] = byte((tcpLen+s.optLen())/4) << 4
	t[13] = s.Flags
	binary.BigEndian.PutUint16(t[14:], s.Window)
	o := t[tcpLen:]
	o[0], o[1], o[2], o[3] = 1, 1, 8, 10
	binary.BigEndian.PutUint32(o[4:], s.TSval)
	binary.BigEndian.PutUint32(o[8:], s.TSecr)
	if s.NSack > 0 {
		o = o[tsLen:]
		o[0], o[1], o[2], o[3] = 1, 1, 5, byte(2+8*s.NSack)
		for i := 0; i < s.NSack; i++ {
			binary.BigEndian.PutUint32(o[4+8*i:], s.Sack[i].Left)
			binary.BigEndian.PutUint32(o[8+8*i:], s.Sack[i].Right)
		}
	}
	return b
}

// Decode reads a TCP/IPv4 frame's headers; ok is false for anything else
// (another ethertype or protocol, IP options, a truncated head).
func Decode(head []byte, s *Segment) bool {
	if len(head) < ethLen+ipLen+tcpLen || binary.BigEndian.Uint16(head[12:]) != 0x0800 {
		return false
	}
	ip := head[ethLen:]
	if ip[0] != 0x45 || ip[9] != 6 {
		return false
	}
	t := ip[ipLen:]
	doff := int(t[12]>>4) * 4
	if doff < tcpLen || len(t) < doff {
		return false
	}
	*s = Segment{
		Src: binary.BigEndian.Uint32(ip[12:]), Dst: binary.BigEndian.Uint32(ip[16:]), ECN: ip[1] & 3,
		SrcPort: binary.BigEndian.Uint16(t[0:]), DstPort: binary.BigEndian.Uint16(t[2:]),
		Seq: binary.BigEndian.Uint32(t[4:]), Ack: binary.BigEndian.Uint32(t[8:]),
		Flags: t[13], Window: binary.BigEndian.Uint16(t[14:]),
		Payload: int(binary.BigEndian.Uint16(ip[2:])) - ipLen - doff,
	}
	o := t[tcpLen:doff]
	for len(o) > 0 {
		switch o[0] {
		case 0: // end of options
			return true
		case 1: // NOP
			o = o[1:]
			continue
		}
		if len(o) < 2 || int(o[1]) < 2 || int(o[1]) > len(o) {
			return false
		}
		switch {
		case o[0] == 8 && o[1] == 10:
			s.TSval = binary.BigEndian.Uint32(o[2:])
			s.TSecr = binary.BigEndian.Uint32(o[6:])
		case o[0] == 5:
			n := min((int(o[1])-2)/8, len(s.Sack))
			for i := 0; i < n; i++ {
				s.Sack[i] = SackBlock{binary.BigEndian.Uint32(o[2+8*i:]), binary.BigEndian.Uint32(o[6+8*i:])}
			}
			s.NSack = n
		}
		o = o[o[1]:]
	}
	return true
}
