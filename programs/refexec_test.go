package programs

// The reference interpreter: the tree walker the interpreter was before
// programs were compiled (compile.go), kept in the tests so that
// TestCompiledMatchesReference can check that the compiled form computes
// the same header vectors, state, tracer calls and Steps. It shares with
// the interpreter only the data structures (tables, meters) and the pure
// helpers (clipRange, payloadWord, satAdd, satSub, evalBinary, evalUnary).

import (
	"encoding/binary"
	"hash/crc32"
)

// refExec is the reference interpreter's executor: an Exec's public
// settings (PHV, State, Rng, Tracer, ...) and its own execution state.
type refExec struct {
	*Exec
	params []int64
	cell   int64
	out    int64
	ra     *RegisterAction
	keyBuf []int64
	hashB  []byte
}

// refBuiltinEval runs a value built-in the way the reference interpreter
// did (through the row's Eval, with the reference's operand evaluation).
func refBuiltinEval(x *refExec, e *CallExpr) int64 {
	switch {
	case e.Builtin.Is(OnTable, "aged"):
		return refevalAged(x, e)
	case e.Builtin.On != OnNothing:
		panic("reference: unknown built-in " + e.Builtin.Name)
	}
	switch e.Builtin.Name {
	case "sat_add":
		return refevalSatAdd(x, e)
	case "sat_sub":
		return refevalSatSub(x, e)
	case "min":
		return refevalMin(x, e)
	case "max":
		return refevalMax(x, e)
	case "concat":
		return refevalConcat(x, e)
	case "random":
		return refevalRandom(x, e)
	case "hash":
		return refevalHash(x, e)
	case "payload32":
		return refevalPayload(x, e)
	case "held":
		return x.Exec.held(e.Buf, x.index(e.Args[0], e.Buf.Slots))
	case "buffered":
		return x.Exec.buffered(e.Buf)
	}
	panic("reference: unknown built-in " + e.Builtin.Name)
}

// refBuiltinExec runs a statement built-in the way the reference
// interpreter did.
func refBuiltinExec(x *refExec, s *BuiltinStmt) {
	switch s.Builtin.Name {
	case "emit":
		refexecEmit(x, s)
	case "clear":
		refexecClear(x, s)
	case "insert":
		refexecInsert(x, s)
	case "remove":
		refexecRemove(x, s)
	case "load":
		refexecLoad(x, s)
	case "store":
		x.Exec.store(s.Buf, x.index(s.Args[0], s.Buf.Slots))
	case "resend":
		x.Exec.resend(s.Buf, x.index(s.Args[0], s.Buf.Slots))
	case "release":
		x.Exec.release(s.Buf, x.index(s.Args[0], s.Buf.Slots))
	default:
		panic("reference: unknown built-in " + s.Builtin.Name)
	}
}

// RunControl executes a control block.
func (x *refExec) RunControl(c *Control) {
	if c == nil {
		return
	}
	x.stmts(c.Body)
}

// RunTimer runs one thread of a timer: the timer's body with
// std.timer_index set to index. The caller provides a zeroed header vector
// in x.PHV (a timer thread has no packet: no header is valid) and normally
// leaves x.Payload nil.
func (x *refExec) RunTimer(t *Timer, index int) {
	f := x.State.Prog.Std[StdTimerIndex]
	x.PHV[f.Slot] = f.Type.Norm(int64(index))
	x.stmts(t.Body)
}

func (x *refExec) stmts(list []Stmt) {
	for _, s := range list {
		x.stmt(s)
	}
}

