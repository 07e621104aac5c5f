package lower

import (
	"fmt"
	"sort"

	"archsim/arch/trio/spec"
	"archsim/programs"
)

// XKind is the kind of an external transaction.
type XKind int

// Transaction kinds.
const (
	XHash    XKind = iota // hash-table lookup (exact-match table)
	XFilter               // filter lookup (ternary, LPM, range table)
	XRMW                  // read-modify-write on a register cell (one engine op)
	XRead                 // register read (a complex register action's first half)
	XWrite                // register write (its second half)
	XPolicer              // meter
	XCounter              // packet/byte counter
	XTail                 // packet-tail chunk fetch
	XPMEM                 // write of a created packet's tail chunk to the packet buffer

	// NumXKinds is the number of kinds.
	NumXKinds
)

var xkindNames = [NumXKinds]string{"hash_lookup", "filter_lookup", "rmw", "read", "write", "policer", "counter", "tail_fetch", "pmem_write"}

// BulkLoopInstr is the instructions of one iteration of the loop that
// copies emit(REG, START, CELLS)'s cells into the new packet's tail, one
// result chunk per iteration, beyond its transactions: the offset
// increment and the branch (assumed). It is also the body of the loop that
// writes clear(REG, START, CELLS)'s range, each of its instructions
// issuing instr.xtxn_per_instr writes. The lowering counts the loop once;
// the PFE charges it per chunk or write the thread actually issues.
const BulkLoopInstr = 2

// String is the kind's name in reports and in the table of built-ins
// (hash_lookup, rmw, ...).
func (k XKind) String() string { return xkindNames[k] }

// StmtCost is what a statement costs when it runs.
type StmtCost struct {
	Instr int // instructions it opens
}

// RegCost is how a register action is lowered.
type RegCost struct {
	Atomic bool   // one RMW engine operation
	Sync   bool   // the thread waits for the reply (the output is used)
	Op     string // add, or, and, xor, swap, write, fetch, or read-compute-write
	Instr  int    // instructions of the body (read-compute-write only)
	Bytes  int    // transaction size
	// Cycles the engine spends (RMW) per operation.
	Cycles int
	// Object is where the register lives in the shared memory.
	Object *MemObject
}

// MemObject is one stateful object placed in the shared memory.
type MemObject struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"` // register, meter, counter, table
	Bytes      int64  `json:"bytes"`
	EntryBytes int    `json:"entry_bytes"`
	Memory     string `json:"memory"` // sram or dram
	Base       int64  `json:"-"`
}

// Block is a straight-line code unit's static instruction count.
type Block struct {
	Name  string `json:"name"`
	Instr int    `json:"instructions"`
}

// Microcode is a program lowered for one Trio PFE: its static figures
// (the exported fields, which the report prints) and, behind the methods
// StmtCost, RegisterCost, Object, LookupKind and EngineCycles, what the
// PFE charges a thread for what it runs.
type Microcode struct {
	Prog *programs.Program
	cfg  *spec.Config

	stmt   map[programs.Stmt]*StmtCost
	reg    map[*programs.RegisterAction]*RegCost
	object map[any]*MemObject // *Register, *Meter, *Counter, *Table → placement
	// The instructions of the commonest statements, keyed by pointer (the
	// interface-keyed stmt hashes the type too, and StmtCost runs once per
	// statement of every packet).
	exprInstr   map[*programs.ExprStmt]int
	assignInstr map[*programs.AssignStmt]int

	Blocks        []Block        `json:"blocks"`
	StaticInstr   int            `json:"static_instructions"`
	XTXNSites     map[string]int `json:"xtxn_sites"`
	Memory        []*MemObject   `json:"memory"`
	SRAMBytes     int64          `json:"sram_bytes"`
	DRAMBytes     int64          `json:"dram_bytes"`
	MetaBits      int            `json:"metadata_bits"`
	RegistersUsed int            `json:"registers_used"`
	LMEMBytes     int            `json:"lmem_bytes"`
	NonAtomic     []string       `json:"non_atomic_register_actions"`
	Notes         []string       `json:"notes"`
	CallDepth     int            `json:"call_depth"`
	HeadBytes     int            `json:"head_bytes"`
	xsites        map[XKind]int
}

// LoweringError is a program the chip cannot run, with the rule broken.
type LoweringError struct {
	Rule string
	Pos  programs.Pos
	Msg  string
}

