package programs

import (
	"errors"
	"math/rand"
	"strings"
	"testing"
)

// stmtOf returns s as the statement of the built-in name, if it is one.
func stmtOf(s Stmt, name string) (*BuiltinStmt, bool) {
	b, ok := s.(*BuiltinStmt)
	if !ok || b.Builtin.Name != name {
		return nil, false
	}
	return b, true
}

// TestBuiltinTableComplete: every row of the table is whole, so that a
// half-added built-in fails here: a name, a sane arity, and either the
// code it expands to (and nothing else) or a typing rule and semantics
// with a cost on each target.
func TestBuiltinTableComplete(t *testing.T) {
	seen := map[builtinKey]bool{}
	for _, b := range BuiltinTable() {
		if b.Name == "" || seen[builtinKey{b.On, b.Name}] {
			t.Fatalf("row %+v: no name, or a name used twice", b)
		}
		seen[builtinKey{b.On, b.Name}] = true
		if a := b.Args; a.Min < 0 || (a.Max >= 0 && a.Max < a.Min) {
			t.Errorf("%s: arity %d..%d", b, a.Min, a.Max)
		}
		if b.Expands != "" {
			if b.Type != nil || b.Eval != nil || b.Exec != nil || b.Tofino.isSet() || b.Trio.isSet() ||
				(b.value == nil) == (b.stmt == nil) || (b.value != nil) != b.Value {
				t.Errorf("%s expands to %s: it needs one rule that builds that code, and no semantics or costs of its own", b, b.Expands)
			}
			continue
		}
		if !b.Tofino.isSet() || !b.Trio.isSet() {
			t.Errorf("%s: no Tofino or no Trio cost", b)
		}
		if b.Value && (b.Type == nil || b.Eval == nil || b.stmt != nil || b.Exec != nil) {
			t.Errorf("%s: a value needs a typing rule and Eval, and no statement rule", b)
		}
		if !b.Value && (b.stmt == nil || b.Exec == nil || b.Eval != nil) {
			t.Errorf("%s: a statement needs a statement rule and Exec", b)
		}
		if b.On == OnTable && (b.tableOp.String() != b.Name || (b.Value && b.NotAStatement == "")) {
			t.Errorf("%s: a table method names its record operation (and a value method its misuse as a statement)", b)
		}
	}
}

// avgRow is a built-in the table does not have: the mean of two values of
// one width, rounded down (an add and a shift).
func avgRow() *BuiltinSpec {
	return &BuiltinSpec{
		Name: "avg", Value: true, Args: Arity{Min: 2, Max: 2},
		Where: Where{NoRegisterAction: "{call} is not available inside a register action"},
		Type: func(e *CallExpr) (Type, error) {
			t := e.Args[0].Type()
			if t.Bits == 0 || t != e.Args[1].Type() {
				return Type{}, errArg(1, "avg needs two values of one width")
			}
			return t, nil
		},
		Eval: func(x *Exec, e *CallExpr) int64 {
			a, b := x.Eval(e.Args[0]), x.Eval(e.Args[1])
			return e.T.Norm(a>>1 + b>>1 + a&b&1)
		},
		Tofino: TofinoCost{ALUOps: 2},
		Trio:   TrioCost{ALUOps: 2},
	}
}

const avgProgram = `program: avg
headers:
  eth: {dst: 48, src: 48, etype: 16}
metadata:
  a: 8
  b: 8
  m: 8
  n: 8
  w: 16
parser:
  start: s
  states:
    s:
      extract: eth
actions:
  half: meta.n = avg(meta.a, meta.b)
ingress: |
  meta.m = avg(meta.a, meta.b)
  half()
`

