package programs

import "encoding/binary"

// Codec is a program's parser and deparser with every header's field
// layout flattened once (slot, bit offset, width, sign), for a caller that
// parses and deparses many packets (a switch pipeline thread). Its Parse
// and DeparseInPlace give exactly what Program.Parse and
// Program.DeparseInPlace give.
type Codec struct {
	p          *Program
	slow       bool       // headers not indexed by declaration: use the Program's methods
	hdrs       []hdrCodec // by Header.Index
	bridge     []fieldCodec
	bridgeBits int // bits of bridged metadata, rounded up to whole bytes
}

type hdrCodec struct {
	h      *Header
	valid  int // validity slot
	bits   int
	bytes  int
	fields []fieldCodec
}

// fieldCodec is one field: phv slot, bit offset (in its header, or from
// the start of the bridged metadata), width and sign.
type fieldCodec struct {
	slot   int32
	off    int32
	bits   int32
	signed bool
}

// norm is Type.Norm of a value getBits read for the field (an unsigned
// field's value is already within its width).
func (f *fieldCodec) norm(v uint64) int64 {
	if f.signed && f.bits > 0 && f.bits < 64 {
		sh := uint(64 - f.bits)
		return int64(v<<sh) >> sh
	}
	return int64(v)
}

func makeFieldCodec(f *Field, off int) fieldCodec {
	return fieldCodec{slot: int32(f.Slot), off: int32(off), bits: int32(f.Type.Bits), signed: f.Type.Signed}
}

// NewCodec flattens the program's headers. (A program whose headers are
// not indexed by declaration, which the loader never makes, gets a codec
// that calls the Program's methods.)
func (p *Program) NewCodec() *Codec {
	c := &Codec{p: p, hdrs: make([]hdrCodec, len(p.Headers))}
	slow := &Codec{p: p, slow: true}
	for i, h := range p.Headers {
		if h.Index != i || h.Valid == nil {
			return slow
		}
		hc := hdrCodec{h: h, valid: h.Valid.Slot, bits: h.Bits, bytes: h.Bytes()}
		for _, f := range h.Fields {
			hc.fields = append(hc.fields, makeFieldCodec(f, f.Offset))
		}
		c.hdrs[i] = hc
	}
	for _, pg := range []*Parser{p.Parser, p.EgressParser} {
		if pg == nil {
			continue
		}
		for _, s := range pg.States {
			for _, h := range s.Extract {
				if h.Index < 0 || h.Index >= len(p.Headers) || p.Headers[h.Index] != h {
					return slow
				}
			}
		}
	}
	off := 0
	for _, f := range p.Meta {
		if f.Bridged {
			c.bridge = append(c.bridge, makeFieldCodec(f, off))
			off += f.Type.Bits
		}
	}
	c.bridgeBits = (off + 7) / 8 * 8
	return c
}

// Program is the program the codec is for.
func (c *Codec) Program() *Program { return c.p }

// Parse is Program.Parse.
func (c *Codec) Parse(head []byte, length int, phv []int64, egress, bridged bool) ParseResult {
	p := c.p
	if c.slow {
		return p.Parse(head, length, phv, egress, bridged)
	}
	var r ParseResult
	off := 0 // bit offset
	if bridged && p.BridgeBits > 0 {
		for i := range c.bridge {
			f := &c.bridge[i]
			phv[f.slot] = f.norm(getBits(head, int(f.off), int(f.bits)))
		}
		off = c.bridgeBits
		r.Bytes += off / 8
	}
	pg := p.Parser
	if egress && p.EgressParser != nil {
		pg = p.EgressParser
	}
	for s := pg.Start; s != nil; {
		if s.IsReject() {
			r.Rejected = true
			break
		}
		r.States++
		for _, h := range s.Extract {
			hc := &c.hdrs[h.Index]
			if (off+hc.bits)/8 > length {
				r.Rejected = true
				r.Offset = off / 8
				return r
			}
			extract(hc.fields, head, off, phv)
			phv[hc.valid] = 1
			off += hc.bits
			r.Bytes += hc.bytes
		}
		var next *ParseState
		if s.Select == nil {
			next = s.Transitions[0].Next
		} else {
			v := phv[s.Select.Slot]
			for i := range s.Transitions {
				t := &s.Transitions[i]
				if t.Default || v&t.Mask == t.Value {
					next = t.Next
					break
				}
			}
		}
		s = next
	}
	r.Offset = off / 8
	return r
}

// extract reads a header's fields at bit offset off into phv.
func extract(fields []fieldCodec, head []byte, off int, phv []int64) {
	for i := range fields {
		f := &fields[i]
		bit := off + int(f.off)
		var v uint64
		if b := bit >> 3; bit&7 == 0 && b+int(f.bits)>>3 <= len(head) {
			// Byte-aligned and inside head: the common header field.
			switch f.bits {
			case 8:
				v = uint64(head[b])
			case 16:
				v = uint64(binary.BigEndian.Uint16(head[b:]))
			case 32:
				v = uint64(binary.BigEndian.Uint32(head[b:]))
			default:
				v = getBits(head, bit, int(f.bits))
			}
		} else {
			v = getBits(head, bit, int(f.bits))
		}
		phv[f.slot] = f.norm(v)
	}
}

// DeparseInPlace is Program.DeparseInPlace.
func (c *Codec) DeparseInPlace(phv []int64, head []byte, length, payloadOff int, withBridge bool) ([]byte, int) {
	if c.slow {
		return c.p.DeparseInPlace(phv, head, length, payloadOff, withBridge)
	}
	n, rest := 0, 0
	if withBridge {
		n += (c.p.BridgeBits + 7) / 8
	}
	for i := range c.hdrs {
		if phv[c.hdrs[i].valid] != 0 {
			n += c.hdrs[i].bytes
		}
	}
	if payloadOff < len(head) {
		rest = len(head) - payloadOff
	}
	var out []byte
	if cap(head) >= n+rest {
		out = head[:n+rest]
		if rest > 0 && n != payloadOff {
			copy(out[n:], head[payloadOff:payloadOff+rest]) // memmove: the ranges may overlap
		}
		clear(out[:n])
	} else {
		out = make([]byte, n+rest, max(n+rest+16, 64))
		if rest > 0 {
			copy(out[n:], head[payloadOff:])
		}
	}
	off := 0
	if withBridge {
		for i := range c.bridge {
			f := &c.bridge[i]
			putBits(out, int(f.off), int(f.bits), uint64(phv[f.slot]))
		}
		off = c.bridgeBits
	}
	for i := range c.hdrs {
		hc := &c.hdrs[i]
		if phv[hc.valid] == 0 {
			continue
		}
		for j := range hc.fields {
			f := &hc.fields[j]
			putBits(out, off+int(f.off), int(f.bits), uint64(phv[f.slot]))
		}
		off += hc.bits
	}
	return out, n + deparsePayload(length, payloadOff)
}
