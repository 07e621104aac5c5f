package programs

import "encoding/binary"

// ParseResult tells what a parser did with a packet.
type ParseResult struct {
	States   int  // parser states visited
	Bytes    int  // header bytes extracted (including bridged metadata)
	Offset   int  // first payload byte
	Rejected bool // the parser reached reject or ran past the packet
}

// byteAt returns byte i of a packet whose first bytes are head and whose
// remaining payload (up to length) is zero.
func byteAt(head []byte, i int) byte {
	if i < len(head) {
		return head[i]
	}
	return 0
}

// getBits reads width bits at bit offset off (big-endian, as on the wire).
// Bytes past the end of head read as 0.
func getBits(head []byte, off, width int) uint64 {
	if width <= 0 {
		return 0
	}
	// The field lies in bits sh..end-1 of the bytes from byte i: load the
	// smallest big-endian word holding them that head has, and cut it out.
	i, sh := off>>3, off&7
	end := sh + width
	var w uint64
	var bits int
	switch {
	case end <= 8 && i < len(head):
		w, bits = uint64(head[i]), 8
	case end <= 16 && i+2 <= len(head):
		w, bits = uint64(binary.BigEndian.Uint16(head[i:])), 16
	case end <= 32 && i+4 <= len(head):
		w, bits = uint64(binary.BigEndian.Uint32(head[i:])), 32
	case end <= 48 && i+6 <= len(head):
		w, bits = uint64(binary.BigEndian.Uint16(head[i:]))<<32|uint64(binary.BigEndian.Uint32(head[i+2:])), 48
	case end <= 64 && i+8 <= len(head):
		w, bits = binary.BigEndian.Uint64(head[i:]), 64
	case end <= 64:
		// Past the end of head: the missing bytes are 0.
		for k := 0; k < 8; k++ {
			w = w<<8 | uint64(byteAt(head, i+k))
		}
		bits = 64
	default:
		return getBitsSlow(head, off, width)
	}
	w >>= uint(bits - end)
	if width < 64 {
		w &= 1<<uint(width) - 1
	}
	return w
}

// getBitsSlow is getBits one byte piece at a time (any offset and width).
func getBitsSlow(head []byte, off, width int) uint64 {
	var v uint64
	for i := 0; i < width; {
		bit := off + i
		b := byteAt(head, bit/8)
		inByte := 8 - bit%8
		take := min(inByte, width-i)
		shift := inByte - take
		v = v<<uint(take) | uint64(b>>uint(shift))&(1<<uint(take)-1)
		i += take
	}
	return v
}

// putBits writes the low width bits of v at bit offset off; the other bits
// of buf are unchanged.
func putBits(buf []byte, off, width int, v uint64) {
	i, sh := off>>3, off&7
	if width <= 0 {
		return
	}
	if sh == 0 {
		switch width {
		case 8:
			buf[i] = byte(v)
			return
		case 16:
			binary.BigEndian.PutUint16(buf[i:], uint16(v))
			return
		case 32:
			binary.BigEndian.PutUint32(buf[i:], uint32(v))
			return
		case 64:
			binary.BigEndian.PutUint64(buf[i:], v)
			return
		}
	}
	if sh+width <= 64 && i >= 0 && i+8 <= len(buf) {
		// Read-modify-write the 8 bytes from byte i.
		shift := uint(64 - sh - width)
		mask := ^uint64(0) >> uint(64-width) << shift
		w := binary.BigEndian.Uint64(buf[i:])
		binary.BigEndian.PutUint64(buf[i:], w&^mask|v<<shift&mask)
		return
	}
	putBitsSlow(buf, off, width, v)
}

// putBitsSlow is putBits one byte piece at a time (any offset and width).
func putBitsSlow(buf []byte, off, width int, v uint64) {
	for i := 0; i < width; {
		bit := off + i
		inByte := 8 - bit%8
		take := min(inByte, width-i)
		shift := inByte - take
		part := byte(v>>uint(width-i-take)) & (1<<uint(take) - 1)
		mask := byte(1<<uint(take)-1) << uint(shift)
		buf[bit/8] = buf[bit/8]&^mask | part<<uint(shift)
		i += take
	}
}

// Parse runs the ingress (or, with egress set, the egress) parse graph over
// a packet (head bytes, total length) and fills the header fields and
// validity bits of phv. With bridged set, the packet starts with the
// bridged metadata the ingress deparser prepended.
func (p *Program) Parse(head []byte, length int, phv []int64, egress, bridged bool) ParseResult {
	return p.Codec().Parse(head, length, phv, egress, bridged)
}

