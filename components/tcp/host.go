package tcp

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// Flow is one TCP connection from host Src to host Dst. The sender's and
// the receiver's host both write its Stats.
type Flow struct {
	ID       int    // 0..MaxFlows-1, unique in the run (it is the TCP source port - PortBase)
	Src, Dst int    // host indices
	SrcIP    uint32 // 0: HostIP(Src)
	DstIP    uint32 // 0: HostIP(Dst)
	Bytes    int64  // application bytes to send; 0: unlimited (bulk)
	StartPs  int64  // when the application starts writing
	// SynRTTPs is the RTT sample the three-way handshake gave the sender
	// (Linux tcp_synack_rtt_meas seeds SRTT and the RTO before the first
	// data segment); 0: none, the first RTO is RTOInit. The handshake
	// itself is not simulated.
	SynRTTPs int64
	// Epoch numbers connections that reuse an ID (a new connection on the
	// same ports): its sequence space starts at a different ISN (RFC
	// 6528), so a stale frame of an earlier connection falls outside the
	// receive window. Both ends must use the same Epoch.
	Epoch uint32
	// OnDone, if set, is called when the sender sees the last byte ACKed
	// (finite flows), at Stats.DonePs.
	OnDone func(f *Flow)
	Stats  Stats
}

// ISN is the flow's initial sequence number (both ends derive it).
func (f *Flow) ISN() uint32 { return isnOf(f.ID) + f.Epoch*0x9e3779b9 }

// Stats are a flow's counters.
type Stats struct {
	// Receiver side.
	Delivered    int64 // bytes delivered in order to the application (goodput)
	SegmentsRcvd int   // data segments that arrived (duplicates included)
	AcksSent     int
	// Sender side.
	SegmentsSent    int // data segments sent, retransmissions included
	Retransmits     int
	Timeouts        int // RTO expiries
	FastRecoveries  int // entries into fast recovery (SACK/RACK loss detection)
	LossProbes      int // tail loss probes sent (TLP)
	TLPRecoveries   int // cwnd reductions because a probe repaired a loss
	LostRetransmits int // retransmissions RACK found lost
	ECNReductions   int // cwnd reductions on ECE
	Cwnd            int // current (at the end: final) cwnd in segments
	Ssthresh        int
	SRTTPs          int64
	DonePs          int64 // when the last byte was ACKed (finite flows; 0: not done)
}

// CwndHook is called on every cwnd change of a flow this host sends.
type CwndHook func(flow int, ps int64, cwnd int)

// IDSource numbers the frames a host sends (data: a data segment, else a
// pure ACK), e.g. hosts.Recorder.NewID.
type IDSource func(data bool, flow int) uint64

// counter is the default IDSource: 1, 2, 3, ... shared by the hosts of a
// builder.
type counter struct{ n uint64 }

func (c *counter) next(bool, int) uint64 { c.n++; return c.n }

// Event kinds of a TCP host's own wake-ups; Port is the flow id.
const (
	evStart  = packet.KindLocal + iota // a flow's application starts
	evRTO                              // the retransmission timer of a sender
	evDelAck                           // the delayed-ACK timer of a receiver
)

// Host is an end host running TCP CUBIC senders and receivers behind one
// NIC. The NIC sends frames in FIFO order at NICGbps; a frame reaches the
// uplink (the switch port's ingress) PropPs + StackDelayPs after its last
// bit left the NIC. Both delays are fixed and nothing queues in them, so
// the stack delay is modelled as part of the send path.
type Host struct {
	*sim.ComponentBase
	engine     sim.Engine
	cfg        Config
	idx, port  int
	ip         uint32
	uplink     sim.Handler
	deadlinePs int64
	hook       CwndHook
	pool       *packet.FreeList
	newID      IDSource

	senders   []*sender // by flow id
	receivers []*receiver
	nicFree   int64
	ser       packet.SerialMemo
	ipID      uint16
	seg       Segment // decode scratch

	// FramesSent and BytesSent count the NIC's output; Unknown counts
	// frames that matched no flow of this host.
	FramesSent int64
	BytesSent  int64
	Unknown    int64
}