func (e *LoweringError) Error() string {
	if e.Pos.File == "" {
		return fmt.Sprintf("rule %s: %s", e.Rule, e.Msg)
	}
	return fmt.Sprintf("%s: rule %s: %s", e.Pos, e.Rule, e.Msg)
}

// Lowering rules (part of the output contract).
const (
	RuleLocalMemory = "local-memory" // head + spilled metadata exceed the thread's local memory
	RuleCallDepth   = "call-depth"   // subroutine calls nested deeper than the PPE supports
	RuleMemory      = "shared-memory"
	RuleXTXNSize    = "xtxn-size" // a register cell wider than the largest transaction
	RuleTimers      = "timers"    // more timers than the PFE has
)

// Lower lowers a program for a PFE.
func Lower(cfg *spec.Config, prog *programs.Program) (*Microcode, error) {
	m := &Microcode{Prog: prog, cfg: cfg, stmt: map[programs.Stmt]*StmtCost{}, reg: map[*programs.RegisterAction]*RegCost{},
		object: map[any]*MemObject{}, XTXNSites: map[string]int{}, xsites: map[XKind]int{}}
	if err := m.storage(); err != nil {
		return nil, err
	}
	if err := m.placeMemory(); err != nil {
		return nil, err
	}
	if err := m.registerActions(); err != nil {
		return nil, err
	}
	if d := callDepth(prog); d > cfg.Instr.CallDepth {
		return nil, &LoweringError{Rule: RuleCallDepth, Msg: fmt.Sprintf("subroutine calls nest %d deep; a PPE supports %d", d, cfg.Instr.CallDepth)}
	} else {
		m.CallDepth = d
	}
	parse := 0
	for _, p := range []*programs.Parser{prog.Parser, prog.EgressParser} {
		if p != nil {
			parse += len(p.States)
		}
	}
	m.Blocks = append(m.Blocks, Block{"parser (one instruction per state)", parse})
	for _, c := range []*programs.Control{prog.Ingress, prog.Egress} {
		if c != nil {
			m.Blocks = append(m.Blocks, Block{c.Name, m.block(c.Body, true)})
		}
	}
	for _, a := range prog.Actions {
		m.Blocks = append(m.Blocks, Block{"action " + a.Name, m.block(a.Body, true)})
	}
	for _, f := range prog.Functions {
		m.Blocks = append(m.Blocks, Block{"function " + f.Name, m.block(f.Body, true)})
	}
	for _, t := range prog.Timers {
		m.Blocks = append(m.Blocks, Block{fmt.Sprintf("timer %s (%d threads every %d ns)", t.Name, t.Threads, t.PeriodNs), m.block(t.Body, true)})
	}
	if len(prog.Timers) > m.cfg.Timers {
		return nil, &LoweringError{Rule: RuleTimers, Msg: fmt.Sprintf("%d timers; the PFE has %d", len(prog.Timers), m.cfg.Timers)}
	}
	if err := m.timerRate(); err != nil {
		return nil, err
	}
	for _, b := range m.Blocks {
		m.StaticInstr += b.Instr
	}
	for _, r := range prog.Registers {
		for _, ra := range r.Actions {
			if rc := m.reg[ra]; !rc.Atomic {
				m.StaticInstr += rc.Instr
			}
		}
	}
	for k := XKind(0); k < NumXKinds; k++ {
		if n := m.xsites[k]; n > 0 {
			m.XTXNSites[k.String()] = n
		}
	}
	m.indexStmts()
	return m, nil
}

// timerRate bounds how many timer threads start per second: no more than
// the PFE's dispatcher hands out (dispatch_per_cycle x clock_mhz), since
// each start is a thread dispatch. It also bounds a run's timer events
// (one per start) by the simulated time.
func (m *Microcode) timerRate() error {
	perUs, top := 0.0, 0.0 // thread starts per microsecond: all timers, the busiest
	var pos programs.Pos
	for _, t := range m.Prog.Timers {
		r := float64(t.Threads) * 1000 / float64(t.PeriodNs)
		perUs += r
		if r > top {
			top, pos = r, t.Pos
		}
	}
	limit := float64(m.cfg.DispatchPerCycle) * m.cfg.ClockMHz // dispatches per microsecond
	if perUs > limit {
		return &LoweringError{Pos: pos, Rule: RuleTimers, Msg: fmt.Sprintf("the timers start %.4g threads per µs; the PFE dispatches at most %.4g per µs (dispatch_per_cycle %d x clock_mhz %g)",
			perUs, limit, m.cfg.DispatchPerCycle, m.cfg.ClockMHz)}
	}
	return nil
}

