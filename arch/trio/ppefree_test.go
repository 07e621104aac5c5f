package trio

import (
	"math/rand"
	"testing"
)

// TestFreeIndexPicksAsTheScan: random dispatches and finishes on 150 PPEs
// of 4 threads; the index must pick what a scan of every PPE picks (the
// most free threads, the lowest index on ties, none when all are busy).
func TestFreeIndexPicksAsTheScan(t *testing.T) {
	const n, f = 150, 4
	rng := rand.New(rand.NewSource(3))
	free := make([]int, n)
	for i := range free {
		free[i] = f
	}
	var x freeIndex
	x.init(n, f)
	scan := func() int {
		best := -1
		for i := range free {
			if free[i] > 0 && (best < 0 || free[i] > free[best]) {
				best = i
			}
		}
		return best
	}
	for step := 0; step < 20000; step++ {
		if rng.Intn(2) == 0 {
			want, got := scan(), x.best()
			if got != want {
				t.Fatalf("step %d: picked %d, the scan picks %d", step, got, want)
			}
			if got >= 0 {
				free[got]--
				x.move(got, free[got]+1, free[got])
			}
		} else if i := rng.Intn(n); free[i] < f {
			free[i]++
			x.move(i, free[i]-1, free[i])
		}
	}
}
