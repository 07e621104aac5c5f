package hosts

import (
	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// Builder builds hosts (Akita style: value receiver, WithX, then
// BuildNDP or BuildCBR with the host's name and workload).
type Builder struct {
	engine     sim.Engine
	idx, port  int
	uplink     sim.Handler
	rec        *Recorder
	deadlinePs int64
	pool       *pktPool // shared by the hosts built from this builder and its copies
}

// MakeBuilder returns a builder for host 0 on port 0 with no deadline.
func MakeBuilder() Builder { return Builder{deadlinePs: 1 << 62, pool: newPool()} }

// WithEngine sets the Akita engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithHost sets the host's index (its address, hosts.HostIP) and the
// switch port it is attached to.
func (b Builder) WithHost(idx, port int) Builder { b.idx, b.port = idx, port; return b }

// WithUplink sets where the host's NIC sends (the switch port's ingress,
// or a link).
func (b Builder) WithUplink(h sim.Handler) Builder { b.uplink = h; return b }

// WithRecorder sets the recorder of packet fates and flow statistics.
func (b Builder) WithRecorder(r *Recorder) Builder { b.rec = r; return b }

// Recorder is the recorder the builder's hosts report to (nil: none).
func (b Builder) Recorder() *Recorder { return b.rec }

// WithDeadline stops the host's sending at ps (the end of the run).
func (b Builder) WithDeadline(ps int64) Builder { b.deadlinePs = ps; return b }

func (b Builder) check() {
	if b.engine == nil || b.uplink == nil || b.rec == nil {
		panic("hosts.Builder: engine, uplink and recorder are required")
	}
}

// Pool is the packet pool of the hosts built from this builder (a switch
// of the run takes its copies from it and gives it the packets it drops).
func (b Builder) Pool() packet.Pool { return b.pool }

// Recycle returns a packet that has ended (a switch dropped it) to the
// packet pool of the hosts built from this builder, so the next packet
// they send reuses it. Only a packet nothing else holds may be recycled.
func (b Builder) Recycle(pkt *packet.Packet) { b.pool.put(pkt) }
