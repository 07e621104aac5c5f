// Package pooltest is a packet.Pool for tests of components that share a
// run's pool: it hands out the packets given back to it, last in first
// out, so a packet still held after it was given back is overwritten by
// the next one taken and shows up corrupted; it counts what it gives and
// takes.
package pooltest

import "archsim/components/packet"

// Reusing is the pool. Free may be seeded with used packets (stale fields
// and bytes) that the first Gets hand out.
type Reusing struct {
	Free       []*packet.Packet
	Gets, Puts int
}

// Get returns the last packet given back, cleared, or a new one with 64
// bytes of head capacity.
func (p *Reusing) Get() *packet.Packet {
	p.Gets++
	if n := len(p.Free); n > 0 {
		pkt := p.Free[n-1]
		p.Free = p.Free[:n-1]
		*pkt = packet.Packet{Head: pkt.Head[:0]}
		return pkt
	}
	return &packet.Packet{Head: make([]byte, 0, 64)}
}

// Put takes a packet back.
func (p *Reusing) Put(pkt *packet.Packet) { p.Puts++; p.Free = append(p.Free, pkt) }
