package workers

import (
	"encoding/binary"
	"fmt"

	"archsim/components/packet"
)

// Wire formats. Both programs take UDP over IPv4 over Ethernet.
const (
	ethLen = 14
	ipLen  = 20
	udpLen = 8
	l4At   = ethLen + ipLen // UDP header offset
)

func putL2L4(b []byte, w int, srcPort, dstPort uint16) {
	binary.BigEndian.PutUint16(b[12:], 0x0800)
	ip := b[ethLen:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(len(b)-ethLen))
	ip[8] = 64
	ip[9] = 17
	binary.BigEndian.PutUint32(ip[12:], 0x0a000001+uint32(w)) // 10.0.0.w+1
	binary.BigEndian.PutUint32(ip[16:], 0x0a010001)           // 10.1.0.1: the aggregator
	udp := b[l4At:]
	binary.BigEndian.PutUint16(udp[0:], srcPort)
	binary.BigEndian.PutUint16(udp[2:], dstPort)
	binary.BigEndian.PutUint16(udp[4:], uint16(len(b)-l4At))
}

func udpPorts(b []byte) (src, dst uint16, ok bool) {
	if len(b) < l4At+udpLen || binary.BigEndian.Uint16(b[12:]) != 0x0800 || b[ethLen+9] != 17 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint16(b[l4At:]), binary.BigEndian.Uint16(b[l4At+2:]), true
}

// TrioML speaks the trio-ml program's protocol: the Fig. 8 header after
// UDP to port Port, then the gradients as 32-bit big-endian words.
type TrioML struct {
	Port, ResultPort uint16
	Job              uint8
}

// TrioMLHeaderLen is the Fig. 8 header's size.
const TrioMLHeaderLen = 12

// Packet implements Protocol.
func (t TrioML) Packet(w, gen, b int, seq int64, grads []int32) *packet.Packet {
	at := l4At + udpLen
	buf := make([]byte, at+TrioMLHeaderLen+4*len(grads))
	putL2L4(buf, w, 4000+uint16(w), t.Port)
	h := buf[at:]
	h[0] = t.Job
	binary.BigEndian.PutUint32(h[1:], uint32(b))
	h[6] = uint8(w)                                               // src_id
	h[7] = 1                                                      // src_cnt: one server behind this contribution
	binary.BigEndian.PutUint16(h[8:], uint16(gen))                // gen_id
	binary.BigEndian.PutUint16(h[10:], uint16(len(grads))&0x0fff) // grad_cnt
	for i, g := range grads {
		binary.BigEndian.PutUint32(h[TrioMLHeaderLen+4*i:], uint32(g))
	}
	return &packet.Packet{ID: uint64(w)<<48 | uint64(seq), Flow: w, Head: buf, Len: len(buf), Passes: 1}
}

// Decode implements Protocol: a Result packet (UDP from Port to
// ResultPort).
func (t TrioML) Decode(pkt *packet.Packet) (Result, bool) { return t.decode(pkt, nil) }

// decode is Decode with the values in vals' array when it has room.
func (t TrioML) decode(pkt *packet.Packet, vals []int32) (Result, bool) {
	b := pkt.Head
	src, dst, ok := udpPorts(b)
	at := l4At + udpLen
	if !ok || src != t.Port || dst != t.ResultPort || len(b) < at+TrioMLHeaderLen {
		return Result{}, false
	}
	h := b[at:]
	r := Result{Block: int(binary.BigEndian.Uint32(h[1:])), Gen: int(binary.BigEndian.Uint16(h[8:])),
		Degraded: h[5]&0x04 != 0, Sources: int(h[7])}
	n := int(binary.BigEndian.Uint16(h[10:]) & 0x0fff)
	data := h[TrioMLHeaderLen:]
	n = min(n, len(data)/4)
	r.Values = valuesBuf(vals, n)
	for i := range r.Values {
		r.Values[i] = int32(binary.BigEndian.Uint32(data[4*i:]))
	}
	return r, true
}

// values is Decode's len(r.Values) without reading them.
func (t TrioML) values(pkt *packet.Packet) (int, bool) {
	b := pkt.Head
	src, dst, ok := udpPorts(b)
	at := l4At + udpLen
	if !ok || src != t.Port || dst != t.ResultPort || len(b) < at+TrioMLHeaderLen {
		return 0, false
	}
	h := b[at:]
	n := int(binary.BigEndian.Uint16(h[10:]) & 0x0fff)
	return min(n, len(h[TrioMLHeaderLen:])/4), true
}

// Slot implements Protocol: Trio-ML results name (gen, block).
func (TrioML) Slot(int64) int { return -1 }

