package compiler

import (
	"math/bits"

	"archsim/programs"
)

// fieldSet is a set of fields keyed by PHV slot, as a bitset so iteration
// order is deterministic (never a Go map).
type fieldSet []uint64

func (s *fieldSet) add(f *programs.Field) {
	i := f.Slot
	for len(*s) <= i/64 {
		*s = append(*s, 0)
	}
	(*s)[i/64] |= 1 << uint(i%64)
}

func (s fieldSet) has(f *programs.Field) bool {
	i := f.Slot
	return i/64 < len(s) && s[i/64]&(1<<uint(i%64)) != 0
}

func (s *fieldSet) union(o fieldSet) {
	for len(*s) < len(o) {
		*s = append(*s, 0)
	}
	for i, w := range o {
		(*s)[i] |= w
	}
}

// firstCommon returns the lowest slot in both sets, or -1.
func (s fieldSet) firstCommon(o fieldSet) int {
	for i := 0; i < len(s) && i < len(o); i++ {
		if w := s[i] & o[i]; w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

func (s fieldSet) empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// slots lists the members in slot order.
func (s fieldSet) slots() []int {
	var out []int
	for i, w := range s {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, i*64+b)
			w &^= 1 << uint(b)
		}
	}
	return out
}
