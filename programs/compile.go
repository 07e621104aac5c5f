package programs

// The interpreter runs a program compiled into closures: every expression
// becomes an evalFn and every statement a stmtFn, built the first time an
// Exec runs the body (again if its State's program, DynSlot, cost tracer
// or dead-store elision change).
// A packet's execution then does no type switch on AST nodes and no map
// lookup to find code, and allocates nothing: field reads are slot loads,
// operators are specialised by operator and by constant operand, type
// normalisation is a precomputed mask or shift, a table apply has its key
// closures and its actions' bodies at hand. (The tables' own indexes are
// still maps: that is the lookup the hardware does.)
//
// The semantics are those of the language (see the comments of the
// statement and expression nodes): the closures evaluate operands in the
// same order, call the Tracer with the same arguments at the same points,
// draw random numbers in the same order and count Steps the same way as a
// direct walk of the statements (the reference interpreter of
// refexec_test.go, which TestCompiledMatchesReference compares them with).

// evalFn computes the value of an expression for the packet in x.
type evalFn func(x *Exec) int64

// stmtFn runs one statement on the packet in x.
type stmtFn func(x *Exec)

// block is a compiled statement list: a control body, an action, a
// function or a register action. It is allocated before its statements
// are compiled, so that references to it can be taken first.
type block struct{ run []stmtFn }

// exec runs the block's statements in order.
func (b *block) exec(x *Exec) {
	for _, f := range b.run {
		f(x)
	}
}

// compiled is a program compiled for one Exec: the bodies compiled so
// far (each compiled on first use) and what they were compiled for.
type compiled struct {
	prog    *Program
	dynSlot int
	// controls and timers hold the bodies compiled so far, looked up by
	// pointer (a program has two controls and few timers).
	controls []controlCode
	timers   []timerCode
	funcs    map[*Function]*block
	actions  map[*Action]*block
	regActs  map[*RegisterAction]*block
	tables   map[*Table]*tableCode
	exprs    map[Expr]evalFn // Exec.Eval's, by node
	// ra is the register action whose body is being compiled (its out
	// assignments take its output type).
	ra *RegisterAction
	// coster is the Exec's Tracer when it is a CostTracer (else nil):
	// the statements' and register actions' costs are resolved once, here.
	coster CostTracer
	// elide is whether dead stores are left out (Exec.ElideDeadStores
	// without a Tracer); dead holds them (deadstores.go).
	elide bool
	dead  map[*AssignStmt]bool
}

// CostTracer is an optional interface of a Tracer (a pointer type) that
// resolves what a statement or a register action costs once, when it is
// compiled: the compiled statement then calls StmtAt(h), h what StmtCost
// returned for it, instead of Stmt(s) (not at all when h is 0: nothing
// to charge), and a register action's call RegisterAt(h, index), h what
// RegisterCost returned for it, instead of Register(ra, index).
type CostTracer interface {
	StmtCost(s Stmt) int32
	StmtAt(h int32)
	RegisterCost(ra *RegisterAction) int32
	RegisterAt(h int32, index int)
}

// stmtTrace is how a compiled statement shows itself to the tracer.
type stmtTrace struct {
	s Stmt
	c CostTracer
	h int32
}

// traced resolves s's trace with k's coster.
func (k *compiled) traced(s Stmt) stmtTrace {
	t := stmtTrace{s: s, c: k.coster}
	if t.c != nil {
		t.h = t.c.StmtCost(s)
	}
	return t
}

type controlCode struct {
	c *Control
	b *block
}

type timerCode struct {
	t *Timer
	b *block
}

// compile returns x's compiled program, starting a new one when x has none
// or when its State's program, its DynSlot, its cost tracer or whether
// dead stores are left out (ElideDeadStores without a Tracer) changed.
func (x *Exec) compile() *compiled {
	k := x.comp
	sc, _ := x.Tracer.(CostTracer)
	elide := x.ElideDeadStores && x.Tracer == nil
	if k == nil || k.prog != x.State.Prog || k.dynSlot != x.DynSlot || k.coster != sc || k.elide != elide {
		k = newCompiled(x.State.Prog, x.DynSlot)
		k.coster = sc
		if k.elide = elide; elide {
			k.dead = k.prog.deadStores()
		}
		x.comp = k
	}
	return k
}

