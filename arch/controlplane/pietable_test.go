package controlplane

import (
	"strings"
	"testing"

	"archsim/programs"
)

func pieTable(t *testing.T) *programs.Program {
	t.Helper()
	p, err := programs.Resolve("pie-table", nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lookup finds the entry for (alpha id, beta id) in a list.
func lookup(es []*programs.Entry, a, b int64) *programs.Entry {
	for _, e := range es {
		if e.Values[0] == a && e.Values[1] == b {
			return e
		}
	}
	return nil
}

// One entry per (alpha id, beta id): 300 x 301 (the program's range
// tables), and a few pairs by hand with alpha = 2, beta = 3 per us:
//
//	alpha id 0 = -125..-124 (mid -124.5), beta id 150 = 0..0:       -249   -> (249, 0)
//	alpha id 58 = -9..-9,                 beta id 151 = 1..4 (2.5): -10.5 -> rounds half up to -10 -> (10, 0)
//	alpha id 299 = 454..455 (454.5),      beta id 300 = 597..600:   2704.5 -> 2705 -> (2705, 1)
//	alpha id 67 = 0..0,                   beta id 150 = 0..0:       0      -> (0, 0)
func TestPieTableEntries(t *testing.T) {
	p := pieTable(t)
	es, err := PieTableEntries(p, PieTable{Alpha: 2, Beta: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 300*301 {
		t.Fatalf("%d entries, want 300 x 301 = 90300", len(es))
	}
	for _, c := range []struct{ a, b, prob, inc int64 }{
		{0, 150, 249, 0}, {58, 151, 10, 0}, {299, 300, 2705, 1}, {67, 150, 0, 0},
	} {
		e := lookup(es, c.a, c.b)
		if e == nil || e.Call.Action.Name != "set_probability" || e.Call.Args[0] != c.prob || e.Call.Args[1] != c.inc {
			t.Errorf("(%d, %d): %+v, want set_probability(%d, %d)", c.a, c.b, e, c.prob, c.inc)
		}
	}
	// pie_table_fill.py's representative, hi + lo/2: alpha id 0 stands for
	// -124 - 62.5 = -186.5; with beta id 150 (0): -373 -> (373, 0).
	es, err = PieTableEntries(p, PieTable{Alpha: 2, Beta: 3, Representative: PieForTofino})
	if err != nil {
		t.Fatal(err)
	}
	if e := lookup(es, 0, 150); e == nil || e.Call.Args[0] != 373 || e.Call.Args[1] != 0 {
		t.Errorf("pie-for-tofino representative: %+v", e)
	}
	// Updates beyond probability 1 are clipped to it.
	es, err = PieTableEntries(p, PieTable{Alpha: 1e9, Beta: 0})
	if err != nil {
		t.Fatal(err)
	}
	if e := lookup(es, 299, 150); e.Call.Args[0] != MaxProb || e.Call.Args[1] != 1 {
		t.Errorf("clip: %v", e.Call.Args)
	}
}

// The fill goes through the CPU: 91 batches of at most 1000 entries, each
// 50 us of overhead plus 10 us per entry, the last landing one crossing
// after it leaves: 91 x 50 + 90300 x 10 + 1 = 907 551 us. The installed
// table then answers the data plane's lookups.
func TestFillPieTable(t *testing.T) {
	if testing.Short() {
		t.Skip("installs 90 300 entries")
	}
	p := pieTable(t)
	r := newRig(t, p)
	var doneAt int64
	n, err := FillPieTable(r.cpu, PieTable{Alpha: 2, Beta: 3}, func() { doneAt = r.cpu.NowPs() })
	if err != nil {
		t.Fatal(err)
	}
	if err := r.e.Run(); err != nil {
		t.Fatal(err)
	}
	if n != 90300 || doneAt != 907_551*us || r.cpu.Stats.EntryAdds != 90300 || r.cpu.Stats.Batches != 91 || r.cpu.Err() != nil {
		t.Fatalf("%d entries, done at %d ps, stats %+v, err %v", n, doneAt, r.cpu.Stats, r.cpu.Err())
	}
	ts := r.state.Tables[p.Table("compute_drop_probability_update").Index]
	if e := ts.Lookup([]int64{299, 300}); e == nil || e.Call.Args[0] != 2705 || e.Call.Args[1] != 1 {
		t.Errorf("lookup (299, 300): %+v", e)
	}
}

// Tables the program lacks, a const table, or more pairs than the update
// table holds are errors naming them.
func TestPieTableErrors(t *testing.T) {
	p := pieTable(t)
	if _, err := PieTableEntries(p, PieTable{AlphaTable: "gamma_range", Alpha: 1}); err == nil || !strings.Contains(err.Error(), "no table gamma_range") {
		t.Errorf("missing table: %v", err)
	}
	if _, err := PieTableEntries(p, PieTable{UpdateTable: "udp_table", Alpha: 1}); err == nil || !strings.Contains(err.Error(), "udp_table holds 2 entries") {
		t.Errorf("small update table: %v", err)
	}
	if _, err := PieTableEntries(p, PieTable{BetaTable: "l3_forwarding"}); err == nil || !strings.Contains(err.Error(), "want one range key") {
		t.Errorf("not a range table: %v", err)
	}
	r := newRig(t, p)
	if _, err := FillPieTable(r.cpu, PieTable{UpdateTable: "alpha_range", Action: "set_alpha_range"}, nil); err == nil {
		t.Errorf("filling a const table must fail")
	}
	if err := r.cpu.AddEntries("alpha_range", nil, nil); err == nil || !strings.Contains(err.Error(), "table alpha_range is const") {
		t.Errorf("const: %v", err)
	}
}
