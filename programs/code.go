package programs

import (
	"archsim/internal/yamlfile"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
	"sync"
)

type ctxKind int

const (
	ctxAction         ctxKind = iota // a table action: straight-line statements
	ctxRegisterAction                // a register action body
	ctxControl                       // ingress/egress control flow
	ctxKey                           // a table key or parser select: fields only
)

// codeCtx converts Go-syntax code from a program file into checked
// statements and expressions.
type codeCtx struct {
	l        *loader
	src      string
	lineBase int // file line of the code's first line
	what     string
	kind     ctxKind
	action   *Action
	ra       *RegisterAction
	fset     *token.FileSet

	writesCell bool
	inCond     bool // converting a control-flow if condition
	firstLine  int  // line of the parsed Go text that holds the code's first line
}

func (l *loader) code(n node, kind ctxKind) *codeCtx {
	return &codeCtx{l: l, src: n.n.Value, lineBase: n.codeLine(), kind: kind, fset: token.NewFileSet()}
}

func (l *loader) codeString(n node, src string, kind ctxKind) *codeCtx {
	return &codeCtx{l: l, src: src, lineBase: n.n.Line, kind: kind, fset: token.NewFileSet()}
}

const wrapPrefix = "package p\nfunc _() {\n"

func (c *codeCtx) pos(p token.Pos) Pos {
	line := c.fset.Position(p).Line - c.firstLine
	if line < 0 {
		line = 0
	}
	return Pos{File: c.l.file, Line: c.lineBase + line}
}

func (c *codeCtx) errf(p token.Pos, format string, args ...any) error {
	return errorf(c.pos(p), c.what, format, args...)
}

// parsedCode caches Go's parse of the code blocks and expressions loaded
// so far, by text: a program is loaded once per run (a sweep loads it for
// every point, a Tofino run twice), and go/parser was a quarter of a load.
// The conversion only reads the syntax tree and the positions of its file
// set, so runs in parallel share them. (Texts that do not parse are not
// kept: the error is made again.)
var parsedCode sync.Map // string -> parsedText

// parsedText is a parsed code text: its file set and its syntax (the
// function's body for a block, the expression for an expression).
type parsedText struct {
	fset *token.FileSet
	node ast.Node
}

// parse converts a block of statements.
func (c *codeCtx) parse() ([]Stmt, error) {
	c.firstLine = 3
	text := wrapPrefix + c.src + "\n}\n"
	if p, ok := parsedCode.Load(text); ok {
		pt := p.(parsedText)
		c.fset = pt.fset
		return c.stmts(pt.node.(*ast.BlockStmt).List)
	}
	f, err := parser.ParseFile(c.fset, "code", text, 0)
	if err != nil {
		if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
			line := c.lineBase + list[0].Pos.Line - 3
			return nil, errorf(Pos{File: c.l.file, Line: line}, c.what, "syntax error: %s", list[0].Msg)
		}
		return nil, errorf(Pos{File: c.l.file, Line: c.lineBase}, c.what, "syntax error: %v", err)
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	parsedCode.Store(text, parsedText{c.fset, body})
	return c.stmts(body.List)
}

// parseExpr converts a single expression.
func (c *codeCtx) parseExpr(src string) (Expr, error) {
	c.firstLine = 1
	key := "expr\x00" + src // not a block's text, which starts with wrapPrefix
	if p, ok := parsedCode.Load(key); ok {
		pt := p.(parsedText)
		c.fset = pt.fset
		return c.expr(pt.node.(ast.Expr))
	}
	c.fset = token.NewFileSet()
	e, err := parser.ParseExprFrom(c.fset, "code", src, 0)
	if err != nil {
		return nil, errorf(Pos{File: c.l.file, Line: c.lineBase}, c.what, "cannot parse %q", src)
	}
	parsedCode.Store(key, parsedText{c.fset, e})
	return c.expr(e)
}

func (c *codeCtx) stmts(list []ast.Stmt) ([]Stmt, error) {
	var out []Stmt
	for _, s := range list {
		ss, err := c.stmt(s)
		if err != nil {
			return nil, err
		}
		out = append(out, ss...)
	}
	return out, nil
}

var assignOps = map[token.Token]Op{
	token.ADD_ASSIGN: OpAdd, token.SUB_ASSIGN: OpSub, token.AND_ASSIGN: OpAnd, token.OR_ASSIGN: OpOr,
	token.XOR_ASSIGN: OpXor, token.SHL_ASSIGN: OpShl, token.SHR_ASSIGN: OpShr, token.MUL_ASSIGN: OpMul,
}

func (c *codeCtx) stmt(s ast.Stmt) ([]Stmt, error) {
	switch s := s.(type) {
	case *ast.EmptyStmt:
		return nil, nil
	case *ast.BlockStmt:
		return c.stmts(s.List)
	case *ast.AssignStmt:
		return c.assign(s)
	case *ast.IncDecStmt:
		op := OpAdd
		if s.Tok == token.DEC {
			op = OpSub
		}
		return c.assignOp(s.X, op, &ast.BasicLit{Kind: token.INT, Value: "1", ValuePos: s.TokPos}, s.Pos())
	case *ast.ExprStmt:
		return c.exprStmt(s)
	case *ast.IfStmt:
		return c.ifStmt(s)
	case *ast.SwitchStmt:
		return c.switchStmt(s)
	case *ast.ForStmt:
		return c.forStmt(s)
	}
	return nil, c.errf(s.Pos(), "this kind of statement is not supported (%T)", s)
}

