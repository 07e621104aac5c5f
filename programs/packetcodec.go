package programs

import (
	"encoding/binary"
	"fmt"
)

// Codec is a program's parser and deparser with every header's field
// layout and both parse graphs flattened once (slots, bit offsets, widths,
// signs; states and headers by index). It is the one implementation of
// parsing and deparsing: Program.Parse, Deparse and DeparseInPlace use
// the program's own codec.
type Codec struct {
	p          *Program
	hdrs       []hdrCodec // by Header.Index
	bridge     []fieldCodec
	bridgeBits int // bits of bridged metadata, rounded up to whole bytes
	// bridgePlan is the bridged metadata's word plan for the pass path
	// (passcodec.go), as a header's (nil: none, or too wide for one).
	bridgePlan []fieldPlan
	// ingress and egress are the parse graphs flattened: states by
	// index, next states as indices.
	ingress, egress *flatParser
	// selective: ParsePass extracts only touched fields and DeparsePass
	// keeps the parsed bytes (passcodec.go).
	selective bool
}

// flatParser is a parse graph with its states and headers as indices:
// states[0] is the start state.
type flatParser struct {
	states []flatState
}

// flatState is a ParseState: the headers it extracts (indices into
// Codec.hdrs), the select field's slot (-1: none, go to trans[0]) and the
// transitions in order.
type flatState struct {
	reject  bool
	extract []int32
	sel     int32
	trans   []flatTrans
}

// next is the state the parser goes to from s, by its select value in
// phv (-1: accept).
func (s *flatState) next(phv []int64) int32 {
	if s.sel < 0 {
		return s.trans[0].next
	}
	v := phv[s.sel]
	for i := range s.trans {
		t := &s.trans[i]
		if t.dflt || v&t.mask == t.value {
			return t.next
		}
	}
	return -1
}

// flatTrans is a Transition; next is a state index (-1: accept).
type flatTrans struct {
	value, mask int64
	dflt        bool
	next        int32
}

// flatten indexes a parse graph's states (none for a program without a
// parser).
func (c *Codec) flatten(pg *Parser) *flatParser {
	if pg == nil || pg.Start == nil {
		return &flatParser{}
	}
	idx := map[*ParseState]int32{}
	var order []*ParseState
	var visit func(s *ParseState) int32
	visit = func(s *ParseState) int32 {
		if s == nil {
			return -1
		}
		if i, ok := idx[s]; ok {
			return i
		}
		i := int32(len(order))
		idx[s] = i
		order = append(order, s)
		return i
	}
	visit(pg.Start)
	fp := &flatParser{}
	for k := 0; k < len(order); k++ {
		s := order[k]
		fs := flatState{reject: s.IsReject(), sel: -1}
		if !fs.reject {
			for _, h := range s.Extract {
				fs.extract = append(fs.extract, int32(h.Index))
			}
			if s.Select != nil {
				fs.sel = int32(s.Select.Slot)
			} else if len(s.Transitions) == 0 {
				panic("programs: parse state " + s.Name + " has neither a select nor a transition (the loader never makes one)")
			}
			for _, t := range s.Transitions {
				fs.trans = append(fs.trans, flatTrans{value: t.Value, mask: t.Mask, dflt: t.Default, next: visit(t.Next)})
			}
		}
		fp.states = append(fp.states, fs)
	}
	return fp
}

type hdrCodec struct {
	h      *Header
	valid  int // validity slot
	bits   int
	bytes  int
	fields []fieldCodec
	// words, when not 0, is the number of 64-bit big-endian words the
	// header spans (the last one zero-padded): a byte-aligned header whose
	// bytes all lie in head is read and written a word at a time, each
	// field cut out of (or or-ed into) its word(s) by plan.
	words int
	plan  []fieldPlan
	// sub is the plan's fields the program's code touches, and subMask
	// the bits they cover, by word (passcodec.go).
	sub     []fieldPlan
	subMask [maxHdrWords]uint64
}

// maxHdrWords is the most 64-bit words a header read or written a word at
// a time spans.
const maxHdrWords = 16

// fieldPlan places a field in its header's words: bits [o, o+bits) of
// word w (bit 0 is the word's most significant), continuing into word w+1
// when o+bits > 64. rs is 64 - bits (0 for a 64-bit field): shifting a
// word left by o and right by rs cuts the field out of it; shifting a
// value left by rs and right by o puts its low bits in place.
type fieldPlan struct {
	slot  int32
	w     uint8
	o     uint8
	bits  uint8
	rs    uint8
	flags uint8 // planStraddles, planSigned
}

const (
	planStraddles = 1 << iota // the field continues into word w+1
	planSigned                // a signed field narrower than 64 bits
)

