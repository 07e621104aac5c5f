package programs

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"
)

// refGetBits and refPutBits are the bit-by-bit reference (the original
// implementation) the fast paths must agree with.
func refGetBits(head []byte, off, width int) uint64 {
	var v uint64
	if off&7 == 0 && width&7 == 0 {
		for i := off / 8; i < (off+width)/8; i++ {
			v = v<<8 | uint64(byteAt(head, i))
		}
		return v
	}
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

func refPutBits(buf []byte, off, width int, v uint64) {
	if off&7 == 0 && width&7 == 0 {
		for i := (off+width)/8 - 1; i >= off/8; i-- {
			buf[i] = byte(v)
			v >>= 8
		}
		return
	}
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

// TestBitsAgreeWithReference checks getBits and putBits against the
// bit-by-bit reference for every width 0..64 at every bit offset in (and
// past the end of) heads of several lengths.
func TestBitsAgreeWithReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 3, 7, 8, 9, 15, 16, 17, 40} {
		head := make([]byte, n)
		rng.Read(head)
		for width := 0; width <= 64; width++ {
			for off := 0; off <= 8*n+16; off++ {
				if got, want := getBits(head, off, width), refGetBits(head, off, width); got != want {
					t.Fatalf("getBits(len %d, off %d, width %d) = %#x, want %#x", n, off, width, got, want)
				}
				if off+width > 8*n {
					continue
				}
				v := rng.Uint64()
				a, b := append([]byte(nil), head...), append([]byte(nil), head...)
				putBits(a, off, width, v)
				refPutBits(b, off, width, v)
				if !bytes.Equal(a, b) {
					t.Fatalf("putBits(len %d, off %d, width %d, %#x) = %x, want %x", n, off, width, v, a, b)
				}
			}
		}
	}
}

// FuzzBits is the same property on arbitrary bytes, offsets and widths.
func FuzzBits(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, uint16(3), uint8(13), uint64(0xdeadbeef))
	f.Fuzz(func(t *testing.T, head []byte, off uint16, width uint8, v uint64) {
		o, w := int(off)%(8*len(head)+65), int(width)%65
		if got, want := getBits(head, o, w), refGetBits(head, o, w); got != want {
			t.Fatalf("getBits(%x, %d, %d) = %#x, want %#x", head, o, w, got, want)
		}
		if o+w <= 8*len(head) {
			a, b := append([]byte(nil), head...), append([]byte(nil), head...)
			putBits(a, o, w, v)
			refPutBits(b, o, w, v)
			if !bytes.Equal(a, b) {
				t.Fatalf("putBits(%x, %d, %d, %#x) = %x, want %x", head, o, w, v, a, b)
			}
		}
	})
}

