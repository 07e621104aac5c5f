package compiler

import (
	"fmt"

	"archsim/arch/tofino/spec"
	"archsim/programs"
)

// LTKind is the kind of a logical table.
type LTKind int

// Logical table kinds.
const (
	KindMatch   LTKind = iota // a program table with a key
	KindKeyless               // inline statements (bf-p4c's tbl_act)
	KindGateway               // an if condition
)

var ltKindNames = []string{"table", "action", "gateway"}

func (k LTKind) String() string { return ltKindNames[k] }

// decision is one arm of a branch point on a logical table's control path.
type decision struct {
	node int
	arm  int
}

// regAccess is one register action executed by a logical table.
type regAccess struct {
	RA    *programs.RegisterAction
	Index programs.Expr
	Pos   programs.Pos
}

// LT is a logical table: the unit the MAU schedules into one stage and one
// logical table ID. Program tables, runs of inline statements and if
// conditions all become logical tables, as in bf-p4c.
type LT struct {
	ID    int
	Name  string
	Kind  LTKind
	Gress spec.Gress
	Table *programs.Table // KindMatch
	Stmts []programs.Stmt // KindKeyless
	Cond  programs.Expr   // KindGateway
	Pos   programs.Pos
	Path  []decision
	Ctrl  *LT // innermost controlling gateway or table (nil at top level)

	MatchReads  fieldSet // read by the match/ixbar: keys, conditions, SALU inputs, indices
	ActionReads fieldSet // read by VLIW action ALUs
	Writes      fieldSet

	Regs     []regAccess
	Meters   []*programs.Meter
	Counters []*programs.Counter
	Random   bool
	Hash     bool
	// Indices of stateful objects computed from packet fields (each needs
	// hash distribution).
	Indices []indexUse
	// Actions the logical table may run (match tables: the table's actions;
	// keyless tables: one implicit action).
	Actions [][]programs.Stmt

	// Placement results.
	Stage  int
	Why    string
	Res    Resources
	Merged bool // a gateway that shares the logical table ID of the table heading its branch in the same stage
}

// indexUse is a stateful array index computed from the packet.
type indexUse struct {
	size int
	expr programs.Expr
}

// lowerer turns a program's control flow into logical tables.
type lowerer struct {
	prog   *programs.Program
	lts    []*LT
	nodes  int
	nextID int
	gress  spec.Gress
	synth  int // synthetic temporaries created for gateway conditions
	errs   []error
	// calling holds the functions being inlined (guards against recursion).
	calling map[*programs.Function]bool
}

func lowerProgram(prog *programs.Program) ([]*LT, error) {
	lw := &lowerer{prog: prog, synth: len(prog.Fields), calling: map[*programs.Function]bool{}}
	for _, c := range []*programs.Control{prog.Ingress, prog.Egress} {
		if c == nil {
			continue
		}
		lw.gress = spec.Ingress
		if c.Name == "egress" {
			lw.gress = spec.Egress
		}
		body, _ := lw.inline(c.Body)
		lw.block(body, nil, nil)
	}
	if len(lw.errs) > 0 {
		return nil, lw.errs[0]
	}
	return lw.lts, nil
}

func (lw *lowerer) newLT(kind LTKind, name string, pos programs.Pos, path []decision, ctrl *LT) *LT {
	lt := &LT{ID: lw.nextID, Name: name, Kind: kind, Gress: lw.gress, Pos: pos,
		Path: append([]decision(nil), path...), Ctrl: ctrl}
	lw.nextID++
	lw.lts = append(lw.lts, lt)
	return lt
}

func (lw *lowerer) branch(path []decision, arm int) []decision {
	p := append(append([]decision(nil), path...), decision{node: lw.nodes, arm: arm})
	return p
}

