package programs

import (
	"math/rand"
	"sort"

	"archsim/components/meter"
)

// State is the stateful memory of one program instance: register cells,
// meters, counters and table contents. On Tofino every pipe has its own
// State (no coherency between pipes); on Trio a PFE shares one.
type State struct {
	Prog     *Program
	Regs     []*Cells
	Meters   [][]meter.TrTCM
	Counters []Counts // [counter], cells {packets, bytes} by index
	Tables   []*TableState
	Buffers  []*BufferState
}

// NewState returns fresh state for prog: registers at their initial value,
// meters with full buckets, tables holding the program's entries.
func NewState(prog *Program) *State {
	s := &State{Prog: prog}
	for _, r := range prog.Registers {
		s.Regs = append(s.Regs, NewCells(r.Size, r.Type.Norm(r.Init)))
	}
	for _, m := range prog.Meters {
		ms := make([]meter.TrTCM, m.Size)
		cir, pir := m.CIR, m.PIR
		if m.Unit == MeterBytes {
			cir, pir = cir/8, pir/8 // rates are written in bits/s, buckets count bytes
		}
		for i := range ms {
			ms[i] = meter.New(cir, pir, m.CBS, m.PBS)
		}
		s.Meters = append(s.Meters, ms)
	}
	for _, c := range prog.Counters {
		s.Counters = append(s.Counters, NewCounts(c.Size))
	}
	for _, t := range prog.Tables {
		s.Tables = append(s.Tables, newTableState(t))
	}
	for _, b := range prog.Buffers {
		s.Buffers = append(s.Buffers, &BufferState{Buf: b, slots: make([]storedPacket, b.Slots)})
	}
	return s
}

// TableState holds a table's entries in lookup structures.
type TableState struct {
	T *Table
	// exact indexes the records of a table whose keys are all exact (at
	// most maxExactKeys) by key; slots holds them by record slot.
	exact   map[[maxExactKeys]int64]*record
	slots   map[int]*record
	one     *keyIndex // exact's records again, when the table has one key
	ordered []*Entry  // otherwise, in match priority order
	// runs indexes ordered for lookups (see maskRun); nil until the first
	// lookup after ordered changed, indexed tells whether it was built.
	runs []maskRun
	// flat holds ordered as masks and values, for the linear scan of a
	// table without runs and without range keys (nil otherwise).
	flat []flatEntry
	// ranges indexes a one-key range table (see rangeIndex; nil
	// otherwise). It is built after rangeWait more lookups scan the
	// table unchanged: a table a control plane rewrites between every
	// few lookups is not re-indexed each time (a build costs about ten
	// scans).
	ranges    *rangeIndex
	rangeWait int
	indexed   bool
	Hits      int64
	Misses    int64
	// InsertFailures counts T.insert() that found the table full.
	InsertFailures int64
}

func allExact(t *Table) bool {
	if len(t.Keys) == 0 || len(t.Keys) > maxExactKeys {
		return false
	}
	for _, k := range t.Keys {
		if k.Kind != MatchExact {
			return false
		}
	}
	return true
}

func newTableState(t *Table) *TableState {
	ts := &TableState{T: t}
	if allExact(t) {
		ts.exact = make(map[[maxExactKeys]int64]*record, len(t.Entries))
		ts.slots = make(map[int]*record, len(t.Entries))
	}
	for _, e := range t.Entries {
		ts.Add(e)
	}
	return ts
}

// Add installs an entry (control-plane write). For exact tables a later
// entry with the same key replaces the earlier one in its record slot; a
// new key takes a free slot (see KeySlot), and is dropped when the table
// already holds size entries (the loader and SetEntries never write more).
func (ts *TableState) Add(e *Entry) {
	if ts.exact != nil {
		var k [maxExactKeys]int64
		copy(k[:], e.Values)
		ts.put(k, e)
		return
	}
	ts.ordered = append(ts.ordered, e)
	ts.sortOrdered()
}