// newCompiled returns an empty compiled form of prog, whose field dynSlot
// (-1: none) is read through Exec.Dyn.
func newCompiled(prog *Program, dynSlot int) *compiled {
	return &compiled{
		prog: prog, dynSlot: dynSlot,
		funcs: map[*Function]*block{}, actions: map[*Action]*block{},
		regActs: map[*RegisterAction]*block{}, tables: map[*Table]*tableCode{},
		exprs: map[Expr]evalFn{},
	}
}

// control returns the compiled body of c.
func (k *compiled) control(c *Control) *block {
	for _, cc := range k.controls {
		if cc.c == c {
			return cc.b
		}
	}
	b := k.block(c.Body)
	k.controls = append(k.controls, controlCode{c, b})
	return b
}

// timer returns the compiled body of t.
func (k *compiled) timer(t *Timer) *block {
	for _, tc := range k.timers {
		if tc.t == t {
			return tc.b
		}
	}
	b := k.block(t.Body)
	k.timers = append(k.timers, timerCode{t, b})
	return b
}

// function returns the compiled body of f.
func (k *compiled) function(f *Function) *block {
	if b := k.funcs[f]; b != nil {
		return b
	}
	b := &block{}
	k.funcs[f] = b
	b.run = k.stmts(f.Body)
	return b
}

// action returns the compiled body of a.
func (k *compiled) action(a *Action) *block {
	if b := k.actions[a]; b != nil {
		return b
	}
	b := &block{}
	k.actions[a] = b
	b.run = k.stmts(a.Body)
	return b
}

// regAction returns the compiled body of ra, whose statements the tracer
// does not see (a register action is one stateful operation).
func (k *compiled) regAction(ra *RegisterAction) *block {
	if b := k.regActs[ra]; b != nil {
		return b
	}
	b := &block{}
	k.regActs[ra] = b
	saved := k.ra
	k.ra = ra
	b.run = k.stmts(ra.Body)
	k.ra = saved
	return b
}

// block compiles a control-code statement list.
func (k *compiled) block(list []Stmt) *block { return &block{run: k.stmts(list)} }

// evalExpr returns the compiled form of e for Exec.Eval.
func (k *compiled) evalExpr(e Expr) evalFn {
	if f := k.exprs[e]; f != nil {
		return f
	}
	f := k.expr(e)
	k.exprs[e] = f
	return f
}

// norm is Type.Norm with its parameters precomputed: a mask for an
// unsigned type, a shift pair for a signed one (mask -1 and shift 0 leave
// a value of an untyped or 64-bit type unchanged).
type norm struct {
	mask   int64
	shift  uint8
	signed bool
}

func normOf(t Type) norm {
	if t.Bits == 0 || t.Bits >= 64 {
		return norm{mask: -1, signed: t.Signed}
	}
	if t.Signed {
		return norm{mask: -1, shift: uint8(64 - t.Bits), signed: true}
	}
	return norm{mask: int64(uint64(1)<<uint(t.Bits) - 1)}
}

// of normalizes v (Type.Norm).
func (n norm) of(v int64) int64 {
	if n.signed {
		return v << n.shift >> n.shift
	}
	return v & n.mask
}

// cellIndex is the cell of an array of size cells that index value v
// selects: |v| mod size (|v| taken unsigned, so the most negative value
// is 2^63, not itself).
func cellIndex(v int64, size int64) int {
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	return int(u % uint64(size))
}

// ---- statements ----

