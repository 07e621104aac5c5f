package programs

import (
	"math/rand"
	"testing"
)

// TestKeyIndexMatchesMap runs random inserts, replacements, deletions and
// lookups on a keyIndex and a Go map and checks they always agree (keys
// from a small range, so that probe runs collide and deletions shift).
func TestKeyIndexMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 20; round++ {
		ix := &keyIndex{}
		ref := map[int64]*record{}
		span := int64(4 + rng.Intn(200))
		for op := 0; op < 5000; op++ {
			k := rng.Int63n(span) - span/4
			if rng.Intn(3) == 0 {
				k = k << uint(rng.Intn(40)) // far apart keys as well
			}
			switch rng.Intn(3) {
			case 0:
				r := &record{slot: op}
				ix.set(k, r)
				ref[k] = r
			case 1:
				ix.del(k)
				delete(ref, k)
			}
			if got := ix.get(k); got != ref[k] {
				t.Fatalf("round %d op %d: get(%d) = %v, want %v", round, op, k, got, ref[k])
			}
			if ix.n != len(ref) {
				t.Fatalf("round %d op %d: %d entries, want %d", round, op, ix.n, len(ref))
			}
		}
		for k, r := range ref {
			if ix.get(k) != r {
				t.Fatalf("round %d: key %d lost", round, k)
			}
		}
	}
}

// TestOneKeyLookupsMatchScan checks the one-key fast paths (keyIndex for
// exact tables, by1 for LPM and ternary mask runs) against a linear scan
// of the entries in priority order, with entries added and removed.
func TestOneKeyLookupsMatchScan(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, kind := range []MatchKind{MatchExact, MatchLPM, MatchTernary} {
		for round := 0; round < 10; round++ {
			tb := &Table{Name: "t", Keys: []*Key{{Kind: kind, Bits: 16}}, Size: 64}
			var es []*Entry
			for i := 0; i < 8+rng.Intn(50); i++ {
				e := &Entry{Priority: i}
				v := rng.Int63n(1 << 16)
				switch kind {
				case MatchExact:
					e.Values = []int64{v}
				case MatchLPM:
					p := 8 + rng.Intn(3)*4
					m := int64(0xffff) &^ (int64(1)<<uint(16-p) - 1)
					e.Values, e.Masks, e.Prefix = []int64{v & m}, []int64{m}, []int{p}
				case MatchTernary:
					m := []int64{0xff00, 0xfff0, 0xffff}[rng.Intn(3)]
					if i > 30 {
						m = 0xff00 // long runs of one mask
					}
					e.Values, e.Masks, e.Prefix = []int64{v & m}, []int64{m}, []int{0}
				}
				es = append(es, e)
			}
			ts := newTableState(tb)
			for _, e := range es {
				ts.Add(e)
			}
			if kind == MatchExact {
				// Remove a few and check the survivors.
				for _, e := range es[:len(es)/3] {
					var k [maxExactKeys]int64
					k[0] = e.Values[0]
					ts.remove(k)
				}
			}
			want := func(v int64) *Entry {
				if kind == MatchExact {
					var hit *Entry
					for _, e := range es[len(es)/3:] {
						if e.Values[0] == v {
							hit = e // a later entry with the same key replaces an earlier one
						}
					}
					if hit != nil {
						return hit
					}
					return nil
				}
				var best *Entry
				for _, e := range ts.ordered {
					if entryMatches(tb, e, []int64{v}) {
						best = e
						break
					}
				}
				return best
			}
			for q := 0; q < 2000; q++ {
				v := rng.Int63n(1 << 16)
				if q%2 == 0 {
					v = es[rng.Intn(len(es))].Values[0] | rng.Int63n(16)
				}
				if got, w := ts.Lookup([]int64{v}), want(v); got != w {
					t.Fatalf("%v round %d: Lookup(%#x) = %v, want %v", kind, round, v, got, w)
				}
				if got, w := ts.match([]int64{v}), want(v); got != w {
					t.Fatalf("%v round %d: match(%#x) = %v, want %v", kind, round, v, got, w)
				}
			}
		}
	}
}
