package hosts

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// UDP constant-bit-rate traffic: real Ethernet/IPv4/UDP frames at a rate
// that can change at scheduled times or from a callback at run time (the
// PIE-on-Tofino paper's §VII.A rise/fall experiment: 100 Gb/s until
// drop_prob reaches 100 %, then 5 Gb/s).

// UDPHeaderLen is the header bytes of a UDP frame: Ethernet, IPv4, UDP.
const UDPHeaderLen = ethLen + ipLen + udpLen // 42

// DefaultUDPIPBytes is the IP packet size of a UDP source when none is
// given: 1500 bytes, a full Ethernet MTU (assumed; the paper's §VII.A
// does not state its UDP packet size).
const DefaultUDPIPBytes = 1500

// ECN codepoints of the IP header's two low TOS bits (RFC 3168 §5).
const (
	ECNNotECT = 0
	ECNECT1   = 1
	ECNECT0   = 2
	ECNCE     = 3
)

// RateChange sets a UDP source's rate at a time.
type RateChange struct {
	AtPs int64
	Gbps float64 // 0 pauses the source
}

// UDPConfig is a UDP constant-bit-rate source.
type UDPConfig struct {
	NICGbps float64 // the host's link rate
	PropPs  int64   // propagation delay to the switch
	// IPBytes is the IP packet size (DefaultUDPIPBytes if 0); the frame is
	// 14 bytes longer (SerializationPs adds FCS, preamble and gap).
	IPBytes int
	// RateGbps is the initial rate, as a share of the wire: a source at the
	// NIC's rate sends back to back (the frame gap is SerializationPs of
	// the frame at RateGbps, like CBRHost's).
	RateGbps         float64
	Schedule         []RateChange // later rate changes, in time order
	StartPs, StopPs  int64        // first packet at StartPs; none after StopPs (0: the builder's deadline)
	Src, Dst         uint32       // IPv4 addresses (HostIP of the hosts, so switches route by Dst)
	SrcPort, DstPort uint16
	ECT              bool // mark packets ECT(0)
	Flow             int  // packet.Packet.Flow of the packets
	// Batch is the packets sent per timer event (1 if 0): fewer events,
	// but a SetRateGbps takes effect only after the packets of the current
	// batch (at most Batch-1 frame gaps late).
	Batch int
}

// UDPSource is a host sending UDP frames at a (changeable) constant rate.
type UDPSource struct {
	*sim.ComponentBase
	engine  sim.Engine
	port    int
	uplink  sim.Handler
	rec     *Recorder
	pool    *pktPool
	cfg     UDPConfig
	stopPs  int64
	frame   int // frame bytes
	gbps    float64
	gapPs   int64
	gen     int   // timer generation: a rate change voids the pending timer
	lastPs  int64 // when the last packet was sent (-1: none yet)
	started bool
	nicSer  int64
	seq     uint64
	idBase  uint64
	// hdr is every frame's header with IP id 0 and no checksum, and
	// hdrSum the one's-complement sum of its IPv4 header words: a frame
	// copies hdr and adds its id to the sum (EncodeUDP's bytes, without
	// rebuilding the header per frame).
	hdr    [UDPHeaderLen]byte
	hdrSum uint32
	// Sent counts the packets and frame bytes sent.
	Sent, SentBytes int64
}

// Event kinds of the UDP source.
const (
	evUDPSend = evNICFree + 1 + iota // the next batch is due (Port: the timer generation)
	evUDPRate                        // a scheduled rate change (Port: its index)
)

