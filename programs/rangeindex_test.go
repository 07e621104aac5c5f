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
