package rdma

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// Conn is one RC connection (a queue-pair pair) from the requester on
// host Src to the responder on host Dst. ID is the QP number on both
// ends (BTH DestQP) and must be unique among the connections of a host.
type Conn struct {
	ID       int    // 0..MaxConns-1
	Src, Dst int    // host indices
	SrcIP    uint32 // 0: HostIP(Src)
	DstIP    uint32 // 0: HostIP(Dst)
	Stats    ConnStats
}

// MaxConns bounds connection ids (they index the NIC's QP table).
const MaxConns = 1 << 16

// ConnStats are a connection's counters (requester side: packets sent,
// NAKs and timeouts; responder side: what arrived and was answered).
type ConnStats struct {
	// Requester.
	PacketsSent int // WRITE packets sent, retransmissions included
	Retransmits int // WRITE packets sent again (go-back-N)
	NAKsRcvd    int
	Timeouts    int // transport timer expiries
	WritesDone  int
	// Responder.
	PacketsRcvd   int // WRITE packets that arrived
	Duplicates    int // PSN below the expected one: dropped and ACKed
	OutOfSequence int // PSN above the expected one: dropped
	NAKsSent      int // PSN sequence error NAKs
	AcksSent      int
	BytesPlaced   int64 // payload written to memory (in order, once)
	WritesPlaced  int   // WRITE messages whose last packet arrived in order
}

// Write is one RDMA WRITE a requester posts: Bytes at PostPs. DonePs is
// when the requester received the ACK covering its last packet (the
// completion); OnDone, if set, is called then.
type Write struct {
	Bytes  int64
	PostPs int64
	DonePs int64
	OnDone func(w *Write)

	first, last int64 // PSNs (unwrapped)
}

// IDSource numbers the frames a host sends (data: a WRITE packet, else
// an ACK/NAK), e.g. hosts.Recorder.NewID.
type IDSource func(data bool, conn int) uint64

type counter struct{ n uint64 }

func (c *counter) next(bool, int) uint64 { c.n++; return c.n }

// Event kinds of the NIC's own wake-ups; Port is the connection id.
const (
	evTx      = packet.KindLocal + iota // the NIC finished a frame: send the next
	evPost                              // a posted WRITE becomes active
	evTimeout                           // a requester's transport timer
)

// Host is a RoCEv2 NIC (and its host) holding requester and responder
// QPs. The NIC sends one frame at a time at NICGbps: ACKs and NAKs
// first, then the requesters with packets to send in round robin, so a
// NAK or a timeout changes what goes out from the next frame on. A frame
// reaches the uplink (the switch port's ingress) PropPs + NICDelayPs
// after its last bit left the NIC.
type Host struct {
	*sim.ComponentBase
	engine     sim.Engine
	cfg        Config
	idx, port  int
	ip         uint32
	uplink     sim.Handler
	deadlinePs int64
	newID      IDSource
	pool       *packet.FreeList

	reqs   []*requester // by connection id
	resps  []*responder
	ready  []*requester // requesters with packets to send (round robin)
	ctrl   []Header     // ACKs and NAKs waiting for the NIC
	ctrlAt int
	txBusy bool // an evTx is pending
	free   int64
	ser    packet.SerialMemo
	ipID   uint16
	hdr    Header

	// FramesSent and BytesSent count the NIC's output; Unknown counts
	// frames that matched no QP of this host.
	FramesSent int64
	BytesSent  int64
	Unknown    int64
}

// Builder builds RoCEv2 hosts (value receiver, WithX, then Build).
type Builder struct {
	engine     sim.Engine
	cfg        Config
	idx, port  int
	ip         uint32
	uplink     sim.Handler
	deadlinePs int64
	newID      IDSource
	pool       *packet.FreeList
}

// MakeBuilder returns a builder with DefaultConfig for host 0 on port 0
// and no deadline. Hosts built from one builder share a packet pool and
// frame numbering.
func MakeBuilder() Builder {
	return Builder{cfg: DefaultConfig(), deadlinePs: 1 << 62, newID: (&counter{}).next, pool: &packet.FreeList{HeadCap: headCap}}
}

