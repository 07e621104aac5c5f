package programs

// Compiled built-ins: the operands of a built-in's call are compiled
// closures and its operation is the one its row's function applies
// (builtins_exec.go). A row this file does not know (a built-in added
// without a compiled form) runs through its row function, whose x.eval
// evaluates the operands through compiled closures as well.

// call compiles a value built-in.
func (k *compiled) call(e *CallExpr) evalFn {
	if f := k.callFor(e); f != nil {
		return f
	}
	return k.rowEval(e)
}

// callFor compiles a value built-in that has a compiled form (nil: it
// has none).
func (k *compiled) callFor(e *CallExpr) evalFn {
	args := make([]evalFn, len(e.Args))
	for i, a := range e.Args {
		args[i] = k.expr(a)
	}
	b := e.Builtin
	if b.On == OnTable && b.Name == "aged" {
		t, i := e.Table, args[0]
		return func(x *Exec) int64 { return x.aged(t, i(x)) }
	}
	if b.On != OnNothing {
		return nil
	}
	t := e.T
	switch b.Name {
	case "sat_add":
		X, Y := args[0], args[1]
		return func(x *Exec) int64 { return satAdd(X(x), Y(x), t) }
	case "sat_sub":
		X, Y := args[0], args[1]
		return func(x *Exec) int64 { return satSub(X(x), Y(x), t) }
	case "min":
		X, Y := args[0], args[1]
		if u64(t) {
			return func(x *Exec) int64 { return minOf(X(x), Y(x), t) }
		}
		return func(x *Exec) int64 { return min(X(x), Y(x)) }
	case "max":
		X, Y := args[0], args[1]
		if u64(t) {
			return func(x *Exec) int64 { return maxOf(X(x), Y(x), t) }
		}
		return func(x *Exec) int64 { return max(X(x), Y(x)) }
	case "concat":
		types := make([]Type, len(e.Args))
		for i, a := range e.Args {
			types[i] = a.Type()
		}
		return func(x *Exec) int64 {
			var v uint64
			for i, f := range args {
				v = concatPart(v, f(x), types[i])
			}
			return int64(v)
		}
	case "random":
		n := normOf(t)
		return func(x *Exec) int64 { return n.of(int64(x.Rng.Uint64())) }
	case "hash":
		sizes := make([]int, len(e.Args))
		for i, a := range e.Args {
			sizes[i] = hashBytes(a.Type())
		}
		return func(x *Exec) int64 {
			x.hashB = x.hashB[:0]
			for i, f := range args {
				x.hashB = appendHashBytes(x.hashB, f(x), sizes[i])
			}
			return int64(crc32IEEE(x.hashB))
		}
	case "payload32":
		w := args[0]
		return func(x *Exec) int64 { return x.payload32(w(x)) }
	case "held":
		buf, slot := e.Buf, args[0]
		return func(x *Exec) int64 { return x.held(buf, cellIndex(slot(x), int64(buf.Slots))) }
	case "buffered":
		buf := e.Buf
		return func(x *Exec) int64 { return x.buffered(buf) }
	}
	return nil
}

// rowEval runs a value built-in through its row's function.
func (k *compiled) rowEval(e *CallExpr) evalFn {
	eval := e.eval
	if eval == nil {
		eval = e.Builtin.Eval
	}
	return func(x *Exec) int64 { return eval(x, e) }
}

// builtinStmt compiles a statement built-in.
func (k *compiled) builtinStmt(s *BuiltinStmt) stmtFn {
	if f := k.builtinStmtFor(s); f != nil {
		return f
	}
	exec := s.Builtin.Exec
	return func(x *Exec) { exec(x, s) }
}

// builtinStmtFor compiles a statement built-in that has a compiled form
// (nil: it has none).
func (k *compiled) builtinStmtFor(s *BuiltinStmt) stmtFn {
	args := make([]evalFn, len(s.Args))
	for i, a := range s.Args {
		args[i] = k.expr(a)
	}
	b := s.Builtin
	switch {
	case b.Is(OnNothing, "emit"):
		r := s.Reg
		if r == nil {
			return func(x *Exec) { x.emit(nil, 0, 0) }
		}
		start, cells := args[0], args[1]
		return func(x *Exec) {
			st := start(x)
			x.emit(r, st, cells(x))
		}
	case b.Is(OnNothing, "clear"):
		r, start, cells := s.Reg, args[0], args[1]
		return func(x *Exec) {
			st := start(x)
			x.clearCells(r, st, cells(x))
		}
	case b.Is(OnTable, "insert"):
		t, a, key := s.Table, s.Action, k.keys(s.Table)
		norms := make([]norm, len(s.Args))
		for i := range s.Args {
			norms[i] = normOf(a.Params[i].Type)
		}
		return func(x *Exec) {
			kv := key(x)
			vals := make([]int64, len(args))
			for i, f := range args {
				vals[i] = norms[i].of(f(x))
			}
			x.insert(t, kv, a, vals)
		}
	case b.Is(OnNothing, "store"):
		buf, slot := s.Buf, args[0]
		return func(x *Exec) { x.store(buf, cellIndex(slot(x), int64(buf.Slots))) }
	case b.Is(OnNothing, "resend"):
		buf, slot := s.Buf, args[0]
		return func(x *Exec) { x.resend(buf, cellIndex(slot(x), int64(buf.Slots))) }
	case b.Is(OnNothing, "release"):
		buf, slot := s.Buf, args[0]
		return func(x *Exec) { x.release(buf, cellIndex(slot(x), int64(buf.Slots))) }
	case b.Is(OnTable, "remove"):
		t, key := s.Table, k.keys(s.Table)
		return func(x *Exec) { x.remove(t, key(x)) }
	case b.Is(OnTable, "load"):
		t, i := s.Table, args[0]
		tc := k.table(t)
		return func(x *Exec) {
			call := x.load(t, i(x))
			if call.Action != nil {
				tc.run(x, call)
			}
		}
	}
	return nil
}

// keys compiles the evaluation of t's key expressions into an exact key.
func (k *compiled) keys(t *Table) func(x *Exec) [maxExactKeys]int64 {
	fs := make([]evalFn, len(t.Keys))
	for i, kk := range t.Keys {
		fs[i] = k.expr(kk.Expr)
	}
	return func(x *Exec) [maxExactKeys]int64 {
		var key [maxExactKeys]int64
		for i, f := range fs {
			key[i] = f(x)
		}
		return key
	}
}
