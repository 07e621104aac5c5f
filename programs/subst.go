package programs

// inlineAction returns a copy of an action's body with its parameters
// replaced by the given argument expressions (an action called directly
// from control flow, as P4 allows).
func inlineAction(a *Action, args []Expr) []Stmt {
	var out []Stmt
	for _, s := range a.Body {
		out = append(out, substStmt(s, args))
	}
	return out
}

func substStmt(s Stmt, args []Expr) Stmt {
	switch s := s.(type) {
	case *AssignStmt:
		c := *s
		c.Src = substExpr(s.Src, args)
		return &c
	case *ExprStmt:
		c := *s
		c.X = substExpr(s.X, args)
		return &c
	case *CountStmt:
		c := *s
		c.Index = substExpr(s.Index, args)
		return &c
	}
	return s
}

func substExpr(e Expr, args []Expr) Expr {
	switch x := e.(type) {
	case *ParamExpr:
		a := args[x.P.Index]
		if a.Type().Bits == 0 || a.Type().Bits != x.P.Type.Bits {
			return &CastExpr{X: a, T: x.P.Type, Pos: x.Pos}
		}
		return a
	case *BinaryExpr:
		c := *x
		c.X, c.Y = substExpr(x.X, args), substExpr(x.Y, args)
		return &c
	case *UnaryExpr:
		c := *x
		c.X = substExpr(x.X, args)
		return &c
	case *SliceExpr:
		c := *x
		c.X = substExpr(x.X, args)
		return &c
	case *CastExpr:
		c := *x
		c.X = substExpr(x.X, args)
		return &c
	case *CallExpr:
		if len(x.Args) == 0 {
			return e // nothing to substitute (random())
		}
		c := *x
		c.Args = substList(x.Args, args)
		return &c
	case *RegisterCall:
		c := *x
		c.Index = substExpr(x.Index, args)
		return &c
	case *MeterCall:
		c := *x
		c.Index = substExpr(x.Index, args)
		return &c
	}
	return e
}

func substList(list, args []Expr) []Expr {
	out := make([]Expr, len(list))
	for i, a := range list {
		out[i] = substExpr(a, args)
	}
	return out
}