func (x *refExec) stmt(s Stmt) {
	if x.Tracer != nil && x.ra == nil {
		x.Tracer.Stmt(s)
	}
	switch s := s.(type) {
	case *AssignStmt:
		v := x.eval(s.Src)
		x.store(s.Dst, v)
	case *ExprStmt:
		x.eval(s.X)
	case *IfStmt:
		if x.eval(s.Cond) != 0 {
			x.stmts(s.Then)
		} else {
			x.stmts(s.Else)
		}
	case *ApplyStmt:
		x.apply(s.Table)
	case *SwitchStmt:
		_, a := x.apply(s.Table)
		for _, c := range s.Cases {
			for _, ca := range c.Actions {
				if ca == a {
					x.stmts(c.Body)
					return
				}
			}
		}
		x.stmts(s.Default)
	case *ForStmt:
		x.stmts(s.Init)
		for i := 0; x.eval(s.Cond) != 0; i++ {
			if i >= maxLoopIterations {
				break
			}
			x.stmts(s.Body)
			x.stmts(s.Post)
		}
	case *CallStmt:
		x.stmts(s.Fn.Body)
	case *BuiltinStmt:
		refBuiltinExec(x, s)
	case *CountStmt:
		idx := x.index(s.Index, s.Counter.Size)
		c := x.State.Counters[s.Counter.Index].Ptr(int(idx))
		c[0]++
		c[1] += x.PHV[x.State.Prog.Std[StdPacketLength].Slot]
		if x.Tracer != nil {
			x.Tracer.Count(s.Counter, idx)
		}
	}
	x.Steps++
}

func (x *refExec) store(dst LValue, v int64) {
	switch {
	case dst.Field != nil:
		x.PHV[dst.Field.Slot] = dst.Field.Type.Norm(v)
	case dst.Cell != nil:
		r := dst.Cell.Reg
		if dst.Cell.Half == 0 {
			x.cell = r.Type.Norm(v)
			return
		}
		ht := r.HalfType()
		hb := uint(ht.Bits)
		mask := uint64(1)<<hb - 1
		u := uint64(x.cell)
		hv := uint64(ht.Norm(v)) & mask
		if dst.Cell.Half == 1 {
			u = u&^mask | hv
		} else {
			u = u&mask | hv<<hb
		}
		x.cell = int64(u)
	default:
		x.out = x.ra.OutType.Norm(v)
	}
}

// apply matches a table and runs the selected action; it reports whether
// the table hit and which action ran.
func (x *refExec) apply(t *Table) (bool, *Action) {
	ts := x.State.Tables[t.Index]
	x.keyBuf = x.keyBuf[:0]
	for _, k := range t.Keys {
		x.keyBuf = append(x.keyBuf, x.eval(k.Expr))
	}
	var call ActionCall
	hit := false
	if e := ts.match(x.keyBuf); e != nil {
		call, hit = e.Call, true
		ts.Hits++
	} else {
		call = t.Default
		ts.Misses++
	}
	if x.Tracer != nil {
		x.Tracer.Lookup(t, x.keyBuf, hit, call.Action)
	}
	if call.Action == nil {
		return hit, nil
	}
	saved := x.params
	x.params = call.Args
	x.stmts(call.Action.Body)
	x.params = saved
	return hit, call.Action
}

func (x *refExec) index(e Expr, size int) int {
	v := x.eval(e)
	if v < 0 {
		v = -v
	}
	return int(v % int64(size))
}

// CallRegister runs a register action on a cell (atomic read-modify-write)
// and returns its output.
func (x *refExec) callRegister(c *RegisterCall) int64 {
	ra := c.Action
	r := ra.Register
	cells := x.State.Regs[r.Index]
	i := x.index(c.Index, r.Size)
	savedRA, savedCell, savedOut := x.ra, x.cell, x.out
	x.ra, x.cell, x.out = ra, cells.Get(i), 0
	x.stmts(ra.Body)
	cells.Set(i, x.cell)
	out := x.out
	if x.OnRegister != nil {
		x.OnRegister(ra, int64(i), x.NowPs)
	}
	if x.Tracer != nil {
		x.Tracer.Register(ra, i)
	}
	x.ra, x.cell, x.out = savedRA, savedCell, savedOut
	return out
}

// Eval evaluates an expression (for the semantics of a built-in defined
// outside this package).
func (x *refExec) Eval(e Expr) int64 { return x.eval(e) }