// stmts compiles a statement list.
// Consecutive register adds form one closure when the tracer takes runs
// of them (see regAddRun).
func (k *compiled) stmts(list []Stmt) []stmtFn {
	out := make([]stmtFn, 0, len(list))
	bt, _ := k.coster.(RegAddTracer)
	var run []regAdd
	var one []stmtFn
	var idxs, words []Expr
	var ra *RegisterAction
	flush := func() {
		if len(run) >= 2 {
			if len(words) != len(run) {
				words = nil
			}
			out = append(out, k.regAddRun(run, one, bt, idxs, words, ra))
		} else {
			out = append(out, one...)
		}
		run, one, idxs, words = nil, nil, nil, nil
	}
	var moves []move
	var moveFns []stmtFn
	var moveDirty uint64
	flushMoves := func() {
		if len(moves) >= 2 {
			out = append(out, moveRun(moves, moveDirty, moveFns))
		} else {
			out = append(out, moveFns...)
		}
		moves, moveFns, moveDirty = nil, nil, 0
	}
	dead := 0
	for i, s := range list {
		if a, ok := s.(*AssignStmt); ok && k.dead[a] {
			// A run of dead stores only counts its Steps.
			if dead++; i+1 < len(list) {
				if a, ok := list[i+1].(*AssignStmt); ok && k.dead[a] {
					continue
				}
			}
			flush()
			flushMoves()
			n := dead
			out = append(out, func(x *Exec) { x.Steps += n })
			dead = 0
			continue
		}
		if m, ok := k.moveOf(s); ok {
			flush()
			moves = append(moves, m)
			moveFns = append(moveFns, k.stmt(s))
			moveDirty |= HeaderBit(s.(*AssignStmt).Dst.Field)
			continue
		}
		flushMoves()
		if bt != nil {
			if c, ok := regAddOf(s); ok {
				st := k.traced(s)
				rc := k.regCall(c)
				a := regAdd{rc: rc, st: st.h}
				if w, ok := payloadArg(c.Action.Body[0].(*AssignStmt).Src.(*BinaryExpr).Y); ok {
					saved := k.ra
					k.ra = c.Action
					a.word = k.expr(w)
					k.ra = saved
					words, ra = append(words, w), c.Action
				}
				idxs = append(idxs, c.Index)
				run = append(run, a)
				one = append(one, regCallStmt(st, rc))
				continue
			}
		}
		flush()
		out = append(out, k.stmt(s))
	}
	flush()
	flushMoves()
	return out
}

// traceStmt shows s to the tracer, unless a register action is running
// (its body is one stateful operation). Closures call it when x.Tracer is
// set.
func (x *Exec) traceStmt(t *stmtTrace) {
	if x.ra == nil {
		if t.c == nil {
			x.Tracer.Stmt(t.s)
		} else if t.h != 0 {
			t.c.StmtAt(t.h)
		}
	}
}

// stmt compiles one statement: the tracer sees it before it runs (see
// traceStmt), and it counts one Step when it completes. The usual
// statements are compiled whole; the others run their body through one
// more closure.
func (k *compiled) stmt(s Stmt) stmtFn {
	switch s := s.(type) {
	case *SwitchStmt:
		return k.switchStmt(s)
	case *AssignStmt:
		if s.Dst.Field != nil {
			return k.fieldAssign(s)
		}
	}
	st := k.traced(s)
	switch s := s.(type) {
	case *ExprStmt:
		if c, ok := s.X.(*RegisterCall); ok {
			// A register action whose output is unused (a loop of
			// stateful updates): the call runs here, without the
			// statement's body closure.
			return regCallStmt(st, k.regCall(c))
		}
	case *IfStmt:
		cond := k.cond(s.Cond)
		then, els := k.stmts(s.Then), k.stmts(s.Else)
		return func(x *Exec) {
			if x.Tracer != nil {
				x.traceStmt(&st)
			}
			list := els
			if cond(x) {
				list = then
			}
			for _, f := range list {
				f(x)
			}
			x.Steps++
		}
	case *ApplyStmt:
		tc := k.table(s.Table)
		return func(x *Exec) {
			if x.Tracer != nil {
				x.traceStmt(&st)
			}
			tc.apply(x)
			x.Steps++
		}
	}
	body := k.stmtBody(s)
	return func(x *Exec) {
		if x.Tracer != nil {
			x.traceStmt(&st)
		}
		body(x)
		x.Steps++
	}
}

// regCallStmt is the statement r.action(index) with the call compiled as
// rc.
func regCallStmt(st stmtTrace, rc *regCallCode) stmtFn {
	return func(x *Exec) {
		if x.Tracer != nil {
			x.traceStmt(&st)
		}
		rc.run(x)
		x.Steps++
	}
}

