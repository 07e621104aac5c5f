package programs

import (
	"math"
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

// TestCounts: counter cells read zero until counted, count on their own
// page, and the last, short page holds exactly the cells past the full
// pages.
func TestCounts(t *testing.T) {
	c := NewCounts(2*countPage + 3)
	if c.Len() != 2*countPage+3 {
		t.Fatalf("Len %d", c.Len())
	}
	for _, i := range []int{0, countPage - 1, countPage, 2*countPage + 2} {
		if got := c.Get(i); got != [2]int64{} {
			t.Fatalf("cell %d reads %v before any count", i, got)
		}
		p := c.Ptr(i)
		p[0]++
		p[1] += int64(100 + i)
	}
	for _, i := range []int{0, countPage - 1, countPage, 2*countPage + 2} {
		if got, want := c.Get(i), [2]int64{1, int64(100 + i)}; got != want {
			t.Errorf("cell %d = %v, want %v", i, got, want)
		}
	}
	if got := c.Get(1); got != [2]int64{} {
		t.Errorf("cell 1 = %v, counted through a neighbour", got)
	}
	if n := len(c.pages[2]); n != 3 {
		t.Errorf("last page holds %d cells, want 3", n)
	}
}

// TestCellIndexOfEveryValue: an index selects |v| mod size for every
// 64-bit value, the most negative one (2^63) included.
func TestCellIndexOfEveryValue(t *testing.T) {
	for _, c := range []struct {
		v, size int64
		want    int
	}{{5, 3, 2}, {-5, 3, 2}, {0, 7, 0}, {math.MaxInt64, 100, 7}, {math.MinInt64, 100, 8}, {math.MinInt64, 10, 8}, {math.MinInt64, 1 << 10, 0}} {
		if got := cellIndex(c.v, c.size); got != c.want {
			t.Errorf("cellIndex(%d, %d) = %d, want %d", c.v, c.size, got, c.want)
		}
	}
}
