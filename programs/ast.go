package programs

// Expr is a checked expression.
type Expr interface {
	Type() Type
	Position() Pos
}

// Op is a binary or unary operator.
type Op int

// Operators.
const (
	OpAdd Op = iota
	OpSub
	OpMul
	OpDiv
	OpMod
	OpAnd
	OpOr
	OpXor
	OpShl
	OpShr
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpLAnd
	OpLOr
	OpNeg  // unary -
	OpNot  // unary !
	OpBNot // unary ^ (bitwise complement)
)

var opNames = map[Op]string{
	OpAdd: "+", OpSub: "-", OpMul: "*", OpDiv: "/", OpMod: "%", OpAnd: "&", OpOr: "|",
	OpXor: "^", OpShl: "<<", OpShr: ">>", OpEq: "==", OpNe: "!=", OpLt: "<", OpLe: "<=",
	OpGt: ">", OpGe: ">=", OpLAnd: "&&", OpLOr: "||", OpNeg: "-", OpNot: "!", OpBNot: "^",
}

func (o Op) String() string { return opNames[o] }

// IsCompare reports whether o is a comparison.
func (o Op) IsCompare() bool { return o >= OpEq && o <= OpGe }

// ConstExpr is a literal or named constant.
type ConstExpr struct {
	Val int64
	T   Type
	Pos Pos
}

// FieldExpr reads a field.
type FieldExpr struct {
	F   *Field
	Pos Pos
}

// ParamExpr reads an action parameter.
type ParamExpr struct {
	P   *Param
	Pos Pos
}

// CellExpr reads a register cell (or one half of a pair) inside a register
// action.
type CellExpr struct {
	Reg  *Register
	Half int // 0 = whole cell, 1 = lo, 2 = hi
	Pos  Pos
}

// BinaryExpr applies a binary operator.
type BinaryExpr struct {
	Op   Op
	X, Y Expr
	T    Type
	Pos  Pos
}

// UnaryExpr applies a unary operator.
type UnaryExpr struct {
	Op  Op
	X   Expr
	T   Type
	Pos Pos
}

// SliceExpr extracts bits [Hi:Lo] of X.
type SliceExpr struct {
	X      Expr
	Hi, Lo int
	Pos    Pos
}

// CastExpr converts X to type T (truncating or extending).
type CastExpr struct {
	X   Expr
	T   Type
	Pos Pos
}

// RegisterCall executes a register action on the cell at Index and yields the
// action's output.
type RegisterCall struct {
	Action *RegisterAction
	Index  Expr
	Pos    Pos
}

// MeterCall executes a meter at Index and yields the colour (GREEN 0,
// YELLOW 1, RED 3).
type MeterCall struct {
	Meter *Meter
	Index Expr
	Pos   Pos
}

// ValidExpr tests a header's validity.
type ValidExpr struct {
	H   *Header
	Pos Pos
}

// HitExpr applies a table and yields whether it hit (control flow only).
type HitExpr struct {
	Table *Table
	Pos   Pos
}

func (e *ConstExpr) Type() Type    { return e.T }
func (e *FieldExpr) Type() Type    { return e.F.Type }
func (e *ParamExpr) Type() Type    { return e.P.Type }
func (e *BinaryExpr) Type() Type   { return e.T }
func (e *UnaryExpr) Type() Type    { return e.T }
func (e *SliceExpr) Type() Type    { return Type{Bits: e.Hi - e.Lo + 1} }
func (e *CastExpr) Type() Type     { return e.T }
func (e *RegisterCall) Type() Type { return e.Action.OutType }
func (e *MeterCall) Type() Type    { return Type{Bits: 2} }
func (e *ValidExpr) Type() Type    { return Type{Bits: 1} }
func (e *HitExpr) Type() Type      { return Type{Bits: 1} }
func (e *CellExpr) Type() Type {
	if e.Half != 0 {
		return e.Reg.HalfType()
	}
	return e.Reg.Type
}

func (e *ConstExpr) Position() Pos    { return e.Pos }
func (e *FieldExpr) Position() Pos    { return e.Pos }
func (e *ParamExpr) Position() Pos    { return e.Pos }
func (e *CellExpr) Position() Pos     { return e.Pos }
func (e *BinaryExpr) Position() Pos   { return e.Pos }
func (e *UnaryExpr) Position() Pos    { return e.Pos }
func (e *SliceExpr) Position() Pos    { return e.Pos }
func (e *CastExpr) Position() Pos     { return e.Pos }
func (e *RegisterCall) Position() Pos { return e.Pos }
func (e *MeterCall) Position() Pos    { return e.Pos }
func (e *ValidExpr) Position() Pos    { return e.Pos }
func (e *HitExpr) Position() Pos      { return e.Pos }

// Stmt is a checked statement.
type Stmt interface{ Position() Pos }

// LValue is an assignable location: a field, a register cell (inside a
// register action), or the register action's output.
type LValue struct {
	Field *Field
	Cell  *CellExpr // register cell or half
	Out   bool      // register action output
}