func (x *refExec) eval(e Expr) int64 {
	switch e := e.(type) {
	case *ConstExpr:
		return e.Val
	case *FieldExpr:
		if e.F.Slot == x.DynSlot {
			return e.F.Type.Norm(x.Dyn())
		}
		return x.PHV[e.F.Slot]
	case *ParamExpr:
		return x.params[e.P.Index]
	case *CellExpr:
		if e.Half == 0 {
			return x.cell
		}
		ht := e.Reg.HalfType()
		u := uint64(x.cell)
		if e.Half == 2 {
			u >>= uint(ht.Bits)
		}
		return ht.Norm(int64(u))
	case *BinaryExpr:
		if e.Op == OpLAnd {
			return b2i(x.eval(e.X) != 0 && x.eval(e.Y) != 0)
		}
		if e.Op == OpLOr {
			return b2i(x.eval(e.X) != 0 || x.eval(e.Y) != 0)
		}
		t := e.T
		if e.Op.IsCompare() {
			if unsignedCompare(e.X, e.Y) {
				return evalBinary(e.Op, flip(x.eval(e.X)), flip(x.eval(e.Y)), Type{})
			}
			t = Type{}
		}
		return evalBinary(e.Op, x.eval(e.X), x.eval(e.Y), t)
	case *UnaryExpr:
		return evalUnary(e.Op, x.eval(e.X), e.T)
	case *SliceExpr:
		v := uint64(x.eval(e.X)) >> uint(e.Lo)
		w := uint(e.Hi - e.Lo + 1)
		if w >= 64 {
			return int64(v)
		}
		return int64(v & (uint64(1)<<w - 1))
	case *CastExpr:
		return e.T.Norm(x.eval(e.X))
	case *CallExpr:
		return refBuiltinEval(x, e)
	case *RegisterCall:
		return x.callRegister(e)
	case *MeterCall:
		m := e.Meter
		i := x.index(e.Index, m.Size)
		size := int64(1)
		if m.Unit == MeterBytes {
			size = x.PHV[x.State.Prog.Std[StdPacketLength].Slot]
		}
		c := int64(x.State.Meters[m.Index][i].Mark(x.NowPs, size))
		if x.Tracer != nil {
			x.Tracer.Meter(m, i)
		}
		return c
	case *ValidExpr:
		return x.PHV[e.H.Valid.Slot]
	case *HitExpr:
		hit, _ := x.apply(e.Table)
		return b2i(hit)
	}
	panic("programs: unknown expression")
}

// refevalSatAdd is sat_add: a + b clamped to the result type's range.
func refevalSatAdd(x *refExec, e *CallExpr) int64 {
	return satAdd(x.eval(e.Args[0]), x.eval(e.Args[1]), e.T)
}

// refevalSatSub is sat_sub: a - b clamped to the result type's range.
func refevalSatSub(x *refExec, e *CallExpr) int64 {
	return satSub(x.eval(e.Args[0]), x.eval(e.Args[1]), e.T)
}

// refevalMin is min(a, b).
func refevalMin(x *refExec, e *CallExpr) int64 {
	return minOf(x.eval(e.Args[0]), x.eval(e.Args[1]), e.T)
}

// refevalMax is max(a, b).
func refevalMax(x *refExec, e *CallExpr) int64 {
	return maxOf(x.eval(e.Args[0]), x.eval(e.Args[1]), e.T)
}

// refevalConcat is concat: the operands' bits joined, the first in the high
// bits (P4 ++).
func refevalConcat(x *refExec, e *CallExpr) int64 {
	var v uint64
	for _, a := range e.Args {
		w := uint(a.Type().Bits)
		v = v<<w | uint64(a.Type().Norm(x.eval(a)))&(uint64(1)<<w-1)
	}
	return int64(v)
}

// refevalRandom is random(): a uniformly random value of its type (Random
// extern).
func refevalRandom(x *refExec, e *CallExpr) int64 { return e.T.Norm(int64(x.Rng.Uint64())) }