// TestRegisterBuiltin: a row added to the table (and nothing else) is a
// built-in: it type-checks with the row's arity, context and typing rule,
// runs the row's semantics, carries the row's costs for the backends, and
// its name is reserved; once removed, it is unknown again.
func TestRegisterBuiltin(t *testing.T) {
	avg := avgRow()
	remove, err := RegisterBuiltin(avg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Load([]byte(avgProgram), "avg.yaml", nil)
	if err != nil {
		remove()
		t.Fatal(err)
	}
	call, ok := p.Ingress.Body[0].(*AssignStmt).Src.(*CallExpr)
	if !ok || call.Builtin != avg || call.T != (Type{Bits: 8}) || call.Builtin.Tofino.ALUOps != 2 {
		t.Errorf("ingress reads %#v, want an 8-bit avg call carrying its row", p.Ingress.Body[0].(*AssignStmt).Src)
	}
	if uses := p.BuiltinUses(); len(uses) != 3 || uses[0].Builtin != avg {
		t.Errorf("uses %+v, want the action's avg, its copy inlined by half() and ingress's", uses)
	}
	x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
	x.PHV = make([]int64, p.NumSlots)
	x.PHV[p.Field("meta.a").Slot], x.PHV[p.Field("meta.b").Slot] = 255, 253
	x.RunControl(p.Ingress)
	if m, n := x.PHV[p.Field("meta.m").Slot], x.PHV[p.Field("meta.n").Slot]; m != 254 || n != 254 {
		t.Errorf("avg(255, 253) = %d and %d, want 254", m, n)
	}
	for _, c := range []struct{ from, to, want, line string }{
		{"  meta.m = avg(meta.a, meta.b)", "  meta.m = avg(meta.a)", "expected 2 arguments, got 1", "  meta.m = avg(meta.a)"},
		{"  meta.m = avg(meta.a, meta.b)", "  meta.m = avg(meta.a,\n    meta.w)", "avg needs two values of one width", "    meta.w)"},
		{"  meta.m = avg(meta.a, meta.b)", "  avg(meta.a, meta.b)", "avg(...) computes a value; assign it to a field", "  avg(meta.a, meta.b)"},
		{"ingress:", "registers:\n  r:\n    width: 8\n    size: 2\n    actions:\n      up: value = avg(value, 1)\ningress:",
			"avg() is not available inside a register action", "      up: value = avg(value, 1)"},
		{"ingress:", "functions:\n  avg: meta.n = 1\ningress:", `function name "avg" is a built-in function`, "  avg: meta.n = 1"},
	} {
		wantLoadError(t, "avg.yaml", strings.Replace(avgProgram, c.from, c.to, 1), c.want, c.line)
	}
	remove()
	if _, err := Load([]byte(avgProgram), "avg.yaml", nil); err == nil || !strings.Contains(err.Error(), "unknown function avg") {
		t.Fatalf("after removing the row: %v, want unknown function avg", err)
	}
}

// TestRegisterBuiltinRejects: only a whole value function with a free
// name can be added.
func TestRegisterBuiltinRejects(t *testing.T) {
	for name, edit := range map[string]func(b *BuiltinSpec){
		"taken name":    func(b *BuiltinSpec) { b.Name = "min" },
		"cast name":     func(b *BuiltinSpec) { b.Name = "bit9" },
		"constant func": func(b *BuiltinSpec) { b.Name = "log2ceil" },
		"bad name":      func(b *BuiltinSpec) { b.Name = "a-b" },
		"statement":     func(b *BuiltinSpec) { b.Value = false },
		"no semantics":  func(b *BuiltinSpec) { b.Eval = nil },
		"no Trio cost":  func(b *BuiltinSpec) { b.Trio = TrioCost{} },
	} {
		b := avgRow()
		edit(b)
		if remove, err := RegisterBuiltin(b); err == nil {
			remove()
			t.Errorf("%s: registered", name)
		}
	}
}

// TestArgErrorAtArgument: a typing rule's error is reported at the
// call's line, or at the argument's when it names one.
func TestArgErrorAtArgument(t *testing.T) {
	var ae *argError
	if err := errArg(1, "x %d", 3); !errors.As(err, &ae) || ae.i != 1 || err.Error() != "x 3" {
		t.Fatalf("errArg: %v", err)
	}
	base := strings.ReplaceAll(avgProgram, "avg(", "max(")
	src := strings.Replace(base, "  meta.m = max(meta.a, meta.b)", "  meta.m = min(meta.a,\n    300)", 1)
	wantLoadError(t, "avg.yaml", src, "constant 300 does not fit bit<8>", "  meta.m = min(meta.a,")
	src = strings.Replace(base, "ingress: |", "tables:\n  f:\n    key: {meta.a: exact}\n    actions: [half]\n    aging: true\n    size: 4\ningress: |", 1)
	src = strings.Replace(src, "  meta.m = max(meta.a, meta.b)", "  if f.aged(\n    7) == 1 {\n    meta.m = 1\n  }", 1)
	wantLoadError(t, "avg.yaml", src, "index 7 is outside f (size 4)", "    7) == 1 {")
}
