package programs

import (
	"math"
	"math/rand"
	"testing"
)

// TestRangeIndexMatchesScan: on random one-key range tables (overlapping
// ranges, empty ones, the int64 extremes), the index returns the entry the
// priority-order scan does, for every bound, its neighbours and random
// values.
func TestRangeIndexMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	tab := &Table{Name: "r", Keys: []*Key{{Kind: MatchRange}}}
	for trial := 0; trial < 300; trial++ {
		n := 8 + rng.Intn(60)
		span := int64(1) << uint(2+rng.Intn(20))
		var ordered []*Entry
		for i := 0; i < n; i++ {
			lo := rng.Int63n(2*span) - span
			hi := lo + rng.Int63n(span/2+1) - 1 // sometimes empty (hi < lo)
			switch rng.Intn(20) {
			case 0:
				lo = math.MinInt64
			case 1:
				hi = math.MaxInt64
			}
			ordered = append(ordered, &Entry{Values: []int64{lo}, Masks: []int64{hi}, Priority: i})
		}
		ix := buildRangeIndex(tab, ordered)
		if ix == nil {
			t.Fatal("no index for a one-key range table")
		}
		scan := func(v int64) *Entry {
			for _, e := range ordered {
				if entryMatches(tab, e, []int64{v}) {
					return e
				}
			}
			return nil
		}
		probes := []int64{math.MinInt64, math.MaxInt64, 0}
		for _, e := range ordered {
			for _, b := range []int64{e.Values[0], e.Masks[0]} {
				probes = append(probes, b, b-1, b+1) // wrapping at the extremes is fine
			}
		}
		for i := 0; i < 200; i++ {
			probes = append(probes, rng.Int63n(4*span)-2*span)
		}
		for _, v := range probes {
			if got, want := ix.get(v), scan(v); got != want {
				t.Fatalf("trial %d, key %d: index gives %v, scan %v", trial, v, got, want)
			}
		}
	}
}

// TestRangeTableLookupsAcrossUpdates: a one-key range table looked up
// through TableState.Lookup, with entries added and removed between
// lookups (before, during and after its index is built), answers as the
// priority-order scan does; a table whose every range is empty builds no
// index and matches nothing.
func TestRangeTableLookupsAcrossUpdates(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	tab := &Table{Name: "r", Size: 1 << 20, Keys: []*Key{{Kind: MatchRange}}}
	ts := newTableState(tab)
	scan := func(v int64) *Entry {
		for _, e := range ts.ordered {
			if entryMatches(tab, e, []int64{v}) {
				return e
			}
		}
		return nil
	}
	var live []*Entry
	for op := 0; op < 4000; op++ {
		if rng.Intn(50) == 0 || len(live) < 8 {
			lo := rng.Int63n(2000) - 1000
			e := &Entry{Values: []int64{lo}, Masks: []int64{lo + rng.Int63n(100)}, Priority: rng.Intn(1000)}
			ts.Add(e)
			live = append(live, e)
		} else if rng.Intn(80) == 0 {
			i := rng.Intn(len(live))
			ts.ordered = append(ts.ordered[:0:0], ts.ordered...)
			for j, o := range ts.ordered {
				if o == live[i] {
					ts.ordered = append(ts.ordered[:j], ts.ordered[j+1:]...)
					break
				}
			}
			ts.runs, ts.indexed = nil, false
			live = append(live[:i], live[i+1:]...)
		}
		v := rng.Int63n(2400) - 1200
		if got, want := ts.Lookup([]int64{v}), scan(v); got != want {
			t.Fatalf("op %d, key %d: lookup %v, scan %v", op, v, got, want)
		}
	}
	if ts.ranges == nil {
		t.Fatal("no index after a long run of lookups")
	}
	empty := newTableState(tab)
	for i := 0; i < 10; i++ {
		empty.Add(&Entry{Values: []int64{5}, Masks: []int64{4}, Priority: i})
	}
	for i := 0; i < 2*rangeIndexAfter; i++ {
		if e := empty.Lookup([]int64{int64(i)}); e != nil {
			t.Fatalf("an empty range matched %d", i)
		}
	}
}