// Builder builds TCP hosts (value receiver, WithX, then Build).
type Builder struct {
	engine     sim.Engine
	cfg        Config
	idx, port  int
	ip         uint32
	uplink     sim.Handler
	deadlinePs int64
	hook       CwndHook
	pool       *packet.FreeList
	newID      IDSource
}

// MakeBuilder returns a builder with DefaultConfig for host 0 on port 0
// and no deadline. Hosts built from one builder (and its copies) share a
// packet pool.
func MakeBuilder() Builder {
	return Builder{cfg: DefaultConfig(), deadlinePs: 1 << 62, pool: &packet.FreeList{HeadCap: headCap}, newID: (&counter{}).next}
}

// WithEngine sets the engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the host parameters.
func (b Builder) WithConfig(c Config) Builder { b.cfg = c; return b }

// WithHost sets the host's index and the switch port it sits on.
func (b Builder) WithHost(idx, port int) Builder { b.idx, b.port = idx, port; return b }

// WithIP sets the host's address (default HostIP(idx)).
func (b Builder) WithIP(ip uint32) Builder { b.ip = ip; return b }

// WithUplink sets where the NIC sends (the switch port's ingress handler).
func (b Builder) WithUplink(h sim.Handler) Builder { b.uplink = h; return b }

// WithDeadline stops the host at ps: nothing is sent, received or timed
// out after it (the end of the run).
func (b Builder) WithDeadline(ps int64) Builder { b.deadlinePs = ps; return b }

// WithCwndHook sets the function called on every cwnd change.
func (b Builder) WithCwndHook(h CwndHook) Builder { b.hook = h; return b }

// WithPacketIDs sets how frames are numbered (packet.Packet.ID); by
// default the hosts of a builder count 1, 2, 3, ...
func (b Builder) WithPacketIDs(f IDSource) Builder { b.newID = f; return b }

// Build checks the config and inputs and builds the host.
func (b Builder) Build(name string) (*Host, error) {
	if err := b.cfg.Validate(); err != nil {
		return nil, err
	}
	if b.engine == nil || b.uplink == nil {
		return nil, fmt.Errorf("tcp: host %s needs an engine and an uplink", name)
	}
	ip := b.ip
	if ip == 0 {
		ip = HostIP(b.idx)
	}
	if b.pool == nil {
		b.pool = &packet.FreeList{HeadCap: headCap}
	}
	if b.newID == nil {
		b.newID = (&counter{}).next
	}
	return &Host{ComponentBase: sim.NewComponentBase(name), engine: b.engine, cfg: b.cfg, idx: b.idx,
		port: b.port, ip: ip, uplink: b.uplink, deadlinePs: b.deadlinePs, hook: b.hook, pool: b.pool, newID: b.newID}, nil
}

// IP is the host's address.
func (h *Host) IP() uint32 { return h.ip }

// Port is the switch port the host sits on.
func (h *Host) Port() int { return h.port }

// NotifyRecv is unused (see packet.Event).
func (h *Host) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (h *Host) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

func (f *Flow) check() error {
	if f.ID < 0 || f.ID >= MaxFlows {
		return fmt.Errorf("tcp: flow id must be in 0..%d, got %d", MaxFlows-1, f.ID)
	}
	if f.Bytes < 0 || f.StartPs < 0 {
		return fmt.Errorf("tcp: flow %d: bytes and start must be >= 0", f.ID)
	}
	if f.SrcIP == 0 {
		f.SrcIP = HostIP(f.Src)
	}
	if f.DstIP == 0 {
		f.DstIP = HostIP(f.Dst)
	}
	return nil
}

// AddSender makes this host the sender of f; its application starts at
// f.StartPs.
func (h *Host) AddSender(f *Flow) error {
	if err := f.check(); err != nil {
		return err
	}
	if f.ID < len(h.senders) && h.senders[f.ID] != nil {
		return fmt.Errorf("tcp: host %s already sends flow %d", h.Name(), f.ID)
	}
	s := newSender(h, f)
	h.senders = put(h.senders, f.ID, s)
	packet.Schedule(h.engine, h, f.StartPs, evStart, nil, f.ID)
	return nil
}

