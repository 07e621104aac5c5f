package programs

import "math"

// Unsigned 64-bit values. A bit<64> field's values use all 64 bits, held
// in an int64 as their bit pattern, so comparisons, min and max and the
// saturating operations read them as unsigned: values from 2^63 up would
// otherwise compare as negative. A constant compared with such a field is
// its 64-bit pattern (0xffffffffffffffff, 1 << 63, or -1 alike).

// u64 reports whether t is the unsigned 64-bit type.
func u64(t Type) bool { return t.Bits == 64 && !t.Signed }

// unsignedCompare reports whether a comparison of a and b compares
// unsigned 64-bit values: neither side is signed and one is 64 bits wide.
func unsignedCompare(a, b Expr) bool {
	ta, tb := a.Type(), b.Type()
	return !ta.Signed && !tb.Signed && (ta.Bits == 64 || tb.Bits == 64)
}

// flip maps unsigned order onto signed order: a <u b iff flip(a) < flip(b).
func flip(v int64) int64 { return v ^ math.MinInt64 }

// minOf and maxOf are min and max of values of type t.
func minOf(a, b int64, t Type) int64 {
	if u64(t) {
		if uint64(a) <= uint64(b) {
			return a
		}
		return b
	}
	return min(a, b)
}

func maxOf(a, b int64, t Type) int64 {
	if u64(t) {
		if uint64(a) >= uint64(b) {
			return a
		}
		return b
	}
	return max(a, b)
}