// stmtBody compiles what a statement does (without the tracer call and
// the Step).
func (k *compiled) stmtBody(s Stmt) stmtFn {
	switch s := s.(type) {
	case *AssignStmt:
		return k.assign(s)
	case *ExprStmt:
		f := k.expr(s.X)
		return func(x *Exec) { f(x) }
	case *ForStmt:
		init, body, post := k.stmts(s.Init), k.stmts(s.Body), k.stmts(s.Post)
		cond := k.cond(s.Cond)
		return func(x *Exec) {
			runList(x, init)
			for i := 0; cond(x); i++ {
				if i >= maxLoopIterations {
					if x.LoopCut == nil {
						x.LoopCut = s
					}
					break
				}
				runList(x, body)
				runList(x, post)
			}
		}
	case *CallStmt:
		b := k.function(s.Fn)
		return func(x *Exec) { b.exec(x) }
	case *BuiltinStmt:
		return k.builtinStmt(s)
	case *CountStmt:
		idx := k.expr(s.Index)
		c, size := s.Counter, int64(s.Counter.Size)
		lenSlot := k.prog.Std[StdPacketLength].Slot
		return func(x *Exec) {
			i := cellIndex(idx(x), size)
			cell := x.State.Counters[c.Index].Ptr(i)
			cell[0]++
			cell[1] += x.PHV[lenSlot]
			if x.Tracer != nil {
				x.Tracer.Count(c, i)
			}
		}
	}
	return func(x *Exec) {}
}

func runList(x *Exec, list []stmtFn) {
	for _, f := range list {
		f(x)
	}
}

// switchStmt compiles a switch on the action a table ran. When a case
// matches, its body runs and the switch itself counts no Step (the
// interpreter has always returned from there).
func (k *compiled) switchStmt(s *SwitchStmt) stmtFn {
	tc := k.table(s.Table)
	type arm struct {
		actions []*Action
		body    []stmtFn
	}
	arms := make([]arm, len(s.Cases))
	for i, c := range s.Cases {
		arms[i] = arm{c.Actions, k.stmts(c.Body)}
	}
	def := k.stmts(s.Default)
	st := k.traced(s)
	return func(x *Exec) {
		if x.Tracer != nil {
			x.traceStmt(&st)
		}
		_, a := tc.apply(x)
		for _, c := range arms {
			for _, ca := range c.actions {
				if ca == a {
					runList(x, c.body)
					return
				}
			}
		}
		runList(x, def)
		x.Steps++
	}
}

// fieldAssign compiles a whole assignment to a field (see stmt).
func (k *compiled) fieldAssign(s *AssignStmt) stmtFn {
	slot, n := s.Dst.Field.Slot, normOf(s.Dst.Field.Type)
	st := k.traced(s)
	if bit := HeaderBit(s.Dst.Field); bit != 0 {
		// A header field (or validity bit): assign marks its header for
		// the deparser.
		body := k.assign(s)
		return func(x *Exec) {
			if x.Tracer != nil {
				x.traceStmt(&st)
			}
			body(x)
			x.Steps++
		}
	}
	if c, ok := s.Src.(*ConstExpr); ok {
		v := n.of(c.Val)
		return func(x *Exec) {
			if x.Tracer != nil {
				x.traceStmt(&st)
			}
			x.PHV[slot] = v
			x.Steps++
		}
	}
	if f, ok := s.Src.(*FieldExpr); ok && f.F.Slot != k.dynSlot {
		from := f.F.Slot
		return func(x *Exec) {
			if x.Tracer != nil {
				x.traceStmt(&st)
			}
			x.PHV[slot] = n.of(x.PHV[from])
			x.Steps++
		}
	}
	src := k.expr(s.Src)
	return func(x *Exec) {
		if x.Tracer != nil {
			x.traceStmt(&st)
		}
		x.PHV[slot] = n.of(src(x))
		x.Steps++
	}
}

