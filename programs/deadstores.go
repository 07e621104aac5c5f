package programs

// Dead stores. A program may compute metadata nothing ever reads: ndp.p4
// computes a 5-tuple hash (and the five lookup fields it hashes) for an
// ECMP selector the model resolves by next-hop index instead, so every
// packet of the trimming runs paid a CRC-32 and five moves for a value
// that reached neither the packet, the state nor a decision. A real
// compiler drops such code (bf-p4c's dead-code elimination); an Exec with
// ElideDeadStores set does the same to its compiled closures. Placement
// is not affected: the resource accounting reads the program description,
// not the closures.
//
// An assignment is a dead store when all of these hold:
//   - its destination is a whole user metadata field (meta.*) that is not
//     bridged to egress: headers are deparsed and std fields are read by
//     the chip after the pass;
//   - its source is pure: fields, constants, action parameters, operators,
//     slices, casts, validity tests and the pure built-ins (hash, min,
//     max, sat_add, sat_sub, concat); no register, meter, table or random
//     draw, whose side effects must happen;
//   - no live code reads the field: no expression outside dead stores, no
//     table key, no parser select. A field read only by dead stores is
//     dead too (the analysis iterates to a fixed point).
//
// A program whose code copies or sends the whole packet as it stands
// (emit, store, resend) keeps every store: those builtins read the
// header vector wholesale; so does one that calls a built-in added with
// RegisterBuiltin (its Eval sees the whole Exec).
//
// A dead store whose source reads the dynamic slot (Exec.DynSlot, Tofino
// 2's live queue depth) no longer calls Exec.Dyn: Dyn must have no
// effect but its value (the traffic manager's depth has none).

// deadStores returns the program's dead stores (nil when it has none or
// when it uses emit, store or resend).
func (p *Program) deadStores() map[*AssignStmt]bool {
	reads := make([]int, max(p.NumSlots, len(p.Fields)))
	count := func(e Expr, d int) {
		WalkExpr(e, func(e Expr) {
			if fe, ok := e.(*FieldExpr); ok && fe.F.Slot >= 0 && fe.F.Slot < len(reads) {
				reads[fe.F.Slot] += d
			}
		})
	}
	var cands []*AssignStmt
	wholesale := false
	for _, body := range p.allBodies() {
		WalkStmtExprs(body, func(e Expr) {
			if c, ok := e.(*CallExpr); ok && c.Builtin != nil && c.Builtin.registered {
				wholesale = true
			}
		})
		WalkStmts(body, func(s Stmt) {
			switch s := s.(type) {
			case *AssignStmt:
				if f := s.Dst.Field; f != nil && f.Kind == MetaField && !f.Bridged && pureExpr(s.Src) {
					cands = append(cands, s)
				}
			case *BuiltinStmt:
				if s.Builtin != nil {
					switch s.Builtin.Name {
					case "emit", "store", "resend":
						wholesale = true
					}
				}
			}
		})
	}
	if wholesale || len(cands) == 0 {
		return nil
	}
	for _, body := range p.allBodies() {
		WalkStmtExprs(body, func(e Expr) { // every node of every expression, once
			if fe, ok := e.(*FieldExpr); ok && fe.F.Slot >= 0 && fe.F.Slot < len(reads) {
				reads[fe.F.Slot]++
			}
		})
	}
	for _, t := range p.Tables {
		for _, k := range t.Keys {
			count(k.Expr, 1)
			if k.Field != nil && k.Field.Slot >= 0 && k.Field.Slot < len(reads) {
				reads[k.Field.Slot]++
			}
		}
	}
	for _, pg := range []*Parser{p.Parser, p.EgressParser} {
		if pg == nil {
			continue
		}
		for _, s := range pg.States {
			if s.Select != nil && s.Select.Slot >= 0 && s.Select.Slot < len(reads) {
				reads[s.Select.Slot]++
			}
		}
	}
	dead := map[*AssignStmt]bool{}
	for changed := true; changed; {
		changed = false
		for _, s := range cands {
			if !dead[s] && reads[s.Dst.Field.Slot] == 0 {
				dead[s] = true
				count(s.Src, -1) // what it read is read by one store fewer
				changed = true
			}
		}
	}
	if len(dead) == 0 {
		return nil
	}
	return dead
}

// pureExpr reports whether evaluating e has no effect but its value.
func pureExpr(e Expr) bool {
	pure := true
	WalkExpr(e, func(e Expr) {
		switch x := e.(type) {
		case *ConstExpr, *FieldExpr, *ParamExpr, *BinaryExpr, *UnaryExpr, *SliceExpr, *CastExpr, *ValidExpr:
		case *CallExpr:
			if x.Builtin == nil || x.Builtin.On != OnNothing {
				pure = false
				return
			}
			switch x.Builtin.Name {
			case "hash", "min", "max", "sat_add", "sat_sub", "concat":
			default:
				pure = false
			}
		default:
			pure = false
		}
	})
	return pure
}
