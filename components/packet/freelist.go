package packet

// FreeList is a Pool over a free list: it hands back, last in first out,
// the packets given back to it, so a run allocates about as many packets
// as are in flight at once rather than one per packet sent. It is not
// safe for concurrent use.
type FreeList struct {
	// HeadCap is the capacity of the heads of the packets it makes; it
	// keeps only packets whose head has at least MinCap bytes of capacity
	// (0: HeadCap).
	HeadCap, MinCap int
	free            []*Packet
}

// maxFree bounds the packets a free list keeps.
const maxFree = 1 << 16

// Get returns a zeroed packet with an empty head (Pool). The bytes behind
// the head's length are stale.
func (l *FreeList) Get() *Packet {
	if n := len(l.free); n > 0 {
		pkt := l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
		*pkt = Packet{Head: pkt.Head[:0]}
		return pkt
	}
	return &Packet{Head: make([]byte, 0, l.HeadCap)}
}

// Put takes back a packet that has ended (Pool); nil, a packet with a
// smaller head than the list keeps, or one past its bound is left to the
// garbage collector.
func (l *FreeList) Put(pkt *Packet) {
	minCap := l.MinCap
	if minCap == 0 {
		minCap = l.HeadCap
	}
	if pkt == nil || cap(pkt.Head) < minCap || len(l.free) >= maxFree {
		return
	}
	l.free = append(l.free, pkt)
}