// assign compiles an assignment to a field, a register cell (or half of a
// pair) or a register action's output.
func (k *compiled) assign(s *AssignStmt) stmtFn {
	src := k.expr(s.Src)
	dst := s.Dst
	switch {
	case dst.Field != nil:
		slot, n := dst.Field.Slot, normOf(dst.Field.Type)
		if bit := HeaderBit(dst.Field); bit != 0 {
			// A header field or validity bit: the deparser must rewrite
			// its header (Exec.Dirty).
			if c, ok := s.Src.(*ConstExpr); ok {
				v := n.of(c.Val)
				return func(x *Exec) {
					x.PHV[slot] = v
					x.Dirty |= bit
				}
			}
			return func(x *Exec) {
				x.PHV[slot] = n.of(src(x))
				x.Dirty |= bit
			}
		}
		if c, ok := s.Src.(*ConstExpr); ok {
			v := n.of(c.Val)
			return func(x *Exec) { x.PHV[slot] = v }
		}
		if f, ok := s.Src.(*FieldExpr); ok && f.F.Slot != k.dynSlot {
			from := f.F.Slot
			return func(x *Exec) { x.PHV[slot] = n.of(x.PHV[from]) }
		}
		return func(x *Exec) { x.PHV[slot] = n.of(src(x)) }
	case dst.Cell != nil:
		r := dst.Cell.Reg
		if dst.Cell.Half == 0 {
			n := normOf(r.Type)
			return func(x *Exec) { x.cell = n.of(src(x)) }
		}
		ht := r.HalfType()
		hb := uint(ht.Bits)
		mask := uint64(1)<<hb - 1
		hn := normOf(ht)
		if dst.Cell.Half == 1 {
			return func(x *Exec) {
				hv := uint64(hn.of(src(x))) & mask
				x.cell = int64(uint64(x.cell)&^mask | hv)
			}
		}
		return func(x *Exec) {
			hv := uint64(hn.of(src(x))) & mask
			x.cell = int64(uint64(x.cell)&mask | hv<<hb)
		}
	default:
		// out = v: the register action's output, of its OutType.
		if k.ra != nil {
			n := normOf(k.ra.OutType)
			return func(x *Exec) { x.out = n.of(src(x)) }
		}
		return func(x *Exec) { x.out = x.ra.OutType.Norm(src(x)) }
	}
}

// ---- tables ----

// tableCode is a table apply compiled: its key expressions and the bodies
// of the actions its entries may run.
type tableCode struct {
	t    *Table
	keys []evalFn
	// slots, when every key is a plain field or a validity test, are the
	// slots read (without calling keys).
	slots []int
	// acts are the table's actions (and its default's) with their
	// compiled bodies, found by pointer when an entry selects one.
	acts []actionCode
	k    *compiled
}

type actionCode struct {
	a *Action
	b *block
}

// table returns the compiled apply of t.
func (k *compiled) table(t *Table) *tableCode {
	if tc := k.tables[t]; tc != nil {
		return tc
	}
	tc := &tableCode{t: t, k: k, slots: []int{}}
	k.tables[t] = tc
	for _, key := range t.Keys {
		tc.keys = append(tc.keys, k.expr(key.Expr))
		slot := -1
		switch e := key.Expr.(type) {
		case *FieldExpr:
			if e.F.Slot != k.dynSlot {
				slot = e.F.Slot
			}
		case *ValidExpr:
			slot = e.H.Valid.Slot
		}
		if slot >= 0 && tc.slots != nil {
			tc.slots = append(tc.slots, slot)
		} else {
			tc.slots = nil
		}
	}
	add := func(a *Action) {
		if a == nil {
			return
		}
		for _, ac := range tc.acts {
			if ac.a == a {
				return
			}
		}
		tc.acts = append(tc.acts, actionCode{a, k.action(a)})
	}
	add(t.Default.Action)
	for _, a := range t.Actions {
		add(a)
	}
	return tc
}

// body returns the compiled body of a, one of the table's actions (or
// another, compiled on first use).
func (tc *tableCode) body(a *Action) *block {
	for _, ac := range tc.acts {
		if ac.a == a {
			return ac.b
		}
	}
	return tc.k.action(a)
}

