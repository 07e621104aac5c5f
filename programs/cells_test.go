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

// TestCellsPutBigEndian: putBigEndian writes what a cell-by-cell encoding
// of Get writes, for every cell width, ranges across page boundaries and
// pages written or never touched, and a non-zero initial value.
func TestCellsPutBigEndian(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, init := range []int64{0, -7} {
		n := 3*cellPage + 29
		c := NewCells(n, init)
		for op := 0; op < 2000; op++ {
			if i := rng.Intn(n); i < 2*cellPage || i >= 3*cellPage { // page 2 stays untouched
				c.Set(i, int64(rng.Uint64()))
			}
		}
		for trial := 0; trial < 400; trial++ {
			w := []int{1, 2, 4, 8}[rng.Intn(4)]
			start := rng.Intn(n)
			k := rng.Intn(min(n-start, 2*cellPage+3)) + 1
			got := make([]byte, k*w)
			c.putBigEndian(got, start, k, w)
			want := make([]byte, k*w)
			for i := 0; i < k; i++ {
				u := uint64(c.Get(start + i))
				for b := 0; b < w; b++ {
					want[i*w+b] = byte(u >> (8 * (w - 1 - b)))
				}
			}
			if string(got) != string(want) {
				t.Fatalf("init %d, width %d, cells [%d, %d): bytes differ", init, w, start, start+k)
			}
		}
		if c.pages[2] != nil {
			t.Fatalf("reading allocated a page")
		}
	}
}