// sortOrdered puts LPM entries longest total prefix first, ternary and
// range entries by priority.
func (ts *TableState) sortOrdered() {
	ts.runs, ts.indexed = nil, false
	sort.SliceStable(ts.ordered, func(i, j int) bool {
		a, b := ts.ordered[i], ts.ordered[j]
		pa, pb := prefixLen(a, ts.T), prefixLen(b, ts.T)
		if pa != pb {
			return pa > pb
		}
		return a.Priority < b.Priority
	})
}

func prefixLen(e *Entry, t *Table) int {
	n := 0
	for i, k := range t.Keys {
		if k.Kind == MatchLPM {
			n += e.Prefix[i]
		}
	}
	return n
}

// Lookup matches key values against the table.
func (ts *TableState) Lookup(vals []int64) *Entry {
	if ts.exact != nil {
		var k [maxExactKeys]int64
		copy(k[:], vals)
		if r := ts.exactRecord(&k); r != nil {
			return r.e
		}
		return nil
	}
	if !ts.indexed {
		ts.runs, ts.indexed = buildMaskRuns(ts.T, ts.ordered), true
		ts.flat, ts.ranges = nil, nil
		if ts.runs == nil {
			ts.flat = buildFlat(ts.T, ts.ordered)
		}
		ts.rangeWait = 0
		if ts.runs == nil && ts.flat == nil && rangeIndexable(ts.T, ts.ordered) {
			ts.rangeWait = rangeIndexAfter
		}
	}
	if ts.ranges != nil {
		return ts.ranges.get(vals[0])
	}
	if ts.rangeWait > 0 {
		if ts.rangeWait--; ts.rangeWait == 0 {
			if ts.ranges = buildRangeIndex(ts.T, ts.ordered); ts.ranges != nil {
				return ts.ranges.get(vals[0])
			}
		}
	}
	if ts.flat != nil {
		for i := range ts.flat {
			f := &ts.flat[i]
			hit := true
			for j, v := range vals {
				if v&f.masks[j] != f.vals[j] {
					hit = false
					break
				}
			}
			if hit {
				return f.e
			}
		}
		return nil
	}
	if ts.runs != nil {
		if len(vals) == 1 && ts.runs[0].by1 != nil {
			v := vals[0]
			for i := range ts.runs {
				r := &ts.runs[i]
				if rec := r.by1.get(v & r.masks[0]); rec != nil {
					return rec.e
				}
			}
			return nil
		}
		var k [maxExactKeys]int64
		for _, r := range ts.runs {
			for i, m := range r.masks[:len(vals)] {
				k[i] = vals[i] & m
			}
			if e := r.entries[k]; e != nil {
				return e
			}
		}
		return nil
	}
	for _, e := range ts.ordered {
		if entryMatches(ts.T, e, vals) {
			return e
		}
	}
	return nil
}

// maskRun indexes consecutive entries of a ternary or LPM table (in match
// priority order) that have the same masks: an entry matches key values v
// when v & masks equals its values (an exact key's mask is all ones), so
// within a run the first entry matching v is entries[v & masks]. The
// first matching entry of the table is that of the first run with one.
type maskRun struct {
	masks   [maxExactKeys]int64
	entries map[[maxExactKeys]int64]*Entry
	by1     *keyIndex // entries by their first value, for a one-key table
}

// flatEntry is an entry of a ternary, LPM or exact-and-ternary table as
// masks and values (an exact key's mask is all ones): it matches key
// values v when v & masks equals vals, key by key.
type flatEntry struct {
	masks, vals [maxExactKeys]int64
	e           *Entry
}

// buildFlat returns ordered as flat entries; nil when t has a range key
// or more than maxExactKeys keys.
func buildFlat(t *Table, ordered []*Entry) []flatEntry {
	if len(t.Keys) > maxExactKeys {
		return nil
	}
	out := make([]flatEntry, 0, len(ordered))
	for _, e := range ordered {
		f := flatEntry{e: e}
		for i, k := range t.Keys {
			switch k.Kind {
			case MatchExact:
				f.masks[i], f.vals[i] = -1, e.Values[i]
			case MatchTernary, MatchLPM:
				f.masks[i], f.vals[i] = e.Masks[i], e.Values[i]
			default:
				return nil
			}
		}
		out = append(out, f)
	}
	return out
}

