package programs

// A pipeline pass (parse, run the control, deparse) through the codec's
// pass path does the work a PISA parser and deparser do, and no more: the
// parser extracts only the header fields the program's code can read or
// write (the fields it never names are bytes the packet carries through),
// and the deparser, which keeps the parsed bytes, rewrites only the
// headers the code wrote (Exec.Dirty) and moves bytes only where a header
// was added, removed or the bridged metadata changed. The bytes it
// produces are those Parse + DeparseInPlace produce (a differential test,
// passcodec_test.go, runs every built-in program both ways).
//
// A program with a header that is not a whole number of bytes, or wider
// than the word plan handles, or code that builds packets from the whole
// header vector (emit, store), takes the full path: every field
// extracted, every header composed.

// HeaderBit is the bit of Exec.Dirty for the header of f (0 for a field
// that is not a header field or validity bit). Headers past the 63rd
// share bit 63.
func HeaderBit(f *Field) uint64 {
	if f == nil || f.Header == nil || (f.Kind != HeaderField && f.Kind != ValidBit) {
		return 0
	}
	return headerBit(f.Header.Index)
}

func headerBit(i int) uint64 { return 1 << uint(min(i, 63)) }

// PassView is what ParsePass saw of one packet, for DeparsePass: where each
// header's bytes were. One per pipeline thread; its contents are valid
// from a ParsePass to the DeparsePass after it.
type PassView struct {
	// orig is, by header index, the byte offset b the header was
	// extracted from: b when the packet holds all its bytes, -2-b when it
	// holds only the first ones (the rest read as zero), -1 when the
	// header was not extracted.
	orig []int32
	// held keeps the parsed headers' bytes while DeparsePass moves them.
	held []byte
	// ws and nw are a header's words while it is read or rewritten
	// (here, not on the stack: a header of up to maxHdrWords words would
	// otherwise be cleared whole for every header of every pass).
	ws, nw [maxHdrWords]uint64
}

// NewPassView returns a view sized for the codec's program.
func (c *Codec) NewPassView() *PassView { return &PassView{orig: make([]int32, len(c.hdrs))} }

// touchedSlots marks the fields the program's code names (reads or
// writes) anywhere: the controls, functions, timers, actions, register
// actions, table keys and both parsers' selects. It reports false when
// the code builds packets from the whole header vector (emit), which
// needs every field.
func (p *Program) touchedSlots() ([]bool, bool) {
	touched := make([]bool, p.NumSlots)
	mark := func(f *Field) {
		if f != nil && f.Slot >= 0 && f.Slot < len(touched) {
			touched[f.Slot] = true
		}
	}
	expr := func(e Expr) {
		if fe, ok := e.(*FieldExpr); ok {
			mark(fe.F)
		}
	}
	whole := true
	for _, body := range p.allBodies() {
		WalkStmtExprs(body, expr)
		WalkStmts(body, func(s Stmt) {
			switch s := s.(type) {
			case *AssignStmt:
				mark(s.Dst.Field)
			case *BuiltinStmt:
				if s.Builtin != nil && (s.Builtin.Name == "emit" || s.Builtin.Name == "store") {
					whole = false // they deparse the whole header vector
				}
			}
		})
	}
	for _, t := range p.Tables {
		for _, k := range t.Keys {
			WalkExpr(k.Expr, expr)
			mark(k.Field)
		}
	}
	for _, pg := range []*Parser{p.Parser, p.EgressParser} {
		if pg == nil {
			continue
		}
		for _, s := range pg.States {
			mark(s.Select)
		}
	}
	return touched, whole
}

// planPass gives each header the sub-plan of its touched fields and
// decides whether the pass path is selective (see the file comment).
func (c *Codec) planPass() {
	touched, ok := c.p.touchedSlots()
	for i := range c.hdrs {
		if hc := &c.hdrs[i]; hc.words == 0 || hc.bits%8 != 0 {
			ok = false
		}
	}
	c.selective = ok
	if !ok {
		return
	}
	for i := range c.hdrs {
		hc := &c.hdrs[i]
		for _, f := range hc.plan {
			if touched[f.slot] {
				hc.sub = append(hc.sub, f)
				end := uint(f.o) + uint(f.bits)
				if end <= 64 {
					hc.subMask[f.w] |= (^uint64(0) >> (64 - uint(f.bits))) << (64 - end)
				} else {
					hc.subMask[f.w] |= ^uint64(0) >> f.o
					hc.subMask[f.w+1] |= ^uint64(0) << (128 - end)
				}
			}
		}
	}
}

