package compiler

// imem is one thread's VLIW instruction memory in one stage, allocated the
// way bf-p4c does it ([BFP4C] mau/instruction_memory.cpp
// InstructionMemory::find_row_and_color): rows of two colours; row 0 colour 0
// is the no-op slot, taken by a table's first action that writes nothing;
// every other action takes the first row with a free colour whose actions
// write none of its containers (two instructions in one row share the row's
// per-container ALU slots, so they must not collide). Without a PHV
// allocation a field stands for its container: actions that write the same
// field never share a row.
type imem struct {
	noop bool      // the no-op slot (row 0, colour 0) is in use
	rows []imemRow // rows in use, from row 0
}

type imemRow struct {
	colors int   // non-no-op colours in use
	writes []int // PHV slots written by the row's instructions
}

// imemColors is the colours per row ([BFP4C] TofinoIMemSpec::colors() = 2).
const imemColors = 2

func (m imem) clone() imem {
	out := imem{noop: m.noop, rows: make([]imemRow, len(m.rows))}
	for i, r := range m.rows {
		out.rows[i] = imemRow{colors: r.colors, writes: append([]int(nil), r.writes...)}
	}
	return out
}

// alloc places one table's actions: the PHV-writing ones (their written
// slots) and noops actions that write nothing.
func (m *imem) alloc(actions [][]int, noops int) {
	if noops > 0 {
		m.noop = true // the table's first no-op shares the reserved slot
		for i := 1; i < noops; i++ {
			m.place(nil) // later no-ops take their own colour
		}
	}
	for _, w := range actions {
		m.place(w)
	}
}

func (m *imem) place(w []int) {
	for i := range m.rows {
		r := &m.rows[i]
		free := imemColors - r.colors
		if i == 0 {
			free-- // row 0 colour 0 is the no-op slot
		}
		if free <= 0 || overlaps(r.writes, w) {
			continue
		}
		r.colors++
		r.writes = append(r.writes, w...)
		return
	}
	m.rows = append(m.rows, imemRow{colors: 1, writes: append([]int(nil), w...)})
}

// used is the number of instruction rows in use (row 0 counts when only the
// no-op slot is used).
func (m imem) used() int {
	if len(m.rows) == 0 && m.noop {
		return 1
	}
	return len(m.rows)
}

func overlaps(a, b []int) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