// buildMaskRuns indexes ordered, the entries of t in priority order; nil
// when t has a range key or more than maxExactKeys keys, or when runs
// would be short on average (a linear scan is then as fast).
func buildMaskRuns(t *Table, ordered []*Entry) []maskRun {
	if len(t.Keys) > maxExactKeys || len(ordered) < 8 {
		return nil
	}
	var runs []maskRun
	for _, e := range ordered {
		var masks, vals [maxExactKeys]int64
		for i, k := range t.Keys {
			switch k.Kind {
			case MatchExact:
				masks[i], vals[i] = -1, e.Values[i]
			case MatchTernary, MatchLPM:
				masks[i], vals[i] = e.Masks[i], e.Values[i]
			default:
				return nil
			}
		}
		if len(runs) == 0 || runs[len(runs)-1].masks != masks {
			r := maskRun{masks: masks, entries: map[[maxExactKeys]int64]*Entry{}}
			if len(t.Keys) == 1 {
				r.by1 = &keyIndex{}
			}
			runs = append(runs, r)
		}
		if r := runs[len(runs)-1]; r.entries[vals] == nil {
			r.entries[vals] = e
			if r.by1 != nil {
				r.by1.set(vals[0], &record{e: e})
			}
		}
	}
	if len(runs)*4 > len(ordered) {
		return nil
	}
	return runs
}

// match is a data-plane lookup: Lookup, and on a hit in an exact table
// the entry's REF flag is set.
func (ts *TableState) match(vals []int64) *Entry {
	if ts.exact != nil {
		var k [maxExactKeys]int64
		copy(k[:], vals)
		if r := ts.exactRecord(&k); r != nil {
			r.ref = true
			return r.e
		}
		return nil
	}
	return ts.Lookup(vals)
}

func entryMatches(t *Table, e *Entry, vals []int64) bool {
	for i, k := range t.Keys {
		v := vals[i]
		switch k.Kind {
		case MatchExact:
			if v != e.Values[i] {
				return false
			}
		case MatchTernary, MatchLPM:
			if v&e.Masks[i] != e.Values[i] {
				return false
			}
		case MatchRange:
			if k.Bits == 64 && k.unsigned64() {
				if uint64(v) < uint64(e.Values[i]) || uint64(v) > uint64(e.Masks[i]) {
					return false
				}
			} else if v < e.Values[i] || v > e.Masks[i] {
				return false
			}
		}
	}
	return true
}

