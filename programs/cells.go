package programs

import "encoding/binary"

// Cells holds the cells of one register in pages of 1<<cellPageBits
// cells, each allocated at the first access that may write it: a page
// never touched reads as the register's initial value and costs no
// memory. Memory then follows the cells a run uses, not the register's
// declared size (Trio-ML's aggregation buffer has BLOCKS x GRAD_MAX cells,
// of which a job touches its own blocks').
type Cells struct {
	pages [][]int64
	init  int64
	n     int
}

const (
	cellPageBits = 12
	cellPage     = 1 << cellPageBits
)

// NewCells returns n cells holding init.
func NewCells(n int, init int64) *Cells {
	return &Cells{pages: make([][]int64, (n+cellPage-1)/cellPage), init: init, n: n}
}

// Len is the number of cells.
func (c *Cells) Len() int { return c.n }

// Get reads cell i (0 <= i < Len()).
func (c *Cells) Get(i int) int64 {
	if p := c.pages[i>>cellPageBits]; p != nil {
		return p[i&(cellPage-1)]
	}
	return c.init
}

// Set writes cell i.
func (c *Cells) Set(i int, v int64) { *c.Ptr(i) = v }

// Ptr returns cell i's storage, allocating its page.
func (c *Cells) Ptr(i int) *int64 {
	p := c.pages[i>>cellPageBits]
	if p == nil {
		p = c.page(i >> cellPageBits)
	}
	return &p[i&(cellPage-1)]
}

// Slice returns cells [i, i+n) as a slice of their page's storage,
// allocating the page; they must be on one page (i>>12 == (i+n-1)>>12).
func (c *Cells) Slice(i, n int) []int64 {
	p := c.pages[i>>cellPageBits]
	if p == nil {
		p = c.page(i >> cellPageBits)
	}
	o := i & (cellPage - 1)
	return p[o : o+n : o+n]
}

// page allocates page k, its cells at the initial value.
func (c *Cells) page(k int) []int64 {
	p := make([]int64, min(cellPage, c.n-k*cellPage))
	if c.init != 0 {
		for i := range p {
			p[i] = c.init
		}
	}
	c.pages[k] = p
	return p
}

// Values returns a copy of every cell (for reports and tests).
func (c *Cells) Values() []int64 {
	out := make([]int64, c.n)
	for i := range out {
		out[i] = c.Get(i)
	}
	return out
}

// Fill sets cells [start, start+n) to v; pages never touched stay
// unallocated when v is the initial value.
func (c *Cells) Fill(start, n int, v int64) {
	for i := start; i < start+n; {
		k := i >> cellPageBits
		end := min(start+n, (k+1)*cellPage)
		if p := c.pages[k]; p != nil {
			for j := i; j < end; j++ {
				p[j&(cellPage-1)] = v
			}
		} else if v != c.init {
			p := c.page(k)
			for j := i; j < end; j++ {
				p[j&(cellPage-1)] = v
			}
		}
		i = end
	}
}

// putBigEndian writes cells [start, start+n) into out, each big-endian in
// w bytes (its low w bytes), page by page (Trio-ML's result packets copy
// 1024 cells each).
func (c *Cells) putBigEndian(out []byte, start, n, w int) {
	o := 0
	for i := start; i < start+n; {
		k := i >> cellPageBits
		end := min(start+n, (k+1)*cellPage)
		p := c.pages[k]
		if p == nil || w != 4 {
			for j := i; j < end; j, o = j+1, o+w {
				u := uint64(c.init)
				if p != nil {
					u = uint64(p[j&(cellPage-1)])
				}
				for b := 0; b < w; b++ {
					out[o+b] = byte(u >> (8 * (w - 1 - b)))
				}
			}
		} else {
			for _, v := range p[i&(cellPage-1) : (end-1)&(cellPage-1)+1] {
				binary.BigEndian.PutUint32(out[o:], uint32(v))
				o += 4
			}
		}
		i = end
	}
}

// Counts holds one counter's {packets, bytes} cells in pages of
// 1<<countPageBits, each allocated at its first count: a counter is
// declared per port (ndp.p4's eight are 4 096 entries each, in every
// pipe) and a run counts a few ports, so a Tofino switch no longer
// zeroes megabytes it never reads.
type Counts struct {
	pages [][][2]int64
	n     int
}

const (
	countPageBits = 8
	countPage     = 1 << countPageBits
)

// NewCounts returns n cells at zero.
func NewCounts(n int) Counts {
	return Counts{pages: make([][][2]int64, (n+countPage-1)/countPage), n: n}
}

// Len is the number of cells.
func (c *Counts) Len() int { return c.n }

// Get reads cell i (0 <= i < Len()): {packets, bytes}.
func (c *Counts) Get(i int) [2]int64 {
	if p := c.pages[i>>countPageBits]; p != nil {
		return p[i&(countPage-1)]
	}
	return [2]int64{}
}

// Ptr returns cell i's storage, allocating its page.
func (c *Counts) Ptr(i int) *[2]int64 {
	p := c.pages[i>>countPageBits]
	if p == nil {
		p = make([][2]int64, min(countPage, c.n-(i>>countPageBits)*countPage))
		c.pages[i>>countPageBits] = p
	}
	return &p[i&(countPage-1)]
}
