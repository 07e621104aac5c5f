package controlplane

import (
	"fmt"
	"math"
	"sort"

	"archsim/programs"
)

// PIE_TABLE's start-up fill (the PIE paper §VI.D; pie-for-tofino
// bfrt_python/pie_table_fill.py): the control plane reads the program's
// two range tables, which map diff_ref (alpha) and diff_old (beta) to
// range ids, takes one representative value per range, and installs one
// exact entry per (alpha id, beta id) pair in the update table:
// set_probability(|u|, u > 0) with u = alpha·rep(alpha range) +
// beta·rep(beta range), rounded half up, in drop-probability units where
// 2^32−1 is probability 1.

// Representative picks the value that stands for a range lo..hi.
type Representative int

const (
	// Midpoint is (lo + hi) / 2: the value the paper's layout intends.
	Midpoint Representative = iota
	// PieForTofino is hi + lo/2, what pie_table_fill.py computes
	// (float(hi) + float(lo)/2: the division binds first), to reproduce
	// that script's entries.
	PieForTofino
)

// MaxProb is drop probability 1 in the PIE programs' 32-bit units
// (pie-for-tofino MAX_PROB = 2^32−1).
const MaxProb = 1<<32 - 1

// PieTable says which tables the fill reads and writes and with what
// coefficients.
type PieTable struct {
	AlphaTable  string // range table on diff_ref; "" = "alpha_range"
	BetaTable   string // range table on diff_old; "" = "beta_range"
	UpdateTable string // exact table on (alpha id, beta id); "" = "compute_drop_probability_update"
	Action      string // its action (probability, increase); "" = "set_probability"
	// Alpha and Beta are the update per unit of diff_ref and of diff_old
	// (the tables' key unit: ~1 us), in drop-probability units where
	// MaxProb is 1: the PIE paper's Table II "scaled" values.
	Alpha, Beta    float64
	Representative Representative
}

func (p PieTable) withDefaults() PieTable {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&p.AlphaTable, "alpha_range")
	def(&p.BetaTable, "beta_range")
	def(&p.UpdateTable, "compute_drop_probability_update")
	def(&p.Action, "set_probability")
	return p
}

// rangeID is one range of a range table: its bounds (signed) and its id.
type rangeID struct {
	lo, hi int64
	id     int64
}

// ranges reads a range table's entries: one range key, an action whose
// first argument is the range id. The key's bits are read as two's
// complement (the PIE programs keep signed differences in 16-bit fields).
func ranges(prog *programs.Program, name string) ([]rangeID, error) {
	t := prog.Table(name)
	if t == nil {
		return nil, fmt.Errorf("program %s has no table %s", prog.Name, name)
	}
	if len(t.Keys) != 1 || t.Keys[0].Kind != programs.MatchRange {
		return nil, fmt.Errorf("table %s (%s): want one range key", name, t.Pos)
	}
	bits := t.Keys[0].Bits
	signed := func(v int64) int64 {
		if bits < 64 && v >= 1<<(bits-1) {
			return v - 1<<bits
		}
		return v
	}
	var out []rangeID
	seen := map[int64]bool{}
	for _, e := range t.Entries {
		if len(e.Call.Args) == 0 {
			return nil, fmt.Errorf("table %s (%s): entry %s has no range id argument", name, e.Pos, e.Call.Action.Name)
		}
		r := rangeID{lo: signed(e.Values[0]), hi: signed(e.Masks[0]), id: e.Call.Args[0]}
		if seen[r.id] {
			return nil, fmt.Errorf("table %s (%s): range id %d used twice", name, e.Pos, r.id)
		}
		seen[r.id] = true
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("table %s (%s) has no entries", name, t.Pos)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, nil
}

func (p PieTable) rep(r rangeID) float64 {
	if p.Representative == PieForTofino {
		return float64(r.hi) + float64(r.lo)/2
	}
	return float64(r.lo+r.hi) / 2
}

// PieTableEntries computes the update table's entries, alpha id major
// then beta id, each set_probability(min(|u|, MaxProb), u > 0).
func PieTableEntries(prog *programs.Program, p PieTable) ([]*programs.Entry, error) {
	p = p.withDefaults()
	if math.IsNaN(p.Alpha) || math.IsNaN(p.Beta) || math.IsInf(p.Alpha, 0) || math.IsInf(p.Beta, 0) {
		return nil, fmt.Errorf("PIE table fill: alpha %g and beta %g must be finite", p.Alpha, p.Beta)
	}
	as, err := ranges(prog, p.AlphaTable)
	if err != nil {
		return nil, err
	}
	bs, err := ranges(prog, p.BetaTable)
	if err != nil {
		return nil, err
	}
	t := prog.Table(p.UpdateTable)
	if t == nil {
		return nil, fmt.Errorf("program %s has no table %s", prog.Name, p.UpdateTable)
	}
	if len(as)*len(bs) > t.Size {
		return nil, fmt.Errorf("table %s holds %d entries; %d alpha x %d beta ranges need %d", t.Name, t.Size, len(as), len(bs), len(as)*len(bs))
	}
	out := make([]*programs.Entry, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			u := math.Floor(p.Alpha*p.rep(a) + p.Beta*p.rep(b) + 0.5)
			inc := int64(0)
			if u > 0 {
				inc = 1
			}
			mag := int64(min(math.Abs(u), MaxProb))
			e, err := t.NewEntry([]programs.Match{{Value: a.id}, {Value: b.id}}, p.Action, []int64{mag, inc}, 0)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// FillPieTable computes the update table's entries and installs them
// through the CPU (so the fill takes the entries' add cost in simulated
// time); done runs when the last batch has reached the chip. It returns
// the number of entries.
func FillPieTable(c *CPU, p PieTable, done func()) (int, error) {
	es, err := PieTableEntries(c.sw.Program(), p)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", c.Name(), err)
	}
	return len(es), c.AddEntries(p.withDefaults().UpdateTable, es, done)
}
