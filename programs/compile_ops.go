package programs

// Compiled binary operators (evalBinary's semantics): one closure per
// operator, with variants for a constant right operand (masks, shifts,
// offsets and the constants of comparisons) and for comparing a field
// with a constant (the usual gateway condition). Both operands are always
// evaluated, left first, even when the result does not depend on them (a
// register action or random() in an operand has effects).

// binary compiles a binary expression.
func (k *compiled) binary(e *BinaryExpr) evalFn {
	switch e.Op {
	case OpLAnd, OpLOr:
		c := k.cond(e)
		return func(x *Exec) int64 { return b2i(c(x)) }
	}
	X, Y := k.expr(e.X), k.expr(e.Y)
	if e.Op.IsCompare() && unsignedCompare(e.X, e.Y) {
		// 64-bit unsigned: compare the patterns with their top bit
		// flipped (see unsigned64.go).
		fx, fy := func(x *Exec) int64 { return flip(X(x)) }, func(x *Exec) int64 { return flip(Y(x)) }
		if c, ok := e.Y.(*ConstExpr); ok {
			return compareConst(e.Op, fx, flip(c.Val))
		}
		return compare(e.Op, fx, fy)
	}
	if e.Op.IsCompare() {
		if c, ok := e.Y.(*ConstExpr); ok {
			if f, ok := e.X.(*FieldExpr); ok && f.F.Slot != k.dynSlot {
				return compareFieldConst(e.Op, f.F.Slot, c.Val)
			}
			return compareConst(e.Op, X, c.Val)
		}
		return compare(e.Op, X, Y)
	}
	if e.Op == OpAdd {
		if f := k.addOfFields(e); f != nil {
			return f
		}
	}
	if c, ok := e.Y.(*ConstExpr); ok {
		return arithConst(e.Op, X, c.Val, e.T)
	}
	return arith(e.Op, X, Y, e.T)
}

// plainSlot is the slot of a field read straight from the PHV (-1: e is
// something else).
func (k *compiled) plainSlot(e Expr) int {
	if f, ok := e.(*FieldExpr); ok && f.F.Slot != k.dynSlot {
		return f.F.Slot
	}
	return -1
}

// addOfFields compiles the additions of fields and constants that index
// registers and payload words in loops (a + c, a + b, a + b + c) as one
// closure each, or returns nil.
func (k *compiled) addOfFields(e *BinaryExpr) evalFn {
	n := normOf(e.T)
	c, isConst := e.Y.(*ConstExpr)
	if a := k.plainSlot(e.X); a >= 0 {
		if isConst {
			v := c.Val
			return func(x *Exec) int64 { return n.of(x.PHV[a] + v) }
		}
		if b := k.plainSlot(e.Y); b >= 0 {
			return func(x *Exec) int64 { return n.of(x.PHV[a] + x.PHV[b]) }
		}
		return nil
	}
	if xe, ok := e.X.(*BinaryExpr); ok && isConst && xe.Op == OpAdd {
		a, b := k.plainSlot(xe.X), k.plainSlot(xe.Y)
		if a >= 0 && b >= 0 {
			nx, v := normOf(xe.T), c.Val
			return func(x *Exec) int64 { return n.of(nx.of(x.PHV[a]+x.PHV[b]) + v) }
		}
	}
	return nil
}

// compare compiles a comparison of two values.
func compare(op Op, X, Y evalFn) evalFn {
	switch op {
	case OpEq:
		return func(x *Exec) int64 { return b2i(X(x) == Y(x)) }
	case OpNe:
		return func(x *Exec) int64 { return b2i(X(x) != Y(x)) }
	case OpLt:
		return func(x *Exec) int64 { return b2i(X(x) < Y(x)) }
	case OpLe:
		return func(x *Exec) int64 { return b2i(X(x) <= Y(x)) }
	case OpGt:
		return func(x *Exec) int64 { return b2i(X(x) > Y(x)) }
	case OpGe:
		return func(x *Exec) int64 { return b2i(X(x) >= Y(x)) }
	}
	panic("programs: unknown operator")
}