// SwitchML speaks the protocol of the switchml and switchml-256 programs:
// the SwitchML header (packet type, worker, pool index = slot × 2 + shadow
// set, job) and the values as 32-bit big-endian words. Values is 64
// (switchml: two 128-byte headers d0 and d1; 0 means 64) or 256
// (switchml-256: four 64-value sections, and two more header bytes, the
// section and the remaining count its recirculation passes carry, sent as
// 0). Pool is the number of slots a worker cycles through (its window).
type SwitchML struct {
	Port   uint16
	Pool   int
	Values int
}

// SwitchML packet types (the programs' CONSUME and HARVEST).
const (
	switchMLConsume = 0
	switchMLHarvest = 1
	// SwitchMLValues is the number of 32-bit values per switchml packet.
	SwitchMLValues = 64
	// SwitchML256Values is the number per switchml-256 packet.
	SwitchML256Values = 256
	switchMLHdrLen    = 6
	switchML256HdrLen = 8
)

// PerPacket is the number of values a packet carries.
func (s SwitchML) PerPacket() int {
	if s.Values == 0 {
		return SwitchMLValues
	}
	return s.Values
}

func (s SwitchML) hdrLen() int {
	if s.PerPacket() == SwitchML256Values {
		return switchML256HdrLen
	}
	return switchMLHdrLen
}

// Validate checks the packet format and the pool.
func (s SwitchML) Validate() error {
	if n := s.PerPacket(); n != SwitchMLValues && n != SwitchML256Values {
		return fmt.Errorf("switchml values per packet: %d, want %d (switchml) or %d (switchml-256)", n, SwitchMLValues, SwitchML256Values)
	}
	if s.Pool < 1 || s.Pool > 1<<15 {
		return fmt.Errorf("switchml pool: %d slots, want 1..32768 (the 16-bit pool index holds slot × 2 + set)", s.Pool)
	}
	return nil
}

// Packet implements Protocol.
func (s SwitchML) Packet(w, gen, b int, seq int64, grads []int32) *packet.Packet {
	at, hl, n := l4At+udpLen, s.hdrLen(), s.PerPacket()
	buf := make([]byte, at+hl+4*n)
	putL2L4(buf, w, 4000+uint16(w), s.Port)
	h := buf[at:]
	h[0] = switchMLConsume
	h[1] = uint8(w)
	binary.BigEndian.PutUint16(h[2:], uint16(s.Slot(seq)))
	for i, g := range grads[:min(len(grads), n)] {
		binary.BigEndian.PutUint32(h[hl+4*i:], uint32(g))
	}
	return &packet.Packet{ID: uint64(w)<<48 | uint64(seq), Flow: w, Head: buf, Len: len(buf), Passes: 1}
}

// Slot implements Protocol: the pool index of the worker's seq-th block.
func (s SwitchML) Slot(seq int64) int {
	slot := int(seq % int64(s.Pool))
	set := int(seq/int64(s.Pool)) % 2
	return slot*2 + set
}

// Decode implements Protocol: a HARVEST packet the switch multicast, its
// values in gradient order (switchml-256 returns its sections in order).
func (s SwitchML) Decode(pkt *packet.Packet) (Result, bool) { return s.decode(pkt, nil) }

// decode is Decode with the values in vals' array when it has room.
func (s SwitchML) decode(pkt *packet.Packet, vals []int32) (Result, bool) {
	b := pkt.Head
	_, dst, ok := udpPorts(b)
	at, hl, n := l4At+udpLen, s.hdrLen(), s.PerPacket()
	if !ok || dst != s.Port || len(b) < at+hl+4*n || b[at] != switchMLHarvest {
		return Result{}, false
	}
	h := b[at:]
	r := Result{Slot: int(binary.BigEndian.Uint16(h[2:])), BySlot: true, Values: valuesBuf(vals, n)}
	for i := range r.Values {
		r.Values[i] = int32(binary.BigEndian.Uint32(h[hl+4*i:]))
	}
	return r, true
}

// values is Decode's len(r.Values) without reading them.
func (s SwitchML) values(pkt *packet.Packet) (int, bool) {
	b := pkt.Head
	_, dst, ok := udpPorts(b)
	at, hl, n := l4At+udpLen, s.hdrLen(), s.PerPacket()
	if !ok || dst != s.Port || len(b) < at+hl+4*n || b[at] != switchMLHarvest {
		return 0, false
	}
	return n, true
}

// valuesBuf is n values (to be overwritten) in vals' array when it has
// room (nil vals: a new one).
func valuesBuf(vals []int32, n int) []int32 {
	if vals == nil || cap(vals) < n {
		return make([]int32, n)
	}
	return vals[:n]
}