// planFields returns the word plan of a header (nil when a field is wider
// than 64 bits or the header spans more than maxHdrWords words).
func planFields(fields []fieldCodec, bytes int) []fieldPlan {
	if bytes == 0 || bytes > 8*maxHdrWords {
		return nil
	}
	plan := make([]fieldPlan, 0, len(fields))
	for _, f := range fields {
		if f.bits <= 0 || f.bits > 64 || int(f.off)+int(f.bits) > 8*bytes {
			return nil
		}
		fp := fieldPlan{slot: f.slot, w: uint8(f.off / 64), o: uint8(f.off % 64), bits: uint8(f.bits), rs: uint8((64 - f.bits) % 64)}
		if int(fp.o)+int(fp.bits) > 64 {
			fp.flags |= planStraddles
		}
		if f.signed && f.bits < 64 {
			fp.flags |= planSigned
		}
		plan = append(plan, fp)
	}
	return plan
}

// loadWords reads the header's bytes (all in head from byte b) as
// big-endian words, the last one zero-padded.
func loadWords(ws *[maxHdrWords]uint64, head []byte, b, bytes int) {
	k := 0
	for ; 8*k+8 <= bytes; k++ {
		ws[k] = binary.BigEndian.Uint64(head[b+8*k:])
	}
	if r := bytes - 8*k; r > 0 {
		i := b + 8*k
		if i+8 <= len(head) {
			ws[k] = binary.BigEndian.Uint64(head[i:]) // the bits past the header are never read
			return
		}
		var w uint64
		for j := 0; j < r; j++ {
			w |= uint64(head[i+j]) << (56 - 8*uint(j))
		}
		ws[k] = w
	}
}

// loadWordsShort is loadWords for a header that runs past the end of
// head (bytes past it read as zero): the words head covers whole are
// loaded as loadWords loads them, the one it ends in byte by byte, the
// rest are zero.
func loadWordsShort(ws *[maxHdrWords]uint64, head []byte, b, bytes int) {
	words := (bytes + 7) / 8
	k := 0
	for ; k < words && b+8*k+8 <= len(head); k++ {
		ws[k&(maxHdrWords-1)] = binary.BigEndian.Uint64(head[b+8*k:])
	}
	if k < words {
		var w uint64
		for i, j := b+8*k, 0; i < len(head) && j < 8; i, j = i+1, j+1 {
			w |= uint64(head[i]) << (56 - 8*uint(j))
		}
		ws[k&(maxHdrWords-1)] = w
		k++
	}
	for ; k < words; k++ {
		ws[k&(maxHdrWords-1)] = 0
	}
}

// extractWords reads a header's fields out of its words into phv.
func extractWords(plan []fieldPlan, ws *[maxHdrWords]uint64, phv []int64) {
	for i := range plan {
		f := &plan[i]
		v := ws[f.w&(maxHdrWords-1)] << (f.o & 63) >> (f.rs & 63)
		if f.flags != 0 {
			v = f.finishExtract(ws, v)
		}
		phv[f.slot] = int64(v)
	}
}

// finishExtract completes a straddling or signed field's value.
func (f *fieldPlan) finishExtract(ws *[maxHdrWords]uint64, v uint64) uint64 {
	if f.flags&planStraddles != 0 {
		end := uint(f.o) + uint(f.bits)
		v |= ws[(f.w+1)&(maxHdrWords-1)] >> (128 - end)
	}
	if f.flags&planSigned != 0 {
		v = uint64(int64(v<<(f.rs&63)) >> (f.rs & 63))
	}
	return v
}

// composeWords builds a header's words from phv (each field cut to its
// width; bits no field covers are 0).
func composeWords(plan []fieldPlan, ws *[maxHdrWords]uint64, words int, phv []int64) {
	for k := 0; k < words; k++ {
		ws[k&(maxHdrWords-1)] = 0
	}
	for i := range plan {
		f := &plan[i]
		v := uint64(phv[f.slot])
		ws[f.w&(maxHdrWords-1)] |= v << (f.rs & 63) >> (f.o & 63)
		if f.flags&planStraddles != 0 {
			end := uint(f.o) + uint(f.bits)
			ws[(f.w+1)&(maxHdrWords-1)] |= v << (128 - end)
		}
	}
}