// BuildUDP builds a UDP source from a builder (engine, host and uplink
// are required; the recorder is optional: with one, packet ids come from
// it and sinks report deliveries to it).
func (b Builder) BuildUDP(name string, cfg UDPConfig) (*UDPSource, error) {
	if b.engine == nil || b.uplink == nil {
		return nil, fmt.Errorf("hosts.Builder: engine and uplink are required")
	}
	if cfg.IPBytes == 0 {
		cfg.IPBytes = DefaultUDPIPBytes
	}
	switch {
	case cfg.IPBytes < ipLen+udpLen || cfg.IPBytes > 9000:
		return nil, fmt.Errorf("%s: ip_bytes %d: want %d..9000", name, cfg.IPBytes, ipLen+udpLen)
	case !(cfg.NICGbps > 0):
		return nil, fmt.Errorf("%s: nic_gbps must be > 0 (got %g)", name, cfg.NICGbps)
	case cfg.PropPs < 0 || cfg.StartPs < 0:
		return nil, fmt.Errorf("%s: propagation delay and start time must be >= 0", name)
	case cfg.Batch < 0:
		return nil, fmt.Errorf("%s: batch must be >= 0 (got %d)", name, cfg.Batch)
	}
	if err := checkRate(name, cfg.RateGbps, cfg.NICGbps); err != nil {
		return nil, err
	}
	for i, c := range cfg.Schedule {
		if err := checkRate(name, c.Gbps, cfg.NICGbps); err != nil {
			return nil, fmt.Errorf("schedule[%d]: %v", i, err)
		}
		if c.AtPs < cfg.StartPs || (i > 0 && c.AtPs < cfg.Schedule[i-1].AtPs) {
			return nil, fmt.Errorf("%s: schedule[%d] at %d ps: rate changes must be in time order, not before the start", name, i, c.AtPs)
		}
	}
	if cfg.Batch == 0 {
		cfg.Batch = 1
	}
	s := &UDPSource{ComponentBase: sim.NewComponentBase(name), engine: b.engine, port: b.port, uplink: b.uplink,
		rec: b.rec, pool: b.pool, cfg: cfg, stopPs: cfg.StopPs, frame: cfg.IPBytes + ethLen, lastPs: -1,
		idBase: uint64(b.idx+1) << 40}
	if s.stopPs == 0 || s.stopPs > b.deadlinePs {
		s.stopPs = b.deadlinePs
	}
	s.nicSer = packet.SerializationPs(s.frame, cfg.NICGbps)
	EncodeUDP(s.hdr[:], cfg, 0)
	binary.BigEndian.PutUint16(s.hdr[ethLen+10:], 0)
	for i := ethLen; i < ethLen+ipLen; i += 2 {
		s.hdrSum += uint32(binary.BigEndian.Uint16(s.hdr[i:]))
	}
	s.setRate(cfg.RateGbps)
	return s, nil
}

func checkRate(name string, gbps, nic float64) error {
	if gbps < 0 || gbps > nic || math.IsNaN(gbps) {
		return fmt.Errorf("%s: rate %g Gb/s: want 0..%g (the NIC's rate)", name, gbps, nic)
	}
	return nil
}

// Start schedules the first packet and the rate changes; call it once
// before the engine runs.
func (s *UDPSource) Start() {
	if s.started {
		return
	}
	s.started = true
	for i, c := range s.cfg.Schedule {
		packet.Schedule(s.engine, s, c.AtPs, evUDPRate, nil, i)
	}
	if s.gbps > 0 {
		packet.Schedule(s.engine, s, s.cfg.StartPs, evUDPSend, nil, s.gen)
	}
}

// RateGbps is the current rate.
func (s *UDPSource) RateGbps() float64 { return s.gbps }

// FrameBytes is the frame size (IP packet + Ethernet header).
func (s *UDPSource) FrameBytes() int { return s.frame }

func (s *UDPSource) setRate(gbps float64) {
	s.gbps = gbps
	s.gapPs = 0
	if gbps > 0 {
		s.gapPs = packet.SerializationPs(s.frame, gbps)
	}
}

// SetRateGbps changes the rate at time now (e.g. from a switch's hook):
// the next packet leaves one new gap after the last one, or at now if that
// is earlier; rate 0 pauses the source. A rate above the NIC's is an error.
func (s *UDPSource) SetRateGbps(now int64, gbps float64) error {
	if err := checkRate(s.Name(), gbps, s.cfg.NICGbps); err != nil {
		return err
	}
	s.setRate(gbps)
	s.gen++ // the pending timer, if any, is void
	if gbps == 0 || !s.started {
		return nil
	}
	next := max(now, s.cfg.StartPs)
	if s.lastPs >= 0 {
		next = max(next, s.lastPs+s.gapPs)
	}
	packet.Schedule(s.engine, s, next, evUDPSend, nil, s.gen)
	return nil
}

// NotifyRecv is unused (see packet.Event).
func (s *UDPSource) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (s *UDPSource) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// Handle sends a batch or applies a scheduled rate change.
func (s *UDPSource) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := ev.AtPs()
	switch ev.Kind {
	case evUDPRate:
		return s.SetRateGbps(now, s.cfg.Schedule[ev.Port].Gbps)
	case evUDPSend:
		if ev.Port != s.gen {
			return nil // voided by a rate change
		}
		t := now
		for i := 0; i < s.cfg.Batch; i++ {
			if t > s.stopPs {
				return nil
			}
			s.send(t)
			t += s.gapPs
		}
		packet.Schedule(s.engine, s, t, evUDPSend, nil, s.gen)
	}
	return nil
}

