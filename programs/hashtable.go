package programs

import (
	"hash/crc32"
)

// An exact table's entries live in its size record slots, as the records
// of a Trio hash table do (the Trio paper §5): an entry takes the first
// free slot from its key's home slot, KeySlot(key, size), probing
// linearly (wrapping). A key index maps each key to its slot, so a lookup
// finds its entry at once and a removal simply frees the slot (no
// tombstone is needed: probing serves only to place an insert). Each
// occupied slot has a Recently Referenced (REF) flag, set when the entry
// is created and by every lookup that hits it, read and cleared by
// T.aged(I).

// record is one occupied record slot.
type record struct {
	slot int
	key  [maxExactKeys]int64
	e    *Entry
	ref  bool
}

// maxExactKeys is the most keys an exact table indexes by value.
const maxExactKeys = 8

// KeySlot returns the home record slot of an exact key in a table of size
// slots: the CRC-32 (IEEE) of the key values, each as 8 little-endian
// bytes, modulo size (the hash the Trio model's lookups charge on).
func KeySlot(key []int64, size int) int {
	var crc uint32
	var b [8]byte
	for _, k := range key {
		for i := range b {
			b[i] = byte(k >> (8 * i))
		}
		crc = crc32.Update(crc, crc32.IEEETable, b[:])
	}
	return int(int64(crc) % int64(max(1, size)))
}

// slotFor returns the slot of key: the slot holding it (found), or the
// first free slot from its home (not found); -1 when the key is absent
// and every slot is taken.
func (ts *TableState) slotFor(k [maxExactKeys]int64) (slot int, found bool) {
	if r := ts.exact[k]; r != nil {
		return r.slot, true
	}
	size := ts.T.Size
	if len(ts.exact) >= size {
		return -1, false
	}
	s := KeySlot(k[:len(ts.T.Keys)], size)
	for ts.slots[s] != nil {
		s++
		if s == size {
			s = 0
		}
	}
	return s, false
}

// put installs e under key k (an entry with the same key is replaced in
// its slot), REF set. It returns the slot, or -1 when the table is full.
func (ts *TableState) put(k [maxExactKeys]int64, e *Entry) int {
	s, found := ts.slotFor(k)
	switch {
	case found:
		r := ts.slots[s]
		r.e, r.ref = e, true
	case s >= 0:
		r := &record{slot: s, key: k, e: e, ref: true}
		ts.slots[s] = r
		ts.exact[k] = r
		if len(ts.T.Keys) == 1 {
			if ts.one == nil {
				ts.one = &keyIndex{}
			}
			ts.one.set(k[0], r)
		}
	}
	return s
}

// exactRecord returns the record of the exact key k, or nil (ts is an
// exact table). A one-key table's key is found in its keyIndex.
func (ts *TableState) exactRecord(k *[maxExactKeys]int64) *record {
	if ts.one != nil {
		return ts.one.get(k[0])
	}
	if len(ts.exact) == 0 {
		return nil
	}
	return ts.exact[*k]
}

// remove deletes the entry with key k and returns its slot (-1: none).
func (ts *TableState) remove(k [maxExactKeys]int64) int {
	r := ts.exact[k]
	if r == nil {
		return -1
	}
	delete(ts.exact, k)
	delete(ts.slots, r.slot)
	if ts.one != nil {
		ts.one.del(k[0])
	}
	return r.slot
}

// aged visits slot i: true when it holds an entry whose REF flag is
// clear; a set flag is cleared. occupied tells whether the slot holds an
// entry (false also for i outside the table).
func (ts *TableState) aged(i int64) (aged, occupied bool) {
	r := ts.record(i)
	if r == nil {
		return false, false
	}
	if r.ref {
		r.ref = false
		return false, true
	}
	return true, true
}

// record returns the record in slot i, or nil.
func (ts *TableState) record(i int64) *record {
	if ts.slots == nil || i < 0 || i >= int64(ts.T.Size) {
		return nil
	}
	return ts.slots[int(i)]
}

// Slot returns the record slot holding the exact key vals and whether
// there is one (false also for a table that is not exact).
func (ts *TableState) Slot(vals []int64) (int, bool) {
	if ts.exact == nil {
		return 0, false
	}
	var k [maxExactKeys]int64
	copy(k[:], vals)
	if r := ts.exact[k]; r != nil {
		return r.slot, true
	}
	return 0, false
}

// SlotEntry returns the entry in record slot i and its REF flag (nil: an
// empty slot, a slot outside the table, or a table that is not exact).
func (ts *TableState) SlotEntry(i int) (e *Entry, ref bool) {
	if r := ts.record(int64(i)); r != nil {
		return r.e, r.ref
	}
	return nil, false
}

// Len returns the number of entries the table holds.
func (ts *TableState) Len() int {
	if ts.exact != nil {
		return len(ts.exact)
	}
	return len(ts.ordered)
}