// indexStmts builds the pointer-keyed instruction counts of expression
// and assignment statements from the lowered costs.
func (m *Microcode) indexStmts() {
	m.exprInstr = map[*programs.ExprStmt]int{}
	m.assignInstr = map[*programs.AssignStmt]int{}
	for s, c := range m.stmt {
		switch x := s.(type) {
		case *programs.ExprStmt:
			m.exprInstr[x] = c.Instr
		case *programs.AssignStmt:
			m.assignInstr[x] = c.Instr
		}
	}
}

// Config is the PFE configuration the program was lowered for.
func (m *Microcode) Config() *spec.Config { return m.cfg }

// What the PFE reads of the microcode: what a statement or a register
// action costs when a thread runs it, which lookup a table issues, where
// state is placed, and what an engine operation takes. The PFE calls
// these per statement and stateful operation of every packet: each is at
// most one map lookup.

// StmtCost is what statement s costs when it runs (zero if the lowering
// charges it nothing of its own).
func (m *Microcode) StmtCost(s programs.Stmt) StmtCost {
	switch x := s.(type) {
	case *programs.ExprStmt:
		return StmtCost{Instr: m.exprInstr[x]}
	case *programs.AssignStmt:
		return StmtCost{Instr: m.assignInstr[x]}
	}
	if c := m.stmt[s]; c != nil {
		return *c
	}
	return StmtCost{}
}

// RegisterCost is how register action ra is lowered, with its register's
// placement (nil if ra is not the program's).
func (m *Microcode) RegisterCost(ra *programs.RegisterAction) *RegCost { return m.reg[ra] }

// Object is where a stateful object — a *programs.Register, Meter,
// Counter or Table of the program — is placed in the shared memory (nil
// for anything else).
func (m *Microcode) Object(x any) *MemObject { return m.object[x] }

// LookupKind is the transaction a lookup in table t issues: a hash lookup
// when every key is exact, a filter lookup otherwise.
func (m *Microcode) LookupKind(t *programs.Table) XKind {
	if exactOnly(t) {
		return XHash
	}
	return XFilter
}

// storage assigns metadata to registers (spilling to local memory) and
// checks the thread's local memory.
func (m *Microcode) storage() error {
	c := m.cfg
	bits := 0
	for _, f := range m.Prog.Meta {
		bits += f.Type.Bits
	}
	m.MetaBits = bits
	regBits := c.Registers * c.RegisterBits
	// Registers also hold the transaction reply and pointers: keep four
	// for the microcode's own use (assumed).
	avail := regBits - 4*c.RegisterBits
	spill := 0
	if bits > avail {
		spill = (bits - avail + 7) / 8
		m.RegistersUsed = c.Registers
	} else {
		m.RegistersUsed = (bits+c.RegisterBits-1)/c.RegisterBits + 4
	}
	head := 0
	for _, h := range m.Prog.Headers {
		head += h.Bytes()
	}
	m.HeadBytes = min(head, c.HeadBytes)
	m.LMEMBytes = m.HeadBytes + spill
	if m.LMEMBytes > c.LMEMBytes {
		return &LoweringError{Rule: RuleLocalMemory, Msg: fmt.Sprintf("the packet head (%d B) and %d B of metadata that do not fit the %d registers need %d B of local memory; a thread has %d B",
			m.HeadBytes, spill, c.Registers, m.LMEMBytes, c.LMEMBytes)}
	}
	if spill > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("%d B of metadata spill from registers to local memory", spill))
	}
	return nil
}

// inLMEM tells whether a field lives in local memory.
func (m *Microcode) inLMEM(f *programs.Field) bool {
	return f.Kind == programs.HeaderField
}