// compareConst compiles a comparison of a value with constant c.
func compareConst(op Op, X evalFn, c int64) evalFn {
	switch op {
	case OpEq:
		return func(x *Exec) int64 { return b2i(X(x) == c) }
	case OpNe:
		return func(x *Exec) int64 { return b2i(X(x) != c) }
	case OpLt:
		return func(x *Exec) int64 { return b2i(X(x) < c) }
	case OpLe:
		return func(x *Exec) int64 { return b2i(X(x) <= c) }
	case OpGt:
		return func(x *Exec) int64 { return b2i(X(x) > c) }
	case OpGe:
		return func(x *Exec) int64 { return b2i(X(x) >= c) }
	}
	panic("programs: unknown operator")
}

// compareFieldConst compiles a comparison of the field in slot with
// constant c.
func compareFieldConst(op Op, slot int, c int64) evalFn {
	switch op {
	case OpEq:
		return func(x *Exec) int64 { return b2i(x.PHV[slot] == c) }
	case OpNe:
		return func(x *Exec) int64 { return b2i(x.PHV[slot] != c) }
	case OpLt:
		return func(x *Exec) int64 { return b2i(x.PHV[slot] < c) }
	case OpLe:
		return func(x *Exec) int64 { return b2i(x.PHV[slot] <= c) }
	case OpGt:
		return func(x *Exec) int64 { return b2i(x.PHV[slot] > c) }
	case OpGe:
		return func(x *Exec) int64 { return b2i(x.PHV[slot] >= c) }
	}
	panic("programs: unknown operator")
}

// unsignedDiv tells whether / and % and >> of type t work on unsigned
// 64-bit values (a typed unsigned t; signed and untyped operands divide
// and shift as int64).
func unsignedDiv(t Type) bool { return !t.Signed && t.Bits != 0 }

// arith compiles an arithmetic operator on two values, normalized to t.
func arith(op Op, X, Y evalFn, t Type) evalFn {
	n := normOf(t)
	u := unsignedDiv(t)
	switch op {
	case OpAdd:
		return func(x *Exec) int64 { return n.of(X(x) + Y(x)) }
	case OpSub:
		return func(x *Exec) int64 { return n.of(X(x) - Y(x)) }
	case OpMul:
		return func(x *Exec) int64 { return n.of(X(x) * Y(x)) }
	case OpAnd:
		return func(x *Exec) int64 { return n.of(X(x) & Y(x)) }
	case OpOr:
		return func(x *Exec) int64 { return n.of(X(x) | Y(x)) }
	case OpXor:
		return func(x *Exec) int64 { return n.of(X(x) ^ Y(x)) }
	case OpDiv:
		return func(x *Exec) int64 {
			a, b := X(x), Y(x)
			if b == 0 {
				return 0
			}
			if u {
				return n.of(int64(uint64(a) / uint64(b)))
			}
			return n.of(a / b)
		}
	case OpMod:
		return func(x *Exec) int64 {
			a, b := X(x), Y(x)
			if b == 0 {
				return 0
			}
			if u {
				return n.of(int64(uint64(a) % uint64(b)))
			}
			return n.of(a % b)
		}
	case OpShl:
		return func(x *Exec) int64 {
			a, b := X(x), Y(x)
			if b >= 64 || b < 0 {
				return 0
			}
			return n.of(a << uint(b))
		}
	case OpShr:
		return func(x *Exec) int64 {
			a, b := X(x), Y(x)
			if b >= 64 || b < 0 {
				if t.Signed && a < 0 {
					return -1
				}
				return 0
			}
			if u {
				return n.of(int64(uint64(a) >> uint(b)))
			}
			return n.of(a >> uint(b))
		}
	}
	panic("programs: unknown operator")
}

