package hosts

import (
	"bytes"
	"reflect"
	"testing"

	"archsim/components/packet"
)

// TestPoolPacketsAreFresh checks that a recycled packet is
// indistinguishable from a new one: every field zero but its id, flow,
// length and head, and the head exactly what encode writes.
func TestPoolPacketsAreFresh(t *testing.T) {
	p := newPool()
	h := Header{Src: HostIP(1), Dst: HostIP(2), Flow: 3, Flags: FlagACK, Seq: 4, Pull: 5}
	a := p.newPacket(7, 3, h, 64)
	// Dirty it as a switch would, then hand it back.
	a.OutPort, a.Trimmed, a.EgressOutPs, a.Passes = 9, true, 123, 2
	a.Head = append(a.Head[:HeaderLen], 1, 2, 3)
	for i := range a.Head {
		a.Head[i] = 0xff
	}
	p.put(a)
	h2 := Header{Src: HostIP(5), Dst: HostIP(6), Flow: 8, Seq: 9}
	b := p.newPacket(11, 8, h2, 1500)
	if b != a {
		t.Fatal("the pool did not reuse the packet")
	}
	want := packet.Packet{ID: 11, Flow: 8, Len: 1500}
	got := *b
	got.Head = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recycled packet %+v, want %+v", got, want)
	}
	if !bytes.Equal(b.Head, encode(h2, 1500)) || cap(b.Head) < 64 {
		t.Errorf("recycled head %x (cap %d), want %x", b.Head, cap(b.Head), encode(h2, 1500))
	}
	var nilPool *pktPool
	nilPool.put(b) // a host built without a pool just allocates
	if c := nilPool.newPacket(1, 1, h, 64); c == b || !bytes.Equal(c.Head, encode(h, 64)) {
		t.Error("nil pool")
	}
}
