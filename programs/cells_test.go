package programs

import (
	"math/rand"
	"testing"
)

// TestCellsMatchSlice drives Cells and a plain slice with the same random
// writes, fills and reads across page boundaries (sizes not a multiple of
// a page, a non-zero initial value) and requires the same contents, and
// that pages nobody wrote stay unallocated.
func TestCellsMatchSlice(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, n := range []int{1, 7, cellPage - 1, cellPage, cellPage + 1, 3*cellPage + 17} {
		for _, init := range []int64{0, -3} {
			c := NewCells(n, init)
			ref := make([]int64, n)
			for i := range ref {
				ref[i] = init
			}
			for op := 0; op < 300; op++ {
				switch rng.Intn(3) {
				case 0:
					i, v := rng.Intn(n), rng.Int63n(100)
					c.Set(i, v)
					ref[i] = v
				case 1:
					s := rng.Intn(n)
					k := rng.Intn(n-s) + 1
					v := []int64{init, 9}[rng.Intn(2)]
					c.Fill(s, k, v)
					for j := s; j < s+k; j++ {
						ref[j] = v
					}
				default:
					i := rng.Intn(n)
					if c.Get(i) != ref[i] {
						t.Fatalf("n %d init %d: cell %d = %d, want %d", n, init, i, c.Get(i), ref[i])
					}
				}
			}
			got := c.Values()
			for i := range ref {
				if got[i] != ref[i] {
					t.Fatalf("n %d init %d: Values()[%d] = %d, want %d", n, init, i, got[i], ref[i])
				}
			}
		}
	}
	c := NewCells(10*cellPage, 0)
	c.Fill(0, 10*cellPage, 0) // the initial value: nothing to hold
	c.Set(5*cellPage+3, 1)
	held := 0
	for _, p := range c.pages {
		if p != nil {
			held++
		}
	}
	if held != 1 {
		t.Fatalf("%d pages allocated after one write, want 1", held)
	}
}
