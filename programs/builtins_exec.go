package programs

import (
	"encoding/binary"
	"hash/crc32"
	"math"
)

// The semantics of the built-ins with nodes of their own: the Eval and
// Exec functions of their rows (builtins.go). Each is written in two
// parts: the operation on evaluated operands (a method or function shared
// with the compiled form, compile_builtins.go, which evaluates the
// operands with its own closures), and the row function, which evaluates
// the operands with x.eval and applies it.

// evalSatAdd is sat_add: a + b clamped to the result type's range.
func evalSatAdd(x *Exec, e *CallExpr) int64 {
	return satAdd(x.eval(e.Args[0]), x.eval(e.Args[1]), e.T)
}

// evalSatSub is sat_sub: a - b clamped to the result type's range.
func evalSatSub(x *Exec, e *CallExpr) int64 {
	return satSub(x.eval(e.Args[0]), x.eval(e.Args[1]), e.T)
}

// evalMin is min(a, b).
func evalMin(x *Exec, e *CallExpr) int64 { return minOf(x.eval(e.Args[0]), x.eval(e.Args[1]), e.T) }

// evalMax is max(a, b).
func evalMax(x *Exec, e *CallExpr) int64 { return maxOf(x.eval(e.Args[0]), x.eval(e.Args[1]), e.T) }

// evalConcat is concat: the operands' bits joined, the first in the high
// bits (P4 ++).
func evalConcat(x *Exec, e *CallExpr) int64 {
	var v uint64
	for _, a := range e.Args {
		v = concatPart(v, x.eval(a), a.Type())
	}
	return int64(v)
}

// concatPart appends operand a of type t to the bits joined so far.
func concatPart(v uint64, a int64, t Type) uint64 {
	w := uint(t.Bits)
	return v<<w | uint64(t.Norm(a))&(uint64(1)<<w-1)
}

// evalRandom is random(): a uniformly random value of its type (Random
// extern).
func evalRandom(x *Exec, e *CallExpr) int64 { return e.T.Norm(int64(x.Rng.Uint64())) }

// evalHash is hash(): the CRC-32 of the arguments' bytes, each big-endian
// in its whole bytes.
func evalHash(x *Exec, e *CallExpr) int64 {
	x.hashB = x.hashB[:0]
	for _, a := range e.Args {
		x.hashB = appendHashBytes(x.hashB, x.eval(a), hashBytes(a.Type()))
	}
	return int64(crc32.ChecksumIEEE(x.hashB))
}

// hashBytes is how many bytes an operand of type t adds to a hash's
// input: its whole bytes.
func hashBytes(t Type) int { return (t.Bits + 7) / 8 }

// appendHashBytes appends the n low bytes of v, big-endian.
func appendHashBytes(b []byte, v int64, n int) []byte {
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], uint64(v))
	return append(b, buf[8-n:]...)
}

// evalPayload is payload32(i): the i-th 32-bit big-endian word of the
// packet after its last parsed header (Trio threads read the packet tail;
// a PISA parser sees headers only), 0 when the word lies beyond the frame
// or beyond the bytes the packet model holds. The tracer sees every read.
func evalPayload(x *Exec, e *CallExpr) int64 { return x.payload32(x.eval(e.Args[0])) }

// payload32 reads payload word w.
func (x *Exec) payload32(w int64) int64 {
	if x.Tracer != nil {
		x.Tracer.Payload(int(w))
	}
	return payloadWord(x.Payload, w)
}

// evalAged is T.aged(I), on a table with aging: it visits record slot I
// the way a Trio timer thread scans a hash table (the Trio paper §5): 1
// when the slot holds an entry whose REF flag is clear (not referenced
// since the last visit; the entry stays), otherwise 0, and a set REF flag
// is cleared (a fetch-and-clear). An empty slot, or an I outside
// 0..size-1, yields 0.
func evalAged(x *Exec, e *CallExpr) int64 { return x.aged(e.Table, x.eval(e.Args[0])) }

