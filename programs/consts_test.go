package programs

import (
	"strings"
	"testing"
)

// TestConstOverflow: constant arithmetic is 64-bit and does not wrap; a
// bit pattern with the top bit set and negative shifts of a sign stay
// allowed.
func TestConstOverflow(t *testing.T) {
	s := &constScope{names: map[string]number{}}
	for _, c := range []struct {
		src  string
		want int64
		err  string
	}{
		{"4611686018427387904 * 4", 0, "overflows 64 bits"},
		{"9223372036854775807 + 1", 0, "overflows 64 bits"},
		{"-9223372036854775807 - 2", 0, "overflows 64 bits"},
		{"1 << 64", 0, "shift count 64"},
		{"1 << -1", 0, "shift count -1"},
		{"5 >> 70", 0, "shift count 70"},
		{"1 << 63", -1 << 63, ""},
		{"3 << 62", -1 << 62, ""},
		{"-1 << 8", -256, ""},
		{"1 << 62 + 1", 1<<62 + 1, ""}, // Go precedence: << binds tighter
		{"-3 * 4", -12, ""},
		{"9223372036854775807 - 1", 9223372036854775806, ""},
	} {
		v, err := s.evalConstString(c.src)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, %v; want an error with %q", c.src, v.i, err, c.err)
		case c.err == "" && (err != nil || v.i != c.want):
			t.Errorf("%s: %v, %v; want %d", c.src, v.i, err, c.want)
		}
	}
}