// send puts one frame on the wire at t: it arrives at the uplink once
// serialized at the NIC's rate and propagated.
func (s *UDPSource) send(t int64) {
	s.seq++
	id := s.idBase | s.seq
	if s.rec != nil {
		id = s.rec.NewID(true, s.cfg.Flow)
	}
	pkt := s.pool.get()
	pkt.ID, pkt.Flow, pkt.Len, pkt.InPort, pkt.BornPs = id, s.cfg.Flow, s.frame, s.port, t
	pkt.Head = s.encode(pkt.Head[:UDPHeaderLen], uint16(s.seq))
	s.lastPs = t
	s.Sent++
	s.SentBytes += int64(s.frame)
	packet.Schedule(s.engine, s.uplink, t+s.nicSer+s.cfg.PropPs, packet.KindArrive, pkt, s.port)
}

// encode writes the header of the source's frame with IP id ipID into b
// (UDPHeaderLen bytes): the bytes EncodeUDP writes.
func (s *UDPSource) encode(b []byte, ipID uint16) []byte {
	copy(b, s.hdr[:])
	ip := b[ethLen:]
	binary.BigEndian.PutUint16(ip[4:], ipID)
	sum := s.hdrSum + uint32(ipID)
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
	return b
}

// EncodeUDP writes the Ethernet/IPv4/UDP header of one of c's frames into
// b (UDPHeaderLen bytes) with IP id ipID and a valid IPv4 checksum.
func EncodeUDP(b []byte, c UDPConfig, ipID uint16) []byte {
	clear(b)
	binary.BigEndian.PutUint16(b[12:], 0x0800)
	ip := b[ethLen:]
	ip[0] = 0x45
	if c.ECT {
		ip[1] = ECNECT0
	}
	binary.BigEndian.PutUint16(ip[2:], uint16(c.IPBytes))
	binary.BigEndian.PutUint16(ip[4:], ipID)
	ip[8] = 64
	ip[9] = 17
	binary.BigEndian.PutUint32(ip[12:], c.Src)
	binary.BigEndian.PutUint32(ip[16:], c.Dst)
	binary.BigEndian.PutUint16(ip[10:], packet.IPv4Checksum(ip[:ipLen]))
	udp := ip[ipLen:]
	binary.BigEndian.PutUint16(udp[0:], c.SrcPort)
	binary.BigEndian.PutUint16(udp[2:], c.DstPort)
	binary.BigEndian.PutUint16(udp[4:], uint16(c.IPBytes-ipLen))
	return b
}

// UDPSink counts the UDP frames that reach it.
type UDPSink struct {
	*sim.ComponentBase
	rec      *Recorder
	pool     *pktPool
	deadline int64
	// Packets and Bytes (frame bytes) received; CE of them ECN CE marked;
	// FirstPs and LastPs the first and last arrival (-1: none).
	Packets, Bytes, CE int64
	FirstPs, LastPs    int64
	onRecv             func(nowPs int64, pkt *packet.Packet)
}

// BuildUDPSink builds a sink (the engine is not needed: it only counts).
func (b Builder) BuildUDPSink(name string) *UDPSink {
	return &UDPSink{ComponentBase: sim.NewComponentBase(name), rec: b.rec, pool: b.pool, deadline: b.deadlinePs, FirstPs: -1, LastPs: -1}
}

// OnReceive sets a hook called for every frame received (before the frame
// is recycled: do not keep it).
func (k *UDPSink) OnReceive(f func(nowPs int64, pkt *packet.Packet)) { k.onRecv = f }

// NotifyRecv is unused (see packet.Event).
func (k *UDPSink) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (k *UDPSink) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// Handle counts an arriving frame.
func (k *UDPSink) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	if ev.Kind != packet.KindArrive {
		return nil
	}
	now := ev.AtPs()
	pkt := ev.Pkt
	defer k.pool.put(pkt) // the frame ends here
	if now > k.deadline {
		return nil
	}
	if k.FirstPs < 0 {
		k.FirstPs = now
	}
	k.LastPs = now
	k.Packets++
	k.Bytes += int64(pkt.Len)
	if _, ecn, ok := packet.DSCPECN(pkt.Head); ok && ecn == ECNCE {
		k.CE++
	}
	if k.rec != nil {
		k.rec.delivered(pkt.ID, true)
	}
	if k.onRecv != nil {
		k.onRecv(now, pkt)
	}
	return nil
}
