package programs

// Moves: a run of consecutive assignments to fields whose sources are a
// constant, a field, an action parameter or a field plus a constant (the
// bodies of most actions: set a port, copy addresses, set a header valid,
// decrement a TTL) compiles into one closure that walks a compact list,
// instead of one closure call per statement. Without a tracer it does
// what the statements' own closures do, in order (each assignment sees
// the ones before it), counts the same Steps and marks the same headers
// dirty; with a tracer it runs the statements' own closures, so the
// tracer sees each statement.

type moveKind uint8

const (
	moveConst    moveKind = iota // dst = v
	moveField                    // dst = n(src field)
	moveParam                    // dst = n(param src)
	moveFieldAdd                 // dst = n(n2(src field + v))
)

type move struct {
	kind  moveKind
	dst   int32
	src   int32
	v     int64
	n, n2 norm
}

// moveOf returns s as a move when it is one (not inside a register
// action, whose assignments write the cell or output).
func (k *compiled) moveOf(s Stmt) (move, bool) {
	a, ok := s.(*AssignStmt)
	if !ok || k.ra != nil || a.Dst.Field == nil || a.Dst.Field.Slot == k.dynSlot {
		return move{}, false
	}
	m := move{dst: int32(a.Dst.Field.Slot), n: normOf(a.Dst.Field.Type)}
	switch src := a.Src.(type) {
	case *ConstExpr:
		m.kind, m.v = moveConst, m.n.of(src.Val)
		return m, true
	case *FieldExpr:
		if src.F.Slot == k.dynSlot {
			return move{}, false
		}
		m.kind, m.src = moveField, int32(src.F.Slot)
		return m, true
	case *ParamExpr:
		m.kind, m.src = moveParam, int32(src.P.Index)
		return m, true
	case *BinaryExpr:
		f, ok := src.X.(*FieldExpr)
		c, isConst := src.Y.(*ConstExpr)
		if !ok || !isConst || f.F.Slot == k.dynSlot || (src.Op != OpAdd && src.Op != OpSub) {
			return move{}, false
		}
		m.kind, m.src, m.v, m.n2 = moveFieldAdd, int32(f.F.Slot), c.Val, normOf(src.T)
		if src.Op == OpSub {
			m.v = -c.Val
		}
		return m, true
	}
	return move{}, false
}

// moveRun compiles a run of moves; one holds the statements' own
// closures, for a tracer.
func moveRun(mv []move, dirty uint64, one []stmtFn) stmtFn {
	return func(x *Exec) {
		if x.Tracer != nil {
			for _, f := range one {
				f(x)
			}
			return
		}
		phv := x.PHV
		for i := range mv {
			m := &mv[i]
			switch m.kind {
			case moveConst:
				phv[m.dst] = m.v
			case moveField:
				phv[m.dst] = m.n.of(phv[m.src])
			case moveParam:
				phv[m.dst] = m.n.of(x.params[m.src])
			default:
				phv[m.dst] = m.n.of(m.n2.of(phv[m.src] + m.v))
			}
		}
		x.Dirty |= dirty
		x.Steps += len(mv)
	}
}
