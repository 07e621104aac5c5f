package compiler

import (
	"errors"
	"slices"
	"testing"

	"archsim/arch/tofino/spec"
	"archsim/programs"
)

// testBuiltin registers a value function of one argument's type with the
// given Tofino cost (and some Trio cost) for the length of the test.
func testBuiltin(t *testing.T, name string, cost programs.TofinoCost) {
	t.Helper()
	remove, err := programs.RegisterBuiltin(&programs.BuiltinSpec{
		Name: name, Value: true, Args: programs.Arity{Min: 1, Max: 2},
		Type:   func(e *programs.CallExpr) (programs.Type, error) { return e.Args[0].Type(), nil },
		Eval:   func(x *programs.Exec, e *programs.CallExpr) int64 { return x.Eval(e.Args[0]) },
		Tofino: cost, Trio: programs.TrioCost{ALUOps: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
}

// TestBuiltinCostFromTable: placement charges a built-in what its row's
// Tofino cost says, with no other code: ALU operations, a hash unit
// reading its inputs through the crossbar, or a rule that rejects it.
func TestBuiltinCostFromTable(t *testing.T) {
	testBuiltin(t, "twoops", programs.TofinoCost{ALUOps: 2})
	testBuiltin(t, "oneop", programs.TofinoCost{ALUOps: 1})
	testBuiltin(t, "crc", programs.TofinoCost{Unit: programs.TofinoHash})
	testBuiltin(t, "peek", programs.TofinoCost{Reject: &programs.TofinoReject{
		Rule: string(RulePayloadAccess), What: "peek()", Msg: "{name}(): the stages see headers only"}})
	for _, c := range []struct {
		ingress string
		rule    Rule // "": it places
	}{
		{"meta.a = oneop(meta.a, meta.b)", ""},
		{"meta.a = oneop(meta.a) + 1", RuleALUComplexity},
		{"meta.a = twoops(meta.a, meta.b)", RuleALUComplexity},
		{"meta.a = crc(meta.b, meta.c)", ""},
		{"meta.a = peek(meta.b)", RulePayloadAccess},
	} {
		_, err := Place(chip(t), variant(t, c.ingress, "", ""))
		var pe *PlacementError
		if c.rule == "" && err != nil || c.rule != "" && (!errors.As(err, &pe) || pe.Rule != c.rule) {
			t.Errorf("%s: %v, want rule %q", c.ingress, err, c.rule)
		}
		if c.rule == RulePayloadAccess && pe != nil && pe.Msg != "peek(): the stages see headers only" {
			t.Errorf("%s: message %q", c.ingress, pe.Msg)
		}
	}
	p, err := Place(chip(t), variant(t, "meta.a = crc(meta.b, meta.c)", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(p.LTs, func(lt *LT) bool { return lt.Kind == KindKeyless && lt.Gress == spec.Ingress })
	if i < 0 || !p.LTs[i].Hash || !p.LTs[i].MatchReads.has(p.Prog.Field("meta.b")) || p.LTs[i].ActionReads.has(p.Prog.Field("meta.b")) {
		t.Fatalf("the hash unit's inputs are crossbar reads: %+v", p.LTs)
	}
}

// TestBuiltinRejectRulesKnown: a rule a row of the table names is one of
// Tofino's rules.
func TestBuiltinRejectRulesKnown(t *testing.T) {
	known := []Rule{RuleStageLocal, RuleRegisterGress, RuleNoLoops, RuleALUMultiply, RuleALUShift, RuleALUComplexity,
		RuleRegisterWidth, RuleRegisterActions, RuleSALUComplexity, RuleSALUComparators, RuleSALUInputs, RuleSALUConstants,
		RuleSALUAssignOnce, RuleIntrinsic, RuleOneStateful, RuleTableOnce, RuleRangeKey, RuleStageBudget, RuleConditionComplex,
		RuleTMQueues, RuleTimerThreads, RulePayloadAccess, RulePacketCreation, RuleTableUpdate, RulePacketBuffer}
	for _, b := range programs.BuiltinTable() {
		if r := b.Tofino.Reject; r != nil && !slices.Contains(known, Rule(r.Rule)) {
			t.Errorf("%s: unknown rule %q", b.Name, r.Rule)
		}
	}
}
