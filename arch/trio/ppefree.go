package trio

import "math/bits"

// freeIndex finds the PPE the dispatcher picks — the one with the most
// free threads, the lowest index on ties — without scanning every PPE:
// it keeps, for each count of free threads, the set of PPEs with that
// many as a bitset.
type freeIndex struct {
	sets [][]uint64 // sets[f]: the PPEs with f free threads
	top  int        // no set above top holds a PPE
}

// init holds n PPEs with f free threads each.
func (x *freeIndex) init(n, f int) {
	words := (n + 63) / 64
	x.sets = make([][]uint64, f+1)
	for i := range x.sets {
		x.sets[i] = make([]uint64, words)
	}
	for i := 0; i < n; i++ {
		x.sets[f][i/64] |= 1 << (i % 64)
	}
	x.top = f
}

// move records that PPE i went from `from` to `to` free threads.
func (x *freeIndex) move(i, from, to int) {
	x.sets[from][i/64] &^= 1 << (i % 64)
	x.sets[to][i/64] |= 1 << (i % 64)
	x.top = max(x.top, to)
}

// best returns the PPE with the most free threads (lowest index first),
// or -1 when none has a free thread.
func (x *freeIndex) best() int {
	for ; x.top > 0; x.top-- {
		for w, word := range x.sets[x.top] {
			if word != 0 {
				return w*64 + bits.TrailingZeros64(word)
			}
		}
	}
	return -1
}