// WithEngine sets the engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the NIC parameters.
func (b Builder) WithConfig(c Config) Builder { b.cfg = c; return b }

// WithHost sets the host's index and the switch port it sits on.
func (b Builder) WithHost(idx, port int) Builder { b.idx, b.port = idx, port; return b }

// WithIP sets the host's address (default HostIP(idx)).
func (b Builder) WithIP(ip uint32) Builder { b.ip = ip; return b }

// WithUplink sets where the NIC sends (the switch port's ingress handler).
func (b Builder) WithUplink(h sim.Handler) Builder { b.uplink = h; return b }

// WithDeadline stops the host at ps: nothing is sent, received or timed
// out after it.
func (b Builder) WithDeadline(ps int64) Builder { b.deadlinePs = ps; return b }

// WithPacketIDs sets how frames are numbered (packet.Packet.ID).
func (b Builder) WithPacketIDs(f IDSource) Builder { b.newID = f; return b }

// Build checks the config and inputs and builds the host.
func (b Builder) Build(name string) (*Host, error) {
	if err := b.cfg.Validate(); err != nil {
		return nil, err
	}
	if b.engine == nil || b.uplink == nil {
		return nil, fmt.Errorf("rdma: host %s needs an engine and an uplink", name)
	}
	ip := b.ip
	if ip == 0 {
		ip = HostIP(b.idx)
	}
	if b.newID == nil {
		b.newID = (&counter{}).next
	}
	if b.pool == nil {
		b.pool = &packet.FreeList{HeadCap: headCap}
	}
	return &Host{ComponentBase: sim.NewComponentBase(name), engine: b.engine, cfg: b.cfg, idx: b.idx, port: b.port,
		ip: ip, uplink: b.uplink, deadlinePs: b.deadlinePs, newID: b.newID, pool: b.pool}, nil
}

// IP is the host's address.
func (h *Host) IP() uint32 { return h.ip }

// Port is the switch port the host sits on.
func (h *Host) Port() int { return h.port }

// Config is the host's NIC parameters.
func (h *Host) Config() Config { return h.cfg }

// NotifyRecv is unused (see packet.Event).
func (h *Host) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (h *Host) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

func (c *Conn) check() error {
	if c.ID < 0 || c.ID >= MaxConns {
		return fmt.Errorf("rdma: connection id must be in 0..%d, got %d", MaxConns-1, c.ID)
	}
	if c.SrcIP == 0 {
		c.SrcIP = HostIP(c.Src)
	}
	if c.DstIP == 0 {
		c.DstIP = HostIP(c.Dst)
	}
	return nil
}

// AddRequester makes this host the requester of c.
func (h *Host) AddRequester(c *Conn) error {
	if err := c.check(); err != nil {
		return err
	}
	if get(h.reqs, c.ID) != nil {
		return fmt.Errorf("rdma: host %s already has requester QP %d", h.Name(), c.ID)
	}
	h.reqs = put(h.reqs, c.ID, newRequester(h, c))
	return nil
}

// AddResponder makes this host the responder of c.
func (h *Host) AddResponder(c *Conn) error {
	if err := c.check(); err != nil {
		return err
	}
	if get(h.resps, c.ID) != nil {
		return fmt.Errorf("rdma: host %s already has responder QP %d", h.Name(), c.ID)
	}
	h.resps = put(h.resps, c.ID, &responder{h: h, c: c})
	return nil
}

// Post posts w on connection id's requester: it becomes active at
// w.PostPs (WRITEs of a QP are served in the order posted, so PostPs
// must not decrease).
func (h *Host) Post(id int, w *Write) error {
	r := get(h.reqs, id)
	switch {
	case r == nil:
		return fmt.Errorf("rdma: host %s has no requester QP %d", h.Name(), id)
	case w.Bytes <= 0 || w.Bytes > 1<<31-1:
		return fmt.Errorf("rdma: a WRITE must carry 1..2^31-1 bytes, got %d", w.Bytes)
	case w.PostPs < r.lastPost:
		return fmt.Errorf("rdma: QP %d: WRITE posted at %d ps after one at %d ps", id, w.PostPs, r.lastPost)
	}
	r.lastPost = w.PostPs
	r.posted = append(r.posted, w)
	packet.Schedule(h.engine, h, w.PostPs, evPost, nil, id)
	return nil
}

