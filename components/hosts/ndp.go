package hosts

import (
	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/fifo"
	"archsim/components/packet"
)

// NDPConfig holds the host and link parameters of an NDP run.
type NDPConfig struct {
	NICGbps       float64 // host NIC and link rate
	PropPs        int64   // one-way propagation delay of the host's link
	MSS           int     // data packet size in bytes (headers included)
	CtrlBytes     int     // ACK, NACK and PULL size in bytes
	CtrlDSCP      int     // DSCP of ACK, NACK and PULL packets (0: best effort)
	InitialWindow int     // packets a source sends at line rate before it needs pulls
	PullRateMod   float64 // pull pacer rate as a fraction of line rate (htsim main_ndp: 0.99)
	// Framing is the host link's (the zero value: Ethernet). It also says
	// what a data packet's payload is: its size less the modelled headers
	// (HeaderLen) on Ethernet; on htsim's bare links its size less htsim's
	// 64-byte NDP header (HtsimHeaderLen), as htsim's sink counts it.
	Framing packet.Framing
}

// HtsimHeaderLen is the header htsim counts in every NDP packet's size
// (Broadcom/csg-htsim sim/ndppacket.h NdpPacket::ACKSIZE): a data packet
// is its payload plus these bytes, a trimmed header or control packet
// these bytes alone.
const HtsimHeaderLen = 64

// payloadOf is the payload bytes of a whole data packet of mss bytes on a
// link with framing f.
func payloadOf(mss int, f packet.Framing) int {
	if f == packet.Bare {
		return mss - HtsimHeaderLen
	}
	return mss - HeaderLen
}

// Flow is one NDP connection.
type Flow struct {
	ID      int
	Src     int // host index
	Dst     int
	Packets int // size in MSS-sized packets
	StartPs int64
}

// NDPHost is a server with one NIC running NDP sources and sinks. Sources
// send their initial window at line rate, then one packet per PULL,
// retransmissions (NACKed packets) first. Sinks answer every data packet
// with an ACK and every trimmed header with a NACK at once, and ask for one
// more packet per arrival through a pull pacer shared by all flows of the
// host, which releases PULLs round robin at the line rate of MSS-sized
// packets (times the pull rate modifier), as htsim's NdpPullPacer does.
type NDPHost struct {
	*sim.ComponentBase
	engine  sim.Engine
	idx     int
	port    int // switch port
	cfg     NDPConfig
	pullGap int64 // pullGapPs, computed once
	uplink  sim.Handler
	rec     *Recorder

	nic        nic
	srcs       flowTable[ndpSource] // by flow id
	sinks      flowTable[ndpSink]
	srcOrder   []*ndpSource
	pullQ      []*ndpSink
	pullNext   int
	pacerFree  int64
	pacerArmed bool
	deadlinePs int64
	pool       *pktPool
	DataSent   int
	CtrlSent   int
}

type ndpSource struct {
	flow     *Flow
	nextSeq  int
	rtx      []int
	acked    bitset
	lastPull int
}

type ndpSink struct {
	flow     *Flow
	received bitset
	highest  int // highest sequence number received, to unwrap 16-bit ones
	count    int
	pullNo   int
	pending  int
	queued   bool
}

// BuildNDP builds an NDP host from a builder.
func (b Builder) BuildNDP(name string, cfg NDPConfig) *NDPHost {
	b.check()
	h := &NDPHost{ComponentBase: sim.NewComponentBase(name), engine: b.engine, idx: b.idx, port: b.port, cfg: cfg,
		uplink: b.uplink, rec: b.rec, deadlinePs: b.deadlinePs, pool: b.pool}
	h.nic = nic{engine: b.engine, owner: h, gbps: cfg.NICGbps, propPs: cfg.PropPs, port: b.port, uplink: b.uplink, deadline: b.deadlinePs, pool: b.pool,
		ser: packet.SerialMemo{Framing: cfg.Framing}, mss: cfg.MSS}
	return h
}

// NotifyRecv is unused (see packet.Event).
func (h *NDPHost) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (h *NDPHost) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// AddSource makes this host the sender of f and schedules its start.
func (h *NDPHost) AddSource(f *Flow) {
	s := &ndpSource{flow: f}
	h.srcs.put(f.ID, s)
	h.srcOrder = append(h.srcOrder, s)
	packet.Schedule(h.engine, h, f.StartPs, evFlowTimer, nil, f.ID)
}

// AddSink makes this host the receiver of f.
func (h *NDPHost) AddSink(f *Flow) {
	h.sinks.put(f.ID, &ndpSink{flow: f})
}

// Handle processes packets from the switch, flow starts and pacer ticks.
func (h *NDPHost) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := ev.AtPs()
	switch ev.Kind {
	case evFlowTimer:
		h.start(h.srcs.get(ev.Port), now)
	case evPace:
		h.pace(now)
	case evNICFree:
		h.nic.next(now)
	case packet.KindArrive:
		h.receive(ev.Pkt, now)
		h.pool.put(ev.Pkt) // the packet ends here
	}
	return nil
}

