package compiler

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"archsim/programs"
)

// withSelect is testdata/base.yaml with its one parser state selecting on
// eth.etype among n values (and a default), each going to a state that
// extracts ip: n + 1 rows for the select, one for each target state.
func withSelect(t *testing.T, n int) *programs.Program {
	t.Helper()
	s := string(mustReadFile(t, "testdata/base.yaml"))
	var b strings.Builder
	b.WriteString("    s:\n      extract: eth\n      select: eth.etype\n      transitions: {")
	for i := range n {
		fmt.Fprintf(&b, "%d: v, ", i+1)
	}
	b.WriteString("default: accept}\n    v:\n      extract: ip\n      next: accept\n")
	s = strings.Replace(s, "    s:\n      extract: [eth, ip]\n", b.String(), 1)
	s = strings.Replace(s, "#INGRESS", "", 1)
	s = strings.Replace(s, "#EGRESS", "", 1)
	s = strings.Replace(s, "#EXTRA", "", 1)
	p, err := programs.Load([]byte(s), "base.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A parse graph takes a TCAM row per transition of each state (bf-p4c: one
// per match of a lowered state); more than the parser's 256 is refused,
// naming the rule, the count and the largest state.
func TestParserTCAMRows(t *testing.T) {
	p, err := Place(chip(t), withSelect(t, 254))
	if err != nil {
		t.Fatalf("254 values + default + 1 state = 256 rows: %v", err)
	}
	if p.Parser.TCAMRows != 256 || p.Parser.Capacity != 256 {
		t.Fatalf("rows %+v, want 256 of 256", p.Parser)
	}
	_, err = Place(chip(t), withSelect(t, 255))
	var pe *PlacementError
	if !errors.As(err, &pe) || pe.Rule != RuleParserTCAM {
		t.Fatalf("257 rows: got %v, want rule %s", err, RuleParserTCAM)
	}
	for _, w := range []string{"at least 257 parser TCAM rows", "the largest state, s, takes 256", "parser has 256"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

// A state whose extracts span more than the parser's 32-byte input window
// takes a row per window (bf-p4c splits it).
func TestParserRowsPerWindow(t *testing.T) {
	s := string(mustReadFile(t, "testdata/base.yaml"))
	for _, r := range [][2]string{{"#INGRESS", ""}, {"#EGRESS", ""}, {"#EXTRA", ""},
		{"headers:\n", "headers:\n  big: {x: 64, y: 64, z: 64, w: 64}\n"}, {"extract: [eth, ip]", "extract: [eth, ip, big]"}} {
		s = strings.Replace(s, r[0], r[1], 1)
	}
	prog, err := programs.Load([]byte(s), "base.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	bits := 0
	for _, h := range prog.Parser.States[0].Extract {
		bits += h.Bits
	}
	p, err := Place(chip(t), prog)
	if err != nil {
		t.Fatal(err)
	}
	if want := (bits/8 + 31) / 32; bits/8 <= 32 || p.Parser.TCAMRows != want {
		t.Errorf("one state extracting %d bytes: %d rows, want %d", bits/8, p.Parser.TCAMRows, want)
	}
}
