package stats

// countMap counts int64 values: open addressing with linear probing over a
// power-of-two array at most half full (a count of 0 marks an empty slot).
// It replaces a Go map on the hot path of Samples.Add (a latency sample per
// pipeline pass): no hashing of the key beyond a multiply, no buckets.
type countMap struct {
	keys   []int64
	counts []int
	shift  uint // 64 - log2(len(keys))
	n      int
}

func newCountMap(hint int) *countMap {
	m := &countMap{}
	size := 16
	for size < 2*hint {
		size *= 2
	}
	m.alloc(size)
	return m
}

func (m *countMap) alloc(size int) {
	bits := uint(0)
	for 1<<bits < size {
		bits++
	}
	m.keys, m.counts, m.shift, m.n = make([]int64, size), make([]int, size), 64-bits, 0
}

// add adds c (> 0) to x's count.
func (m *countMap) add(x int64, c int) {
	mask := len(m.keys) - 1
	i := int(uint64(x) * 0x9E3779B97F4A7C15 >> m.shift)
	for m.counts[i] != 0 {
		if m.keys[i] == x {
			m.counts[i] += c
			return
		}
		i = (i + 1) & mask
	}
	m.keys[i], m.counts[i] = x, c
	m.n++
	if 2*m.n > len(m.keys) {
		m.grow()
	}
}

// get returns x's count (0: none).
func (m *countMap) get(x int64) int {
	mask := len(m.keys) - 1
	for i := int(uint64(x) * 0x9E3779B97F4A7C15 >> m.shift); m.counts[i] != 0; i = (i + 1) & mask {
		if m.keys[i] == x {
			return m.counts[i]
		}
	}
	return 0
}

func (m *countMap) grow() {
	keys, counts := m.keys, m.counts
	m.alloc(2 * len(keys))
	for i, c := range counts {
		if c != 0 {
			m.add(keys[i], c)
		}
	}
}

// len is the number of distinct values.
func (m *countMap) len() int {
	if m == nil {
		return 0
	}
	return m.n
}

// each calls f for every value and its count, in slot order.
func (m *countMap) each(f func(x int64, c int)) {
	if m == nil {
		return
	}
	for i, c := range m.counts {
		if c != 0 {
			f(m.keys[i], c)
		}
	}
}