func (h *NDPHost) start(s *ndpSource, now int64) {
	n := min(h.cfg.InitialWindow, s.flow.Packets)
	for i := 0; i < n; i++ {
		h.sendData(s, now)
	}
}

// transmit queues a packet on the NIC: control packets (ACK, PULL) ahead
// of data and NACKs, as htsim's FairPriorityQueue host queue does.
func (h *NDPHost) transmit(pkt *packet.Packet, high bool, now int64) {
	h.nic.send(pkt, high, now)
}

// sendData sends the source's next packet: a NACKed one first, else new
// data. It reports whether anything was sent.
func (h *NDPHost) sendData(s *ndpSource, now int64) bool {
	seq := -1
	for len(s.rtx) > 0 {
		c := s.rtx[0]
		s.rtx = s.rtx[1:]
		if !s.acked.has(c) {
			seq = c
			break
		}
	}
	if seq < 0 {
		if s.nextSeq >= s.flow.Packets {
			return false
		}
		seq = s.nextSeq
		s.nextSeq++
	}
	// The packet is built when the NIC starts sending it (nic.next): a
	// source's initial window queues up to window packets at once, and
	// a packet built here would wait, cold in memory, until then. Its id
	// is drawn now, as it always was.
	h.DataSent++
	h.nic.sendData(txItem{id: h.rec.NewID(true, s.flow.ID), flow: s.flow, seq: uint16(seq)}, now)
	return true
}

func (h *NDPHost) sendCtrl(f *Flow, flags uint8, seq, pull int, now int64) {
	pkt := h.pool.newPacket(h.rec.NewID(false, f.ID), f.ID,
		Header{Src: HostIP(f.Dst), Dst: HostIP(f.Src), Flow: uint16(f.ID), Flags: flags, Seq: uint16(seq), Pull: uint16(pull)}, h.cfg.CtrlBytes)
	if h.cfg.CtrlDSCP != 0 {
		packet.SetDSCP(pkt.Head, h.cfg.CtrlDSCP)
	}
	h.CtrlSent++
	h.transmit(pkt, flags&FlagNACK == 0, now)
}

func (h *NDPHost) receive(pkt *packet.Packet, now int64) {
	if now > h.deadlinePs {
		return // arrived after the end of the run: still in flight
	}
	hd, ok := Decode(pkt.Head)
	if !ok {
		return
	}
	fid := int(hd.Flow)
	switch {
	case hd.Flags&(FlagACK|FlagNACK|FlagPULL) != 0:
		s := h.srcs.get(fid)
		if s == nil {
			return
		}
		// The wire carries 16-bit sequence and pull numbers; an ACK or
		// NACK names a packet at most 32 767 behind the newest sent, and
		// pulls only grow.
		seq := unwrap16(s.nextSeq-1, hd.Seq)
		if hd.Flags&FlagACK != 0 && seq >= 0 && seq < s.nextSeq {
			s.acked.set(seq)
		}
		if hd.Flags&FlagNACK != 0 && seq >= 0 && seq < s.nextSeq {
			s.rtx = append(s.rtx, seq)
		}
		if pull := unwrap16(s.lastPull, hd.Pull); hd.Flags&FlagPULL != 0 && pull > s.lastPull {
			n := pull - s.lastPull
			s.lastPull = pull
			for i := 0; i < n; i++ {
				if !h.sendData(s, now) {
					break
				}
			}
		}
	default:
		k := h.sinks.get(fid)
		if k == nil {
			return
		}
		seq := unwrap16(k.highest, hd.Seq)
		if seq < 0 || seq >= k.flow.Packets {
			return
		}
		k.highest = max(k.highest, seq)
		// A switch marks a trimmed header (ndp.p4 sets flag 0x80); a
		// traffic manager that trims (SONiC) just cuts the frame.
		trimmed := hd.Flags&FlagTrimmed != 0 || pkt.Len < h.cfg.MSS
		h.rec.delivered(pkt.ID, !trimmed)
		if !trimmed && !k.received.has(seq) {
			k.received.set(seq)
			k.count++
			h.rec.Goodput[fid] += int64(payloadOf(h.cfg.MSS, h.cfg.Framing))
			h.rec.LastData[fid] = now
			if k.count == k.flow.Packets {
				h.rec.Done[fid] = now
			}
		}
		flags := uint8(FlagACK)
		if trimmed {
			h.rec.header(fid, now)
			flags = FlagNACK
		}
		pull := 0
		if k.count < k.flow.Packets {
			// Ask for one more packet: on the ACK/NACK itself if the pull
			// pacer is idle, else through the pacer (htsim NdpPullPacer).
			if len(h.pullQ) == 0 && !h.pacerArmed && now >= h.pacerFree {
				k.pullNo++
				pull = k.pullNo
				flags |= FlagPULL
				h.pacerFree = now + h.pullGapPs()
			} else {
				k.pending++
				if !k.queued {
					k.queued = true
					h.pullQ = append(h.pullQ, k)
				}
				h.armPacer(now)
			}
		}
		h.sendCtrl(k.flow, flags, seq, pull, now)
	}
}

