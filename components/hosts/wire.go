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

// Header is what the NDP wire header of a packet carries.
type Header struct {
	Src, Dst uint32 // IPv4 source and destination: HostIP of the hosts
	Flow     uint16 // UDP source port: the flow id
	Flags    uint8  // NDP shim flags: FlagACK, FlagNACK, FlagPULL, FlagTrimmed
	Seq      uint16 // a data packet's sequence number; an ACK's or NACK's: the packet it answers
	Pull     uint16 // the receiver's running pull count for the flow (with FlagPULL)
}

// headCap is the capacity of the heads hosts make: room behind the 50
// header bytes (an allocation size class) for a switch's deparser to
// prepend bridged metadata or add headers in place (ndp.p4 grows a header
// to 66 bytes).
const headCap = 80

// encode writes h as the header of a length-byte NDP packet.
func encode(h Header, length int) []byte {
	return encodeTo(make([]byte, HeaderLen, headCap), h, length)
}

// encodeTo is encode into b (HeaderLen zero bytes).
func encodeTo(b []byte, h Header, length int) []byte {
	binary.BigEndian.PutUint16(b[12:], 0x0800)
	ip := b[ethLen:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(length-ethLen))
	ip[8] = 64
	ip[9] = 17
	binary.BigEndian.PutUint32(ip[12:], h.Src)
	binary.BigEndian.PutUint32(ip[16:], h.Dst)
	udp := ip[ipLen:]
	binary.BigEndian.PutUint16(udp[0:], h.Flow)
	binary.BigEndian.PutUint16(udp[2:], NDPPort)
	binary.BigEndian.PutUint16(udp[4:], uint16(length-ethLen-ipLen))
	n := udp[udpLen:]
	n[0] = h.Flags
	binary.BigEndian.PutUint16(n[2:], h.Seq)
	binary.BigEndian.PutUint16(n[4:], h.Pull)
	return b
}

// Decode reads an NDP packet's header from head; ok is false for any other packet.
func Decode(head []byte) (h Header, ok bool) {
	if len(head) < HeaderLen || binary.BigEndian.Uint16(head[12:]) != 0x0800 {
		return h, false
	}
	ip := head[ethLen:]
	if ip[9] != 17 {
		return h, false
	}
	udp := ip[ipLen:]
	if binary.BigEndian.Uint16(udp[2:]) != NDPPort {
		return h, false
	}
	n := udp[udpLen:]
	h.Src = binary.BigEndian.Uint32(ip[12:])
	h.Dst = binary.BigEndian.Uint32(ip[16:])
	h.Flow = binary.BigEndian.Uint16(udp[0:])
	h.Flags = n[0]
	h.Seq = binary.BigEndian.Uint16(n[2:])
	h.Pull = binary.BigEndian.Uint16(n[4:])
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
	h, ok := Decode(p.Head)
	return ok && h.Flags&(FlagACK|FlagNACK|FlagPULL|FlagTrimmed) != 0
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

// flowTable finds a host's sources or sinks by flow id (flow ids are small
// and dense: 0 .. flows-1 of the run), without a map lookup per packet.
type flowTable[T any] struct{ byID []*T }

func (t *flowTable[T]) put(id int, v *T) {
	if id >= len(t.byID) {
		t.byID = append(t.byID, make([]*T, id+1-len(t.byID))...)
	}
	t.byID[id] = v
}

// get returns the entry of flow id, or nil.
func (t *flowTable[T]) get(id int) *T {
	if id < 0 || id >= len(t.byID) {
		return nil
	}
	return t.byID[id]
}
