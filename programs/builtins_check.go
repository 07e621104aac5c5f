package programs

import (
	"errors"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// The loader's side of the table of built-ins: a call resolved to its row
// is checked against the row's Where, Args and typing rule, then built
// into its node (or into the code it stands for).

// callSite is a call of a built-in as the loader sees it.
type callSite struct {
	name   string // as written (bit8 for a cast)
	recv   string // the header or table a method is called on
	header *Header
	table  *Table
	call   *ast.CallExpr
	at     token.Pos
	pos    Pos
}

// site describes a call of name on nothing.
func (c *codeCtx) site(name string, call *ast.CallExpr) callSite {
	return callSite{name: name, call: call, at: call.Pos(), pos: c.pos(call.Pos())}
}

// headerSite describes a call of a method of header h.
func (c *codeCtx) headerSite(h *Header, method string, call *ast.CallExpr) callSite {
	s := c.site(method, call)
	s.recv, s.header = h.Name, h
	return s
}

// tableSite describes a call of a method of table t.
func (c *codeCtx) tableSite(t *Table, method string, call *ast.CallExpr) callSite {
	s := c.site(method, call)
	s.recv, s.table = t.Name, t
	return s
}

// display is the call as messages write it: drop(), T.insert().
func (s callSite) display() string {
	if s.recv == "" {
		return s.name + "()"
	}
	return s.recv + "." + s.name + "()"
}

// fill puts the call's particulars in a message of the table.
func (s callSite) fill(msg string, b *BuiltinSpec) string {
	return strings.NewReplacer("{call}", s.display(), "{name}", s.name, "{recv}", s.recv,
		"{got}", strconv.Itoa(len(s.call.Args)), "{want}", strconv.Itoa(b.Args.Min)).Replace(msg)
}

// builtinValue checks a call of a value built-in and builds its node.
func (c *codeCtx) builtinValue(b *BuiltinSpec, s callSite) (Expr, error) {
	if err := c.allowed(b, s); err != nil {
		return nil, err
	}
	if !b.Args.Late {
		if err := c.checkArity(b, s); err != nil {
			return nil, err
		}
	}
	if b.value != nil {
		return b.value(c, b, s)
	}
	args, err := c.callArgs(b, s)
	if err != nil {
		return nil, err
	}
	e := &CallExpr{Builtin: b, Args: args, Table: s.table, Pos: s.pos, eval: b.Eval}
	t, err := b.Type(e)
	if err != nil {
		return nil, c.typeErr(s, err)
	}
	e.T = t
	if b.ConstArgs {
		e.Args = nil // their values are in the type
	}
	return e, nil
}

// builtinStmt checks a call of a statement built-in and builds its code.
func (c *codeCtx) builtinStmt(b *BuiltinSpec, s callSite) ([]Stmt, error) {
	if err := c.allowed(b, s); err != nil {
		return nil, err
	}
	if !b.Args.Late {
		if err := c.checkArity(b, s); err != nil {
			return nil, err
		}
	}
	return b.stmt(c, b, s)
}

// allowed applies the row's Where to the code being checked.
func (c *codeCtx) allowed(b *BuiltinSpec, s callSite) error {
	w := b.Where
	if w.Control != "" {
		if err := c.controlOnly(w.Control, s); err != nil {
			return err
		}
	} else if w.NoRegisterAction != "" && c.kind == ctxRegisterAction {
		return c.errf(s.at, "%s", s.fill(w.NoRegisterAction, b))
	}
	if w.ExactTable {
		if why := notExact(s.table); why != "" {
			return c.errf(s.at, "%s: table %s %s; the data plane writes and scans hash-table records, which need 1..%d exact keys", s.display(), s.recv, why, maxExactKeys)
		}
	}
	if (b.tableOp == TableInsert || b.tableOp == TableRemove) && s.table != nil && s.table.Const {
		return c.errf(s.at, "%s: table %s is const (its entries are the program's, and neither the control plane nor the data plane changes them)", s.display(), s.recv)
	}
	if w.RefFlags && !s.table.Aging {
		return c.errf(s.at, "%s.%s(INDEX): table %s has no REF flags; declare it with aging: true", s.recv, s.name, s.recv)
	}
	return nil
}

// controlOnly rejects, outside control code, a built-in that does what
// (control flow).
func (c *codeCtx) controlOnly(what string, s callSite) error {
	switch c.kind {
	case ctxAction:
		return c.errf(s.at, "%s cannot be used inside an action: %s is control flow (use it in ingress, egress, a function or a timer)", s.display(), what)
	case ctxRegisterAction:
		return c.errf(s.at, "%s cannot be used inside a register action: %s is control flow (use it in ingress, egress, a function or a timer)", s.display(), what)
	case ctxKey:
		return c.errf(s.at, "%s cannot be used here", s.display())
	}
	return nil
}

// checkArity applies the row's Args to the call.
func (c *codeCtx) checkArity(b *BuiltinSpec, s callSite) error {
	if b.Args.accepts(len(s.call.Args)) {
		return nil
	}
	msg := b.Args.Msg
	if msg == "" {
		msg = "expected {want} arguments, got {got}"
	}
	return c.errf(s.at, "%s", s.fill(msg, b))
}

// callArgs checks a value built-in's arguments: expressions, or constants
// (nil for one that is not an integer constant) when the row says so.
func (c *codeCtx) callArgs(b *BuiltinSpec, s callSite) ([]Expr, error) {
	var out []Expr
	for _, a := range s.call.Args {
		if b.ConstArgs {
			out = append(out, c.constArg(a))
			continue
		}
		e, err := c.expr(a)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// constArg evaluates a constant argument, or returns nil.
func (c *codeCtx) constArg(a ast.Expr) Expr {
	v, err := c.l.consts.evalConst(a)
	if err != nil || v.isFloat {
		return nil
	}
	return &ConstExpr{Val: v.i, Pos: c.pos(a.Pos())}
}

// typeErr places a typing rule's error: at the argument it names, or at
// the call.
func (c *codeCtx) typeErr(s callSite, err error) error {
	var ae *argError
	if errors.As(err, &ae) {
		return c.errf(s.call.Args[ae.i].Pos(), "%s", ae.msg)
	}
	return c.errf(s.at, "%s", err.Error())
}

// castValue checks bitN(x), intN(x) and uintN(x): a width of 1..64 bits;
// a constant is converted at once.
func castValue(c *codeCtx, b *BuiltinSpec, s callSite) (Expr, error) {
	m := castRE.FindStringSubmatch(s.name)
	bits, _ := strconv.Atoi(m[2])
	if bits < 1 || bits > 64 {
		return nil, c.errf(s.at, "cast width must be 1..64")
	}
	if err := c.checkArity(b, s); err != nil {
		return nil, err
	}
	x, err := c.expr(s.call.Args[0])
	if err != nil {
		return nil, err
	}
	t := Type{Bits: bits, Signed: m[1] == "int"}
	if ce, ok := x.(*ConstExpr); ok {
		return &ConstExpr{Val: t.Norm(ce.Val), T: t, Pos: s.pos}, nil
	}
	return &CastExpr{X: x, T: t, Pos: s.pos}, nil
}

// validValue is hdr.isValid(): a read of the header's validity bit.
func validValue(_ *codeCtx, _ *BuiltinSpec, s callSite) (Expr, error) {
	return &ValidExpr{H: s.header, Pos: s.pos}, nil
}

// stdAssign sets intrinsic metadata field id to v.
func (c *codeCtx) stdAssign(id StdID, v int64, p Pos) *AssignStmt {
	return &AssignStmt{Dst: LValue{Field: c.l.prog.Std[id]}, Src: &ConstExpr{Val: v, Pos: p}, Pos: p}
}

// setStd is the rule of a built-in that raises an intrinsic metadata flag
// for the traffic manager (drop, recirculate).
func setStd(id StdID) func(*codeCtx, *BuiltinSpec, callSite) ([]Stmt, error) {
	return func(c *codeCtx, _ *BuiltinSpec, s callSite) ([]Stmt, error) {
		return []Stmt{c.stdAssign(id, 1, s.pos)}, nil
	}
}

// mirrorStmt is mirror(x): the packet is copied to mirror session x
// (10 bits).
func mirrorStmt(c *codeCtx, _ *BuiltinSpec, s callSite) ([]Stmt, error) {
	arg, err := c.expr(s.call.Args[0])
	if err != nil {
		return nil, err
	}
	if k, ok := arg.(*ConstExpr); ok {
		// Checked against mirror_sessions once the whole program is read.
		c.l.mirrorUses = append(c.l.mirrorUses, mirrorUse{id: k.Val, pos: s.pos})
	}
	a, err := c.makeAssign(LValue{Field: c.l.prog.Std[StdMirrorSession]}, c.fit(arg, 10), s.at)
	if err != nil {
		return nil, err
	}
	return append([]Stmt{c.stdAssign(StdMirror, 1, s.pos)}, a...), nil
}

// multicastStmt is multicast(x): the packet is replicated to multicast
// group x (16 bits).
func multicastStmt(c *codeCtx, _ *BuiltinSpec, s callSite) ([]Stmt, error) {
	arg, err := c.expr(s.call.Args[0])
	if err != nil {
		return nil, err
	}
	return c.makeAssign(LValue{Field: c.l.prog.Std[StdMcastGrp]}, c.fit(arg, 16), s.at)
}

// setValidity is the rule of h.setValid() (v 1) and h.setInvalid() (v 0):
// the deparser emits a header whose validity bit is set.
func setValidity(v int64) func(*codeCtx, *BuiltinSpec, callSite) ([]Stmt, error) {
	return func(_ *codeCtx, _ *BuiltinSpec, s callSite) ([]Stmt, error) {
		valid := &ConstExpr{Val: v, T: Type{Bits: 1}, Pos: s.pos}
		return []Stmt{&AssignStmt{Dst: LValue{Field: s.header.Valid}, Src: valid, Pos: s.pos}}, nil
	}
}

// emitStmt checks emit() (a packet of the valid headers) and
// emit(REG, START, CELLS) (with CELLS cells of register REG from START as
// its payload: whole bytes of a plain register).
func emitStmt(c *codeCtx, b *BuiltinSpec, s callSite) ([]Stmt, error) {
	if len(s.call.Args) == 0 {
		return []Stmt{&BuiltinStmt{Builtin: b, Pos: s.pos}}, nil
	}
	const form = "emit(REGISTER, START, CELLS)"
	a0 := s.call.Args[0]
	r, err := c.rangeRegister(a0, form)
	if err != nil {
		return nil, err
	}
	if r.Pair {
		return nil, c.errf(a0.Pos(), "%s: register %s is a pair register; the payload is whole cells of a plain register", form, r.Name)
	}
	if r.Type.Bits%8 != 0 {
		return nil, c.errf(a0.Pos(), "%s: register %s is %d bits wide; payload cells are whole bytes, so its width must be a multiple of 8", form, r.Name, r.Type.Bits)
	}
	return c.rangeStmt(b, s, r)
}

// bufferStmt checks store, resend and release(BUFFER, SLOT): BUFFER names
// a packet buffer, SLOT indexes it (a constant outside it is an error; a
// run-time value is taken modulo its slots, as a register index is).
func bufferStmt(c *codeCtx, b *BuiltinSpec, s callSite) ([]Stmt, error) {
	buf, err := c.bufferArg(s.call.Args[0], b.Name+"(BUFFER, SLOT)")
	if err != nil {
		return nil, err
	}
	slot, err := c.index(s.call.Args[1], buf.Slots, buf.Name)
	if err != nil {
		return nil, err
	}
	return []Stmt{&BuiltinStmt{Builtin: b, Buf: buf, Args: []Expr{slot}, Pos: s.pos}}, nil
}

// bufferValue checks held(BUFFER, SLOT) (bit<1>) and buffered(BUFFER)
// (bit<32>: the bytes the buffer holds).
func bufferValue(c *codeCtx, b *BuiltinSpec, s callSite) (Expr, error) {
	form := b.Name + "(BUFFER, SLOT)"
	if b.Args.Max == 1 {
		form = b.Name + "(BUFFER)"
	}
	buf, err := c.bufferArg(s.call.Args[0], form)
	if err != nil {
		return nil, err
	}
	e := &CallExpr{Builtin: b, Buf: buf, Pos: s.pos, eval: b.Eval}
	if len(s.call.Args) == 2 {
		slot, err := c.index(s.call.Args[1], buf.Slots, buf.Name)
		if err != nil {
			return nil, err
		}
		e.Args = []Expr{slot}
	}
	e.T, _ = b.Type(e)
	return e, nil
}

// bitsType is the typing rule of a built-in whose value is a bits-bit
// unsigned number.
func bitsType(bits int) func(*CallExpr) (Type, error) {
	return func(*CallExpr) (Type, error) { return Type{Bits: bits}, nil }
}

// bufferArg resolves the packet buffer a built-in's first argument names.
func (c *codeCtx) bufferArg(a ast.Expr, form string) (*PacketBuffer, error) {
	id, ok := a.(*ast.Ident)
	if !ok {
		return nil, c.errf(a.Pos(), "%s: the first argument must name a packet buffer", form)
	}
	b, ok := c.l.buffers[id.Name]
	if !ok {
		if k, ok := c.l.names[id.Name]; ok {
			return nil, c.errf(id.Pos(), "%s: %s %s is not a packet buffer", form, k, id.Name)
		}
		return nil, c.errf(id.Pos(), "%s: undefined packet buffer %s (declare it under packet_buffers)", form, id.Name)
	}
	return b, nil
}

// clearStmt checks clear(REG, START, CELLS), which resets CELLS cells of
// register REG from START to the register's initial value (any width;
// both halves of a pair register); a constant START outside the register
// is an error.
func clearStmt(c *codeCtx, b *BuiltinSpec, s callSite) ([]Stmt, error) {
	r, err := c.rangeRegister(s.call.Args[0], "clear(REGISTER, START, CELLS)")
	if err != nil {
		return nil, err
	}
	return c.rangeStmt(b, s, r)
}

// rangeStmt builds a statement on cells START to START+CELLS-1 of r.
func (c *codeCtx) rangeStmt(b *BuiltinSpec, s callSite, r *Register) ([]Stmt, error) {
	start, cells, err := c.cellRange(s.call, r)
	if err != nil {
		return nil, err
	}
	return []Stmt{&BuiltinStmt{Builtin: b, Reg: r, Args: []Expr{start, cells}, Pos: s.pos}}, nil
}

// rangeRegister resolves the first argument of a statement on a range of
// register cells (form is the statement's syntax, for errors).
func (c *codeCtx) rangeRegister(a ast.Expr, form string) (*Register, error) {
	id, ok := a.(*ast.Ident)
	if !ok {
		return nil, c.errf(a.Pos(), "%s: the first argument must name a register", form)
	}
	r, ok := c.l.registers[id.Name]
	if !ok {
		if k, ok := c.l.names[id.Name]; ok {
			return nil, c.errf(id.Pos(), "%s: %s %s is not a register", form, k, id.Name)
		}
		return nil, c.errf(id.Pos(), "%s: undefined register %s", form, id.Name)
	}
	return r, nil
}

// cellRange checks the START and CELLS arguments of a statement on a
// range of r's cells: a constant START must lie inside r.
func (c *codeCtx) cellRange(call *ast.CallExpr, r *Register) (start, cells Expr, err error) {
	if start, err = c.index(call.Args[1], r.Size, r.Name); err != nil {
		return nil, nil, err
	}
	if cells, err = c.expr(call.Args[2]); err != nil {
		return nil, nil, err
	}
	return start, cells, nil
}

// tableMethodOutside rejects a table method called in an action or a
// register action, which are loaded before the tables (so the receiver is
// not known as a table there).
func (c *codeCtx) tableMethodOutside(sel *ast.SelectorExpr, at token.Pos) error {
	b := lookupBuiltin(OnTable, sel.Sel.Name)
	if b == nil || b.Where.Control == "" || (c.kind != ctxAction && c.kind != ctxRegisterAction) {
		return nil
	}
	return c.controlOnly(b.Where.Control, callSite{name: sel.Sel.Name, recv: sel.X.(*ast.Ident).Name, at: at})
}

// removeStmt is T.remove().
func removeStmt(_ *codeCtx, b *BuiltinSpec, s callSite) ([]Stmt, error) {
	return []Stmt{&BuiltinStmt{Builtin: b, Table: s.table, Pos: s.pos}}, nil
}

// loadStmt checks T.load(I): the entry's key goes into the key fields, so
// each key must be a plain assignable field; a constant I must be a slot
// of the table.
func loadStmt(c *codeCtx, b *BuiltinSpec, s callSite) ([]Stmt, error) {
	t := s.table
	for _, k := range t.Keys {
		fe, ok := k.Expr.(*FieldExpr)
		if !ok || fe.F.Kind == ValidBit || (fe.F.Kind == StdField && fe.F.Std == StdTimerIndex) {
			return nil, c.errf(s.at, "%s.load(INDEX) writes the entry's key into the key fields, but key %s of table %s (line %d) is not a plain assignable field", t.Name, keyName(k), t.Name, k.Pos.Line)
		}
	}
	idx, err := c.index(s.call.Args[0], t.Size, t.Name)
	if err != nil {
		return nil, err
	}
	return []Stmt{&BuiltinStmt{Builtin: b, Table: t, Args: []Expr{idx}, Pos: s.pos}}, nil
}

// insertStmt checks T.insert(A(args)): A is one of the table's actions and
// args fit its parameters.
func insertStmt(c *codeCtx, b *BuiltinSpec, s callSite) ([]Stmt, error) {
	t := s.table
	act, args, err := c.insertAction(t, s.call.Args[0])
	if err != nil {
		return nil, err
	}
	st := &BuiltinStmt{Builtin: b, Table: t, Action: act, Pos: s.pos}
	for i, ae := range args {
		e, err := c.insertArg(t, act, i, ae)
		if err != nil {
			return nil, err
		}
		st.Args = append(st.Args, e)
	}
	return []Stmt{st}, nil
}

// insertAction resolves T.insert's argument A(args) (or A) to one of t's
// actions with as many arguments as it has parameters.
func (c *codeCtx) insertAction(t *Table, a0 ast.Expr) (*Action, []ast.Expr, error) {
	var name string
	var args []ast.Expr
	switch a := a0.(type) {
	case *ast.Ident:
		name = a.Name
	case *ast.CallExpr:
		id, ok := a.Fun.(*ast.Ident)
		if !ok {
			return nil, nil, c.errf(a.Pos(), "%s.insert(ACTION(args)): expected an action call", t.Name)
		}
		name, args = id.Name, a.Args
	default:
		return nil, nil, c.errf(a0.Pos(), "%s.insert(ACTION(args)): expected an action call", t.Name)
	}
	var act *Action
	for _, ta := range t.Actions {
		if ta.Name == name {
			act = ta
		}
	}
	if act == nil {
		return nil, nil, c.errf(a0.Pos(), "%s.insert(): action %s is not one of table %s's actions", t.Name, name, t.Name)
	}
	if len(args) != len(act.Params) {
		return nil, nil, c.errf(a0.Pos(), "%s.insert(): action %s takes %d arguments, got %d", t.Name, act.Name, len(act.Params), len(args))
	}
	return act, args, nil
}

// insertArg checks argument i of T.insert's action: a value of its
// parameter's width (a constant that fits it).
func (c *codeCtx) insertArg(t *Table, act *Action, i int, ae ast.Expr) (Expr, error) {
	e, err := c.expr(ae)
	if err != nil {
		return nil, err
	}
	pt := act.Params[i].Type
	if ce, ok := e.(*ConstExpr); ok && ce.T.Bits == 0 && !fits(ce.Val, pt) {
		return nil, c.errf(ae.Pos(), "%s.insert(): argument %d of %s: constant %d does not fit %s", t.Name, i+1, act.Name, ce.Val, pt)
	}
	if b := e.Type().Bits; b != 0 && b != pt.Bits {
		return nil, c.errf(ae.Pos(), "%s.insert(): argument %d of %s is a %s value for parameter %s (%s); cast it with bit%d(...)", t.Name, i+1, act.Name, e.Type(), act.Params[i].Name, pt, pt.Bits)
	}
	return e, nil
}