func (lw *lowerer) block(stmts []programs.Stmt, path []decision, ctrl *LT) {
	var run []programs.Stmt
	flush := func() {
		if len(run) > 0 {
			lw.keyless(run, path, ctrl)
			run = nil
		}
	}
	for _, s := range stmts {
		switch s := s.(type) {
		case *programs.AssignStmt, *programs.ExprStmt, *programs.CountStmt:
			run = append(run, s)
		case *programs.ApplyStmt:
			flush()
			lw.match(s.Table, s.Pos, path, ctrl)
		case *programs.SwitchStmt:
			flush()
			lt := lw.match(s.Table, s.Pos, path, ctrl)
			node := lw.nodes
			lw.nodes++
			for i, c := range s.Cases {
				lw.block(c.Body, append(append([]decision(nil), path...), decision{node, i}), lt)
			}
			lw.block(s.Default, append(append([]decision(nil), path...), decision{node, len(s.Cases)}), lt)
		case *programs.IfStmt:
			flush()
			lw.ifStmt(s, path, ctrl)
		case *programs.ForStmt:
			lw.errs = append(lw.errs, ruleErr(RuleNoLoops, s.Pos,
				"%s: loops are not possible in a pipeline (a packet passes each MAU stage once); unroll the loop or recirculate the packet", lw.gress))
		}
	}
	flush()
}

// inline returns stmts with every function call replaced by the function's
// body, recursively (into if and switch arms too): a pipeline has no
// call/return, so a function lowers exactly as if its body were written at
// the call site, and a function called twice is lowered twice. Blocks
// without calls are returned as they are.
func (lw *lowerer) inline(stmts []programs.Stmt) ([]programs.Stmt, bool) {
	var out []programs.Stmt
	changed := false
	for i, s := range stmts {
		var repl []programs.Stmt
		switch s := s.(type) {
		case *programs.CallStmt:
			if lw.calling[s.Fn] {
				// The loader rejects recursion; a hand-built program may not.
				lw.errs = append(lw.errs, ruleErr(RuleNoLoops, s.Pos,
					"%s: function %s calls itself; recursion is not possible in a pipeline (functions are inlined)", lw.gress, s.Fn.Name))
				repl = []programs.Stmt{}
				break
			}
			lw.calling[s.Fn] = true
			repl, _ = lw.inline(s.Fn.Body)
			delete(lw.calling, s.Fn)
			if repl == nil {
				repl = []programs.Stmt{}
			}
		case *programs.IfStmt:
			then, c1 := lw.inline(s.Then)
			els, c2 := lw.inline(s.Else)
			if c1 || c2 {
				c := *s
				c.Then, c.Else = then, els
				repl = []programs.Stmt{&c}
			}
		case *programs.SwitchStmt:
			c := *s
			c.Cases = make([]programs.SwitchCase, len(s.Cases))
			anyCase := false
			for j, sc := range s.Cases {
				body, ch := lw.inline(sc.Body)
				c.Cases[j] = programs.SwitchCase{Actions: sc.Actions, Body: body}
				anyCase = anyCase || ch
			}
			def, ch := lw.inline(s.Default)
			c.Default = def
			if anyCase || ch {
				repl = []programs.Stmt{&c}
			}
		}
		if repl == nil {
			if changed {
				out = append(out, s)
			}
			continue
		}
		if !changed {
			changed = true
			out = append(out, stmts[:i]...)
		}
		out = append(out, repl...)
	}
	if !changed {
		return stmts, false
	}
	return out, true
}

func (lw *lowerer) ifStmt(s *programs.IfStmt, path []decision, ctrl *LT) {
	cond := s.Cond
	negate := false
	if u, ok := cond.(*programs.UnaryExpr); ok && u.Op == programs.OpNot {
		if _, ok := u.X.(*programs.HitExpr); ok {
			cond, negate = u.X, true
		}
	}
	var head *LT
	if h, ok := cond.(*programs.HitExpr); ok {
		head = lw.match(h.Table, s.Pos, path, ctrl)
	} else {
		if containsHit(cond) {
			lw.errs = append(lw.errs, errAt(s.Pos, "a table's hit/miss must be the whole if condition (if t.apply().hit { ... })"))
			return
		}
		cond = lw.gatewayCond(cond, s.Pos, path, ctrl)
		head = lw.newLT(KindGateway, fmt.Sprintf("%s.cond@%d", lw.gress, s.Pos.Line), s.Pos, path, ctrl)
		head.Cond = cond
		lw.reads(cond, &head.MatchReads, head)
	}
	node := lw.nodes
	lw.nodes++
	thenArm, elseArm := 0, 1
	if negate {
		thenArm, elseArm = 1, 0
	}
	lw.block(s.Then, append(append([]decision(nil), path...), decision{node, thenArm}), head)
	lw.block(s.Else, append(append([]decision(nil), path...), decision{node, elseArm}), head)
}

