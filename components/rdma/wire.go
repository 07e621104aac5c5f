package rdma

import (
	"encoding/binary"

	"archsim/components/hosts"
	"archsim/components/packet"
)

// Wire format of RoCEv2 (InfiniBand Architecture Specification Vol. 1
// Annex A17 "RoCEv2"; headers in §9.2 BTH, §9.3.2 RETH, §9.3.5 AETH):
// Ethernet II, IPv4 (DF, TTL 64, header checksum), UDP to port 4791 (the
// source port carries per-QP entropy, A17.4.5.1), the 12-byte Base
// Transport Header, the 16-byte RDMA Extended Transport Header on the
// first (or only) packet of a WRITE, the payload, and the 4-byte
// invariant CRC (its value is not computed: the model never corrupts
// bits). Acknowledgements carry the 4-byte ACK Extended Transport Header.
const (
	ethLen  = 14
	ipLen   = 20
	udpLen  = 8
	bthLen  = 12
	rethLen = 16
	aethLen = 4
	icrcLen = 4

	// HeaderLen is the bytes in front of the payload of a middle or last
	// WRITE packet: 14 + 20 + 8 + 12 = 54; a first or only packet adds
	// RETH (70).
	HeaderLen = ethLen + ipLen + udpLen + bthLen
	// AckLen is the frame length of an ACK or NAK: 54 + AETH 4 + ICRC 4.
	AckLen = HeaderLen + aethLen + icrcLen
	// headCap is room for the longest head kept (a first packet's headers).
	headCap = HeaderLen + rethLen + 2

	// UDPPort is the RoCEv2 destination port (IANA 4791, A17.4.5.1).
	UDPPort = 4791
)

// BTH opcodes of the reliable connection (IBA Table 38, RC: 0b000xxxxx).
const (
	OpWriteFirst  = 0x06
	OpWriteMiddle = 0x07
	OpWriteLast   = 0x08
	OpWriteOnly   = 0x0A
	OpAcknowledge = 0x11
)

// AETH syndromes (IBA §9.7.5.1, Table 44): bits 6..5 = 00 ACK (low five
// bits the credit count; 0b11111 = invalid, no end-to-end credits), 11
// NAK with the NAK code in the low bits (0: PSN sequence error).
const (
	SyndromeACK       = 0x1F
	SyndromeNAKSeqErr = 0x60
)

// PSNMask keeps a packet sequence number's 24 bits (IBA §9.2: PSN).
const PSNMask = 1<<24 - 1

// Header is what a RoCEv2 frame's headers carry.
type Header struct {
	Src, Dst uint32 // IPv4 addresses
	SrcPort  uint16 // UDP source port (entropy)
	Opcode   uint8
	AckReq   bool   // BTH A bit: the responder must acknowledge
	DestQP   uint32 // 24 bits
	PSN      uint32 // 24 bits
	// RETH (first/only WRITE packet).
	VA     uint64
	RKey   uint32
	DMALen uint32
	// AETH (acknowledge).
	Syndrome uint8
	MSN      uint32 // 24 bits
	Payload  int    // WRITE payload bytes
}

// HostIP is the address of host h, as tcp.HostIP and hosts.HostIP.
func HostIP(h int) uint32 { return hosts.HostIP(h) }

// hasRETH reports whether the opcode carries a RETH.
func hasRETH(op uint8) bool { return op == OpWriteFirst || op == OpWriteOnly }

// FrameLen is the frame length (without FCS) of h.
func (h *Header) FrameLen() int {
	if h.Opcode == OpAcknowledge {
		return AckLen
	}
	n := HeaderLen + h.Payload + icrcLen
	if hasRETH(h.Opcode) {
		n += rethLen
	}
	return n
}

// headLen is the header bytes a frame of h keeps in its head.
func (h *Header) headLen() int {
	switch {
	case h.Opcode == OpAcknowledge:
		return HeaderLen + aethLen
	case hasRETH(h.Opcode):
		return HeaderLen + rethLen
	}
	return HeaderLen
}

