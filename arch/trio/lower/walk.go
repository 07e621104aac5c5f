package lower

import "archsim/programs"

// walkExpr calls f on e and every sub-expression.
func walkExpr(e programs.Expr, f func(programs.Expr)) {
	if e == nil {
		return
	}
	f(e)
	switch x := e.(type) {
	case *programs.BinaryExpr:
		walkExpr(x.X, f)
		walkExpr(x.Y, f)
	case *programs.UnaryExpr:
		walkExpr(x.X, f)
	case *programs.SliceExpr:
		walkExpr(x.X, f)
	case *programs.CastExpr:
		walkExpr(x.X, f)
	case *programs.CallExpr:
		for _, a := range x.Args {
			walkExpr(a, f)
		}
	case *programs.RegisterCall:
		walkExpr(x.Index, f)
	case *programs.MeterCall:
		walkExpr(x.Index, f)
	}
}

// forEachCall calls f on every register call in e.
func forEachCall(e programs.Expr, f func(*programs.RegisterCall)) {
	walkExpr(e, func(x programs.Expr) {
		if rc, ok := x.(*programs.RegisterCall); ok {
			f(rc)
		}
	})
}

// walkStmts calls f on every statement of the program's controls and
// actions, nested ones included.
func walkStmts(p *programs.Program, f func(programs.Stmt)) {
	var list func([]programs.Stmt)
	list = func(ss []programs.Stmt) {
		for _, s := range ss {
			f(s)
			switch s := s.(type) {
			case *programs.IfStmt:
				list(s.Then)
				list(s.Else)
			case *programs.SwitchStmt:
				for _, c := range s.Cases {
					list(c.Body)
				}
				list(s.Default)
			case *programs.ForStmt:
				list(s.Init)
				list(s.Body)
				list(s.Post)
			}
		}
	}
	for _, c := range []*programs.Control{p.Ingress, p.Egress} {
		if c != nil {
			list(c.Body)
		}
	}
	for _, a := range p.Actions {
		list(a.Body)
	}
	for _, f := range p.Functions {
		list(f.Body)
	}
	for _, t := range p.Timers {
		list(t.Body)
	}
}

// callDepth is the deepest nesting of subroutine calls.
func callDepth(p *programs.Program) int { return p.CallDepth() }
