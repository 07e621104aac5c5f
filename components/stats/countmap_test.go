package stats

import (
	"math/rand"
	"testing"
)

// TestCountMapMatchesMap adds random values (few distinct ones, many, and
// extreme ones) to a countMap and a Go map and requires the same counts.
func TestCountMapMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, spread := range []int64{3, 1000, 1 << 40} {
		m, ref := newCountMap(0), map[int64]int{}
		for i := 0; i < 20000; i++ {
			x := rng.Int63n(spread) - spread/2
			if i%97 == 0 {
				x = []int64{-1 << 63, 1<<63 - 1, 0}[i%3]
			}
			c := 1 + rng.Intn(3)
			m.add(x, c)
			ref[x] += c
		}
		if m.len() != len(ref) {
			t.Fatalf("spread %d: %d values, want %d", spread, m.len(), len(ref))
		}
		seen := 0
		m.each(func(x int64, c int) {
			seen++
			if ref[x] != c || m.get(x) != c {
				t.Fatalf("spread %d: %d counted %d (get %d), want %d", spread, x, c, m.get(x), ref[x])
			}
		})
		if seen != len(ref) || m.get(spread) != ref[spread] {
			t.Fatalf("spread %d: each visited %d of %d", spread, seen, len(ref))
		}
	}
}