// pullGapPs is the pacer's spacing: one MSS-sized packet (plus its ACK) at
// line rate, slowed by the pull rate modifier.
func (h *NDPHost) pullGapPs() int64 {
	if h.pullGap == 0 {
		h.pullGap = int64(float64(h.cfg.Framing.Ps(h.cfg.MSS, h.cfg.NICGbps)) / h.cfg.PullRateMod)
	}
	return h.pullGap
}

func (h *NDPHost) armPacer(now int64) {
	if h.pacerArmed {
		return
	}
	h.pacerArmed = true
	packet.Schedule(h.engine, h, max(now, h.pacerFree), evPace, nil, 0)
}

// pace releases one PULL, round robin over flows with pending pulls.
func (h *NDPHost) pace(now int64) {
	h.pacerArmed = false
	for tries := 0; tries < len(h.pullQ); tries++ {
		if h.pullNext >= len(h.pullQ) {
			h.pullNext = 0
		}
		k := h.pullQ[h.pullNext]
		if k.pending == 0 || k.count >= k.flow.Packets {
			k.pending, k.queued = 0, false
			h.pullQ = append(h.pullQ[:h.pullNext], h.pullQ[h.pullNext+1:]...)
			tries--
			if len(h.pullQ) == 0 {
				break
			}
			continue
		}
		k.pending--
		k.pullNo++
		h.sendCtrl(k.flow, FlagPULL, 0, k.pullNo, now)
		h.pullNext++
		h.pacerFree = now + h.pullGapPs()
		if len(h.pullQ) > 0 {
			h.armPacer(h.pacerFree)
		}
		return
	}
}

// nic is a host's transmitter: two FIFOs (high for ACKs and PULLs, low for
// data and NACKs) served with strict priority at the link rate; a packet
// reaches the switch port when it has fully arrived (serialization plus
// propagation).
type nic struct {
	engine   sim.Engine
	owner    sim.Handler
	gbps     float64
	propPs   int64
	port     int
	uplink   sim.Handler
	deadline int64
	pool     *pktPool
	hi       fifo.Queue[*packet.Packet]
	lo       fifo.Queue[txItem]
	mss      int   // a data packet's size
	busy     bool  // a wake-up is scheduled for the end of the current frame
	free     int64 // when the line is free
	ser      packet.SerialMemo
}

// txItem is a packet in the NIC's low queue: a built one (a NACK), or a
// data packet of flow with wire sequence number seq and id id, built when
// it leaves the queue.
type txItem struct {
	pkt  *packet.Packet
	id   uint64
	flow *Flow
	seq  uint16
}

// send queues a built packet: high (ACK, PULL) or low (NACK) priority.
func (n *nic) send(pkt *packet.Packet, high bool, now int64) {
	if now > n.deadline {
		n.pool.put(pkt) // never sent
		return
	}
	if high {
		n.hi.Push(pkt)
	} else {
		n.lo.Push(txItem{pkt: pkt})
	}
	n.kick(now)
}

// sendData queues a data packet, to be built when it leaves.
func (n *nic) sendData(it txItem, now int64) {
	if now > n.deadline {
		return // never sent
	}
	n.lo.Push(it)
	n.kick(now)
}

// kick starts the line if it is idle, or has it wake when it frees.
func (n *nic) kick(now int64) {
	if n.busy {
		return
	}
	if now >= n.free {
		n.next(now)
		return
	}
	n.busy = true
	packet.Schedule(n.engine, n.owner, n.free, evNICFree, nil, 0)
}

// next starts sending the next queued packet, if any.
func (n *nic) next(now int64) {
	var pkt *packet.Packet
	switch {
	case n.hi.Len() > 0:
		pkt = n.hi.Pop()
	case n.lo.Len() > 0:
		it := n.lo.Pop()
		if pkt = it.pkt; pkt == nil {
			f := it.flow
			pkt = n.pool.newPacket(it.id, f.ID, Header{Src: HostIP(f.Src), Dst: HostIP(f.Dst), Flow: uint16(f.ID), Seq: it.seq}, n.mss)
		}
	default:
		n.busy = false
		return
	}
	pkt.InPort = n.port
	pkt.BornPs = now
	n.free = now + n.ser.Ps(pkt.Len, n.gbps)
	packet.Schedule(n.engine, n.uplink, n.free+n.propPs, packet.KindArrive, pkt, n.port)
	n.busy = n.hi.Len()+n.lo.Len() > 0
	if n.busy {
		packet.Schedule(n.engine, n.owner, n.free, evNICFree, nil, 0)
	}
}

// unwrap16 turns a 16-bit wire number back into the full number nearest to
// ref (serial-number arithmetic, RFC 1982).
func unwrap16(ref int, v uint16) int {
	return ref + int(int16(v-uint16(ref)))
}

// bitset is a growable set of small non-negative integers (sequence
// numbers): memory follows what a run touches, not the flow's length.
type bitset []uint64

func (b bitset) has(i int) bool {
	w := i >> 6
	return w < len(b) && b[w]&(1<<(uint(i)&63)) != 0
}

func (b *bitset) set(i int) {
	w := i >> 6
	for w >= len(*b) {
		*b = append(*b, 0)
	}
	(*b)[w] |= 1 << (uint(i) & 63)
}