// aged visits record slot i of t.
func (x *Exec) aged(t *Table, i int64) int64 {
	aged, occupied := x.State.Tables[t.Index].aged(i)
	if x.Tracer != nil && i >= 0 && i < int64(t.Size) {
		x.Tracer.TableOp(t, TableAged, int(i), occupied)
	}
	return b2i(aged)
}

// execEmit runs emit(): the thread creates a new packet from its current
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
func execEmit(x *Exec, s *BuiltinStmt) {
	var start, cells int64
	if s.Reg != nil {
		start = x.eval(s.Args[0])
		cells = x.eval(s.Args[1])
	}
	x.emit(s.Reg, start, cells)
}

// emit sends a new packet, with cells [start, start+cells) of r as its
// payload (r nil: none).
func (x *Exec) emit(r *Register, start64, cells64 int64) {
	var payload []byte
	if r != nil {
		start, n := clipRange(start64, cells64, r.Size)
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
func (x *Exec) cellBytes(r *Register, start, n int) []byte {
	w := r.Type.Bits / 8
	out := make([]byte, n*w)
	x.State.Regs[r.Index].putBigEndian(out, start, n, w)
	return out
}

// execClear runs clear(REG, START, CELLS): it resets CELLS consecutive
// cells of register REG from cell START to the register's initial value
// (its init, 0 unless declared; both halves of a pair register at once),
// so that the cells are as a fresh run starts them (Trio-ML empties a
// block's aggregation buffer once its result is sent so that the next
// block adds into zeros, the Trio paper §4; the shared memory's Clear
// operation, §2.3). The range is clipped to the register at run time
// (cells before 0 or from its size on are not touched; CELLS ≤ 0 does
// nothing). The tracer sees the range reset.
func execClear(x *Exec, s *BuiltinStmt) {
	start := x.eval(s.Args[0])
	x.clearCells(s.Reg, start, x.eval(s.Args[1]))
}

// clearCells resets cells [start, start+cells) of r.
func (x *Exec) clearCells(r *Register, start64, cells64 int64) {
	start, n := clipRange(start64, cells64, r.Size)
	if n == 0 {
		return
	}
	x.State.Regs[r.Index].Fill(start, n, r.Type.Norm(r.Init))
	if x.Tracer != nil {
		x.Tracer.Clear(r, start, n)
	}
}

// clipRange intersects cells [start, start+cells) with [0, size) and
// returns the first cell and the count (0: empty).
func clipRange(start, cells int64, size int) (int, int) {
	if cells <= 0 || start >= int64(size) {
		return 0, 0
	}
	if start < 0 {
		cells += start // both sides of 0 are in range: no overflow
		start = 0
	}
	cells = min(cells, int64(size)-start)
	if cells <= 0 {
		return 0, 0
	}
	return int(start), int(cells)
}

// key evaluates t's key expressions into an exact-table key.
func (x *Exec) key(t *Table) [maxExactKeys]int64 {
	var k [maxExactKeys]int64
	for i, kk := range t.Keys {
		k[i] = x.eval(kk.Expr)
	}
	return k
}

// execInsert runs T.insert(A(args)): the data plane adds an entry to an
// exact table, keyed by the current values of the table's key
// expressions, with action A and the values of args (evaluated before the
// entry is written, each normalized to its parameter's type) as its action
// data; an entry with the same key is overwritten in its slot. The entry
// takes the first free record slot from hash(key) mod size (linear
// probing, see KeySlot); when the table holds size entries nothing happens
// (TableState.InsertFailures counts it). Trio's microcode adds hash
// records this way (the Trio paper §5).
func execInsert(x *Exec, s *BuiltinStmt) {
	k := x.key(s.Table)
	args := make([]int64, len(s.Args))
	for i, a := range s.Args {
		args[i] = s.Action.Params[i].Type.Norm(x.eval(a))
	}
	x.insert(s.Table, k, s.Action, args)
}

// insert adds an entry with key k running a with args (normalized) to
// exact table t.
func (x *Exec) insert(t *Table, k [maxExactKeys]int64, a *Action, args []int64) {
	ts := x.State.Tables[t.Index]
	e := &Entry{Call: ActionCall{Action: a, Args: args}}
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

// execRemove runs T.remove(): the data plane deletes the entry of an exact
// table keyed by the current values of the key expressions, if there is
// one.
func execRemove(x *Exec, s *BuiltinStmt) { x.remove(s.Table, x.key(s.Table)) }

// remove deletes the entry with key k from exact table t.
func (x *Exec) remove(t *Table, k [maxExactKeys]int64) {
	slot := x.State.Tables[t.Index].remove(k)
	done := slot >= 0
	if !done {
		slot = KeySlot(k[:len(t.Keys)], t.Size)
	}
	if x.Tracer != nil {
		x.Tracer.TableOp(t, TableRemove, slot, done)
	}
}

// execLoad runs T.load(I): when record slot I of an exact table holds an
// entry, its key values are written into the key fields (each a plain
// field, checked by the loader) and its action runs as on a hit (its REF
// flag unchanged); otherwise (an empty slot, or I outside 0..size-1) the
// default action runs. A timer thread scanning a table reads an aged
// record this way.
func execLoad(x *Exec, s *BuiltinStmt) {
	x.runAction(x.load(s.Table, x.eval(s.Args[0])))
}

// load reads record slot i of exact table t into the key fields and
// returns the action call to run: the entry's, or the default.
func (x *Exec) load(t *Table, i int64) ActionCall {
	r := x.State.Tables[t.Index].record(i)
	if x.Tracer != nil && i >= 0 && i < int64(t.Size) {
		x.Tracer.TableOp(t, TableLoad, int(i), r != nil)
	}
	call := t.Default
	if r != nil {
		for j, k := range t.Keys {
			f := k.Field
			x.PHV[f.Slot] = f.Type.Norm(r.key[j])
			x.Dirty |= HeaderBit(f)
		}
		call = r.e.Call
	}
	return call
}

// runAction runs an action call's body with its arguments.
func (x *Exec) runAction(call ActionCall) {
	if call.Action == nil {
		return
	}
	b := x.compile().action(call.Action)
	saved := x.params
	x.params = call.Args
	b.exec(x)
	x.params = saved
}

// satAdd is a + b clamped to t's range, without int64's overflow: an
// unsigned sum is taken as uint64 (63 and 64 bits overflow an int64; 64
// saturates at 2^64-1), a 64-bit signed one saturates at its bounds.
func satAdd(a, b int64, t Type) int64 {
	if !t.Signed && t.Bits != 0 {
		top := uint64(t.Max())
		if t.Bits >= 64 {
			top = ^uint64(0)
		}
		if s := uint64(a) + uint64(b); s >= uint64(a) && s <= top {
			return int64(s)
		}
		return int64(top)
	}
	s := a + b
	if t.Bits == 64 || t.Bits == 0 {
		switch {
		case b > 0 && s < a:
			return math.MaxInt64
		case b < 0 && s > a:
			return math.MinInt64
		}
		return s
	}
	return min(max(s, t.Min()), t.Max())
}

// satSub is a - b clamped to t's range (unsigned: 0 below; 64-bit signed
// without int64's overflow).
func satSub(a, b int64, t Type) int64 {
	if !t.Signed && t.Bits != 0 {
		if uint64(a) < uint64(b) {
			return 0
		}
		return int64(uint64(a) - uint64(b))
	}
	s := a - b
	if t.Bits == 64 || t.Bits == 0 {
		switch {
		case b < 0 && s < a:
			return math.MaxInt64
		case b > 0 && s > a:
			return math.MinInt64
		}
		return s
	}
	return min(max(s, t.Min()), t.Max())
}

// payloadWord returns the i-th 32-bit big-endian word of payload: 0 when
// the word starts beyond it; a word that runs past its end reads the
// missing bytes as 0 (the packet model's bytes beyond those it holds).
func payloadWord(payload []byte, i int64) int64 {
	if i < 0 || i >= (int64(len(payload))+3)/4 {
		return 0
	}
	off := int(i) * 4
	var v uint32
	for k := off; k < off+4; k++ {
		v <<= 8
		if k < len(payload) {
			v |= uint32(payload[k])
		}
	}
	return int64(v)
}