func (c *codeCtx) assign(s *ast.AssignStmt) ([]Stmt, error) {
	if len(s.Lhs) != 1 || len(s.Rhs) != 1 {
		return nil, c.errf(s.Pos(), "assign one value per statement")
	}
	if s.Tok == token.DEFINE {
		return nil, c.errf(s.Pos(), "there are no local variables (:=); declare a metadata field and assign it with =")
	}
	if op, ok := assignOps[s.Tok]; ok {
		return c.assignOp(s.Lhs[0], op, s.Rhs[0], s.Pos())
	}
	if s.Tok != token.ASSIGN {
		return nil, c.errf(s.Pos(), "operator %s is not supported", s.Tok)
	}
	dst, err := c.lvalue(s.Lhs[0])
	if err != nil {
		return nil, err
	}
	src, err := c.expr(s.Rhs[0])
	if err != nil {
		return nil, err
	}
	return c.makeAssign(dst, src, s.Pos())
}

func (c *codeCtx) assignOp(lhs ast.Expr, op Op, rhs ast.Expr, p token.Pos) ([]Stmt, error) {
	dst, err := c.lvalue(lhs)
	if err != nil {
		return nil, err
	}
	cur, err := c.expr(lhs)
	if err != nil {
		return nil, err
	}
	y, err := c.expr(rhs)
	if err != nil {
		return nil, err
	}
	src, err := c.binary(op, cur, y, p)
	if err != nil {
		return nil, err
	}
	return c.makeAssign(dst, src, p)
}

func (c *codeCtx) makeAssign(dst LValue, src Expr, p token.Pos) ([]Stmt, error) {
	dt := dst.Type(c.ra)
	st := src.Type()
	if st.Bits == 0 {
		ce, ok := src.(*ConstExpr)
		if ok && !fits(ce.Val, dt) {
			return nil, c.errf(p, "constant %d does not fit %s (%s)", ce.Val, c.lvalueName(dst), dt)
		}
		if ok && ce.Val < 0 && !dt.Signed && dt.Bits < 64 {
			return nil, c.errf(p, "%s is unsigned (%s): the negative constant %d would be stored as %d; give a value ≥ 0 (a negative --param?) or write %#x",
				c.lvalueName(dst), dt, ce.Val, dt.Norm(ce.Val), dt.Norm(ce.Val))
		}
	} else if st.Bits != dt.Bits {
		if rc, ok := src.(*RegisterCall); ok {
			return nil, c.errf(p, "register %s holds %d-bit values but %s is %d bits: a register is accessed with its own width (cast with bit%d(...) if you mean it)",
				rc.Action.Register.Name, st.Bits, c.lvalueName(dst), dt.Bits, dt.Bits)
		}
		return nil, c.errf(p, "cannot assign a %s value to %s (%s): widths differ; cast with bit%d(...) or int%d(...)",
			st, c.lvalueName(dst), dt, dt.Bits, dt.Bits)
	}
	if dst.Cell != nil {
		c.writesCell = true
	}
	return []Stmt{&AssignStmt{Dst: dst, Src: src, Pos: c.pos(p)}}, nil
}

func (c *codeCtx) lvalueName(l LValue) string {
	switch {
	case l.Field != nil:
		return l.Field.Name
	case l.Cell != nil:
		return [...]string{"value", "lo", "hi"}[l.Cell.Half]
	}
	return "out"
}

func (c *codeCtx) lvalue(e ast.Expr) (LValue, error) {
	switch x := e.(type) {
	case *ast.Ident:
		if c.kind == ctxRegisterAction {
			switch x.Name {
			case "out":
				return LValue{Out: true}, nil
			case "value", "lo", "hi":
				ce, err := c.cell(x)
				if err != nil {
					return LValue{}, err
				}
				return LValue{Cell: ce}, nil
			}
		}
		if c.action != nil {
			for _, p := range c.action.Params {
				if p.Name == x.Name {
					return LValue{}, c.errf(x.Pos(), "action parameter %s is read-only", x.Name)
				}
			}
		}
		return LValue{}, c.errf(x.Pos(), "cannot assign to %s: only fields (hdr.f, meta.f, std.f) are assignable", x.Name)
	case *ast.SelectorExpr:
		f, err := c.field(x)
		if err != nil {
			return LValue{}, err
		}
		if f.Kind == ValidBit {
			return LValue{}, c.errf(x.Pos(), "use %s.setValid() / setInvalid()", f.Header.Name)
		}
		if f.Kind == StdField && f.Std == StdTimerIndex {
			return LValue{}, c.errf(x.Pos(), "std.timer_index is read-only (the timer sets it for each of its threads)")
		}
		if f.Kind == StdField && f.Std == StdMirrorCopy {
			return LValue{}, c.errf(x.Pos(), "std.mirror_copy is read-only (the traffic manager sets it on mirror copies)")
		}
		return LValue{Field: f}, nil
	}
	if _, ok := e.(*ast.SliceExpr); ok {
		return LValue{}, c.errf(e.Pos(), "cannot assign to a slice of a field (slices are read-only; assign the whole field)")
	}
	return LValue{}, c.errf(e.Pos(), "cannot assign to this expression: only fields (hdr.f, meta.f, std.f) are assignable")
}