// placeMemory puts every stateful object and table in the shared memory:
// on-chip SRAM first, in declaration order, then DRAM.
func (m *Microcode) placeMemory() error {
	c := m.cfg
	var objs []*MemObject
	add := func(key any, name, kind string, entries int, eb int) {
		o := &MemObject{Name: name, Kind: kind, Bytes: int64(entries) * int64(eb), EntryBytes: eb}
		m.object[key] = o
		objs = append(objs, o)
	}
	words := func(b int) int { return max(8, (b+7)/8*8) }
	for _, r := range m.Prog.Registers {
		// Register cells are packed at their power-of-two size (a 32-bit
		// cell takes 4 B, two share an 8-byte word): the engines' adds
		// are 32-bit and their accesses 8 B wide ([TRIO] §2.3), so an
		// array of 32-bit sums is contiguous, as Trio-ML's aggregation
		// buffer is.
		eb := 1
		for eb < (r.Type.Bits+7)/8 {
			eb *= 2
		}
		add(r, r.Name, "register", r.Size, eb)
	}
	for _, mt := range m.Prog.Meters {
		add(mt, mt.Name, "meter", mt.Size, words(16)) // two token buckets and a timestamp (assumed 16 B)
	}
	for _, ct := range m.Prog.Counters {
		add(ct, ct.Name, "counter", ct.Size, words(16)) // [TRIO] §3.2: a Packet/Byte Counter is 16 bytes
	}
	for _, t := range m.Prog.Tables {
		kb := 0
		for _, k := range t.Keys {
			kb += k.Bits
		}
		ab := 0
		for _, a := range t.Actions {
			pb := 0
			for _, p := range a.Params {
				pb += p.Type.Bits
			}
			ab = max(ab, pb)
		}
		// Key, action data and an action id (assumed 2 B).
		add(t, t.Name, "table", max(1, t.Size), words((kb+7)/8+(ab+7)/8+2))
	}
	var sram, dram int64
	for _, o := range objs {
		if sram+o.Bytes <= c.SMem.SRAMBytes {
			o.Memory, o.Base = "sram", sram
			sram += o.Bytes
		} else {
			o.Memory, o.Base = "dram", dram
			dram += o.Bytes
		}
		if o.EntryBytes > c.XTXN.MaxBytes && o.Kind == "register" {
			return &LoweringError{Rule: RuleXTXNSize, Msg: fmt.Sprintf("register %s: %d-byte cells exceed the largest transaction (%d B)", o.Name, o.EntryBytes, c.XTXN.MaxBytes)}
		}
	}
	if dram > c.SMem.DRAMBytes {
		return &LoweringError{Rule: RuleMemory, Msg: fmt.Sprintf("state needs %d B of SRAM and %d B of DRAM; the PFE has %d B and %d B", sram, dram, c.SMem.SRAMBytes, c.SMem.DRAMBytes)}
	}
	m.SRAMBytes, m.DRAMBytes, m.Memory = sram, dram, objs
	return nil
}

// registerActions classifies every register action.
func (m *Microcode) registerActions() error {
	used := map[*programs.RegisterAction]bool{}
	var walkE func(e programs.Expr, out bool)
	walkE = func(e programs.Expr, out bool) {
		forEachCall(e, func(rc *programs.RegisterCall) {
			if out {
				used[rc.Action] = true
			}
		})
	}
	walkStmts(m.Prog, func(s programs.Stmt) {
		switch s := s.(type) {
		case *programs.AssignStmt:
			walkE(s.Src, true)
		case *programs.IfStmt:
			walkE(s.Cond, true)
		case *programs.BuiltinStmt:
			for _, a := range s.Args {
				walkE(a, true)
			}
		}
	})
	for _, r := range m.Prog.Registers {
		bytes := min(m.cfg.XTXN.MaxBytes, max(m.cfg.XTXN.MinBytes, (r.Type.Bits+7)/8))
		for _, ra := range r.Actions {
			rc := &RegCost{Sync: used[ra], Bytes: bytes}
			if op, ok := simpleRMW(ra); ok {
				rc.Atomic, rc.Op = true, op
				rc.Cycles = m.EngineCycles(op, bytes)
			} else {
				rc.Op = "read-compute-write"
				rc.Instr = m.block(ra.Body, true)
				rc.Sync = true
				rc.Cycles = m.EngineCycles("read", bytes)
				m.NonAtomic = append(m.NonAtomic, r.Name+"."+ra.Name)
			}
			rc.Object = m.object[ra.Register]
			m.reg[ra] = rc
		}
	}
	sort.Strings(m.NonAtomic)
	return nil
}