// refParse and refDeparse are the original Parse and Deparse over the
// reference bit functions.
func (p *Program) refParse(head []byte, length int, phv []int64, egress, bridged bool) ParseResult {
	var r ParseResult
	off := 0
	if bridged && p.BridgeBits > 0 {
		for _, f := range p.Meta {
			if f.Bridged {
				phv[f.Slot] = f.Type.Norm(int64(refGetBits(head, off, f.Type.Bits)))
				off += f.Type.Bits
			}
		}
		off = (off + 7) / 8 * 8
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
			if (off+h.Bits)/8 > length {
				r.Rejected = true
				r.Offset = off / 8
				return r
			}
			for _, f := range h.Fields {
				phv[f.Slot] = f.Type.Norm(int64(refGetBits(head, off+f.Offset, f.Type.Bits)))
			}
			phv[h.Valid.Slot] = 1
			off += h.Bits
			r.Bytes += h.Bytes()
		}
		var next *ParseState
		if s.Select == nil {
			next = s.Transitions[0].Next
		} else {
			v := phv[s.Select.Slot]
			for _, t := range s.Transitions {
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

func (p *Program) refDeparse(phv []int64, head []byte, length, payloadOff int, withBridge bool) ([]byte, int) {
	n := 0
	if withBridge {
		n += (p.BridgeBits + 7) / 8
	}
	for _, h := range p.Headers {
		if phv[h.Valid.Slot] != 0 {
			n += h.Bytes()
		}
	}
	rest := 0
	if payloadOff < len(head) {
		rest = len(head) - payloadOff
	}
	out := make([]byte, n, n+rest)
	off := 0
	if withBridge {
		for _, f := range p.Meta {
			if f.Bridged {
				refPutBits(out, off, f.Type.Bits, uint64(phv[f.Slot]))
				off += f.Type.Bits
			}
		}
		off = (off + 7) / 8 * 8
	}
	for _, h := range p.Headers {
		if phv[h.Valid.Slot] == 0 {
			continue
		}
		for _, f := range h.Fields {
			refPutBits(out, off+f.Offset, f.Type.Bits, uint64(phv[f.Slot]))
		}
		off += h.Bits
	}
	if rest > 0 {
		out = append(out, head[payloadOff:]...)
	}
	payload := length - payloadOff
	if payload < 0 {
		payload = 0
	}
	return out, n + payload
}

// TestParseDeparseAgreeWithReference runs every built-in program's parser
// and deparser over random packets (from each traffic template, and random
// bytes) and compares Parse, Deparse and DeparseInPlace (with and without
// room in head, and with head bytes shared with the payload) against the
// reference.
func TestParseDeparseAgreeWithReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	deparsed := 0
	defer func() {
		if deparsed < 1000 {
			t.Errorf("only %d packets parsed without reject", deparsed)
		}
	}()
	for _, name := range Builtins() {
		p, err := Resolve(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		codec := p.NewCodec()
		if len(codec.ingress.states) == 0 || codec.egress == nil {
			t.Fatalf("%s: no flattened codec or parse graph", name)
		}
		var heads [][]byte
		for _, ft := range p.Traffic {
			for seq := 0; seq < 4; seq++ {
				heads = append(heads, ft.BuildPacket(seq, 0))
			}
		}
		for i := 0; i < 200; i++ {
			h := make([]byte, rng.Intn(120))
			rng.Read(h)
			if len(heads) > 0 && i%2 == 0 {
				// a template's headers with random bytes in them
				base := heads[rng.Intn(len(heads))]
				h = append(append([]byte(nil), base...), h...)
				for k := 0; k < 3 && len(base) > 0; k++ {
					h[rng.Intn(len(base))] ^= byte(1 << rng.Intn(8))
				}
			}
			heads = append(heads, h)
		}
		for i, head := range heads {
			length := len(head) + rng.Intn(64)
			if i%5 == 0 {
				length = rng.Intn(len(head) + 1)
			}
			for _, egress := range []bool{false, true} {
				for _, bridged := range []bool{false, true} {
					phv := make([]int64, len(p.Fields))
					cphv := make([]int64, len(p.Fields))
					ref := make([]int64, len(p.Fields))
					r := p.Parse(head, length, phv, egress, bridged)
					cr := codec.Parse(head, length, cphv, egress, bridged)
					rr := p.refParse(head, length, ref, egress, bridged)
					if r != rr || cr != rr {
						t.Fatalf("%s: Parse = %+v, Codec.Parse = %+v, want %+v", name, r, cr, rr)
					}
					for s := range phv {
						if phv[s] != ref[s] || cphv[s] != ref[s] {
							t.Fatalf("%s: Parse field %s = %d, Codec.Parse %d, want %d", name, p.Fields[s].Name, phv[s], cphv[s], ref[s])
						}
					}
					if r.Rejected {
						continue
					}
					deparsed++
					// Random values in the valid headers' fields (the
					// deparser must cut them to width).
					for _, h := range p.Headers {
						if phv[h.Valid.Slot] != 0 && rng.Intn(3) == 0 {
							for _, f := range h.Fields {
								phv[f.Slot] = int64(rng.Uint64())
							}
						}
					}
					for _, withBridge := range []bool{false, true} {
						want, wantLen := p.refDeparse(phv, head, length, r.Offset, withBridge)
						got, gotLen := p.Deparse(phv, head, length, r.Offset, withBridge)
						if !bytes.Equal(got, want) || gotLen != wantLen {
							t.Fatalf("%s: Deparse = %x (%d), want %x (%d)", name, got, gotLen, want, wantLen)
						}
						for _, room := range []int{0, 8, 64} {
							own := make([]byte, len(head), len(head)+room)
							copy(own, head)
							got, gotLen := p.DeparseInPlace(phv, own, length, r.Offset, withBridge)
							if !bytes.Equal(got, want) || gotLen != wantLen {
								t.Fatalf("%s: DeparseInPlace (room %d) = %x (%d), want %x (%d)", name, room, got, gotLen, want, wantLen)
							}
							own = make([]byte, len(head), len(head)+room)
							copy(own, head)
							got, gotLen = codec.DeparseInPlace(phv, own, length, r.Offset, withBridge)
							if !bytes.Equal(got, want) || gotLen != wantLen {
								t.Fatalf("%s: Codec.DeparseInPlace (room %d) = %x (%d), want %x (%d)", name, room, got, gotLen, want, wantLen)
							}
						}
					}
				}
			}
		}
	}
}

// BenchmarkCodecParseDeparse is BenchmarkParseDeparse through a Codec.
func BenchmarkCodecParseDeparse(b *testing.B) {
	p, err := Resolve("ndp", nil)
	if err != nil {
		b.Fatal(err)
	}
	if len(p.Traffic) == 0 {
		b.Skip("no traffic template")
	}
	c := p.NewCodec()
	head := p.Traffic[0].BuildPacket(0, 1500)
	phv := make([]int64, len(p.Fields))
	buf := make([]byte, len(head), 64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copy(buf[:len(head)], head)
		clear(phv)
		r := c.Parse(buf[:len(head)], 1500, phv, false, false)
		out, _ := c.DeparseInPlace(phv, buf[:len(head)], 1500, r.Offset, true)
		clear(phv)
		r = c.Parse(out, 1500, phv, true, true)
		c.DeparseInPlace(phv, out, 1500, r.Offset, false)
	}
}

// BenchmarkParseDeparse parses and deparses an ndp data packet, as a Tofino
// ingress thread does.
func BenchmarkParseDeparse(b *testing.B) {
	p, err := Resolve("ndp", nil)
	if err != nil {
		b.Fatal(err)
	}
	if len(p.Traffic) == 0 {
		b.Skip("no traffic template")
	}
	head := p.Traffic[0].BuildPacket(0, 1500)
	phv := make([]int64, len(p.Fields))
	buf := make([]byte, len(head), 64)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copy(buf[:len(head)], head)
		clear(phv)
		r := p.Parse(buf[:len(head)], 1500, phv, false, false)
		out, _ := p.DeparseInPlace(phv, buf[:len(head)], 1500, r.Offset, true)
		clear(phv)
		r = p.Parse(out, 1500, phv, true, true)
		p.DeparseInPlace(phv, out, 1500, r.Offset, false)
	}
}

// TestPeriodicCopiesTheTemplate: Periodic keeps every exported field of the
// template but the interval (a field added to FlowTemplate must be copied
// there too), and its packets are the template's.
func TestPeriodicCopiesTheTemplate(t *testing.T) {
	p, err := Resolve("pie-dp", nil)
	if err != nil {
		t.Fatal(err)
	}
	ft := p.Traffic[0]
	c := ft.Periodic(117_000)
	if c.IntervalNs != 117_000 {
		t.Fatalf("interval %d", c.IntervalNs)
	}
	a, b := reflect.ValueOf(ft).Elem(), reflect.ValueOf(c).Elem()
	for i := 0; i < a.NumField(); i++ {
		f := a.Type().Field(i)
		if !f.IsExported() || f.Name == "IntervalNs" {
			continue
		}
		if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			t.Errorf("Periodic does not copy %s", f.Name)
		}
	}
	for seq := 0; seq < 3; seq++ {
		if !bytes.Equal(ft.BuildPacket(seq, 0), c.BuildPacket(seq, 0)) {
			t.Fatalf("packet %d differs", seq)
		}
	}
}