// refevalHash is hash(): the CRC-32 of the arguments' bytes, each big-endian
// in its whole bytes.
func refevalHash(x *refExec, e *CallExpr) int64 {
	x.hashB = x.hashB[:0]
	for _, a := range e.Args {
		n := (a.Type().Bits + 7) / 8
		var buf [8]byte
		binary.BigEndian.PutUint64(buf[:], uint64(x.eval(a)))
		x.hashB = append(x.hashB, buf[8-n:]...)
	}
	return int64(crc32.ChecksumIEEE(x.hashB))
}

// refevalPayload is payload32(i): the i-th 32-bit big-endian word of the
// packet after its last parsed header (Trio threads read the packet tail;
// a PISA parser sees headers only), 0 when the word lies beyond the frame
// or beyond the bytes the packet model holds. The tracer sees every read.
func refevalPayload(x *refExec, e *CallExpr) int64 {
	w := x.eval(e.Args[0])
	if x.Tracer != nil {
		x.Tracer.Payload(int(w))
	}
	return payloadWord(x.Payload, w)
}

// refevalAged is T.aged(I), on a table with aging: it visits record slot I
// the way a Trio timer thread scans a hash table (the Trio paper §5): 1
// when the slot holds an entry whose REF flag is clear (not referenced
// since the last visit; the entry stays), otherwise 0, and a set REF flag
// is cleared (a fetch-and-clear). An empty slot, or an I outside
// 0..size-1, yields 0.
func refevalAged(x *refExec, e *CallExpr) int64 {
	t := e.Table
	i := x.eval(e.Args[0])
	aged, occupied := x.State.Tables[t.Index].aged(i)
	if x.Tracer != nil && i >= 0 && i < int64(t.Size) {
		x.Tracer.TableOp(t, TableAged, int(i), occupied)
	}
	return b2i(aged)
}

// refexecEmit runs emit(): the thread creates a new packet from its current
// state and sends it (Trio's PPE and timer threads can create packets, the
// Trio paper §2.2 and §4). The packet is the valid headers deparsed in
// declaration order; its length is max(std.packet_length, the bytes it
// holds) (see Program.BuildEmitted); its destination is std.egress_port,
// std.mcast_grp and std.qid as they stand when emit() runs. The thread goes
// on afterwards, and its own packet (if any) is unaffected. The
// interpreter calls Exec.Emit.
//
// emit(REG, START, CELLS) also gives the packet a payload after the
// headers: CELLS consecutive cells of register REG from cell START, each
// big-endian in REG's width (a multiple of 8 bits; not a pair register),
// the range clipped to the register at run time (Trio-ML builds its Result
// packet's tail from the DMEM aggregation buffer this way, the Trio paper
// §4). Reg is nil for plain emit().
func refexecEmit(x *refExec, s *BuiltinStmt) {
	var payload []byte
	if r := s.Reg; r != nil {
		start, n := clipRange(x.eval(s.Args[0]), x.eval(s.Args[1]), r.Size)
		if n > 0 {
			if x.Tracer != nil {
				x.Tracer.Bulk(r, start, n)
			}
			if x.Emit != nil {
				payload = x.cellBytes(r, start, n)
			}
		}
	}
	if x.Emit != nil {
		x.Emit(payload)
	}
}

// cellBytes is n cells of register r from start, each big-endian in r's
// width.
func (x *refExec) cellBytes(r *Register, start, n int) []byte {
	w := r.Type.Bits / 8
	out := make([]byte, n*w)
	for i, v := range x.State.Regs[r.Index].Values()[start : start+n] {
		u := uint64(v)
		for k := 0; k < w; k++ {
			out[i*w+k] = byte(u >> (8 * (w - 1 - k)))
		}
	}
	return out
}

