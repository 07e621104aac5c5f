package programs

import "sort"

// rangeIndex answers the lookups of a table with one key matched by range
// (or exactly, a range of one value) in O(log n) instead of a scan of its
// entries in priority order: the entries' bounds cut the key space into
// elementary intervals, each inside or outside every entry's range, and
// each interval holds the first entry in priority order that covers it.
// (PIE_TABLE maps the queue delay through two range tables of 300 and 150
// entries on every packet.)
type rangeIndex struct {
	// starts are the intervals' first values, ascending; winner[i] is the
	// entry of the interval from starts[i] up to starts[i+1]-1 (nil: no
	// entry covers it). Values below starts[0] match nothing.
	starts []int64
	winner []*Entry
	// flip is XORed into bounds and looked-up values: the sign bit for a
	// bit<64> key (so that int64 order is its unsigned order), else 0.
	flip int64
}

// rangeIndexAfter is how many lookups scan a range table unchanged before
// it is indexed (see TableState.ranges).
const rangeIndexAfter = 32

// rangeIndexable reports whether t's entries (ordered) can be indexed by
// buildRangeIndex: exactly one key, matched by range or exactly, and
// entries enough that a scan is slower than a binary search.
func rangeIndexable(t *Table, ordered []*Entry) bool {
	return len(t.Keys) == 1 && len(ordered) >= 8 && (t.Keys[0].Kind == MatchRange || t.Keys[0].Kind == MatchExact)
}

// buildRangeIndex indexes ordered, the entries of t in priority order; nil
// when rangeIndexable(t, ordered) is false.
func buildRangeIndex(t *Table, ordered []*Entry) *rangeIndex {
	if !rangeIndexable(t, ordered) {
		return nil
	}
	kind := t.Keys[0].Kind
	flip := int64(0)
	if t.Keys[0].unsigned64() {
		flip = -1 << 63
	}
	bounds := func(e *Entry) (lo, hi int64) {
		if kind == MatchExact {
			return e.Values[0] ^ flip, e.Values[0] ^ flip
		}
		return e.Values[0] ^ flip, e.Masks[0] ^ flip
	}
	// Every interval starts at an entry's low bound or just after its
	// high bound (none after the largest int64).
	var cuts []int64
	for _, e := range ordered {
		lo, hi := bounds(e)
		if lo > hi {
			continue // an empty range matches nothing
		}
		cuts = append(cuts, lo)
		if hi < 1<<63-1 {
			cuts = append(cuts, hi+1)
		}
	}
	if len(cuts) == 0 {
		return nil
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i] < cuts[j] })
	ix := &rangeIndex{flip: flip}
	for i, c := range cuts {
		if i > 0 && c == cuts[i-1] {
			continue
		}
		ix.starts = append(ix.starts, c)
	}
	// Entries in priority order claim the intervals of their range that
	// no earlier entry claimed; next skips claimed intervals (with path
	// halving), so building costs O(n log n) plus the intervals.
	n := len(ix.starts)
	ix.winner = make([]*Entry, n)
	next := make([]int, n+1)
	for i := range next {
		next[i] = i
	}
	free := func(i int) int { // the first unclaimed interval at or after i
		for next[i] != i {
			next[i] = next[next[i]]
			i = next[i]
		}
		return i
	}
	for _, e := range ordered {
		lo, hi := bounds(e)
		if lo > hi {
			continue
		}
		first := sort.Search(n, func(i int) bool { return ix.starts[i] >= lo })
		// No bound falls inside an interval, so the entry covers every
		// interval from the one starting at lo to the last starting at
		// or below hi.
		for i := free(first); i < n && ix.starts[i] <= hi; i = free(i + 1) {
			ix.winner[i] = e
			next[i] = i + 1
		}
	}
	return ix
}

// get returns the first entry in priority order whose range holds v.
func (ix *rangeIndex) get(v int64) *Entry {
	v ^= ix.flip
	// The last interval starting at or below v.
	lo, hi := 0, len(ix.starts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ix.starts[m] <= v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return nil
	}
	return ix.winner[lo-1]
}
