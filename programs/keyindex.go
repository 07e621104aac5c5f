package programs

// keyIndex maps the key value of an exact table with a single key to its
// record: open addressing with linear probing over a power-of-two array,
// at most half full, with backward-shift deletion (no tombstones). It is
// a faster form of TableState.exact for the common one-key table (a Go
// map keyed by the [maxExactKeys]int64 array hashes and compares 64 bytes
// per lookup); both are maintained together and always agree.
type keyIndex struct {
	keys  []int64
	recs  []*record // nil: empty slot
	shift uint      // 64 - log2(len(keys))
	n     int
}

// home returns the first slot to probe for k (Fibonacci hashing).
func (ix *keyIndex) home(k int64) int {
	return int(uint64(k) * 0x9E3779B97F4A7C15 >> ix.shift)
}

// get returns the record of key k, or nil.
func (ix *keyIndex) get(k int64) *record {
	if ix.n == 0 {
		return nil
	}
	mask := len(ix.keys) - 1
	for i := ix.home(k); ; i = (i + 1) & mask {
		r := ix.recs[i]
		if r == nil || ix.keys[i] == k {
			return r
		}
	}
}

// set installs (or replaces) the record of key k.
func (ix *keyIndex) set(k int64, r *record) {
	if (ix.n+1)*2 > len(ix.keys) {
		ix.grow()
	}
	mask := len(ix.keys) - 1
	i := ix.home(k)
	for ix.recs[i] != nil && ix.keys[i] != k {
		i = (i + 1) & mask
	}
	if ix.recs[i] == nil {
		ix.n++
	}
	ix.keys[i], ix.recs[i] = k, r
}

// del removes key k (if present), shifting back the entries after it in
// its probe run so that every entry stays reachable from its home.
func (ix *keyIndex) del(k int64) {
	if ix.n == 0 {
		return
	}
	mask := len(ix.keys) - 1
	i := ix.home(k)
	for {
		if ix.recs[i] == nil {
			return
		}
		if ix.keys[i] == k {
			break
		}
		i = (i + 1) & mask
	}
	ix.n--
	for j := (i + 1) & mask; ix.recs[j] != nil; j = (j + 1) & mask {
		// The entry at j may move to the hole at i when its home is not
		// cyclically within (i, j].
		h := ix.home(ix.keys[j])
		if (j-h)&mask >= (j-i)&mask {
			ix.keys[i], ix.recs[i] = ix.keys[j], ix.recs[j]
			i = j
		}
	}
	ix.keys[i], ix.recs[i] = 0, nil
}

// grow doubles the array (8 slots at first) and reinserts the entries.
func (ix *keyIndex) grow() {
	keys, recs := ix.keys, ix.recs
	size := max(8, 2*len(keys))
	bits := uint(0)
	for 1<<bits < size {
		bits++
	}
	ix.keys, ix.recs, ix.shift, ix.n = make([]int64, size), make([]*record, size), 64-bits, 0
	for i, r := range recs {
		if r != nil {
			ix.set(keys[i], r)
		}
	}
}