func (c *codeCtx) cell(x *ast.Ident) (*CellExpr, error) {
	r := c.ra.Register
	switch x.Name {
	case "value":
		if r.Pair {
			return nil, c.errf(x.Pos(), "register %s is a pair: use lo and hi", r.Name)
		}
		return &CellExpr{Reg: r, Pos: c.pos(x.Pos())}, nil
	case "lo", "hi":
		if !r.Pair {
			return nil, c.errf(x.Pos(), "register %s is not a pair: use value", r.Name)
		}
		h := 1
		if x.Name == "hi" {
			h = 2
		}
		return &CellExpr{Reg: r, Half: h, Pos: c.pos(x.Pos())}, nil
	}
	return nil, c.errf(x.Pos(), "unknown cell %s", x.Name)
}

// field resolves hdr.f, meta.f and std.f.
func (c *codeCtx) field(x *ast.SelectorExpr) (*Field, error) {
	id, ok := x.X.(*ast.Ident)
	if !ok {
		return nil, c.errf(x.Pos(), "expected a field name like hdr.field")
	}
	name := x.Sel.Name
	switch id.Name {
	case "meta":
		if f, ok := c.l.meta[name]; ok {
			return f, nil
		}
		return nil, c.errf(x.Pos(), "undefined field meta.%s (declare it under metadata)", name)
	case "std":
		if f, ok := c.l.std[name]; ok {
			return f, nil
		}
		return nil, c.errf(x.Pos(), "undefined standard metadata std.%s", name)
	}
	h, ok := c.l.headers[id.Name]
	if !ok {
		return nil, c.errf(x.Pos(), "undefined name %s.%s (not a header, meta or std)", id.Name, name)
	}
	for _, f := range h.Fields {
		if f.Short == name {
			return f, nil
		}
	}
	return nil, c.errf(x.Pos(), "header %s has no field %s", h.Name, name)
}

func (c *codeCtx) exprStmt(s *ast.ExprStmt) ([]Stmt, error) {
	call, ok := s.X.(*ast.CallExpr)
	if !ok {
		return nil, c.errf(s.Pos(), "an expression alone is not a statement")
	}
	if id, ok := call.Fun.(*ast.Ident); ok {
		return c.nameStmt(id.Name, call)
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, c.errf(s.Pos(), "unknown call")
	}
	obj, ok := sel.X.(*ast.Ident)
	if !ok {
		return nil, c.errf(s.Pos(), "unknown call")
	}
	return c.methodStmt(obj.Name, sel, call)
}

// nameStmt checks a statement name(args): a built-in statement, a call of
// a function, or (in control flow) an action called directly.
func (c *codeCtx) nameStmt(name string, call *ast.CallExpr) ([]Stmt, error) {
	at, p := call.Pos(), c.pos(call.Pos())
	if b := lookupBuiltin(OnNothing, name); b != nil && !b.Value {
		return c.builtinStmt(b, c.site(name, call))
	}
	if fn, ok := c.l.functions[name]; ok {
		switch c.kind {
		case ctxAction:
			return nil, c.errf(at, "function %s cannot be called inside an action: functions are control flow (call it from ingress, egress or another function)", name)
		case ctxRegisterAction:
			return nil, c.errf(at, "function %s cannot be called inside a register action: functions are control flow (call it from ingress, egress or another function)", name)
		}
		if len(call.Args) != 0 {
			return nil, c.errf(at, "function %s takes no arguments (functions communicate through fields)", name)
		}
		return []Stmt{&CallStmt{Fn: fn, Pos: p}}, nil
	}
	if tm, ok := c.l.timers[name]; ok {
		return nil, c.errf(at, "%s is a timer, not a function: its threads start every period_ns and cannot be called (put shared code in a function and call that)", tm.Name)
	}
	if c.kind == ctxRegisterAction {
		return nil, c.errf(at, "%s() is not available inside a register action", name)
	}
	if a, ok := c.l.actions[name]; ok && c.kind == ctxControl {
		return c.actionCall(a, call)
	}
	if c.kind == ctxControl {
		if isBuiltinFunc(name) {
			return nil, c.errf(at, "%s(...) computes a value; assign it to a field", name)
		}
		return nil, c.errf(at, "unknown function %s (not declared under functions or actions, nor a built-in statement)", name)
	}
	return nil, c.errf(at, "unknown statement %s(...)", name)
}