// Type returns the location's type.
func (l LValue) Type(ra *RegisterAction) Type {
	switch {
	case l.Field != nil:
		return l.Field.Type
	case l.Cell != nil:
		return l.Cell.Type()
	default:
		return ra.OutType
	}
}

// AssignStmt assigns an expression to a location.
type AssignStmt struct {
	Dst LValue
	Src Expr
	Pos Pos
}

// ExprStmt evaluates an expression for its side effect (a register action
// or meter whose result is unused).
type ExprStmt struct {
	X   Expr
	Pos Pos
}

// IfStmt is a conditional. In control flow it becomes a gateway on a
// pipelined chip; inside a register action it uses the SALU comparators.
type IfStmt struct {
	Cond Expr
	Then []Stmt
	Else []Stmt
	Pos  Pos
}

// ApplyStmt applies a table.
type ApplyStmt struct {
	Table *Table
	Pos   Pos
}

// SwitchCase is one arm of a switch on the action a table ran.
type SwitchCase struct {
	Actions []*Action
	Body    []Stmt
}

// SwitchStmt applies a table and branches on the action it ran.
type SwitchStmt struct {
	Table   *Table
	Cases   []SwitchCase
	Default []Stmt
	HasDef  bool
	Pos     Pos
}

// ForStmt is a bounded loop. Run-to-completion targets execute it; a
// pipelined target rejects it (a packet passes each stage once).
type ForStmt struct {
	Init []Stmt
	Cond Expr
	Post []Stmt
	Body []Stmt
	Pos  Pos
}

// CountStmt increments a counter cell.
type CountStmt struct {
	Counter *Counter
	Index   Expr
	Pos     Pos
}

// CallStmt calls a function: its body runs at the call site (a
// run-to-completion target executes a subroutine call; a pipelined target
// inlines the body).
type CallStmt struct {
	Fn  *Function
	Pos Pos
}

// WalkStmts calls fn for every statement of stmts and, recursively, of the
// blocks nested in them (if and switch arms, loop init, post and body). It
// does not descend into called functions' bodies.
func WalkStmts(stmts []Stmt, fn func(Stmt)) {
	for _, s := range stmts {
		fn(s)
		switch s := s.(type) {
		case *IfStmt:
			WalkStmts(s.Then, fn)
			WalkStmts(s.Else, fn)
		case *SwitchStmt:
			for _, c := range s.Cases {
				WalkStmts(c.Body, fn)
			}
			WalkStmts(s.Default, fn)
		case *ForStmt:
			WalkStmts(s.Init, fn)
			WalkStmts(s.Body, fn)
			WalkStmts(s.Post, fn)
		}
	}
}

// WalkExpr calls fn for e and, recursively, its operands: arguments, slice
// and cast operands, and the indices of register, meter and payload32
// reads. It does not descend into register action bodies.
func WalkExpr(e Expr, fn func(Expr)) {
	if e == nil {
		return
	}
	fn(e)
	switch x := e.(type) {
	case *BinaryExpr:
		WalkExpr(x.X, fn)
		WalkExpr(x.Y, fn)
	case *UnaryExpr:
		WalkExpr(x.X, fn)
	case *SliceExpr:
		WalkExpr(x.X, fn)
	case *CastExpr:
		WalkExpr(x.X, fn)
	case *CallExpr:
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
	case *RegisterCall:
		WalkExpr(x.Index, fn)
	case *MeterCall:
		WalkExpr(x.Index, fn)
	}
}

// WalkStmtExprs calls WalkExpr(e, fn) for every expression of stmts and of
// the blocks nested in them: assignment sources, expression statements,
// if and loop conditions, counter indices, emit and clear ranges. Like
// WalkStmts it does not descend into called functions' bodies.
func WalkStmtExprs(stmts []Stmt, fn func(Expr)) {
	WalkStmts(stmts, func(s Stmt) {
		switch s := s.(type) {
		case *AssignStmt:
			WalkExpr(s.Src, fn)
		case *ExprStmt:
			WalkExpr(s.X, fn)
		case *IfStmt:
			WalkExpr(s.Cond, fn)
		case *ForStmt:
			WalkExpr(s.Cond, fn)
		case *CountStmt:
			WalkExpr(s.Index, fn)
		case *BuiltinStmt:
			for _, a := range s.Args {
				WalkExpr(a, fn)
			}
		}
	})
}

func (s *AssignStmt) Position() Pos { return s.Pos }
func (s *ExprStmt) Position() Pos   { return s.Pos }
func (s *IfStmt) Position() Pos     { return s.Pos }
func (s *ApplyStmt) Position() Pos  { return s.Pos }
func (s *SwitchStmt) Position() Pos { return s.Pos }
func (s *ForStmt) Position() Pos    { return s.Pos }
func (s *CountStmt) Position() Pos  { return s.Pos }
func (s *CallStmt) Position() Pos   { return s.Pos }
