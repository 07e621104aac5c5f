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

// slicePool is a packet.Pool over a slice, for tests.
type slicePool struct{ free []*Packet }

func (p *slicePool) Get() *Packet {
	if n := len(p.free); n > 0 {
		pkt := p.free[n-1]
		p.free = p.free[:n-1]
		*pkt = Packet{Head: pkt.Head[:0]}
		return pkt
	}
	return &Packet{Head: make([]byte, 0, 64)}
}

func (p *slicePool) Put(pkt *Packet) { p.free = append(p.free, pkt) }

// TestCopyFromPool: a copy taken from a pool (reusing a packet with a
// longer, dirty head) has Copy's fields and head bytes, shares no bytes
// with the original, and a head longer than Copy keeps falls back to Copy.
func TestCopyFromPool(t *testing.T) {
	pool := &slicePool{}
	old := &Packet{ID: 9, Head: append(make([]byte, 0, 96), bytes.Repeat([]byte{0xee}, 70)...)}
	pool.Put(old)
	p := &Packet{ID: 7, Flow: 3, Len: 1500, InPort: 5, OutPort: 9, Qid: 2, Head: []byte{1, 2, 3, 4, 5}}
	c := CopyFrom(pool, p)
	want := p.Copy()
	if c != old {
		t.Fatal("the copy did not come from the pool")
	}
	if !bytes.Equal(c.Head, want.Head) || c.ID != want.ID || c.Flow != want.Flow || c.Len != want.Len || c.InPort != want.InPort || c.OutPort != want.OutPort || c.Qid != want.Qid {
		t.Fatalf("copy %+v, want %+v", c, want)
	}
	c.Head[0] = 99
	if p.Head[0] != 1 {
		t.Fatal("the copy shares its head with the original")
	}
	long := &Packet{Head: make([]byte, copyHeadCap+1)}
	if c := CopyFrom(pool, long); len(pool.free) != 0 && c == pool.free[0] {
		t.Fatal("a long head took a pooled packet")
	}
	if c := CopyFrom(nil, p); !bytes.Equal(c.Head, p.Head) {
		t.Fatal("no pool: not a copy")
	}
}