// actionCall inlines an action called directly from control flow.
func (c *codeCtx) actionCall(a *Action, call *ast.CallExpr) ([]Stmt, error) {
	if len(call.Args) != len(a.Params) {
		return nil, c.errf(call.Pos(), "action %s takes %d arguments, got %d", a.Name, len(a.Params), len(call.Args))
	}
	var args []Expr
	for i, ae := range call.Args {
		e, err := c.expr(ae)
		if err != nil {
			return nil, err
		}
		// An argument binds its parameter as an assignment would: a
		// constant must fit, a field must have the parameter's width.
		pt, st := a.Params[i].Type, e.Type()
		if ce, ok := e.(*ConstExpr); ok && st.Bits == 0 {
			if !fits(ce.Val, pt) || (ce.Val < 0 && !pt.Signed && pt.Bits < 64) {
				return nil, c.errf(ae.Pos(), "argument %d of %s: constant %d does not fit %s (%s)", i+1, a.Name, ce.Val, a.Params[i].Name, pt)
			}
		} else if st.Bits != 0 && st.Bits != pt.Bits {
			return nil, c.errf(ae.Pos(), "argument %d of %s: a %s value for %s (%s): widths differ; cast with bit%d(...) or int%d(...)",
				i+1, a.Name, st, a.Params[i].Name, pt, pt.Bits, pt.Bits)
		}
		args = append(args, e)
	}
	return inlineAction(a, args), nil
}

// methodStmt checks a statement obj.method(args): a header's or table's
// built-in method, a table apply, a counter, or a register action or
// meter whose result is unused.
func (c *codeCtx) methodStmt(obj string, sel *ast.SelectorExpr, call *ast.CallExpr) ([]Stmt, error) {
	at, p := call.Pos(), c.pos(call.Pos())
	method := sel.Sel.Name
	if h, ok := c.l.headers[obj]; ok {
		return c.headerStmt(h, method, call)
	}
	if t, ok := c.l.tables[obj]; ok {
		return c.tableStmt(t, method, call)
	}
	if err := c.tableMethodOutside(sel, at); err != nil {
		return nil, err
	}
	if cn, ok := c.l.counters[obj]; ok {
		if method != "count" || len(call.Args) != 1 {
			return nil, c.errf(at, "counters have one method: %s.count(index)", cn.Name)
		}
		idx, err := c.index(call.Args[0], cn.Size, cn.Name)
		if err != nil {
			return nil, err
		}
		return []Stmt{&CountStmt{Counter: cn, Index: idx, Pos: p}}, nil
	}
	e, err := c.expr(call)
	if err != nil {
		return nil, err
	}
	switch e.(type) {
	case *RegisterCall, *MeterCall:
		return []Stmt{&ExprStmt{X: e, Pos: p}}, nil
	}
	return nil, c.errf(at, "the result of this call is unused")
}

// headerStmt checks h.method(args): a header's built-in statement.
func (c *codeCtx) headerStmt(h *Header, method string, call *ast.CallExpr) ([]Stmt, error) {
	b := lookupBuiltin(OnHeader, method)
	if b != nil && !b.Value {
		return c.builtinStmt(b, c.headerSite(h, method, call))
	}
	if c.kind == ctxRegisterAction {
		return nil, c.errf(call.Pos(), headersInRegisterAction)
	}
	return nil, c.errf(call.Pos(), "header %s has no method %s (use %s)", h.Name, method, methodNames(OnHeader))
}

// methodNames lists the built-in methods called on on, in table order.
func methodNames(on Receiver) string {
	var names []string
	for _, b := range builtins {
		if b.On == on {
			names = append(names, b.Name)
		}
	}
	return strings.Join(names, ", ")
}

// tableStmt checks t.method(args): a table's built-in statement, or
// t.apply().
func (c *codeCtx) tableStmt(t *Table, method string, call *ast.CallExpr) ([]Stmt, error) {
	at := call.Pos()
	if b := lookupBuiltin(OnTable, method); b != nil {
		s := c.tableSite(t, method, call)
		if b.Value {
			return nil, c.errf(at, "%s", s.fill(b.NotAStatement, b))
		}
		return c.builtinStmt(b, s)
	}
	if method != "apply" || len(call.Args) != 0 {
		return nil, c.errf(at, "tables have the methods %s.apply(), and on exact tables insert(ACTION(args)), remove(), load(INDEX) and aged(INDEX)", t.Name)
	}
	if c.kind != ctxControl {
		return nil, c.errf(at, "tables are applied only from ingress/egress control flow")
	}
	return []Stmt{&ApplyStmt{Table: t, Pos: c.pos(at)}}, nil
}

// keyName is a key's source text for messages: its field, or a slice of it.
func keyName(k *Key) string {
	if s, ok := k.Expr.(*SliceExpr); ok {
		return fmt.Sprintf("%s[%d:%d]", k.Field.Name, s.Hi, s.Lo)
	}
	return k.Field.Name
}

// fit casts e to bits if it is wider (for extern arguments).
func (c *codeCtx) fit(e Expr, bits int) Expr {
	if e.Type().Bits == 0 || e.Type().Bits == bits {
		return e
	}
	return &CastExpr{X: e, T: Type{Bits: bits}, Pos: e.Position()}
}

