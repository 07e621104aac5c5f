package compiler

import "testing"

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
