package compiler

import (
	"errors"
	"strings"
	"testing"

	"archsim/programs"
)

// TestClearRejected: a register lives in one stage whose stateful ALU
// touches one cell per packet, so clear() of a range cannot be placed,
// even of one cell (the rule is about the statement, which exists to
// reset ranges): stage-local-memory, reported at the first clear() in
// the file and naming its register.
func TestClearRejected(t *testing.T) {
	cases := []struct {
		name, ingress, egress, sections string
		line, reg                       string
	}{
		{"ingress", "meta.a = 1\nclear(r, 0, 16)", "", "", "  clear(r, 0, 16)", "r"},
		{"one cell", "clear(q, meta.a, 1)", "", "", "  clear(q, meta.a, 1)", "q"},
		{"inside an if", "if meta.a == 1 {\n  ip.ttl = 3\n  clear(q, 0, 4)\n}", "", "", "    clear(q, 0, 4)", "q"},
		{"egress", "", "clear(r, meta.d, 2)", "", "  clear(r, meta.d, 2)", "r"},
		{"function", "reset()", "", "functions:\n  reset: |\n    meta.a = 0\n    clear(q, 0, 16)\n", "    clear(q, 0, 16)", "q"},
		{"uncalled function", "", "", "functions:\n  reset: clear(r, 0, 16)\n", "  reset: clear(r, 0, 16)", "r"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := string(mustReadFile(t, "testdata/base.yaml"))
			s = strings.Replace(s, "#INGRESS", indent(c.ingress), 1)
			s = strings.Replace(s, "#EGRESS", indent(c.egress), 1)
			s = strings.Replace(s, "#EXTRA", c.sections, 1)
			prog, err := programs.Load([]byte(s), "base.yaml", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Place(chip(t), prog)
			var pe *PlacementError
			if !errors.As(err, &pe) || pe.Rule != RuleStageLocal {
				t.Fatalf("got %v, want rule %s", err, RuleStageLocal)
			}
			if want := lineIn(t, s, c.line); pe.Pos.Line != want || pe.Pos.File != "base.yaml" {
				t.Fatalf("error at %v, want base.yaml:%d", pe.Pos, want)
			}
			msg := pe.Error()
			want := "rule stage-local-memory: clear(" + c.reg + ", ...): register " + c.reg + " lives in one pipeline stage, whose stateful ALU accesses one cell per packet"
			if !strings.HasPrefix(msg, pe.Pos.String()+": "+want) || !strings.Contains(msg, "control plane") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q, want %q after file:line, mentioning the control plane", msg, want)
			}
		})
	}
	if RuleStageLocal != "stage-local-memory" {
		t.Fatal("rule name changed")
	}
	// The first clear in the file wins: the function's (declared after
	// ingress here) comes second.
	src, prog := withSections(t, "reset()\nclear(r, 0, 2)", "", "functions:\n  reset: |\n    meta.a = 2\n    clear(q, 0, 2)\n")
	_, err := Place(chip(t), prog)
	var pe *PlacementError
	if !errors.As(err, &pe) || pe.Rule != RuleStageLocal || pe.Pos.Line != lineIn(t, src, "  clear(r, 0, 2)") || !strings.Contains(pe.Msg, "register r ") {
		t.Fatalf("first of several: %v", err)
	}
	// A program that also creates packets is reported for that first.
	_, prog = withSections(t, "clear(r, 0, 2)\nemit()", "", "")
	if _, err := Place(chip(t), prog); !errors.As(err, &pe) || pe.Rule != RulePacketCreation {
		t.Fatalf("clear and emit: %v, want rule %s", err, RulePacketCreation)
	}
	// No built-in program written for a PISA chip uses clear().
	for _, name := range programs.Builtins() {
		if name == "trio-ml" {
			continue
		}
		p, err := programs.Resolve(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c := p.Clears(); len(c) != 0 {
			t.Fatalf("%s: clear() at %v", name, c[0].Pos)
		}
	}
}