// Selective reports whether the pass path extracts only the touched fields
// and keeps the parsed bytes (otherwise ParsePass and DeparsePass are
// Parse and DeparseInPlace).
func (c *Codec) Selective() bool { return c.selective }

// ParsePass is Parse for a pipeline pass: on a selective codec it extracts
// only the fields the program touches and records in v where each header
// was. Fields it does not extract keep their value in phv (the caller
// clears phv per packet).
func (c *Codec) ParsePass(head []byte, length int, phv []int64, egress, bridged bool, v *PassView) ParseResult {
	for i := range v.orig {
		v.orig[i] = -1
	}
	if !c.selective {
		return c.Parse(head, length, phv, egress, bridged)
	}
	var r ParseResult
	off := 0 // bit offset
	if bridged && c.p.BridgeBits > 0 {
		if n := c.bridgeBits / 8; c.bridgePlan != nil && n <= len(head) {
			loadWords(&v.ws, head, 0, n)
			extractWords(c.bridgePlan, &v.ws, phv)
		} else {
			for i := range c.bridge {
				f := &c.bridge[i]
				phv[f.slot] = f.norm(getBits(head, int(f.off), int(f.bits)))
			}
		}
		off = c.bridgeBits
		r.Bytes += off / 8
	}
	fp := c.ingress
	if egress {
		fp = c.egress
	}
	first := int32(0)
	if len(fp.states) == 0 {
		first = -1
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
			// Every header is whole bytes, so off is byte-aligned.
			if b := off >> 3; b+hc.bytes <= len(head) {
				loadWords(&v.ws, head, b, hc.bytes)
				extractWords(hc.sub, &v.ws, phv)
				v.orig[hi] = int32(b)
			} else {
				// The header runs past the stored head: those bytes read
				// as zero (the deparser writes them so).
				loadWordsShort(&v.ws, head, b, hc.bytes)
				extractWords(hc.sub, &v.ws, phv)
				v.orig[hi] = int32(-2 - b)
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

// DeparsePass is DeparseInPlace after ParsePass (v) and the control, whose
// header writes dirty records: the same bytes, produced by rewriting only
// the dirty headers' touched fields when nothing moves, and otherwise by
// moving the parsed headers' bytes and rewriting the dirty ones. head's
// array must be the caller's own.
func (c *Codec) DeparsePass(phv []int64, head []byte, length, payloadOff int, withBridge bool, v *PassView, dirty uint64) ([]byte, int) {
	if !c.selective {
		return c.DeparseInPlace(phv, head, length, payloadOff, withBridge)
	}
	bb := 0
	if withBridge {
		bb = (c.p.BridgeBits + 7) / 8
	}
	// same: every valid header is where it was parsed. block: the valid
	// parsed headers were parsed back to back from byte from, are all
	// still valid in that order and come after any header the pass added
	// (in front: NDP's in-band metadata) and the bridged metadata, so
	// they and the payload move as one block to byte at.
	n, same, block, from, at := bb, true, true, -1, -1
	for i := range c.hdrs {
		hc := &c.hdrs[i]
		if phv[hc.valid] == 0 {
			continue
		}
		o := int(v.orig[i])
		if o != n {
			same = false
		}
		switch {
		case o == -1: // added by the pass
			if from >= 0 {
				block = false
			}
		case o < -1: // parsed past the stored head
			block = false
		case from < 0:
			from, at = o, n
		case o != from+(n-at):
			block = false
		}
		n += hc.bytes
	}
	if same && n == payloadOff && payloadOff <= len(head) {
		// Every header stays where it was parsed.
		if withBridge {
			c.passBridge(phv, head, v)
		}
		for i := range c.hdrs {
			hc := &c.hdrs[i]
			if dirty&headerBit(i) != 0 && phv[hc.valid] != 0 {
				c.overlay(hc, head, int(v.orig[i]), phv, v)
			}
		}
		return head, n + deparsePayload(length, payloadOff)
	}
	if block && from >= 0 && from+(n-at) == payloadOff && payloadOff <= len(head) {
		// One move of the parsed headers and the stored payload behind
		// them; the added headers are composed in front.
		rest := len(head) - payloadOff
		out := resized(head, n+rest)
		copy(out[at:], head[from:]) // memmove: the ranges may overlap
		if withBridge {
			c.passBridge(phv, out, v)
		}
		off := bb
		for i := range c.hdrs {
			hc := &c.hdrs[i]
			if phv[hc.valid] == 0 {
				continue
			}
			if v.orig[i] == -1 {
				composeWords(hc.plan, &v.ws, hc.words, phv)
				storeWords(&v.ws, out, off, hc.bytes)
			} else if dirty&headerBit(i) != 0 {
				c.overlay(hc, out, off, phv, v)
			}
			off += hc.bytes
		}
		return out, n + deparsePayload(length, payloadOff)
	}
	// Headers move: keep the parsed bytes aside, lay the new head out.
	v.held = append(v.held[:0], head[:min(payloadOff, len(head))]...)
	src := v.held
	rest := 0
	if payloadOff < len(head) {
		rest = len(head) - payloadOff
	}
	out := resized(head, n+rest)
	if rest > 0 && (n != payloadOff || &out[0] != &head[0]) {
		copy(out[n:], head[payloadOff:payloadOff+rest]) // memmove: the ranges may overlap
	}
	if withBridge {
		c.passBridge(phv, out, v)
	}
	off := bb
	for i := range c.hdrs {
		hc := &c.hdrs[i]
		if phv[hc.valid] == 0 {
			continue
		}
		if o := int(v.orig[i]); o >= 0 || o < -1 {
			if o >= 0 {
				copy(out[off:off+hc.bytes], src[o:o+hc.bytes])
			} else {
				// Parsed from the head's last bytes and zeros past it.
				k := 0
				if b := -2 - o; b < len(src) {
					k = copy(out[off:off+hc.bytes], src[b:])
				}
				clear(out[off+k : off+hc.bytes])
			}
			if dirty&headerBit(i) != 0 {
				c.overlay(hc, out, off, phv, v)
			}
		} else {
			composeWords(hc.plan, &v.ws, hc.words, phv)
			storeWords(&v.ws, out, off, hc.bytes)
		}
		off += hc.bytes
	}
	return out, n + deparsePayload(length, payloadOff)
}

// resized is head's array cut to size bytes when it has the room (its
// bytes kept), else a new array of that size with some to spare (zeroed).
func resized(head []byte, size int) []byte {
	if cap(head) >= size {
		return head[:size]
	}
	return make([]byte, size, max(size+16, 64))
}

// passBridge writes the bridged metadata's bytes at the start of out, as
// a header's, word by word when it has a word plan (the bytes are those
// clearing them and putBridge give).
func (c *Codec) passBridge(phv []int64, out []byte, v *PassView) {
	n := (c.p.BridgeBits + 7) / 8
	if c.bridgePlan != nil && n == c.bridgeBits/8 {
		composeWords(c.bridgePlan, &v.ws, (n+7)/8, phv)
		storeWords(&v.ws, out, 0, n)
		return
	}
	clear(out[:n])
	c.putBridge(phv, out)
}

// putBridge writes the bridged metadata at the start of out (its bytes
// zeroed by the caller, or holding the same layout).
func (c *Codec) putBridge(phv []int64, out []byte) {
	for i := range c.bridge {
		f := &c.bridge[i]
		putBits(out, int(f.off), int(f.bits), uint64(phv[f.slot]))
	}
}

// overlay rewrites the touched fields of header hc at byte b of out from
// phv, keeping its other bits (v's words are its scratch).
func (c *Codec) overlay(hc *hdrCodec, out []byte, b int, phv []int64, v *PassView) {
	ws, nw := &v.ws, &v.nw
	loadWords(ws, out, b, hc.bytes)
	composeWords(hc.sub, nw, hc.words, phv)
	for k := 0; k < hc.words; k++ {
		ws[k&(maxHdrWords-1)] = ws[k&(maxHdrWords-1)]&^hc.subMask[k&(maxHdrWords-1)] | nw[k&(maxHdrWords-1)]
	}
	storeWords(ws, out, b, hc.bytes)
}