// Encode writes h's headers into b (cap >= headCap) and returns them.
func Encode(b []byte, h *Header, ipID uint16) []byte {
	hl := h.headLen()
	b = b[:hl]
	clear(b)
	b[0], b[6] = 0x02, 0x02
	binary.BigEndian.PutUint32(b[2:], h.Dst)
	binary.BigEndian.PutUint32(b[8:], h.Src)
	binary.BigEndian.PutUint16(b[12:], 0x0800)
	ip := b[ethLen:]
	ipTotal := h.FrameLen() - ethLen
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(ipTotal))
	binary.BigEndian.PutUint16(ip[4:], ipID)
	ip[6] = 0x40 // DF (A17.4.3: RoCEv2 packets are not fragmented)
	ip[8] = 64
	ip[9] = 17
	binary.BigEndian.PutUint32(ip[12:], h.Src)
	binary.BigEndian.PutUint32(ip[16:], h.Dst)
	binary.BigEndian.PutUint16(ip[10:], packet.IPv4Checksum(ip[:ipLen]))
	u := ip[ipLen:]
	binary.BigEndian.PutUint16(u[0:], h.SrcPort)
	binary.BigEndian.PutUint16(u[2:], UDPPort)
	binary.BigEndian.PutUint16(u[4:], uint16(ipTotal-ipLen))
	t := u[udpLen:]
	t[0] = h.Opcode
	t[1] = 0x40 // SE 0, M 1 (migration state: migrated), pad 0, TVer 0
	binary.BigEndian.PutUint16(t[2:], 0xffff)
	binary.BigEndian.PutUint32(t[4:], h.DestQP&PSNMask)
	binary.BigEndian.PutUint32(t[8:], h.PSN&PSNMask)
	if h.AckReq {
		t[8] |= 0x80
	}
	x := t[bthLen:]
	switch {
	case h.Opcode == OpAcknowledge:
		binary.BigEndian.PutUint32(x, h.MSN&PSNMask)
		x[0] = h.Syndrome
	case hasRETH(h.Opcode):
		binary.BigEndian.PutUint64(x, h.VA)
		binary.BigEndian.PutUint32(x[8:], h.RKey)
		binary.BigEndian.PutUint32(x[12:], h.DMALen)
	}
	return b
}

// Decode reads a RoCEv2 frame's headers; ok is false for anything else.
func Decode(head []byte, h *Header) bool {
	if len(head) < HeaderLen || binary.BigEndian.Uint16(head[12:]) != 0x0800 {
		return false
	}
	ip := head[ethLen:]
	if ip[0] != 0x45 || ip[9] != 17 {
		return false
	}
	u := ip[ipLen:]
	if binary.BigEndian.Uint16(u[2:]) != UDPPort {
		return false
	}
	t := u[udpLen:]
	*h = Header{Src: binary.BigEndian.Uint32(ip[12:]), Dst: binary.BigEndian.Uint32(ip[16:]),
		SrcPort: binary.BigEndian.Uint16(u[0:]), Opcode: t[0], AckReq: t[8]&0x80 != 0,
		DestQP: binary.BigEndian.Uint32(t[4:]) & PSNMask, PSN: binary.BigEndian.Uint32(t[8:]) & PSNMask}
	x := t[bthLen:]
	ipTotal := int(binary.BigEndian.Uint16(ip[2:]))
	switch {
	case h.Opcode == OpAcknowledge:
		if len(x) < aethLen {
			return false
		}
		h.Syndrome = x[0]
		h.MSN = binary.BigEndian.Uint32(x) & PSNMask
	case hasRETH(h.Opcode):
		if len(x) < rethLen {
			return false
		}
		h.VA = binary.BigEndian.Uint64(x)
		h.RKey = binary.BigEndian.Uint32(x[8:])
		h.DMALen = binary.BigEndian.Uint32(x[12:])
		h.Payload = ipTotal - ipLen - udpLen - bthLen - rethLen - icrcLen
	case h.Opcode == OpWriteMiddle || h.Opcode == OpWriteLast:
		h.Payload = ipTotal - ipLen - udpLen - bthLen - icrcLen
	default:
		return false
	}
	return h.Payload >= 0
}