func (c *codeCtx) ifStmt(s *ast.IfStmt) ([]Stmt, error) {
	if c.kind == ctxAction {
		return nil, c.errf(s.Pos(), "actions are straight-line code: put the if in control flow, or inside a register action")
	}
	if s.Init != nil {
		return nil, c.errf(s.Pos(), "if with an init statement is not supported")
	}
	c.inCond = c.kind == ctxControl
	cond, err := c.expr(s.Cond)
	c.inCond = false
	if err != nil {
		return nil, err
	}
	then, err := c.stmts(s.Body.List)
	if err != nil {
		return nil, err
	}
	var els []Stmt
	if s.Else != nil {
		if els, err = c.stmt(s.Else); err != nil {
			return nil, err
		}
	}
	return []Stmt{&IfStmt{Cond: cond, Then: then, Else: els, Pos: c.pos(s.Pos())}}, nil
}

func (c *codeCtx) switchStmt(s *ast.SwitchStmt) ([]Stmt, error) {
	if c.kind != ctxControl {
		return nil, c.errf(s.Pos(), "switch is only allowed in control flow (switch tbl.apply().action { ... })")
	}
	t, err := c.applyResult(s.Tag, "action")
	if err != nil {
		return nil, err
	}
	sw := &SwitchStmt{Table: t, Pos: c.pos(s.Pos())}
	seen := map[*Action]bool{}
	for _, cl := range s.Body.List {
		cc := cl.(*ast.CaseClause)
		body, err := c.stmts(cc.Body)
		if err != nil {
			return nil, err
		}
		if cc.List == nil {
			sw.Default, sw.HasDef = body, true
			continue
		}
		var acts []*Action
		for _, ce := range cc.List {
			id, ok := ce.(*ast.Ident)
			if !ok {
				return nil, c.errf(ce.Pos(), "case labels are action names")
			}
			var a *Action
			for _, ta := range t.Actions {
				if ta.Name == id.Name {
					a = ta
				}
			}
			if a == nil {
				return nil, c.errf(ce.Pos(), "action %s is not an action of table %s", id.Name, t.Name)
			}
			if seen[a] {
				return nil, c.errf(ce.Pos(), "action %s appears in two cases", id.Name)
			}
			seen[a] = true
			acts = append(acts, a)
		}
		sw.Cases = append(sw.Cases, SwitchCase{Actions: acts, Body: body})
	}
	return []Stmt{sw}, nil
}

// applyResult matches tbl.apply().<sel> and returns the table.
func (c *codeCtx) applyResult(e ast.Expr, sel string) (*Table, error) {
	se, ok := e.(*ast.SelectorExpr)
	if ok && se.Sel.Name == sel {
		if call, ok := se.X.(*ast.CallExpr); ok {
			if fs, ok := call.Fun.(*ast.SelectorExpr); ok && fs.Sel.Name == "apply" {
				if id, ok := fs.X.(*ast.Ident); ok {
					if t, ok := c.l.tables[id.Name]; ok {
						return t, nil
					}
					return nil, c.errf(e.Pos(), "undefined table %s", id.Name)
				}
			}
		}
	}
	return nil, c.errf(e.Pos(), "expected tbl.apply().%s", sel)
}

func (c *codeCtx) forStmt(s *ast.ForStmt) ([]Stmt, error) {
	if c.kind != ctxControl {
		return nil, c.errf(s.Pos(), "loops are only allowed in control flow")
	}
	f := &ForStmt{Pos: c.pos(s.Pos())}
	var err error
	if s.Init != nil {
		if f.Init, err = c.stmt(s.Init); err != nil {
			return nil, err
		}
	}
	if s.Cond == nil {
		return nil, c.errf(s.Pos(), "a loop needs a condition (loops must be bounded)")
	}
	if f.Cond, err = c.expr(s.Cond); err != nil {
		return nil, err
	}
	if s.Post != nil {
		if f.Post, err = c.stmt(s.Post); err != nil {
			return nil, err
		}
	}
	if f.Body, err = c.stmts(s.Body.List); err != nil {
		return nil, err
	}
	return []Stmt{f}, nil
}