// EngineCycles is the RMW engine's time for one operation of op (add, or,
// and, xor, swap; anything else reads or writes) on bytes: 8 B per cycle
// for reads and writes, add_cycles per 8 B for arithmetic.
func (m *Microcode) EngineCycles(op string, bytes int) int {
	words := (bytes + m.cfg.SMem.BytesPerCycle - 1) / m.cfg.SMem.BytesPerCycle
	switch op {
	case "add", "or", "and", "xor", "swap":
		return words * m.cfg.SMem.AddCycles
	}
	return words
}

// simpleRMW recognises a register action one engine operation performs:
// assignments of value (or its halves) from value OP x (OP in + - | & ^)
// or from an expression not reading the cell, and of out from the cell.
func simpleRMW(ra *programs.RegisterAction) (string, bool) {
	op := "fetch"
	for _, s := range ra.Body {
		a, ok := s.(*programs.AssignStmt)
		if !ok {
			return "", false
		}
		switch {
		case a.Dst.Out:
			// out = value (or a half): the fetched value.
			if !isCell(a.Src) && readsCell(a.Src) {
				return "", false
			}
		case a.Dst.Cell != nil:
			b, isBin := a.Src.(*programs.BinaryExpr)
			switch {
			case !readsCell(a.Src):
				op = "write"
				if hasOut(ra) {
					op = "swap"
				}
			case isBin && isCell(b.X) && !readsCell(b.Y):
				switch b.Op {
				case programs.OpAdd, programs.OpSub:
					op = "add"
				case programs.OpOr:
					op = "or"
				case programs.OpAnd:
					op = "and"
				case programs.OpXor:
					op = "xor"
				default:
					return "", false
				}
			default:
				return "", false
			}
		default:
			return "", false
		}
	}
	return op, true
}

func hasOut(ra *programs.RegisterAction) bool {
	for _, s := range ra.Body {
		if a, ok := s.(*programs.AssignStmt); ok && a.Dst.Out {
			return true
		}
	}
	return false
}

func isCell(e programs.Expr) bool {
	switch x := e.(type) {
	case *programs.CellExpr:
		return true
	case *programs.CastExpr:
		return isCell(x.X)
	case *programs.SliceExpr:
		return isCell(x.X)
	}
	return false
}

func readsCell(e programs.Expr) bool {
	found := false
	walkExpr(e, func(x programs.Expr) {
		if _, ok := x.(*programs.CellExpr); ok {
			found = true
		}
	})
	return found
}

// demand is what a statement needs of one instruction.
type demand struct {
	regReads, lmemReads, writes, ops, xtxn int
	reads, written                         map[*programs.Field]bool
	syncReply                              bool // needs a synchronous reply before it can finish
}

// merge adds o's needs to d's.
func (d *demand) merge(o demand) {
	d.regReads += o.regReads
	d.lmemReads += o.lmemReads
	d.writes += o.writes
	d.ops += o.ops
	d.xtxn += o.xtxn
	for f := range o.reads {
		d.reads[f] = true
	}
	for f := range o.written {
		d.written[f] = true
	}
	d.syncReply = d.syncReply || o.syncReply
}

// block lowers a statement list as its own branch target (recursing into
// nested blocks) and returns its static instruction count.
func (m *Microcode) block(list []programs.Stmt, _ bool) int {
	pk := &packer{m: m}
	pk.stmts(list)
	return pk.total
}

// packer packs statements into instructions.
type packer struct {
	m     *Microcode
	cur   demand
	open  bool // the current instruction can take more
	total int
}

func (pk *packer) newInstr() {
	pk.cur = demand{written: map[*programs.Field]bool{}}
	pk.open = true
	pk.total++
}

func (pk *packer) fits(d demand) bool {
	c := pk.m.cfg
	if !pk.open {
		return false
	}
	for f := range d.reads {
		if pk.cur.written[f] {
			return false
		}
	}
	cur := pk.cur
	return cur.regReads+d.regReads <= c.Instr.RegisterReads && cur.lmemReads+d.lmemReads <= c.Instr.LMEMReads &&
		cur.writes+d.writes <= c.Instr.Writes && cur.ops+d.ops <= c.Instr.CondALUs && cur.xtxn+d.xtxn <= c.Instr.XTXNPerInstr
}

