// Package packet defines the packet that travels between archsim's
// components: the first bytes of the frame (headers) plus its total length,
// and the timestamps the statistics need.
package packet

// Packet is a frame in flight. Only the first bytes (Head) are stored; the
// rest of the frame (Len - len(Head) bytes) is payload whose content the
// model never reads.
type Packet struct {
	ID   uint64
	Flow int // index of the traffic template that made it
	Head []byte
	Len  int // total length in bytes (L2 frame without preamble/IFG)

	InPort  int // device port the packet arrived on
	OutPort int // device port chosen by the ingress pipeline
	Qid     int

	// Set by the ingress deparser for the traffic manager.
	Drop          bool
	DeflectOnDrop bool
	McastGrp      int
	Mirror        bool
	MirrorSession int
	Recirculate   bool
	BypassEgress  bool
	TrimDisable   bool // drop rather than trim on a trim-eligible queue (ACL DISABLE_TRIM)

	// Set by the traffic manager for the egress pipeline.
	EnqDepthCells int
	DeqDepthCells int
	EnqPs         int64
	DeqDeltaPs    int64
	Deflected     bool
	Mirrored      bool // a mirror copy (I2E, E2E or mirror-on-drop)
	OrigPort      int  // the port a deflected packet was heading for
	NoBridge      bool // an egress-to-egress mirror copy: no bridged metadata in front
	Trimmed       bool // a copy the traffic manager trimmed (SONiC packet_discard_action = trim)
	// PacedLen is the frame length the traffic manager paced the port by
	// when it sent the packet to egress (0: none); the egress pipeline
	// reports the length it really leaves with.
	PacedLen int

	// Timestamps in picoseconds.
	BornPs       int64
	IngressInPs  int64
	IngressOutPs int64
	EgressInPs   int64
	EgressOutPs  int64
	Passes       int // ingress passes (recirculations + 1)
}

// Arrival is a packet offered to a switch port at a time (a traffic
// generator's output).
type Arrival struct {
	Pkt  *Packet
	Port int
	AtPs int64
}

// Pool hands out packets and takes back the ones that ended. The hosts of
// a run and its switches share one, so a switch's copies (trimmed headers,
// multicast) reuse the packets it drops and the hosts' ended packets.
type Pool interface {
	// Get returns a zeroed packet with a head of at least 64 bytes of
	// capacity.
	Get() *Packet
	// Put takes back a packet nothing holds any more.
	Put(*Packet)
}

// CopyFrom is Copy into a packet from pool (a plain Copy when pool is nil
// or the head is longer than Copy keeps next to a packet): the same
// fields and head bytes.
func CopyFrom(pool Pool, p *Packet) *Packet {
	if pool == nil || len(p.Head) == 0 || len(p.Head) > copyHeadCap {
		return p.Copy()
	}
	c := pool.Get()
	head := c.Head[:0]
	*c = *p
	c.Head = append(head, p.Head...)
	return c
}

// copyHeadCap is the head bytes Copy places next to the packet.
const copyHeadCap = 80

// Copy is Clone in one allocation: a copy whose head bytes (up to
// copyHeadCap, with room to grow in place) live next to it. The copy's
// fields and head bytes are Clone's.
func (p *Packet) Copy() *Packet {
	if len(p.Head) == 0 || len(p.Head) > copyHeadCap {
		return p.Clone()
	}
	b := &struct {
		pkt  Packet
		head [copyHeadCap]byte
	}{pkt: *p}
	b.pkt.Head = append(b.head[:0], p.Head...)
	return &b.pkt
}
