package lower_test

import (
	"slices"
	"testing"

	"archsim/arch/trio/lower"
	"archsim/programs"
)

// testBuiltin registers a one-argument value function with the given Trio
// cost (and some Tofino cost) for the length of the test.
func testBuiltin(t *testing.T, name string, cost programs.TrioCost) {
	t.Helper()
	remove, err := programs.RegisterBuiltin(&programs.BuiltinSpec{
		Name: name, Value: true, Args: programs.Arity{Min: 1, Max: 1},
		Type:   func(e *programs.CallExpr) (programs.Type, error) { return e.Args[0].Type(), nil },
		Eval:   func(x *programs.Exec, e *programs.CallExpr) int64 { return x.Eval(e.Args[0]) },
		Tofino: programs.TofinoCost{ALUOps: 1}, Trio: cost,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
}

// TestBuiltinCostFromTable: lowering charges a built-in what its row's
// Trio cost says, with no other code: an ALU operation packs with the
// next statement; a synchronous transaction is a site of its kind, and
// what follows waits for its reply in the next instruction.
func TestBuiltinCostFromTable(t *testing.T) {
	testBuiltin(t, "alu", programs.TrioCost{ALUOps: 1})
	testBuiltin(t, "fetch", programs.TrioCost{XTXN: []string{"read"}, Sync: true})
	c := chipT(t)
	m := lowerT(t, c, prog(t, "", "meta.m0 = alu(meta.m1)\nmeta.m2 = meta.m3"))
	mf := lowerT(t, c, prog(t, "", "meta.m0 = fetch(meta.m1)\nmeta.m2 = meta.m3"))
	if len(m.XTXNSites) != 0 || mf.XTXNSites["read"] != 1 || len(mf.XTXNSites) != 1 {
		t.Errorf("transaction sites %v and %v, want none and one read", m.XTXNSites, mf.XTXNSites)
	}
	if n, nf := ingressInstr(m), ingressInstr(mf); n != 1 || nf != 2 {
		t.Errorf("ingress instructions %d and %d, want 1 and 2", n, nf)
	}
}

// TestBuiltinTransactionKindsKnown: the transactions a row of the table
// names are kinds of the Trio model.
func TestBuiltinTransactionKindsKnown(t *testing.T) {
	var kinds []string
	for k := lower.XKind(0); k < lower.NumXKinds; k++ {
		kinds = append(kinds, k.String())
	}
	for _, b := range programs.BuiltinTable() {
		for _, k := range b.Trio.Kinds() {
			if !slices.Contains(kinds, k) {
				t.Errorf("%s: unknown transaction kind %q", b.Name, k)
			}
		}
	}
}