// spread is how many instructions a demand needs on its own.
func (pk *packer) spread(d demand) int {
	c := pk.m.cfg
	n := 1
	for _, p := range [][2]int{{d.regReads, c.Instr.RegisterReads}, {d.lmemReads, c.Instr.LMEMReads}, {d.writes, c.Instr.Writes},
		{d.ops, c.Instr.CondALUs}, {d.xtxn, c.Instr.XTXNPerInstr}} {
		n = max(n, (p[0]+p[1]-1)/p[1])
	}
	return n
}

func (pk *packer) place(s programs.Stmt, d demand) {
	cost := &StmtCost{}
	if !pk.fits(d) {
		k := pk.spread(d)
		pk.newInstr()
		cost.Instr = k
		pk.total += k - 1
	}
	pk.cur.regReads += d.regReads
	pk.cur.lmemReads += d.lmemReads
	pk.cur.writes += d.writes
	pk.cur.ops += d.ops
	pk.cur.xtxn += d.xtxn
	for f := range d.written {
		pk.cur.written[f] = true
	}
	if d.syncReply {
		// The reply arrives after this instruction retires; what uses it
		// runs in the next one.
		cost.Instr++
		pk.newInstr()
	}
	pk.m.stmt[s] = cost
}

func (pk *packer) stmts(list []programs.Stmt) {
	m := pk.m
	for _, s := range list {
		switch s := s.(type) {
		case *programs.AssignStmt:
			d := m.exprDemand(s.Src)
			d.writes++
			if s.Dst.Field != nil {
				d.written = map[*programs.Field]bool{s.Dst.Field: true}
			}
			pk.place(s, d)
		case *programs.ExprStmt:
			pk.place(s, m.exprDemand(s.X))
		case *programs.CountStmt:
			d := m.exprDemand(s.Index)
			d.xtxn++
			m.xsites[XCounter]++
			pk.place(s, d)
		case *programs.IfStmt:
			pk.place(s, m.exprDemand(s.Cond))
			pk.open = false // the branch ends the instruction
			pk.total += m.block(s.Then, true) + m.block(s.Else, true)
		case *programs.ApplyStmt:
			m.lookup(s, s.Table, pk.place)
			pk.open = false
		case *programs.SwitchStmt:
			m.lookup(s, s.Table, pk.place)
			pk.open = false
			for _, cs := range s.Cases {
				pk.total += m.block(cs.Body, true)
			}
			pk.total += m.block(s.Default, true)
		case *programs.ForStmt:
			// Init packs into the current instruction; the first test of
			// the condition branches. Each iteration is the body, with the
			// post statements (and the loop's branch) riding on the body's
			// last instruction when they fit.
			pk.stmts(s.Init)
			pk.place(s, m.exprDemand(s.Cond))
			pk.open = false
			body := &packer{m: m}
			body.stmts(s.Body)
			body.stmts(s.Post)
			pk.total += body.total
		case *programs.BuiltinStmt:
			pk.builtin(s)
		case *programs.CallStmt:
			// A subroutine call is one instruction (the return rides on the
			// body's last one); the body is lowered once, as its own block.
			m.stmt[s] = &StmtCost{Instr: 1}
			pk.total++
			pk.open = false
		default:
			m.stmt[s] = &StmtCost{Instr: 1}
			pk.total++
			pk.open = false
		}
	}
}

// builtin lowers a statement built-in as its row's Trio cost says: its
// operands (and its table's key) pack like an assignment's with the
// transactions it issues, and one that reads and issues nothing (emit())
// takes only its own instructions; the key writes from a reply, the end
// of the instruction and the loop over a register range (a block of
// BulkLoopInstr instructions) follow.
func (pk *packer) builtin(s *programs.BuiltinStmt) {
	m, tc := pk.m, s.Builtin.Trio
	if len(s.Args) > 0 || tc.Key || len(tc.XTXN) > 0 {
		pk.place(s, m.builtinDemand(s))
	} else {
		m.stmt[s] = &StmtCost{}
	}
	pk.cur.xtxn += len(tc.Reply)
	m.sites(tc.Reply)
	cost := m.stmt[s]
	if tc.KeyWrites {
		// The key writes use the instruction that takes the reply (and
		// more when they exceed its write ports).
		n := len(s.Table.Keys)
		if extra := (n+m.cfg.Instr.Writes-1)/m.cfg.Instr.Writes - 1; extra > 0 {
			cost.Instr += extra
			pk.total += extra
		}
	}
	cost.Instr += tc.Instr
	pk.total += tc.Instr
	if tc.Ends {
		pk.open = false
	}
	if s.Reg != nil && len(tc.RangeLoop) > 0 {
		pk.total += BulkLoopInstr
		m.sites(tc.RangeLoop)
	}
}