// storeWords writes a header's words at byte b of out (bytes bytes).
func storeWords(ws *[maxHdrWords]uint64, out []byte, b, bytes int) {
	k := 0
	for ; 8*k+8 <= bytes; k++ {
		binary.BigEndian.PutUint64(out[b+8*k:], ws[k])
	}
	r := bytes - 8*k
	if r == 0 {
		return
	}
	w, i := ws[k], b+8*k
	if r >= 4 {
		binary.BigEndian.PutUint32(out[i:], uint32(w>>32))
		w, i, r = w<<32, i+4, r-4
	}
	if r >= 2 {
		binary.BigEndian.PutUint16(out[i:], uint16(w>>48))
		w, i, r = w<<16, i+2, r-2
	}
	if r == 1 {
		out[i] = byte(w >> 56)
	}
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

// NewCodec flattens the program's headers and parse graphs. Programs come
// from the loader, which indexes headers by declaration; anything else is
// a bug, and NewCodec panics naming it.
func (p *Program) NewCodec() *Codec {
	c := &Codec{p: p, hdrs: make([]hdrCodec, len(p.Headers))}
	for i, h := range p.Headers {
		if h.Index != i || h.Valid == nil {
			panic(fmt.Sprintf("programs: header %s is not indexed by declaration (index %d, want %d)", h.Name, h.Index, i))
		}
		hc := hdrCodec{h: h, valid: h.Valid.Slot, bits: h.Bits, bytes: h.Bytes()}
		for _, f := range h.Fields {
			hc.fields = append(hc.fields, makeFieldCodec(f, f.Offset))
		}
		if hc.plan = planFields(hc.fields, hc.bytes); hc.plan != nil && hc.bits == 8*hc.bytes {
			hc.words = (hc.bytes + 7) / 8
		} else {
			hc.plan = nil
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
					panic(fmt.Sprintf("programs: parse state %s extracts header %s, which is not the program's", s.Name, h.Name))
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
	c.bridgePlan = planFields(c.bridge, c.bridgeBits/8)
	c.ingress = c.flatten(p.Parser)
	c.egress = c.ingress
	if p.EgressParser != nil {
		c.egress = c.flatten(p.EgressParser)
	}
	c.planPass()
	return c
}

// Program is the program the codec is for.
func (c *Codec) Program() *Program { return c.p }

// Parse is Program.Parse.
func (c *Codec) Parse(head []byte, length int, phv []int64, egress, bridged bool) ParseResult {
	var r ParseResult
	off := 0 // bit offset
	if bridged && c.p.BridgeBits > 0 {
		for i := range c.bridge {
			f := &c.bridge[i]
			phv[f.slot] = f.norm(getBits(head, int(f.off), int(f.bits)))
		}
		off = c.bridgeBits
		r.Bytes += off / 8
	}
	fp := c.ingress
	if egress {
		fp = c.egress
	}
	return c.parseFlat(fp, head, length, phv, off, r)
}

// parseFlat is the rest of Parse on a flattened parse graph, from bit
// offset off with r so far.
func (c *Codec) parseFlat(fp *flatParser, head []byte, length int, phv []int64, off int, r ParseResult) ParseResult {
	first := int32(0)
	if len(fp.states) == 0 {
		first = -1 // no parser: nothing to extract
	}
	for si := first; si >= 0; {
		s := &fp.states[si]
		if s.reject {
			r.Rejected = true
			break
		}
		r.States++
		for _, hi := range s.extract {
			hc := &c.hdrs[hi]
			if (off+hc.bits)/8 > length {
				r.Rejected = true
				r.Offset = off / 8
				return r
			}
			if b := off >> 3; hc.words != 0 && off&7 == 0 && b+hc.bytes <= len(head) {
				var ws [maxHdrWords]uint64
				loadWords(&ws, head, b, hc.bytes)
				extractWords(hc.plan, &ws, phv)
			} else if hc.words != 0 && off&7 == 0 {
				// The header runs past the stored head into payload the
				// model does not keep: those bytes read as zero, as
				// extract reads them.
				var ws [maxHdrWords]uint64
				loadWordsShort(&ws, head, b, hc.bytes)
				extractWords(hc.plan, &ws, phv)
			} else {
				extract(hc.fields, head, off, phv)
			}
			phv[hc.valid] = 1
			off += hc.bits
			r.Bytes += hc.bytes
		}
		si = s.next(phv)
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

// Deparse serializes the valid headers in declaration order, prefixed by
// the bridged metadata when withBridge is set, followed by the payload (the
// packet's bytes from payloadOff on). It returns the new head bytes (a new
// array: head is not modified) and the new total length.
func (c *Codec) Deparse(phv []int64, head []byte, length, payloadOff int, withBridge bool) ([]byte, int) {
	return c.deparse(phv, head, length, payloadOff, withBridge, false)
}

// DeparseInPlace is Deparse writing into head's array when it has room
// (else into a new one): for a caller that owns head's array (nobody else
// holds a slice of it). The bytes it returns are the same as Deparse's.
func (c *Codec) DeparseInPlace(phv []int64, head []byte, length, payloadOff int, withBridge bool) ([]byte, int) {
	return c.deparse(phv, head, length, payloadOff, withBridge, true)
}

func (c *Codec) deparse(phv []int64, head []byte, length, payloadOff int, withBridge, inPlace bool) ([]byte, int) {
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
	switch {
	case !inPlace:
		out = make([]byte, n+rest)
		if rest > 0 {
			copy(out[n:], head[payloadOff:])
		}
	case cap(head) >= n+rest:
		out = head[:n+rest]
		if rest > 0 && n != payloadOff {
			copy(out[n:], head[payloadOff:payloadOff+rest]) // memmove: the ranges may overlap
		}
		clear(out[:n])
	default:
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
		if hc.words != 0 && off&7 == 0 {
			var ws [maxHdrWords]uint64
			composeWords(hc.plan, &ws, hc.words, phv)
			storeWords(&ws, out, off>>3, hc.bytes)
		} else {
			for j := range hc.fields {
				f := &hc.fields[j]
				putBits(out, off+int(f.off), int(f.bits), uint64(phv[f.slot]))
			}
		}
		off += hc.bits
	}
	return out, n + deparsePayload(length, payloadOff)
}
