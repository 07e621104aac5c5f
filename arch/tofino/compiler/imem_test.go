package compiler

import (
	"testing"

	"archsim/programs"
)

// TestIMemRows checks the instruction-row allocation against bf-p4c's
// find_row_and_color rules.
func TestIMemRows(t *testing.T) {
	cases := []struct {
		name    string
		actions [][]int
		noops   int
		want    int
	}{
		{"empty", nil, 0, 0},
		{"only a no-op: row 0", nil, 1, 1},
		{"one action takes row 0 colour 1", [][]int{{1}}, 0, 1},
		{"no-op and one action share row 0", [][]int{{1}}, 1, 1},
		{"disjoint actions share a row", [][]int{{1}, {2}, {3}}, 1, 2},
		{"same field: one row each", [][]int{{1}, {1}, {1}}, 0, 3},
		{"overlap in one field", [][]int{{1, 2}, {2, 3}, {4}}, 0, 2},
		{"second no-op takes a colour", nil, 2, 1},
		{"three no-ops", nil, 3, 2},
	}
	for _, c := range cases {
		var m imem
		m.alloc(c.actions, c.noops)
		if got := m.used(); got != c.want {
			t.Errorf("%s: %d rows, want %d", c.name, got, c.want)
		}
	}
	// A probe on a clone leaves the original untouched.
	var m imem
	m.alloc([][]int{{1}}, 0)
	p := m.clone()
	p.alloc([][]int{{1}, {1}}, 0)
	if m.used() != 1 || p.used() != 3 {
		t.Errorf("clone: original %d rows (want 1), probe %d (want 3)", m.used(), p.used())
	}
}

// TestActionFormats checks the action-data formats bf-p4c offers
// (determine_next_immediate_bytes): 32 + 1 bits start as a 5-byte RAM entry
// (8-byte power of two); halving it moves the 32-bit slot to immediate and
// leaves the 1-bit parameter's byte in the RAM; nothing more fits.
func TestActionFormats(t *testing.T) {
	tbl := &programs.Table{Actions: []*programs.Action{{Name: "a", Params: []*programs.Param{
		{Name: "p", Type: programs.Type{Bits: 32}}, {Name: "i", Type: programs.Type{Bits: 1}},
	}}}}
	got := actionFormats(chip(t), tbl)
	want := []actionFormat{{immBits: 0, adtBytes: 8}, {immBits: 32, adtBytes: 1}}
	if len(got) != len(want) {
		t.Fatalf("formats %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("format %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