// apply matches the table and runs the selected action; it reports
// whether the table hit and which action ran.
func (tc *tableCode) apply(x *Exec) (bool, *Action) {
	t := tc.t
	ts := x.State.Tables[t.Index]
	var e *Entry
	if ts.exact != nil && x.Tracer == nil {
		// Exact match without a tracer: the key goes straight into the
		// index's key array.
		var key [maxExactKeys]int64
		if tc.slots != nil {
			for i, s := range tc.slots {
				key[i] = x.PHV[s]
			}
		} else {
			for i, f := range tc.keys {
				key[i] = f(x)
			}
		}
		if r := ts.exactRecord(&key); r != nil {
			r.ref = true
			e = r.e
		}
	} else {
		buf := x.keyBuf[:0]
		if tc.slots != nil {
			for _, s := range tc.slots {
				buf = append(buf, x.PHV[s])
			}
		} else {
			for _, f := range tc.keys {
				buf = append(buf, f(x))
			}
		}
		x.keyBuf = buf
		e = ts.match(buf)
	}
	var call ActionCall
	hit := false
	if e != nil {
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
	tc.run(x, call)
	return hit, call.Action
}

// run runs an action call's body with its arguments.
func (tc *tableCode) run(x *Exec, call ActionCall) {
	b := tc.body(call.Action)
	saved := x.params
	x.params = call.Args
	b.exec(x)
	x.params = saved
}

// ---- expressions ----

// expr compiles an expression.
func (k *compiled) expr(e Expr) evalFn {
	switch e := e.(type) {
	case *ConstExpr:
		v := e.Val
		return func(*Exec) int64 { return v }
	case *FieldExpr:
		slot := e.F.Slot
		if slot == k.dynSlot {
			n := normOf(e.F.Type)
			return func(x *Exec) int64 { return n.of(x.Dyn()) }
		}
		return func(x *Exec) int64 { return x.PHV[slot] }
	case *ParamExpr:
		i := e.P.Index
		return func(x *Exec) int64 { return x.params[i] }
	case *CellExpr:
		if e.Half == 0 {
			return func(x *Exec) int64 { return x.cell }
		}
		ht := e.Reg.HalfType()
		n := normOf(ht)
		if e.Half == 2 {
			sh := uint(ht.Bits)
			return func(x *Exec) int64 { return n.of(int64(uint64(x.cell) >> sh)) }
		}
		return func(x *Exec) int64 { return n.of(x.cell) }
	case *BinaryExpr:
		return k.binary(e)
	case *UnaryExpr:
		return k.unary(e)
	case *SliceExpr:
		lo := uint(e.Lo)
		w := uint(e.Hi - e.Lo + 1)
		mask := int64(-1)
		if w < 64 {
			mask = int64(uint64(1)<<w - 1)
		}
		if f, ok := e.X.(*FieldExpr); ok && f.F.Slot != k.dynSlot {
			slot := f.F.Slot
			return func(x *Exec) int64 { return int64(uint64(x.PHV[slot])>>lo) & mask }
		}
		X := k.expr(e.X)
		return func(x *Exec) int64 { return int64(uint64(X(x))>>lo) & mask }
	case *CastExpr:
		n := normOf(e.T)
		X := k.expr(e.X)
		return func(x *Exec) int64 { return n.of(X(x)) }
	case *CallExpr:
		return k.call(e)
	case *RegisterCall:
		return k.registerCall(e)
	case *MeterCall:
		return k.meterCall(e)
	case *ValidExpr:
		slot := e.H.Valid.Slot
		return func(x *Exec) int64 { return x.PHV[slot] }
	case *HitExpr:
		tc := k.table(e.Table)
		return func(x *Exec) int64 {
			hit, _ := tc.apply(x)
			return b2i(hit)
		}
	}
	panic("programs: unknown expression")
}

// unary compiles -x, !x and ^x.
func (k *compiled) unary(e *UnaryExpr) evalFn {
	X, n := k.expr(e.X), normOf(e.T)
	switch e.Op {
	case OpNeg:
		return func(x *Exec) int64 { return n.of(-X(x)) }
	case OpNot:
		return func(x *Exec) int64 { return b2i(X(x) == 0) }
	case OpBNot:
		return func(x *Exec) int64 { return n.of(^X(x)) }
	}
	panic("programs: unknown operator")
}

// registerCall compiles r.action(index): the register action runs on the
// cell atomically and yields its output.
func (k *compiled) registerCall(c *RegisterCall) evalFn {
	rc := k.regCall(c)
	return rc.run
}

// regCallCode is a compiled register-action call.
type regCallCode struct {
	ra   *RegisterAction
	reg  int // the register's index in State.Regs
	idx  evalFn
	size int64
	body *block
	// add, when set, is the whole body: value = value + add (one
	// statement; addT normalizes the sum to the addition's type, cellT to
	// the register's).
	add         evalFn
	pure        bool // add reads only fields, parameters, constants and payload words
	addT, cellT norm
	rc          CostTracer
	rh          int32
}

// regCall compiles a register-action call.
func (k *compiled) regCall(c *RegisterCall) *regCallCode {
	ra := c.Action
	r := ra.Register
	rc := &regCallCode{ra: ra, reg: r.Index, idx: k.expr(c.Index), size: int64(r.Size), body: k.regAction(ra), rc: k.coster}
	if rc.rc != nil {
		rc.rh = rc.rc.RegisterCost(ra)
	}
	if len(ra.Body) == 1 {
		if a, ok := ra.Body[0].(*AssignStmt); ok && a.Dst.Cell != nil && a.Dst.Cell.Half == 0 {
			if b, ok := a.Src.(*BinaryExpr); ok && b.Op == OpAdd {
				if ce, ok := b.X.(*CellExpr); ok && ce.Half == 0 {
					saved := k.ra
					k.ra = ra
					rc.add = k.expr(b.Y)
					k.ra = saved
					rc.addT, rc.cellT = normOf(b.T), normOf(r.Type)
					rc.pure = pureAddend(b.Y)
				}
			}
		}
	}
	return rc
}

// pureAddend reports whether e reads nothing but fields, parameters,
// constants and payload words (through arithmetic): no register cell, no
// call that could run statements.
func pureAddend(e Expr) bool {
	switch e := e.(type) {
	case *ConstExpr, *FieldExpr, *ParamExpr:
		return true
	case *BinaryExpr:
		return pureAddend(e.X) && pureAddend(e.Y)
	case *CallExpr:
		return e.Builtin != nil && e.Builtin.Name == "payload32" && len(e.Args) == 1 && pureAddend(e.Args[0])
	}
	return false
}

// run runs the call and returns the action's output.
func (c *regCallCode) run(x *Exec) int64 {
	i := cellIndex(c.idx(x), c.size)
	cell := x.State.Regs[c.reg].Ptr(i)
	if c.pure {
		// The addend cannot see the action's cell, output or the
		// running action: only the cell changes.
		*cell = c.cellT.of(c.addT.of(*cell + c.add(x)))
		x.Steps++
		if x.OnRegister != nil {
			x.OnRegister(c.ra, int64(i), x.NowPs)
		}
		if x.Tracer != nil {
			if c.rc != nil {
				c.rc.RegisterAt(c.rh, i)
			} else {
				x.Tracer.Register(c.ra, i)
			}
		}
		return 0
	}
	savedRA, savedCell, savedOut := x.ra, x.cell, x.out
	x.ra, x.cell, x.out = c.ra, *cell, 0
	if c.add != nil {
		// The body's one statement, as its compiled assignment runs it
		// (the cell is read before the addend is evaluated).
		v := x.cell
		x.cell = c.cellT.of(c.addT.of(v + c.add(x)))
		x.Steps++
	} else {
		c.body.exec(x)
	}
	*cell = x.cell
	out := x.out
	if x.OnRegister != nil {
		x.OnRegister(c.ra, int64(i), x.NowPs)
	}
	if x.Tracer != nil {
		if c.rc != nil {
			c.rc.RegisterAt(c.rh, i)
		} else {
			x.Tracer.Register(c.ra, i)
		}
	}
	x.ra, x.cell, x.out = savedRA, savedCell, savedOut
	return out
}

// meterCall compiles m.execute(index): the colour the meter marks the
// packet with.
func (k *compiled) meterCall(c *MeterCall) evalFn {
	m := c.Meter
	idx, size := k.expr(c.Index), int64(m.Size)
	bytes := m.Unit == MeterBytes
	lenSlot := k.prog.Std[StdPacketLength].Slot
	return func(x *Exec) int64 {
		i := cellIndex(idx(x), size)
		n := int64(1)
		if bytes {
			n = x.PHV[lenSlot]
		}
		colour := int64(x.State.Meters[m.Index][i].Mark(x.NowPs, n))
		if x.Tracer != nil {
			x.Tracer.Meter(m, i)
		}
		return colour
	}
}