func containsHit(e programs.Expr) bool {
	found := false
	walkExpr(e, func(x programs.Expr) {
		if _, ok := x.(*programs.HitExpr); ok {
			found = true
		}
	})
	return found
}

// gatewayCond rewrites a condition so every term is something a gateway can
// evaluate: a field (or slice) compared with a constant, two fields compared
// for equality, a validity bit or a 1-bit field, combined with && || !.
// Other terms (arithmetic, relations between two fields, register or meter
// results) are computed first by an implicit logical table into a
// temporary, exactly as bf-p4c splits them; that table costs a stage.
func (lw *lowerer) gatewayCond(e programs.Expr, pos programs.Pos, path []decision, ctrl *LT) programs.Expr {
	switch x := e.(type) {
	case *programs.BinaryExpr:
		switch {
		case x.Op == programs.OpLAnd || x.Op == programs.OpLOr:
			return &programs.BinaryExpr{Op: x.Op, X: lw.gatewayCond(x.X, pos, path, ctrl),
				Y: lw.gatewayCond(x.Y, pos, path, ctrl), T: x.T, Pos: x.Pos}
		case x.Op.IsCompare():
			_, xc := x.X.(*programs.ConstExpr)
			_, yc := x.Y.(*programs.ConstExpr)
			if (xc && isGatewayOperand(x.Y)) || (yc && isGatewayOperand(x.X)) {
				return x
			}
			if (x.Op == programs.OpEq || x.Op == programs.OpNe) && isGatewayOperand(x.X) && isGatewayOperand(x.Y) {
				return x
			}
			// Relation between two values: compute the difference (or the
			// non-trivial side) first, then compare it with a constant.
			if !xc && !yc {
				t := x.X.Type()
				if t.Bits == 0 {
					t = x.Y.Type()
				}
				diff := &programs.BinaryExpr{Op: programs.OpSub, X: x.X, Y: x.Y, T: programs.Type{Bits: t.Bits + 1, Signed: true}, Pos: x.Pos}
				tmp := lw.temp(diff, pos, path, ctrl)
				return &programs.BinaryExpr{Op: x.Op, X: tmp, Y: &programs.ConstExpr{Val: 0, Pos: x.Pos}, T: x.T, Pos: x.Pos}
			}
			if xc {
				return &programs.BinaryExpr{Op: x.Op, X: x.X, Y: lw.temp(x.Y, pos, path, ctrl), T: x.T, Pos: x.Pos}
			}
			return &programs.BinaryExpr{Op: x.Op, X: lw.temp(x.X, pos, path, ctrl), Y: x.Y, T: x.T, Pos: x.Pos}
		}
	case *programs.UnaryExpr:
		if x.Op == programs.OpNot {
			return &programs.UnaryExpr{Op: x.Op, X: lw.gatewayCond(x.X, pos, path, ctrl), T: x.T, Pos: x.Pos}
		}
	}
	if isGatewayOperand(e) {
		return e
	}
	return lw.temp(e, pos, path, ctrl)
}

func isGatewayOperand(e programs.Expr) bool {
	switch x := e.(type) {
	case *programs.FieldExpr, *programs.ValidExpr, *programs.ConstExpr:
		return true
	case *programs.SliceExpr:
		_, ok := x.X.(*programs.FieldExpr)
		return ok
	}
	return false
}

