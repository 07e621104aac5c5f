package hosts

import "archsim/components/packet"

// pktPool recycles the packets that end at hosts (every NDP packet ends at
// a host: data at its sink, ACKs, NACKs and PULLs at their source), so a
// run allocates about as many packets as are in flight at once rather than
// one per packet sent. The hosts of one run (one Builder) share a pool; it
// is not safe for concurrent use.
//
// A packet is put back only where it ends: after its receiver has read it,
// or when a NIC refuses it after the end of the run. Nothing else keeps a
// packet that reached a host (switches copy what they mirror or multicast,
// and recorders keep ids, not packets).
type pktPool struct {
	l packet.FreeList
}

func newPool() *pktPool {
	// Switches' copies (packet.CopyFrom) come back with 64-byte heads.
	return &pktPool{l: packet.FreeList{HeadCap: headCap, MinCap: 64}}
}

// Get is get (packet.Pool).
func (p *pktPool) Get() *packet.Packet { return p.get() }

// Put is put (packet.Pool).
func (p *pktPool) Put(pkt *packet.Packet) { p.put(pkt) }

// get returns a zeroed packet whose head is HeaderLen zero bytes with
// room behind them (see headCap).
func (p *pktPool) get() *packet.Packet {
	if p == nil {
		return &packet.Packet{Head: make([]byte, HeaderLen, headCap)}
	}
	pkt := p.l.Get()
	pkt.Head = pkt.Head[:HeaderLen]
	clear(pkt.Head)
	return pkt
}

// put hands back a packet that has ended. Its head array goes with it.
func (p *pktPool) put(pkt *packet.Packet) {
	if p != nil {
		p.l.Put(pkt)
	}
}

// newPacket returns a length-byte NDP packet with header h and id id.
func (p *pktPool) newPacket(id uint64, flow int, h Header, length int) *packet.Packet {
	pkt := p.get()
	pkt.ID, pkt.Flow, pkt.Len = id, flow, length
	encodeTo(pkt.Head, h, length)
	return pkt
}