// RemoveSender forgets the sender of flow id (a finished flow whose id
// will be reused); frames and timers still in flight for it are ignored.
func (h *Host) RemoveSender(id int) {
	if id >= 0 && id < len(h.senders) {
		h.senders[id] = nil
	}
}

// RemoveReceiver forgets the receiver of flow id.
func (h *Host) RemoveReceiver(id int) {
	if id >= 0 && id < len(h.receivers) {
		h.receivers[id] = nil
	}
}

// AddReceiver makes this host the receiver of f.
func (h *Host) AddReceiver(f *Flow) error {
	if err := f.check(); err != nil {
		return err
	}
	if f.ID < len(h.receivers) && h.receivers[f.ID] != nil {
		return fmt.Errorf("tcp: host %s already receives flow %d", h.Name(), f.ID)
	}
	h.receivers = put(h.receivers, f.ID, newReceiver(h, f))
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

// Handle processes frames from the switch and the host's timers.
func (h *Host) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := ev.AtPs()
	switch ev.Kind {
	case packet.KindArrive:
		if now <= h.deadlinePs {
			h.receive(ev.Pkt, now)
		}
		h.pool.Put(ev.Pkt) // the frame ends here
	case evStart:
		if s := get(h.senders, ev.Port); s != nil && now <= h.deadlinePs {
			s.start(now)
		}
	case evRTO:
		if s := get(h.senders, ev.Port); s != nil && s.rto.Fire(now) && now <= h.deadlinePs {
			s.onTimer(now)
		}
	case evDelAck:
		if r := get(h.receivers, ev.Port); r != nil && r.delack.Fire(now) && now <= h.deadlinePs {
			r.onDelAck(now)
		}
	}
	return nil
}

// receive demultiplexes a frame: data to a receiver (by source port), a
// pure ACK to a sender (by destination port).
func (h *Host) receive(pkt *packet.Packet, now int64) {
	s := &h.seg
	if !Decode(pkt.Head, s) || s.Dst != h.ip {
		h.Unknown++
		return
	}
	if s.Payload > 0 && s.DstPort == DataPort {
		if r := get(h.receivers, int(s.SrcPort)-PortBase); r != nil {
			r.onData(s, now)
			return
		}
	} else if s.SrcPort == DataPort && s.Flags&FlagACK != 0 {
		if snd := get(h.senders, int(s.DstPort)-PortBase); snd != nil {
			snd.onAck(s, now)
			return
		}
	}
	h.Unknown++
}

// transmit queues a frame on the NIC. The NIC is a FIFO served at line
// rate, so a frame's departure is known when it is queued: its arrival at
// the uplink is scheduled at once (one event per frame, no NIC wake-ups).
func (h *Host) transmit(s *Segment, now int64) {
	if now > h.deadlinePs {
		return
	}
	pkt := h.pool.Get()
	h.ipID++
	pkt.Head = encode(pkt.Head, s, h.ipID)
	pkt.Len = s.FrameLen()
	pkt.Flow = int(s.SrcPort) - PortBase
	if s.SrcPort == DataPort {
		pkt.Flow = int(s.DstPort) - PortBase
	}
	pkt.ID = h.newID(s.Payload > 0, pkt.Flow)
	pkt.InPort = h.port
	start := max(now, h.nicFree)
	pkt.BornPs = start
	h.nicFree = start + h.ser.Ps(pkt.Len, h.cfg.NICGbps)
	h.FramesSent++
	h.BytesSent += int64(pkt.Len)
	packet.Schedule(h.engine, h.uplink, h.nicFree+h.cfg.PropPs+h.cfg.StackDelayPs, packet.KindArrive, pkt, h.port)
}

// tsNow is the TSval clock (TimestampHZ ticks).
func (h *Host) tsNow(now int64) uint32 {
	return uint32(now / (1e12 / int64(h.cfg.TimestampHZ)))
}
