package hosts

import (
	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// CBRConfig holds a constant-rate host's parameters.
type CBRConfig struct {
	NICGbps  float64
	PropPs   int64
	MSS      int
	RateGbps float64
}

// CBRHost sends NDP-formatted data packets at a constant rate without any
// control loop (the trimming paper's §6.4 hardware stress test uses
// persistent 100 Gb/s flows from a generator switch) and records every
// packet or header that reaches it.
type CBRHost struct {
	*sim.ComponentBase
	engine   sim.Engine
	idx      int
	port     int
	cfg      CBRConfig
	uplink   sim.Handler
	rec      *Recorder
	deadline int64
	srcs     flowTable[cbrSource] // by flow id
	sinks    flowTable[ndpSink]
	nic      nic
	pool     *pktPool
}

type cbrSource struct {
	flow *Flow
	seq  int
}

// BuildCBR builds a constant-rate host from a builder.
func (b Builder) BuildCBR(name string, cfg CBRConfig) *CBRHost {
	b.check()
	h := &CBRHost{ComponentBase: sim.NewComponentBase(name), engine: b.engine, idx: b.idx, port: b.port, cfg: cfg,
		uplink: b.uplink, rec: b.rec, deadline: b.deadlinePs, pool: b.pool}
	h.nic = nic{engine: b.engine, owner: h, gbps: cfg.NICGbps, propPs: cfg.PropPs, port: b.port, uplink: b.uplink, deadline: b.deadlinePs, pool: b.pool}
	return h
}

// NotifyRecv is unused (see packet.Event).
func (h *CBRHost) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (h *CBRHost) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// AddSource starts flow f at its start time.
func (h *CBRHost) AddSource(f *Flow) {
	h.srcs.put(f.ID, &cbrSource{flow: f})
	packet.Schedule(h.engine, h, f.StartPs, evFlowTimer, nil, f.ID)
}

// AddSink records flow f's arrivals.
func (h *CBRHost) AddSink(f *Flow) {
	h.sinks.put(f.ID, &ndpSink{flow: f})
}

func (h *CBRHost) gapPs() int64 {
	return int64(float64(packet.SerializationPs(h.cfg.MSS, h.cfg.RateGbps)))
}

// Handle sends the next packet of a flow or records an arrival.
func (h *CBRHost) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := ev.AtPs()
	switch ev.Kind {
	case evFlowTimer:
		s := h.srcs.get(ev.Port)
		if now > h.deadline || s.seq >= s.flow.Packets {
			return nil
		}
		f := s.flow
		pkt := h.pool.newPacket(h.rec.NewID(true, f.ID), f.ID,
			Header{Src: HostIP(f.Src), Dst: HostIP(f.Dst), Flow: uint16(f.ID), Seq: uint16(s.seq)}, h.cfg.MSS)
		s.seq++
		h.nic.send(pkt, false, now)
		packet.Schedule(h.engine, h, now+h.gapPs(), evFlowTimer, nil, ev.Port)
	case evNICFree:
		h.nic.next(now)
	case packet.KindArrive:
		defer h.pool.put(ev.Pkt) // the packet ends here
		if now > h.deadline {
			return nil
		}
		hd, ok := Decode(ev.Pkt.Head)
		if !ok || h.sinks.get(int(hd.Flow)) == nil {
			return nil
		}
		// A switch marks a trimmed header (ndp.p4 sets flag 0x80); a
		// traffic manager that trims (SONiC) just cuts the frame.
		trimmed := hd.Flags&FlagTrimmed != 0 || ev.Pkt.Len < h.cfg.MSS
		h.rec.delivered(ev.Pkt.ID, !trimmed)
		k := h.sinks.get(int(hd.Flow))
		seq := unwrap16(k.highest, hd.Seq)
		k.highest = max(k.highest, seq)
		h.rec.arrival(PacketArrival{Flow: int(hd.Flow), Seq: seq, AtPs: now, Trimmed: trimmed, Flags: hd.Flags})
		if trimmed {
			h.rec.header(int(hd.Flow), now)
		} else {
			h.rec.Goodput[hd.Flow] += int64(h.cfg.MSS - HeaderLen)
		}
	}
	return nil
}
