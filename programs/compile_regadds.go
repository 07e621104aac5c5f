package programs

import "encoding/binary"

// Runs of register adds: a loop of stateful updates such as Trio-ML's
// aggregation (aggr.add0(base+i+0) ... aggr.add15(base+i+15), each add's
// body value = value + payload32(i+k)) is compiled, when the tracer is a
// RegAddTracer, into one closure for the whole run that hands the tracer
// the run's calls at once (RegAdds) instead of three interface calls per
// add.

// RegAdd is one add of a run (see RegAddTracer): the calls the tracer
// would have received for it, in this order: StmtAt(Stmt) when Stmt is not
// 0, Payload(Word) when Payload is set, RegisterAt(Reg, Index).
type RegAdd struct {
	Word    int
	Index   int
	Stmt    int32
	Reg     int32
	Payload bool
}

// RegAddTracer is an optional interface of a CostTracer. When a statement
// list holds consecutive statements that each only call a register action
// whose body is value = value + E (E reading only fields, parameters,
// constants and at most one payload word, as payload32(W), and the index
// reading no payload word), the compiled list runs them together and then
// calls RegAdds once with their calls in order (RegAdd), instead of the
// StmtAt, Payload and RegisterAt calls of each. The tracer must therefore
// not depend on the Exec's state at the moment of each call (it is only
// deferred to the end of the run; what the program computes is unchanged).
// Runs are not batched when OnRegister is set.
type RegAddTracer interface {
	CostTracer
	RegAdds(run []RegAdd)
}

// AddSpan is the constant part of a run of adds to one register whose
// add j goes to cell I + j and reads payload word W + j (Trio-ML's
// aggregation loop): each add's statement handle (StmtCost; 0: none) and
// register-action handle (RegisterCost).
type AddSpan struct {
	Stmt, Reg []int32
}

// RegAddSpanTracer is an optional interface of a RegAddTracer: a run
// that is an AddSpan where it runs (its cells on one page of the
// register, no index or word wrapping, every word in the payload) is
// handed over as RegAddSpan(s, I, W), which stands for the RegAdds call
// with RegAdd{Word: W + j, Index: I + j, Stmt: s.Stmt[j], Reg: s.Reg[j],
// Payload: true} for each add j; the run's records are then never
// written.
type RegAddSpanTracer interface {
	RegAddTracer
	RegAddSpan(s *AddSpan, index, word int)
}

// regAdd is one compiled add of a run.
type regAdd struct {
	rc   *regCallCode
	st   int32  // the statement's StmtCost handle
	word evalFn // W of an addend payload32(W) (nil: the addend reads no payload word)
}

// regAddOf reports whether s is a statement a run can hold: an unused
// register call whose action's body is a pure add.
func regAddOf(s Stmt) (*RegisterCall, bool) {
	es, ok := s.(*ExprStmt)
	if !ok {
		return nil, false
	}
	c, ok := es.X.(*RegisterCall)
	if !ok || !noPayload(c.Index) || !pureAddend(c.Index) {
		return nil, false
	}
	ra := c.Action
	if len(ra.Body) != 1 {
		return nil, false
	}
	a, ok := ra.Body[0].(*AssignStmt)
	if !ok || a.Dst.Cell == nil || a.Dst.Cell.Half != 0 {
		return nil, false
	}
	b, ok := a.Src.(*BinaryExpr)
	if !ok || b.Op != OpAdd {
		return nil, false
	}
	if ce, ok := b.X.(*CellExpr); !ok || ce.Half != 0 || !pureAddend(b.Y) {
		return nil, false
	}
	if w, ok := payloadArg(b.Y); ok {
		return c, noPayload(w)
	}
	return c, noPayload(b.Y)
}

// payloadArg returns W when e is payload32(W).
func payloadArg(e Expr) (Expr, bool) {
	if ce, ok := e.(*CallExpr); ok && ce.Builtin != nil && ce.Builtin.Name == "payload32" && len(ce.Args) == 1 {
		return ce.Args[0], true
	}
	return nil, false
}

// noPayload reports whether e (a pure expression, see pureAddend) reads
// no payload word.
func noPayload(e Expr) bool {
	switch e := e.(type) {
	case *BinaryExpr:
		return noPayload(e.X) && noPayload(e.Y)
	case *CallExpr:
		return false
	}
	return true
}

// affine is an expression X + c (c a constant): its value is n.of(X + c).
type affine struct {
	stem Expr
	c    int64
	n    norm
}

// affineOf returns e as X + c.
func affineOf(e Expr) (affine, bool) {
	if b, ok := e.(*BinaryExpr); ok && b.Op == OpAdd {
		if c, ok := b.Y.(*ConstExpr); ok {
			return affine{stem: b.X, c: c.Val, n: normOf(b.T)}, true
		}
	}
	return affine{}, false
}