func put[T any](s []*T, id int, v *T) []*T {
	for id >= len(s) {
		s = append(s, nil)
	}
	s[id] = v
	return s
}

func get[T any](s []*T, id int) *T {
	if id < 0 || id >= len(s) {
		return nil
	}
	return s[id]
}

// Handle processes frames from the switch and the NIC's wake-ups.
func (h *Host) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := ev.AtPs()
	if now > h.deadlinePs {
		if ev.Kind == packet.KindArrive {
			h.pool.Put(ev.Pkt)
		}
		return nil
	}
	switch ev.Kind {
	case packet.KindArrive:
		h.receive(ev.Pkt, now)
		h.pool.Put(ev.Pkt)
	case evTx:
		h.txBusy = false
		h.transmit(now)
	case evPost:
		if r := get(h.reqs, ev.Port); r != nil {
			r.activate(now)
		}
	case evTimeout:
		if r := get(h.reqs, ev.Port); r != nil && r.timer.Fire(now) {
			r.onTimeout(now)
		}
	}
	return nil
}

// receive demultiplexes a frame: WRITE packets to a responder, ACKs and
// NAKs to a requester, by BTH DestQP.
func (h *Host) receive(pkt *packet.Packet, now int64) {
	x := &h.hdr
	if !Decode(pkt.Head, x) || x.Dst != h.ip {
		h.Unknown++
		return
	}
	if x.Opcode == OpAcknowledge {
		if r := get(h.reqs, int(x.DestQP)); r != nil {
			r.onAck(x, now)
			return
		}
	} else if p := get(h.resps, int(x.DestQP)); p != nil {
		p.onData(x, now)
		return
	}
	h.Unknown++
}

// sendCtrl queues an ACK or NAK ahead of data.
func (h *Host) sendCtrl(x Header, now int64) {
	h.ctrl = append(h.ctrl, x)
	h.kick(now)
}

// wantTx marks a requester as having packets to send.
func (h *Host) wantTx(r *requester, now int64) {
	if !r.inReady {
		r.inReady = true
		h.ready = append(h.ready, r)
	}
	h.kick(now)
}

// kick starts the NIC if it is idle.
func (h *Host) kick(now int64) {
	if !h.txBusy {
		h.transmit(now)
	}
}

// transmit sends the next frame, if any: control frames first, then one
// packet of the requester at the head of the round robin. The frame's
// arrival at the uplink is scheduled, and a wake-up when its last bit
// leaves (two events per frame).
func (h *Host) transmit(now int64) {
	var x Header
	found := true
	switch {
	case h.ctrlAt < len(h.ctrl):
		x = h.ctrl[h.ctrlAt]
		h.ctrlAt++
		if h.ctrlAt == len(h.ctrl) {
			h.ctrl, h.ctrlAt = h.ctrl[:0], 0
		}
	default:
		found = false
		for len(h.ready) > 0 && !found {
			r := h.ready[0]
			if r.next(&x, now) {
				found = true
				if r.pending() {
					h.ready = append(h.ready[1:], r) // round robin
				} else {
					h.ready, r.inReady = h.ready[1:], false
				}
				continue
			}
			h.ready, r.inReady = h.ready[1:], false
		}
	}
	if !found {
		return // idle
	}
	pkt := h.pool.Get()
	h.ipID++
	pkt.Head = Encode(pkt.Head, &x, h.ipID)
	pkt.Len = x.FrameLen()
	pkt.Flow = int(x.DestQP)
	pkt.ID = h.newID(x.Opcode != OpAcknowledge, pkt.Flow)
	pkt.InPort = h.port
	start := max(now, h.free)
	pkt.BornPs = start
	h.free = start + h.ser.Ps(pkt.Len, h.cfg.NICGbps)
	h.FramesSent++
	h.BytesSent += int64(pkt.Len)
	packet.Schedule(h.engine, h.uplink, h.free+h.cfg.PropPs+h.cfg.NICDelayPs, packet.KindArrive, pkt, h.port)
	h.txBusy = true
	packet.Schedule(h.engine, h, h.free, evTx, nil, 0)
}
