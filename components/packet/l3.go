package packet

import "encoding/binary"

// Fixed-function views of a frame's IP header, for traffic-manager features
// that rewrite packets without a program (SONiC trimming's DSCP remark).

const (
	etherTypeVLAN = 0x8100
	etherTypeIPv4 = 0x0800
	etherTypeIPv6 = 0x86dd
)

// IPHeader locates the IP header of an Ethernet frame (at most one 802.1Q
// tag): its offset and version (4 or 6). ok is false for anything else or a
// head too short to hold the header's first 8 bytes.
func IPHeader(head []byte) (off, version int, ok bool) {
	if len(head) < 14 {
		return 0, 0, false
	}
	et := binary.BigEndian.Uint16(head[12:])
	off = 14
	if et == etherTypeVLAN {
		if len(head) < 18 {
			return 0, 0, false
		}
		et = binary.BigEndian.Uint16(head[16:])
		off = 18
	}
	if len(head) < off+8 {
		return 0, 0, false
	}
	switch {
	case et == etherTypeIPv4 && head[off]>>4 == 4:
		return off, 4, true
	case et == etherTypeIPv6 && head[off]>>4 == 6:
		return off, 6, true
	}
	return 0, 0, false
}

// trafficClass returns the IPv4 TOS / IPv6 traffic class byte.
func trafficClass(head []byte, off, version int) byte {
	if version == 4 {
		return head[off+1]
	}
	return head[off]<<4 | head[off+1]>>4
}

// DSCPECN returns the frame's DSCP and ECN bits.
func DSCPECN(head []byte) (dscp, ecn int, ok bool) {
	off, v, ok := IPHeader(head)
	if !ok {
		return 0, 0, false
	}
	tc := trafficClass(head, off, v)
	return int(tc >> 2), int(tc & 3), true
}

// SetDSCP rewrites the frame's DSCP and keeps its ECN bits. The IPv4
// checksum and the length fields are left as they are (sonic-mgmt packet
// trimming test plan, limitation 4: not recalculated after trimming).
func SetDSCP(head []byte, dscp int) bool {
	off, v, ok := IPHeader(head)
	if !ok {
		return false
	}
	tc := byte(dscp&0x3f)<<2 | trafficClass(head, off, v)&3
	if v == 4 {
		head[off+1] = tc
	} else {
		head[off] = head[off]&0xf0 | tc>>4
		head[off+1] = head[off+1]&0x0f | tc<<4
	}
	return true
}

// IPv4Checksum is the header checksum of an IPv4 header (RFC 791, the
// one's-complement sum of RFC 1071) with its checksum field (bytes 10-11)
// left out: the value to store there, or to compare with it.
func IPv4Checksum(hdr []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(hdr); i += 2 {
		if i == 10 {
			continue
		}
		sum += uint32(binary.BigEndian.Uint16(hdr[i:]))
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}