// Exec executes program code on one packet's header vector.
type Exec struct {
	State *State
	PHV   []int64
	Rng   *rand.Rand
	NowPs int64 // current time, for meters
	// Gress is "ingress" or "egress" (for tracing only).
	Gress string

	// comp is the program compiled for this Exec (see compile.go).
	comp *compiled
	// params, cell, out and ra are the running action's data, the
	// register cell being read-modified-written, the register action's
	// output and the running register action (nil outside one).
	params []int64
	cell   int64
	out    int64
	ra     *RegisterAction
	keyBuf []int64
	// regAdds holds a run of register adds for the tracer (regAddRun).
	regAdds []RegAdd
	hashB   []byte
	// LoopCut is the first loop this Exec cut after MaxLoopIterations
	// (nil: none was); the caller decides what a cut loop means (the
	// chips fail the run, naming the loop's file:line).
	LoopCut *ForStmt
	// Dirty has bit HeaderBit(h) set for every header h whose fields or
	// validity the code wrote since the caller last cleared it: a
	// deparser that kept the parsed bytes rewrites only those headers
	// (Codec.DeparsePass).
	Dirty uint64
	// ElideDeadStores, when set, leaves out of the compiled code the
	// assignments to metadata no live code reads (deadstores.go); it
	// takes effect only while Tracer is nil. The header vector's dead
	// metadata fields then keep the values they had (the chips clear the
	// vector per packet), and everything else is as without it.
	ElideDeadStores bool
	// Steps counts executed table applications and inline statements,
	// useful to check that a program did work on a packet.
	Steps int
	// DynSlot, when ≥ 0, is a field whose value Dyn computes at the moment
	// it is read (e.g. live queue depth seen by ingress on Tofino 2). Dyn
	// must have no effect but its value: a store ElideDeadStores leaves
	// out does not call it.
	DynSlot int
	Dyn     func() int64
	// OnRegister, when set, is called after every register action.
	OnRegister func(ra *RegisterAction, index int64, nowPs int64)
	// Tracer, when set, observes what runs (a timing model charges the
	// lowered cost of the statements, lookups and stateful operations a
	// packet actually executed).
	Tracer Tracer
	// Payload holds the frame's bytes after the parsed headers (see
	// PayloadBytes), set by the caller for each packet; payload32(i) reads
	// them. Nil means no payload bytes (every word reads 0), as for a
	// timer thread.
	Payload []byte
	// PayloadLen is the frame's bytes after its parsed headers (the
	// chip sets it for each packet; 0 for a timer thread): the length a
	// copy the program stores keeps.
	PayloadLen int
	// Ident is the identity of the packet the thread runs on (the chip
	// sets it per packet): a stored copy keeps it, and resend() gives it
	// back, so a kept frame sent again is the same frame to the rest of
	// the model.
	Ident PacketIdent
	// Send, when set, is called when resend() runs: the chip sends a
	// packet of head bytes and length, of identity id, to
	// std.egress_port, std.mcast_grp and std.qid as they stand (the head
	// is the caller's own copy). Nil: resend() does nothing (the tracer
	// still sees it).
	Send func(head []byte, length int, id PacketIdent)
	// Emit, when set, is called when emit() runs: the caller (a chip
	// model) builds the new packet from x.PHV as it stands at that point
	// and payload (Program.BuildEmitted; destination from
	// std.egress_port, std.mcast_grp and std.qid) and sends it. payload
	// is the register cells of emit(REG, START, CELLS), big-endian (nil
	// for emit() or an empty range). Execution then goes on. Nil: emit()
	// does nothing (it still counts in Steps, and the tracer still sees
	// its Bulk copy).
	Emit func(payload []byte)
}

// Tracer observes execution. A Tracer that also implements CostTracer
// (compile.go) resolves statements' and register actions' costs once, when
// they are compiled; one that also implements RegAddTracer
// (compile_regadds.go) receives a run of consecutive register adds in one
// call, after the run, with their calls in order.
type Tracer interface {
	// Stmt is called before a statement of a control block or action
	// runs (not for the body of a register action, which is one
	// stateful operation).
	Stmt(s Stmt)
	// Lookup is called after a table lookup (a nil action: none ran).
	Lookup(t *Table, key []int64, hit bool, a *Action)
	// Register is called after a register action on cell index.
	Register(ra *RegisterAction, index int)
	// Meter is called after a meter execution on cell index.
	Meter(m *Meter, index int)
	// Count is called after a counter increment on cell index.
	Count(c *Counter, index int)
	// Payload is called whenever payload32 is evaluated (in control code,
	// actions and register actions alike), with the word index it read,
	// whether or not the word lies inside the payload: a timing model
	// charges the fetch from the packet tail.
	Payload(word int)
	// Bulk is called when emit(REG, START, CELLS) copies cells
	// [start, start+cells) of r into the new packet's payload (the range
	// clipped to the register, cells > 0), before the packet is sent: a
	// timing model charges the copy.
	Bulk(r *Register, start, cells int)
	// Clear is called after clear(REG, START, CELLS) has reset cells
	// [start, start+cells) of r to its initial value (the range clipped to
	// the register, cells > 0): a timing model charges the writes.
	Clear(r *Register, start, cells int)
	// TableOp is called after a data-plane operation on record slot slot
	// of exact table t: T.insert() (slot: where the entry went; done false
	// when the table was full, slot then the key's home slot),
	// T.remove() (done false when no entry had the key, slot then its
	// home slot), T.aged(I) and T.load(I) (slot I, inside the table; done
	// tells whether it held an entry). A T.aged(I) or T.load(I) with I
	// outside the table touches no record and is not reported.
	TableOp(t *Table, op TableOpKind, slot int, done bool)
}