// arithConst compiles an arithmetic operator with constant right operand
// c, normalized to t.
func arithConst(op Op, X evalFn, c int64, t Type) evalFn {
	n := normOf(t)
	u := unsignedDiv(t)
	switch op {
	case OpAdd:
		return func(x *Exec) int64 { return n.of(X(x) + c) }
	case OpSub:
		return func(x *Exec) int64 { return n.of(X(x) - c) }
	case OpMul:
		return func(x *Exec) int64 { return n.of(X(x) * c) }
	case OpAnd:
		return func(x *Exec) int64 { return n.of(X(x) & c) }
	case OpOr:
		return func(x *Exec) int64 { return n.of(X(x) | c) }
	case OpXor:
		return func(x *Exec) int64 { return n.of(X(x) ^ c) }
	case OpDiv, OpMod:
		switch {
		case c == 0:
			return func(x *Exec) int64 { X(x); return 0 }
		case u && op == OpDiv:
			return func(x *Exec) int64 { return n.of(int64(uint64(X(x)) / uint64(c))) }
		case u:
			return func(x *Exec) int64 { return n.of(int64(uint64(X(x)) % uint64(c))) }
		case op == OpDiv:
			return func(x *Exec) int64 { return n.of(X(x) / c) }
		default:
			return func(x *Exec) int64 { return n.of(X(x) % c) }
		}
	case OpShl:
		if c >= 64 || c < 0 {
			return func(x *Exec) int64 { X(x); return 0 }
		}
		s := uint(c)
		return func(x *Exec) int64 { return n.of(X(x) << s) }
	case OpShr:
		switch {
		case c >= 64 || c < 0:
			if t.Signed {
				return func(x *Exec) int64 {
					if X(x) < 0 {
						return -1
					}
					return 0
				}
			}
			return func(x *Exec) int64 { X(x); return 0 }
		case u:
			s := uint(c)
			return func(x *Exec) int64 { return n.of(int64(uint64(X(x)) >> s)) }
		default:
			s := uint(c)
			return func(x *Exec) int64 { return n.of(X(x) >> s) }
		}
	}
	panic("programs: unknown operator")
}

// condFn tells whether a condition holds (its value is not 0).
type condFn func(x *Exec) bool

// cond compiles e as a condition: comparisons, &&, ||, ! and validity
// tests give their truth directly, anything else compares its value
// with 0.
func (k *compiled) cond(e Expr) condFn {
	switch e := e.(type) {
	case *BinaryExpr:
		switch {
		case e.Op == OpLAnd:
			X, Y := k.cond(e.X), k.cond(e.Y)
			return func(x *Exec) bool { return X(x) && Y(x) }
		case e.Op == OpLOr:
			X, Y := k.cond(e.X), k.cond(e.Y)
			return func(x *Exec) bool { return X(x) || Y(x) }
		case e.Op.IsCompare() && !unsignedCompare(e.X, e.Y):
			if c, ok := e.Y.(*ConstExpr); ok {
				if f, ok := e.X.(*FieldExpr); ok && f.F.Slot != k.dynSlot {
					return condFieldConst(e.Op, f.F.Slot, c.Val)
				}
			}
		}
	case *UnaryExpr:
		if e.Op == OpNot {
			X := k.cond(e.X)
			return func(x *Exec) bool { return !X(x) }
		}
	case *ValidExpr:
		slot := e.H.Valid.Slot
		return func(x *Exec) bool { return x.PHV[slot] != 0 }
	}
	f := k.expr(e)
	return func(x *Exec) bool { return f(x) != 0 }
}

// condFieldConst compiles a comparison of the field in slot with
// constant c as a condition.
func condFieldConst(op Op, slot int, c int64) condFn {
	switch op {
	case OpEq:
		return func(x *Exec) bool { return x.PHV[slot] == c }
	case OpNe:
		return func(x *Exec) bool { return x.PHV[slot] != c }
	case OpLt:
		return func(x *Exec) bool { return x.PHV[slot] < c }
	case OpLe:
		return func(x *Exec) bool { return x.PHV[slot] <= c }
	case OpGt:
		return func(x *Exec) bool { return x.PHV[slot] > c }
	case OpGe:
		return func(x *Exec) bool { return x.PHV[slot] >= c }
	}
	panic("programs: unknown operator")
}
