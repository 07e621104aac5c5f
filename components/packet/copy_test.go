package packet

import (
	"bytes"
	"reflect"
	"testing"
)

// TestCopyIsClone checks that Copy makes what Clone makes (fields and head
// bytes, not shared with the original) for heads up to and past the
// inline capacity.
func TestCopyIsClone(t *testing.T) {
	for _, n := range []int{0, 1, 50, copyHeadCap, copyHeadCap + 1, 300} {
		head := make([]byte, n)
		for i := range head {
			head[i] = byte(i + 1)
		}
		p := &Packet{ID: 3, Flow: 4, Head: head, Len: 1500, OutPort: 7, Mirror: true, EnqPs: 9, Passes: 2}
		a, b := p.Copy(), p.Clone()
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("len %d: Copy %+v, Clone %+v", n, a, b)
		}
		if n > 0 {
			a.Head[0] ^= 0xff
			if !bytes.Equal(p.Head, head) || p.Head[0] != 1 {
				t.Fatalf("len %d: Copy shares the original's head", n)
			}
		}
	}
}