// TableOpKind is a data-plane operation on a table's records.
type TableOpKind int

// Data-plane table operations.
const (
	TableInsert TableOpKind = iota // T.insert(A(args))
	TableRemove                    // T.remove()
	TableAged                      // T.aged(I)
	TableLoad                      // T.load(I)
)

var tableOpNames = [...]string{"insert", "remove", "aged", "load"}

func (k TableOpKind) String() string { return tableOpNames[k] }

// NewExec returns an executor bound to a state.
func NewExec(s *State, rng *rand.Rand) *Exec {
	return &Exec{State: s, Rng: rng, DynSlot: -1}
}

// RunControl executes a control block.
func (x *Exec) RunControl(c *Control) {
	if c == nil {
		return
	}
	x.compile().control(c).exec(x)
}

// RunTimer runs one thread of a timer: the timer's body with
// std.timer_index set to index. The caller provides a zeroed header vector
// in x.PHV (a timer thread has no packet: no header is valid) and normally
// leaves x.Payload nil.
func (x *Exec) RunTimer(t *Timer, index int) {
	k := x.compile()
	f := x.State.Prog.Std[StdTimerIndex]
	x.PHV[f.Slot] = f.Type.Norm(int64(index))
	k.timer(t).exec(x)
}

// MaxLoopIterations bounds loops so a buggy program cannot hang a run: a
// loop still running after this many iterations is cut, and Exec.LoopCut
// names it (a chip reports the run as failed).
const MaxLoopIterations = 1 << 16

// maxLoopIterations is MaxLoopIterations (the name the interpreter uses).
const maxLoopIterations = MaxLoopIterations

// Eval evaluates an expression (for the semantics of a built-in defined
// outside this package).
func (x *Exec) Eval(e Expr) int64 { return x.eval(e) }

// eval evaluates e through its compiled form (compiled on first use).
func (x *Exec) eval(e Expr) int64 { return x.compile().evalExpr(e)(x) }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// evalBinary applies op; arithmetic results are normalized to t. The
// loader folds constants with it; compile_ops.go compiles each operator
// with these semantics.
func evalBinary(op Op, a, b int64, t Type) int64 {
	switch op {
	case OpAdd:
		return t.Norm(a + b)
	case OpSub:
		return t.Norm(a - b)
	case OpMul:
		return t.Norm(a * b)
	case OpDiv:
		if b == 0 {
			return 0
		}
		if t.Signed || t.Bits == 0 {
			return t.Norm(a / b)
		}
		return t.Norm(int64(uint64(a) / uint64(b)))
	case OpMod:
		if b == 0 {
			return 0
		}
		if t.Signed || t.Bits == 0 {
			return t.Norm(a % b)
		}
		return t.Norm(int64(uint64(a) % uint64(b)))
	case OpAnd:
		return t.Norm(a & b)
	case OpOr:
		return t.Norm(a | b)
	case OpXor:
		return t.Norm(a ^ b)
	case OpShl:
		if b >= 64 || b < 0 {
			return 0
		}
		return t.Norm(a << uint(b))
	case OpShr:
		if b >= 64 || b < 0 {
			if t.Signed && a < 0 {
				return -1
			}
			return 0
		}
		if t.Signed || t.Bits == 0 {
			return t.Norm(a >> uint(b))
		}
		return t.Norm(int64(uint64(a) >> uint(b)))
	case OpEq:
		return b2i(a == b)
	case OpNe:
		return b2i(a != b)
	case OpLt:
		return b2i(a < b)
	case OpLe:
		return b2i(a <= b)
	case OpGt:
		return b2i(a > b)
	case OpGe:
		return b2i(a >= b)
	case OpLAnd:
		return b2i(a != 0 && b != 0)
	case OpLOr:
		return b2i(a != 0 || b != 0)
	}
	panic("programs: unknown operator")
}

func evalUnary(op Op, a int64, t Type) int64 {
	switch op {
	case OpNeg:
		return t.Norm(-a)
	case OpNot:
		return b2i(a == 0)
	case OpBNot:
		return t.Norm(^a)
	}
	panic("programs: unknown operator")
}