// sameExpr reports whether pure expressions a and b (see pureAddend, with
// no payload word) always have the same value within a run: the same
// fields (none computed when read, see DynSlot), parameters, constants and
// operators.
func (k *compiled) sameExpr(a, b Expr) bool {
	switch a := a.(type) {
	case *ConstExpr:
		b, ok := b.(*ConstExpr)
		return ok && a.Val == b.Val && a.T == b.T
	case *FieldExpr:
		b, ok := b.(*FieldExpr)
		return ok && a.F == b.F && a.F.Slot != k.dynSlot
	case *ParamExpr:
		b, ok := b.(*ParamExpr)
		return ok && a.P == b.P
	case *BinaryExpr:
		b, ok := b.(*BinaryExpr)
		return ok && a.Op == b.Op && a.T == b.T && k.sameExpr(a.X, b.X) && k.sameExpr(a.Y, b.Y)
	}
	return false
}

// stems returns the run's common stem when every expression of es is
// X + c with the same X (the adds' indexes, or their payload words), and
// the constants and normalizations of each.
func (k *compiled) stems(es []Expr) (Expr, []affine) {
	out := make([]affine, len(es))
	for j, e := range es {
		a, ok := affineOf(e)
		if !ok || (j > 0 && !k.sameExpr(out[0].stem, a.stem)) {
			return nil, nil
		}
		out[j] = a
	}
	return out[0].stem, out
}

// regAddRun compiles a run of adds (at least two) whose single-statement
// closures are one: the whole run as one closure. It runs the single
// closures instead when the run cannot be batched (no tracer, OnRegister
// set, inside a register action).
//
// The run changes nothing but register cells, and its indexes and payload
// words read none, so they have the same values whenever they are read:
// when all the indexes are X + c with the same X (aggr.addK(base + i + K)),
// X is evaluated once for the run, and likewise for the payload words.
func (k *compiled) regAddRun(adds []regAdd, one []stmtFn, bt RegAddTracer, idxs, words []Expr, ra *RegisterAction) stmtFn {
	var idxStem, wordStem evalFn
	var ia, wa []affine
	if stem, aff := k.stems(idxs); stem != nil {
		idxStem, ia = k.expr(stem), aff
	}
	if words != nil {
		if stem, aff := k.stems(words); stem != nil {
			saved := k.ra
			k.ra = ra
			wordStem, wa = k.expr(stem), aff
			k.ra = saved
		}
	}
	uni := uniformRun(adds, idxStem != nil, wordStem != nil, ia, wa)
	sbt, _ := bt.(RegAddSpanTracer)
	if uni == nil || !uni.consecutive() {
		sbt = nil
	}
	return func(x *Exec) {
		if any(x.Tracer) != any(bt) || x.OnRegister != nil || x.ra != nil {
			for _, f := range one {
				f(x)
			}
			return
		}
		if cap(x.regAdds) < len(adds) {
			x.regAdds = make([]RegAdd, len(adds))
		}
		buf := x.regAdds[:len(adds)]
		var is, ws int64
		if idxStem != nil {
			is = idxStem(x)
		}
		if wordStem != nil {
			ws = wordStem(x)
		}
		if sbt != nil {
			if i, w, ok := uni.runSpan(x, is, ws); ok {
				x.Steps += 2 * len(adds)
				sbt.RegAddSpan(&uni.span, i, w)
				return
			}
		}
		if uni != nil {
			uni.run(x, buf, is, ws)
			x.Steps += 2 * len(adds)
			bt.RegAdds(buf)
			return
		}
		for j := range adds {
			a := &adds[j]
			c := a.rc
			cells := x.State.Regs[c.reg]
			var v int64
			if idxStem != nil {
				v = ia[j].n.of(is + ia[j].c)
			} else {
				v = c.idx(x)
			}
			var i int
			if uint64(v) < uint64(c.size) {
				i = int(v)
			} else {
				i = cellIndex(v, c.size)
			}
			r := &buf[j]
			if a.word != nil {
				var w int64
				if wordStem != nil {
					w = wa[j].n.of(ws + wa[j].c)
				} else {
					w = a.word(x)
				}
				r.Word, r.Payload = int(w), true
				var pw int64
				if o := uint64(w) * 4; uint64(w) < 1<<60 && o+4 <= uint64(len(x.Payload)) {
					pw = int64(binary.BigEndian.Uint32(x.Payload[o:]))
				} else {
					pw = payloadWord(x.Payload, w)
				}
				cell := cells.Ptr(i)
				*cell = c.cellT.of(c.addT.of(*cell + pw))
			} else {
				r.Payload = false
				cell := cells.Ptr(i)
				*cell = c.cellT.of(c.addT.of(*cell + c.add(x)))
			}
			r.Index, r.Stmt, r.Reg = i, a.st, c.rh
		}
		// Each add counts a Step for the action and one for the statement.
		x.Steps += 2 * len(adds)
		bt.RegAdds(buf)
	}
}