// refexecClear runs clear(REG, START, CELLS): it resets CELLS consecutive
// cells of register REG from cell START to the register's initial value
// (its init, 0 unless declared; both halves of a pair register at once),
// so that the cells are as a fresh run starts them (Trio-ML empties a
// block's aggregation buffer once its result is sent so that the next
// block adds into zeros, the Trio paper §4; the shared memory's Clear
// operation, §2.3). The range is clipped to the register at run time
// (cells before 0 or from its size on are not touched; CELLS ≤ 0 does
// nothing). The tracer sees the range reset.
func refexecClear(x *refExec, s *BuiltinStmt) {
	r := s.Reg
	start, n := clipRange(x.eval(s.Args[0]), x.eval(s.Args[1]), r.Size)
	if n == 0 {
		return
	}
	v := r.Type.Norm(r.Init)
	cells := x.State.Regs[r.Index]
	for i := start; i < start+n; i++ {
		cells.Set(i, v)
	}
	if x.Tracer != nil {
		x.Tracer.Clear(r, start, n)
	}
}

// key evaluates t's key expressions into an exact-table key.
func (x *refExec) key(t *Table) [maxExactKeys]int64 {
	var k [maxExactKeys]int64
	for i, kk := range t.Keys {
		k[i] = x.eval(kk.Expr)
	}
	return k
}

// refexecInsert runs T.insert(A(args)): the data plane adds an entry to an
// exact table, keyed by the current values of the table's key
// expressions, with action A and the values of args (evaluated before the
// entry is written, each normalized to its parameter's type) as its action
// data; an entry with the same key is overwritten in its slot. The entry
// takes the first free record slot from hash(key) mod size (linear
// probing, see KeySlot); when the table holds size entries nothing happens
// (TableState.InsertFailures counts it). Trio's microcode adds hash
// records this way (the Trio paper §5).
func refexecInsert(x *refExec, s *BuiltinStmt) {
	t := s.Table
	ts := x.State.Tables[t.Index]
	k := x.key(t)
	e := &Entry{Call: ActionCall{Action: s.Action, Args: make([]int64, len(s.Args))}}
	for i, a := range s.Args {
		e.Call.Args[i] = s.Action.Params[i].Type.Norm(x.eval(a))
	}
	for i, kk := range t.Keys {
		e.Values = append(e.Values, k[i])
		e.Masks = append(e.Masks, Type{Bits: kk.Bits}.Max())
		e.Prefix = append(e.Prefix, kk.Bits)
	}
	slot := ts.put(k, e)
	done := slot >= 0
	if !done {
		ts.InsertFailures++
		slot = KeySlot(k[:len(t.Keys)], t.Size)
	}
	if x.Tracer != nil {
		x.Tracer.TableOp(t, TableInsert, slot, done)
	}
}

// refexecRemove runs T.remove(): the data plane deletes the entry of an exact
// table keyed by the current values of the key expressions, if there is
// one.
func refexecRemove(x *refExec, s *BuiltinStmt) {
	t := s.Table
	k := x.key(t)
	slot := x.State.Tables[t.Index].remove(k)
	done := slot >= 0
	if !done {
		slot = KeySlot(k[:len(t.Keys)], t.Size)
	}
	if x.Tracer != nil {
		x.Tracer.TableOp(t, TableRemove, slot, done)
	}
}

// refexecLoad runs T.load(I): when record slot I of an exact table holds an
// entry, its key values are written into the key fields (each a plain
// field, checked by the loader) and its action runs as on a hit (its REF
// flag unchanged); otherwise (an empty slot, or I outside 0..size-1) the
// default action runs. A timer thread scanning a table reads an aged
// record this way.
func refexecLoad(x *refExec, s *BuiltinStmt) {
	t := s.Table
	i := x.eval(s.Args[0])
	r := x.State.Tables[t.Index].record(i)
	if x.Tracer != nil && i >= 0 && i < int64(t.Size) {
		x.Tracer.TableOp(t, TableLoad, int(i), r != nil)
	}
	call := t.Default
	if r != nil {
		for j, k := range t.Keys {
			f := k.Field
			x.PHV[f.Slot] = f.Type.Norm(r.key[j])
		}
		call = r.e.Call
	}
	x.runAction(call)
}

// runAction runs an action call's body with its arguments.
func (x *refExec) runAction(call ActionCall) {
	if call.Action == nil {
		return
	}
	saved := x.params
	x.params = call.Args
	x.stmts(call.Action.Body)
	x.params = saved
}