// builtinDemand is what a statement built-in needs of the instruction
// that issues it: its operands, its table's key, its transactions.
func (m *Microcode) builtinDemand(s *programs.BuiltinStmt) demand {
	tc := s.Builtin.Trio
	d := demand{reads: map[*programs.Field]bool{}, written: map[*programs.Field]bool{}}
	if tc.Key {
		d = m.keyDemand(s.Table)
	}
	for _, a := range s.Args {
		d.merge(m.exprDemand(a))
	}
	d.xtxn += len(tc.XTXN)
	d.syncReply = d.syncReply || tc.Sync
	m.sites(tc.XTXN)
	return d
}

// sites counts the transaction sites of the kinds named.
func (m *Microcode) sites(kinds []string) {
	for _, k := range kinds {
		m.xsites[xkindNamed(k)]++
	}
}

// xkindNamed is the transaction kind of a name in a built-in's Trio cost.
func xkindNamed(name string) XKind {
	for k := XKind(0); k < NumXKinds; k++ {
		if xkindNames[k] == name {
			return k
		}
	}
	panic("trio: unknown transaction kind " + name)
}

// callDemand adds what a value built-in needs of its instruction, as its
// row's Trio cost says.
func (m *Microcode) callDemand(tc programs.TrioCost, d *demand) {
	d.ops += tc.ALUOps
	d.lmemReads += tc.LMEMReads
	d.xtxn += len(tc.XTXN)
	m.sites(tc.XTXN)
	d.syncReply = d.syncReply || tc.Sync
}

// lookup lowers a table apply: key assembly and the lookup XTXN.
func (m *Microcode) lookup(s programs.Stmt, t *programs.Table, place func(programs.Stmt, demand)) {
	d := m.keyDemand(t)
	d.xtxn++
	d.syncReply = true
	m.xsites[m.LookupKind(t)]++
	place(s, d)
}

// keyDemand is the reads and operations that assemble t's key.
func (m *Microcode) keyDemand(t *programs.Table) demand {
	d := demand{reads: map[*programs.Field]bool{}, written: map[*programs.Field]bool{}}
	for _, k := range t.Keys {
		dk := m.exprDemand(k.Expr)
		d.regReads += dk.regReads
		d.lmemReads += dk.lmemReads
		d.ops += dk.ops
		for f := range dk.reads {
			d.reads[f] = true
		}
	}
	return d
}

func exactOnly(t *programs.Table) bool {
	for _, k := range t.Keys {
		if k.Kind != programs.MatchExact {
			return false
		}
	}
	return true
}

// exprDemand counts an expression's reads, ALU operations and the XTXNs it
// issues (register actions, meters, table hits).
func (m *Microcode) exprDemand(e programs.Expr) demand {
	d := demand{reads: map[*programs.Field]bool{}, written: map[*programs.Field]bool{}}
	if e == nil {
		return d
	}
	walkExpr(e, func(x programs.Expr) {
		switch x := x.(type) {
		case *programs.FieldExpr:
			if !d.reads[x.F] {
				d.reads[x.F] = true
				if m.inLMEM(x.F) {
					d.lmemReads++
				} else {
					d.regReads++
				}
			}
		case *programs.BinaryExpr, *programs.UnaryExpr:
			d.ops++
		case *programs.CallExpr:
			m.callDemand(x.Builtin.Trio, &d)
		case *programs.RegisterCall:
			d.xtxn++
			m.xsites[XRMW]++
			if rc := m.reg[x.Action]; rc == nil || rc.Sync {
				d.syncReply = true
			}
		case *programs.MeterCall:
			d.xtxn++
			m.xsites[XPolicer]++
			d.syncReply = true
		case *programs.HitExpr:
			d.xtxn++
			m.xsites[m.LookupKind(x.Table)]++
			d.syncReply = true
		}
	})
	return d
}