func (c *codeCtx) expr(e ast.Expr) (Expr, error) {
	p := c.pos(e.Pos())
	switch x := e.(type) {
	case *ast.ParenExpr:
		return c.expr(x.X)
	case *ast.BasicLit:
		if x.Kind != token.INT {
			return nil, c.errf(x.Pos(), "only integer literals are allowed in code, got %s", x.Value)
		}
		if yamlfile.LeadingZero(x.Value) {
			return nil, c.errf(x.Pos(), "%s", octalLiteral(x.Value))
		}
		v, ok := parseIntLiteral(x.Value)
		if !ok {
			return nil, c.errf(x.Pos(), "integer %s does not fit 64 bits", x.Value)
		}
		return &ConstExpr{Val: v, Pos: p}, nil
	case *ast.Ident:
		return c.ident(x)
	case *ast.SelectorExpr:
		if c.inCond {
			if t, err := c.applyResult(x, "hit"); err == nil {
				return &HitExpr{Table: t, Pos: p}, nil
			}
			if t, err := c.applyResult(x, "miss"); err == nil {
				return &UnaryExpr{Op: OpNot, X: &HitExpr{Table: t, Pos: p}, T: Type{Bits: 1}, Pos: p}, nil
			}
		}
		f, err := c.field(x)
		if err != nil {
			return nil, err
		}
		return &FieldExpr{F: f, Pos: p}, nil
	case *ast.IndexExpr:
		return c.slice(x.X, x.Index, x.Index, x.Pos())
	case *ast.SliceExpr:
		if x.Low == nil || x.High == nil || x.Slice3 {
			return nil, c.errf(x.Pos(), "a bit slice is written x[hi:lo]")
		}
		return c.slice(x.X, x.Low, x.High, x.Pos())
	case *ast.UnaryExpr:
		return c.unary(x)
	case *ast.BinaryExpr:
		if c.inCond && (x.Op == token.LAND || x.Op == token.LOR) {
			// hit/miss may appear under && and ||
		} else if c.inCond {
			saved := c.inCond
			c.inCond = false
			defer func() { c.inCond = saved }()
		}
		op, ok := binOps[x.Op]
		if !ok {
			return nil, c.errf(x.Pos(), "operator %s is not supported", x.Op)
		}
		a, err := c.expr(x.X)
		if err != nil {
			return nil, err
		}
		b, err := c.expr(x.Y)
		if err != nil {
			return nil, err
		}
		return c.binary(op, a, b, x.Pos())
	case *ast.CallExpr:
		return c.call(x)
	}
	return nil, c.errf(e.Pos(), "unsupported expression")
}

var binOps = map[token.Token]Op{
	token.ADD: OpAdd, token.SUB: OpSub, token.MUL: OpMul, token.QUO: OpDiv, token.REM: OpMod,
	token.AND: OpAnd, token.OR: OpOr, token.XOR: OpXor, token.SHL: OpShl, token.SHR: OpShr,
	token.EQL: OpEq, token.NEQ: OpNe, token.LSS: OpLt, token.LEQ: OpLe, token.GTR: OpGt,
	token.GEQ: OpGe, token.LAND: OpLAnd, token.LOR: OpLOr,
}

func (c *codeCtx) ident(x *ast.Ident) (Expr, error) {
	p := c.pos(x.Pos())
	if c.kind == ctxRegisterAction {
		switch x.Name {
		case "value", "lo", "hi":
			return c.cell(x)
		case "out":
			return nil, c.errf(x.Pos(), "out is write-only")
		}
	}
	if c.action != nil {
		for _, prm := range c.action.Params {
			if prm.Name == x.Name {
				return &ParamExpr{P: prm, Pos: p}, nil
			}
		}
	}
	if v, ok := c.l.consts.lookup(x.Name); ok {
		if v.isFloat {
			return nil, c.errf(x.Pos(), "constant %s is not an integer (%g)", x.Name, v.f)
		}
		t := Type{}
		if x.Name == "true" || x.Name == "false" {
			t = Type{Bits: 1}
		}
		return &ConstExpr{Val: v.i, T: t, Pos: p}, nil
	}
	if k, ok := c.l.names[x.Name]; ok {
		return nil, c.errf(x.Pos(), "%s %s cannot be used as a value", k, x.Name)
	}
	return nil, c.errf(x.Pos(), "undefined name %s", x.Name)
}

func (c *codeCtx) slice(xe, hiE, loE ast.Expr, at token.Pos) (Expr, error) {
	x, err := c.expr(xe)
	if err != nil {
		return nil, err
	}
	hi, err1 := c.l.consts.evalConst(hiE)
	lo, err2 := c.l.consts.evalConst(loE)
	if err1 != nil || err2 != nil || hi.isFloat || lo.isFloat {
		return nil, c.errf(at, "slice bounds must be constants")
	}
	w := x.Type().Bits
	if w == 0 {
		return nil, c.errf(at, "cannot slice an untyped constant")
	}
	if hi.i < lo.i && lo.i >= 0 && lo.i < int64(w) {
		return nil, c.errf(at, "slice [%d:%d] is reversed: write [hi:lo], high bit first ([%d:%d])", hi.i, lo.i, lo.i, hi.i)
	}
	if lo.i < 0 || hi.i < lo.i || hi.i >= int64(w) {
		return nil, c.errf(at, "slice [%d:%d] is outside the %d bits of the value", hi.i, lo.i, w)
	}
	return &SliceExpr{X: x, Hi: int(hi.i), Lo: int(lo.i), Pos: c.pos(at)}, nil
}

func (c *codeCtx) unary(x *ast.UnaryExpr) (Expr, error) {
	a, err := c.expr(x.X)
	if err != nil {
		return nil, err
	}
	p := c.pos(x.Pos())
	var op Op
	switch x.Op {
	case token.ADD:
		return a, nil
	case token.SUB:
		op = OpNeg
	case token.NOT:
		op = OpNot
	case token.XOR:
		op = OpBNot
	default:
		return nil, c.errf(x.Pos(), "operator %s is not supported", x.Op)
	}
	if ce, ok := a.(*ConstExpr); ok && ce.T.Bits == 0 {
		return &ConstExpr{Val: evalUnary(op, ce.Val, Type{}), Pos: p}, nil
	}
	t := a.Type()
	if op == OpNot {
		t = Type{Bits: 1}
	}
	return &UnaryExpr{Op: op, X: a, T: t, Pos: p}, nil
}