// PayloadBytes returns the bytes of a packet after its parsed headers, the
// bytes payload32 reads (Exec.Payload): head[offset:] (offset is the
// parser's ParseResult.Offset), cut at the frame's length. A packet's head
// may hold fewer bytes than the frame (the rest is not modelled and reads
// as 0) or, after truncation, more (they are not part of the frame). It
// returns nil when there are none.
func PayloadBytes(head []byte, length, offset int) []byte {
	end := min(len(head), length)
	if offset < 0 || offset >= end {
		return nil
	}
	return head[offset:end]
}

// Deparse serializes the valid headers in declaration order, prefixed by
// the bridged metadata when withBridge is set, followed by the payload (the
// packet's bytes from payloadOff on). It returns the new head bytes (a new
// array: head is not modified) and the new total length.
func (p *Program) Deparse(phv []int64, head []byte, length, payloadOff int, withBridge bool) ([]byte, int) {
	return p.Codec().Deparse(phv, head, length, payloadOff, withBridge)
}

// DeparseInPlace is Deparse writing into head's array when it has room
// (else into a new one): for a caller that owns head's array (nobody else
// holds a slice of it). The bytes it returns are the same as Deparse's.
func (p *Program) DeparseInPlace(phv []int64, head []byte, length, payloadOff int, withBridge bool) ([]byte, int) {
	return p.Codec().DeparseInPlace(phv, head, length, payloadOff, withBridge)
}

// Codec is the program's codec, built on first use (a Program is shared
// by the simulations that run it, read only).
func (p *Program) Codec() *Codec {
	p.codec.once.Do(func() { p.codec.c = p.NewCodec() })
	return p.codec.c
}

// deparsePayload is the payload bytes after the headers of a packet of
// length bytes whose payload starts at payloadOff.
func deparsePayload(length, payloadOff int) int {
	return max(length-payloadOff, 0)
}

// BuildEmitted builds the packet emit() creates from a thread's header
// vector: the valid headers serialized in declaration order, as the
// deparser does (no bridged metadata), followed by payload (the register
// cells of emit(REG, START, CELLS); nil for emit()), and its length,
// max(std.packet_length, headers + payload bytes): a thread that sets
// std.packet_length above that makes a longer packet (zero bytes the
// packet model does not hold). head holds the headers and the payload.
// The destination is the caller's business (std.egress_port,
// std.mcast_grp, std.qid in phv).
func (p *Program) BuildEmitted(phv []int64, payload []byte) (head []byte, length int) {
	head, _ = p.Deparse(phv, nil, 0, 0, false)
	head = append(head, payload...)
	n := len(head)
	if l := phv[p.Std[StdPacketLength].Slot]; l > int64(n) {
		n = int(l)
	}
	return head, n
}

// BuildPacket serializes a traffic template's headers (field values picked by
// seq, cycling through each field's list) into the head bytes of a packet of
// the given size.
func (ft *FlowTemplate) BuildPacket(seq int, size int) []byte {
	_ = size
	return ft.AppendPacket(nil, seq)
}

// Periodic returns a copy of the template that sends a packet every
// intervalNs (the latency harness offers a pktgen application so).
func (ft *FlowTemplate) Periodic(intervalNs int64) *FlowTemplate {
	return &FlowTemplate{Name: ft.Name, Ports: ft.Ports, Sizes: ft.Sizes, Weight: ft.Weight, IntervalNs: intervalNs,
		Headers: ft.Headers, Values: ft.Values, Fields: ft.Fields, Pos: ft.Pos}
}

// AppendPacket appends the template's header bytes for packet seq to b.
func (ft *FlowTemplate) AppendPacket(b []byte, seq int) []byte {
	p := &ft.plan
	p.once.Do(func() {
		off := 0
		for _, h := range ft.Headers {
			p.bytes += h.Bytes()
			for _, f := range h.Fields {
				if vs := ft.Values[f]; len(vs) > 0 {
					p.fields = append(p.fields, templateField{off + f.Offset, f.Type.Bits, vs})
				}
			}
			off += h.Bits
		}
	})
	start := len(b)
	b = append(b, make([]byte, p.bytes)...)
	out := b[start:]
	for _, f := range p.fields {
		putBits(out, f.off, f.bits, uint64(f.values[seq%len(f.values)]))
	}
	return b
}
