package compiler

import (
	"errors"
	"strings"
	"testing"

	"archsim/programs"
)

// tuSource is base.yaml with table t2 aging and the given code.
func tuSource(t *testing.T, ingress, egress, sections string) string {
	t.Helper()
	s := string(mustReadFile(t, "testdata/base.yaml"))
	s = strings.Replace(s, "    actions: [fwd, NoAction]\n", "    actions: [fwd, NoAction]\n    aging: true\n", 1)
	s = strings.Replace(s, "#INGRESS", indent(ingress), 1)
	s = strings.Replace(s, "#EGRESS", indent(egress), 1)
	return strings.Replace(s, "#EXTRA", sections, 1)
}

// TestTableUpdateRejected: MAU match tables are written by the control
// plane; insert, remove, aged and load are rejected with rule
// table-update at the first such call in the file, naming the table and
// the method and pointing to the idle timeout.
func TestTableUpdateRejected(t *testing.T) {
	cases := []struct {
		name, ingress, egress, sections string
		line, call                      string
	}{
		{"insert", "if meta.f == 1 {\n  t2.insert(fwd(3))\n}", "", "", "    t2.insert(fwd(3))", "t2.insert()"},
		{"remove in egress", "", "t2.remove()", "", "  t2.remove()", "t2.remove()"},
		{"aged in a condition", "if t2.aged(2) == 1 {\n  meta.b = 1\n}", "", "", "  if t2.aged(2) == 1 {", "t2.aged()"},
		{"load in a function", "look()", "", "functions:\n  look: route.load(meta.c)\n", "  look: route.load(meta.c)", "route.load()"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := tuSource(t, c.ingress, c.egress, c.sections)
			prog, err := programs.Load([]byte(s), "base.yaml", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Place(chip(t), prog)
			var pe *PlacementError
			if !errors.As(err, &pe) || pe.Rule != RuleTableUpdate {
				t.Fatalf("got %v, want rule %s", err, RuleTableUpdate)
			}
			if want := lineIn(t, s, c.line); pe.Pos != (programs.Pos{File: "base.yaml", Line: want}) {
				t.Fatalf("error at %v, want base.yaml:%d", pe.Pos, want)
			}
			msg := pe.Error()
			want := "rule table-update: " + c.call + ": a match table is written by the control plane"
			if !strings.HasPrefix(msg, pe.Pos.String()+": "+want) || !strings.Contains(msg, "idle timeout") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q, want %q after file:line, mentioning the idle timeout", msg, want)
			}
		})
	}
	if RuleTableUpdate != "table-update" {
		t.Fatal("rule name changed")
	}
	// aging: true alone is fine: Tofino keeps per-entry idle-time bits.
	s := tuSource(t, "t2.apply()", "", "")
	prog, err := programs.Load([]byte(s), "base.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !prog.Table("t2").Aging {
		t.Fatal("t2 does not age")
	}
	if _, err := Place(chip(t), prog); err != nil {
		t.Fatalf("aging table without data-plane updates: %v", err)
	}
	// The first in the file wins; packet creation is reported before.
	s = tuSource(t, "t2.remove()\nroute.insert(fwd(1))", "", "")
	prog, _ = programs.Load([]byte(s), "base.yaml", nil)
	var pe *PlacementError
	if _, err := Place(chip(t), prog); !errors.As(err, &pe) || pe.Pos.Line != lineIn(t, s, "  t2.remove()") {
		t.Fatalf("first of several: %v", err)
	}
	s = tuSource(t, "t2.remove()\nemit()", "", "")
	prog, _ = programs.Load([]byte(s), "base.yaml", nil)
	if _, err := Place(chip(t), prog); !errors.As(err, &pe) || pe.Rule != RulePacketCreation {
		t.Fatalf("with emit: %v, want rule %s", err, RulePacketCreation)
	}
}