func (c *codeCtx) binary(op Op, a, b Expr, at token.Pos) (Expr, error) {
	p := c.pos(at)
	ta, tb := a.Type(), b.Type()
	if ca, ok := a.(*ConstExpr); ok && ta.Bits == 0 {
		if cb, ok := b.(*ConstExpr); ok && tb.Bits == 0 {
			if (op == OpDiv || op == OpMod) && cb.Val == 0 {
				return nil, c.errf(at, "division by zero")
			}
			return &ConstExpr{Val: evalBinary(op, ca.Val, cb.Val, Type{}), Pos: p}, nil
		}
	}
	if cb, ok := b.(*ConstExpr); ok && tb.Bits == 0 {
		switch {
		case (op == OpDiv || op == OpMod) && cb.Val == 0:
			return nil, c.errf(at, "division by zero (the divisor is the constant 0)")
		case (op == OpShl || op == OpShr) && (cb.Val < 0 || cb.Val > 63):
			return nil, c.errf(at, "shift count %d: must be 0..63", cb.Val)
		}
	}
	switch op {
	case OpLAnd, OpLOr:
		return &BinaryExpr{Op: op, X: a, Y: b, T: Type{Bits: 1}, Pos: p}, nil
	case OpShl, OpShr:
		if ta.Bits == 0 {
			return nil, c.errf(at, "cannot shift an untyped constant; cast it (bit32(...))")
		}
		return &BinaryExpr{Op: op, X: a, Y: b, T: ta, Pos: p}, nil
	}
	t, err := operandType(op, a, b)
	if err != nil {
		return nil, c.errf(at, "%s", err)
	}
	if op.IsCompare() {
		if err := negativeVsUnsigned(op, a, b); err != nil {
			return nil, c.errf(at, "%s", err)
		}
		return &BinaryExpr{Op: op, X: a, Y: b, T: Type{Bits: 1}, Pos: p}, nil
	}
	return &BinaryExpr{Op: op, X: a, Y: b, T: t, Pos: p}, nil
}

// negativeVsUnsigned refuses a comparison of an unsigned field with a
// negative constant (often a --param): the field is never negative, so the
// comparison is constant, surely not what was meant.
func negativeVsUnsigned(op Op, a, b Expr) error {
	for _, side := range []struct{ k, other Expr }{{a, b}, {b, a}} {
		ce, ok := side.k.(*ConstExpr)
		if !ok || ce.T.Bits != 0 || ce.Val >= 0 {
			continue
		}
		if t := side.other.Type(); t.Bits != 0 && !t.Signed && t.Bits < 64 {
			// (A 64-bit unsigned field takes the constant as its bit
			// pattern: -1 is 0xffffffffffffffff.)
			return fmt.Errorf("%s is unsigned (%s) and compared (%s) with the negative constant %d: the comparison never depends on the field (a negative --param?)",
				exprName(side.other), t, op, ce.Val)
		}
	}
	return nil
}

// exprName names an operand in messages: a field by name, else its type.
func exprName(e Expr) string {
	switch x := e.(type) {
	case *FieldExpr:
		return x.F.Name
	case *SliceExpr:
		return fmt.Sprintf("%s[%d:%d]", exprName(x.X), x.Hi, x.Lo)
	}
	return "the operand"
}

// operandType is the type of an arithmetic, bitwise or comparison operand
// pair: one width (an untyped constant takes the other side's and must
// fit it), signed if either side is.
func operandType(op Op, a, b Expr) (Type, error) {
	ta, tb := a.Type(), b.Type()
	if ta.Bits != 0 && tb.Bits != 0 && ta.Bits != tb.Bits {
		return Type{}, fmt.Errorf("operands of %s have different widths (%s and %s); cast one of them", op, ta, tb)
	}
	if ta.Bits != 0 && tb.Bits != 0 && ta.Signed != tb.Signed {
		// As in P4: 200 as bit<8> against 3 as int<8> has no one reading
		// (66 or -18 for /); the cast says which.
		return Type{}, fmt.Errorf("operands of %s mix signed and unsigned (%s and %s); cast one of them", op, ta, tb)
	}
	for _, side := range []struct {
		e Expr
		t Type
	}{{a, tb}, {b, ta}} {
		if ce, ok := side.e.(*ConstExpr); ok && ce.T.Bits == 0 && side.t.Bits != 0 && !fits(ce.Val, side.t) {
			return Type{}, fmt.Errorf("constant %d does not fit %s", ce.Val, side.t)
		}
	}
	t := ta
	if t.Bits == 0 {
		t = tb
	}
	t.Signed = ta.Signed || tb.Signed
	return t, nil
}

