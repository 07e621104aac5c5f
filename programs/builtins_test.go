package programs

import "testing"

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