// temp creates an implicit logical table computing e into a synthetic
// temporary field and returns a read of that field.
func (lw *lowerer) temp(e programs.Expr, pos programs.Pos, path []decision, ctrl *LT) programs.Expr {
	t := e.Type()
	if t.Bits == 0 {
		t = programs.Type{Bits: 32}
	}
	f := &programs.Field{Name: fmt.Sprintf("$cond%d", lw.synth), Type: t, Kind: programs.MetaField, Slot: lw.synth, Pos: pos}
	lw.synth++
	st := &programs.AssignStmt{Dst: programs.LValue{Field: f}, Src: e, Pos: pos}
	lt := lw.newLT(KindKeyless, fmt.Sprintf("%s.cmp@%d", lw.gress, pos.Line), pos, path, ctrl)
	lt.Stmts = []programs.Stmt{st}
	lw.stmtEffects(st, lt)
	lt.Actions = [][]programs.Stmt{lt.Stmts}
	return &programs.FieldExpr{F: f, Pos: pos}
}

func (lw *lowerer) match(t *programs.Table, pos programs.Pos, path []decision, ctrl *LT) *LT {
	lt := lw.newLT(KindMatch, t.Name, pos, path, ctrl)
	lt.Table = t
	for _, k := range t.Keys {
		lw.reads(k.Expr, &lt.MatchReads, lt)
	}
	for _, a := range t.Actions {
		for _, s := range a.Body {
			lw.stmtEffects(s, lt)
		}
		lt.Actions = append(lt.Actions, a.Body)
	}
	return lt
}

// keyless splits a run of inline statements into implicit tables: a new one
// starts when a statement depends on an earlier statement of the run (an
// action reads all operands before writing) or when it and the run both use
// an extern (usesExtern; one SALU/meter per action), as bf-p4c's action
// synthesis policy splits them.
func (lw *lowerer) keyless(run []programs.Stmt, path []decision, ctrl *LT) {
	var cur *LT
	for _, s := range run {
		probe := &LT{}
		lw.stmtEffects(s, probe)
		if cur != nil {
			reads := append(fieldSet(nil), probe.MatchReads...)
			reads.union(probe.ActionReads)
			conflict := reads.firstCommon(cur.Writes) >= 0 || probe.Writes.firstCommon(cur.Writes) >= 0
			stateful := usesExtern(cur) && usesExtern(probe)
			if conflict || stateful {
				cur = nil
			}
		}
		if cur == nil {
			cur = lw.newLT(KindKeyless, fmt.Sprintf("%s.act@%d", lw.gress, s.Position().Line), s.Position(), path, ctrl)
		}
		cur.Stmts = append(cur.Stmts, s)
		lw.stmtEffects(s, cur)
	}
	for _, lt := range lw.lts {
		if lt.Kind == KindKeyless && lt.Actions == nil {
			lt.Actions = [][]programs.Stmt{lt.Stmts}
		}
	}
}

// usesExtern reports whether a table's statements use an extern other
// than a hash unit (a register, meter, counter or the random number
// generator): bf-p4c's action synthesis does not combine two statements
// that both do (midend/action_synthesis_policy.h, can_combine).
func usesExtern(lt *LT) bool {
	return len(lt.Regs)+len(lt.Meters)+len(lt.Counters) > 0 || lt.Random
}

// stmtEffects records what a statement reads and writes on a logical table.
func (lw *lowerer) stmtEffects(s programs.Stmt, lt *LT) {
	switch s := s.(type) {
	case *programs.AssignStmt:
		if s.Dst.Field != nil {
			lt.Writes.add(s.Dst.Field)
		}
		lw.reads(s.Src, &lt.ActionReads, lt)
	case *programs.ExprStmt:
		lw.reads(s.X, &lt.ActionReads, lt)
	case *programs.CountStmt:
		lt.Counters = appendOnce(lt.Counters, s.Counter)
		lw.reads(s.Index, &lt.MatchReads, lt)
		lt.addIndex(s.Counter.Size, s.Index)
	}
}

func appendOnce[T comparable](list []T, x T) []T {
	for _, y := range list {
		if y == x {
			return list
		}
	}
	return append(list, x)
}