// uniform is a run whose adds all go to one register with the same types,
// each at index I + c_j of a payload word W + d_j (I and W the run's
// stems): Trio-ML's aggregation loop. Its loop reads every add's
// constants from two arrays and the register's cells once.
type uniform struct {
	reg, size   int64
	idxN, wordN norm
	addT, cellT norm
	idxC, wordC []int64
	st, rh      []int32 // each add's statement and register-action handle
	span        AddSpan // st and rh, for a RegAddSpanTracer
}

// uniformRun returns the run as a uniform one, or nil.
func uniformRun(adds []regAdd, idxStem, wordStem bool, ia, wa []affine) *uniform {
	if !idxStem || !wordStem {
		return nil
	}
	c0 := adds[0].rc
	u := &uniform{reg: int64(c0.reg), size: c0.size, idxN: ia[0].n, wordN: wa[0].n, addT: c0.addT, cellT: c0.cellT}
	for j, a := range adds {
		c := a.rc
		if a.word == nil || c.reg != c0.reg || c.size != c0.size || c.addT != c0.addT || c.cellT != c0.cellT ||
			ia[j].n != u.idxN || wa[j].n != u.wordN {
			return nil
		}
		u.idxC = append(u.idxC, ia[j].c)
		u.wordC = append(u.wordC, wa[j].c)
		u.st = append(u.st, a.st)
		u.rh = append(u.rh, c.rh)
	}
	u.span = AddSpan{Stmt: u.st, Reg: u.rh}
	return u
}

// consecutive reports whether add j's index and payload word are the
// first's plus j (before normalization): the run can be an AddSpan.
func (u *uniform) consecutive() bool {
	for j := range u.idxC {
		if u.idxC[j] != u.idxC[0]+int64(j) || u.wordC[j] != u.wordC[0]+int64(j) {
			return false
		}
	}
	return true
}

// runSpan does a consecutive run's adds as one span, when it is one here:
// its first index I and the last normalize to I and I + n - 1 (no wrap,
// so add j's index is I + j), all inside the register and on one of its
// pages, and likewise its payload words W .. W + n - 1, all inside the
// payload. Each cell then gets what run would add to it. It reports I and
// W, or false (nothing done) when the run is no span here.
func (u *uniform) runSpan(x *Exec, is, ws int64) (int, int, bool) {
	n := int64(len(u.idxC))
	i0, il := u.idxN.of(is+u.idxC[0]), u.idxN.of(is+u.idxC[n-1])
	w0, wl := u.wordN.of(ws+u.wordC[0]), u.wordN.of(ws+u.wordC[n-1])
	pay := x.Payload
	if il != i0+n-1 || i0 < 0 || il >= u.size || i0>>cellPageBits != il>>cellPageBits ||
		wl != w0+n-1 || w0 < 0 || wl >= int64(len(pay))/4 {
		return 0, 0, false
	}
	cells := x.State.Regs[u.reg].Slice(int(i0), int(n))
	src := pay[4*w0 : 4*(wl+1)]
	for j := range cells {
		cells[j] = u.cellT.of(u.addT.of(cells[j] + int64(binary.BigEndian.Uint32(src[4*j:]))))
	}
	return int(i0), int(w0), true
}

// run does the run's adds (as the general loop of regAddRun does) and
// fills buf with their calls.
func (u *uniform) run(x *Exec, buf []RegAdd, is, ws int64) {
	cells := x.State.Regs[u.reg]
	pay := x.Payload
	for j := range buf {
		v := u.idxN.of(is + u.idxC[j])
		var i int
		if uint64(v) < uint64(u.size) {
			i = int(v)
		} else {
			i = cellIndex(v, u.size)
		}
		w := u.wordN.of(ws + u.wordC[j])
		var pw int64
		if o := uint64(w) * 4; uint64(w) < 1<<60 && o+4 <= uint64(len(pay)) {
			pw = int64(binary.BigEndian.Uint32(pay[o:]))
		} else {
			pw = payloadWord(pay, w)
		}
		cell := cells.Ptr(i)
		*cell = u.cellT.of(u.addT.of(*cell + pw))
		// Field by field: a composite literal is built on the stack and
		// copied in 16-byte moves, which stall on store forwarding from
		// its 8-byte writes (~40 % of this loop's time).
		r := &buf[j]
		r.Word, r.Index, r.Stmt, r.Reg, r.Payload = int(w), i, u.st[j], u.rh[j], true
	}
}