func (c *codeCtx) call(x *ast.CallExpr) (Expr, error) {
	switch fn := x.Fun.(type) {
	case *ast.Ident:
		return c.nameCall(fn.Name, x)
	case *ast.SelectorExpr:
		obj, ok := fn.X.(*ast.Ident)
		if !ok {
			return nil, c.errf(x.Pos(), "unknown call")
		}
		return c.methodCall(obj.Name, fn, x)
	}
	return nil, c.errf(x.Pos(), "unknown call")
}

// nameCall checks a value name(args): a built-in function.
func (c *codeCtx) nameCall(name string, x *ast.CallExpr) (Expr, error) {
	if b := lookupBuiltin(OnNothing, name); b != nil {
		if !b.Value {
			return nil, c.errf(x.Pos(), "%s() is a statement, not a value", name)
		}
		return c.builtinValue(b, c.site(name, x))
	}
	if _, ok := c.l.functions[name]; ok {
		return nil, c.errf(x.Pos(), "function %s returns no value: call it as a statement, %s() (functions communicate through fields)", name, name)
	}
	if tm, ok := c.l.timers[name]; ok {
		return nil, c.errf(x.Pos(), "%s is a timer, not a function: its threads start every period_ns and cannot be called (put shared code in a function and call that)", tm.Name)
	}
	return nil, c.errf(x.Pos(), "unknown function %s", name)
}

// methodCall checks a value obj.method(args): a header's or table's
// built-in method, a register action or a meter.
func (c *codeCtx) methodCall(obj string, fn *ast.SelectorExpr, x *ast.CallExpr) (Expr, error) {
	p, method := c.pos(x.Pos()), fn.Sel.Name
	if h, ok := c.l.headers[obj]; ok {
		if b := lookupBuiltin(OnHeader, method); b != nil && b.Value && b.Args.accepts(len(x.Args)) {
			return c.builtinValue(b, c.headerSite(h, method, x))
		}
		return nil, c.errf(x.Pos(), "%s.%s() is not a value (headers have isValid())", h.Name, method)
	}
	if r, ok := c.l.registers[obj]; ok {
		return c.registerCall(r, method, x, p)
	}
	if m, ok := c.l.meters[obj]; ok {
		if c.kind == ctxRegisterAction {
			return nil, c.errf(x.Pos(), "meters cannot be used inside a register action")
		}
		if method != "execute" || len(x.Args) != 1 {
			return nil, c.errf(x.Pos(), "meters have one method: %s.execute(index)", m.Name)
		}
		idx, err := c.index(x.Args[0], m.Size, m.Name)
		if err != nil {
			return nil, err
		}
		return &MeterCall{Meter: m, Index: idx, Pos: p}, nil
	}
	if t, ok := c.l.tables[obj]; ok {
		return c.tableCall(t, method, x)
	}
	if err := c.tableMethodOutside(fn, x.Pos()); err != nil {
		return nil, err
	}
	if k, ok := c.l.names[obj]; ok {
		return nil, c.errf(x.Pos(), "%s %s has no method %s", k, obj, method)
	}
	if c.kind == ctxRegisterAction {
		return nil, c.errf(x.Pos(), "undefined name %s (a register action reaches its register's cells, out, constants and fields: no tables, counters, meters or other registers)", obj)
	}
	return nil, c.errf(x.Pos(), "undefined name %s", obj)
}

// registerCall checks r.action(index): a register action on one cell.
func (c *codeCtx) registerCall(r *Register, method string, x *ast.CallExpr, p Pos) (Expr, error) {
	if c.kind == ctxRegisterAction {
		return nil, c.errf(x.Pos(), "a register action cannot call another register action")
	}
	var ra *RegisterAction
	for _, a := range r.Actions {
		if a.Name == method {
			ra = a
		}
	}
	if ra == nil {
		return nil, c.errf(x.Pos(), "register %s has no register action %s", r.Name, method)
	}
	if len(x.Args) != 1 {
		return nil, c.errf(x.Pos(), "%s.%s(index) takes the cell index", r.Name, ra.Name)
	}
	idx, err := c.index(x.Args[0], r.Size, r.Name)
	if err != nil {
		return nil, err
	}
	return &RegisterCall{Action: ra, Index: idx, Pos: p}, nil
}

// tableCall checks a value t.method(args): a table's built-in value
// method (t.apply() is a statement).
func (c *codeCtx) tableCall(t *Table, method string, x *ast.CallExpr) (Expr, error) {
	if b := lookupBuiltin(OnTable, method); b != nil {
		s := c.tableSite(t, method, x)
		if !b.Value {
			return nil, c.errf(x.Pos(), "%s is a statement, not a value", s.display())
		}
		return c.builtinValue(b, s)
	}
	return nil, c.errf(x.Pos(), "%s.apply() is a statement; test its result with if %s.apply().hit { ... }", t.Name, t.Name)
}

// index checks a cell index: a constant must be inside the array.
func (c *codeCtx) index(a ast.Expr, size int, name string) (Expr, error) {
	e, err := c.expr(a)
	if err != nil {
		return nil, err
	}
	if ce, ok := e.(*ConstExpr); ok && (ce.Val < 0 || ce.Val >= int64(size)) {
		return nil, c.errf(a.Pos(), "index %d is outside %s (size %d)", ce.Val, name, size)
	}
	return e, nil
}