// reads records the fields an expression reads into set; stateful accesses
// read their PHV inputs and indices through the input crossbar (match
// reads).
func (lw *lowerer) reads(e programs.Expr, set *fieldSet, lt *LT) {
	walkExpr(e, func(x programs.Expr) {
		switch x := x.(type) {
		case *programs.FieldExpr:
			set.add(x.F)
		case *programs.ValidExpr:
			set.add(x.H.Valid)
		case *programs.RegisterCall:
			lt.Regs = append(lt.Regs, regAccess{RA: x.Action, Index: x.Index, Pos: x.Pos})
			lw.reads(x.Index, &lt.MatchReads, lt)
			lt.addIndex(x.Action.Register.Size, x.Index)
			for _, st := range x.Action.Body {
				walkStmt(st, func(y programs.Expr) {
					if f, ok := y.(*programs.FieldExpr); ok {
						lt.MatchReads.add(f.F)
					}
				})
			}
		case *programs.MeterCall:
			lt.Meters = appendOnce(lt.Meters, x.Meter)
			lw.reads(x.Index, &lt.MatchReads, lt)
			lt.addIndex(x.Meter.Size, x.Index)
		case *programs.CallExpr:
			lw.unitReads(x, lt)
		}
	})
}

// unitReads records a built-in computed by a unit other than the action
// ALUs (its row's Tofino cost): the random number generator, or a hash
// unit, whose inputs are read through the input crossbar.
func (lw *lowerer) unitReads(x *programs.CallExpr, lt *LT) {
	switch x.Builtin.Tofino.Unit {
	case programs.TofinoRNG:
		lt.Random = true
	case programs.TofinoHash:
		lt.Hash = true
		for _, a := range x.Args {
			lw.reads(a, &lt.MatchReads, lt)
		}
	}
}

// walkExpr visits e and its operands (not into register action bodies).
func walkExpr(e programs.Expr, fn func(programs.Expr)) { walk(e, fn, true) }

// walkNoSlice is walkExpr that does not descend into a slice of a field (the
// slice, not the whole field, is what the hardware reads).
func walkNoSlice(e programs.Expr, fn func(programs.Expr)) { walk(e, fn, false) }

func walk(e programs.Expr, fn func(programs.Expr), intoFieldSlices bool) {
	if e == nil {
		return
	}
	fn(e)
	switch x := e.(type) {
	case *programs.BinaryExpr:
		walk(x.X, fn, intoFieldSlices)
		walk(x.Y, fn, intoFieldSlices)
	case *programs.UnaryExpr:
		walk(x.X, fn, intoFieldSlices)
	case *programs.SliceExpr:
		if _, isField := x.X.(*programs.FieldExpr); intoFieldSlices || !isField {
			walk(x.X, fn, intoFieldSlices)
		}
	case *programs.CastExpr:
		walk(x.X, fn, intoFieldSlices)
	case *programs.CallExpr:
		if x.Builtin.Tofino.Unit == programs.TofinoHash {
			break // a hash unit's inputs are not ALU operands
		}
		for _, a := range x.Args {
			walk(a, fn, intoFieldSlices)
		}
	}
}

// walkStmt visits every expression in a statement (used for register action
// bodies).
func walkStmt(s programs.Stmt, fn func(programs.Expr)) {
	switch s := s.(type) {
	case *programs.AssignStmt:
		walkExpr(s.Src, fn)
	case *programs.ExprStmt:
		walkExpr(s.X, fn)
	case *programs.IfStmt:
		walkExpr(s.Cond, fn)
		for _, t := range s.Then {
			walkStmt(t, fn)
		}
		for _, t := range s.Else {
			walkStmt(t, fn)
		}
	}
}

// exclusive reports whether two logical tables can never run on the same
// packet: their control paths take different arms of a common branch.
func exclusive(a, b *LT) bool {
	for _, da := range a.Path {
		for _, db := range b.Path {
			if da.node == db.node && da.arm != db.arm {
				return true
			}
		}
	}
	return false
}

func (lt *LT) addIndex(size int, e programs.Expr) {
	if _, ok := e.(*programs.ConstExpr); ok {
		return
	}
	lt.Indices = append(lt.Indices, indexUse{size: size, expr: e})
}
