package experiments

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/hosts"
	"archsim/components/link"
	"archsim/components/packet"
	"archsim/components/tcp"
)

// aqmHostSet is the hosts of a PIE run.
type aqmHostSet struct {
	sources      []rateSetter
	goodputBytes func() int64
	sent         func() int
}

// udpBatch is the packets a UDP source sends per event: a rate change
// takes effect at most udpBatch-1 frame gaps late (≈ 1.8 us at 100 Gb/s),
// against rise and fall times of seconds.
const udpBatch = 16

// udpRate adapts a UDP source to the rise/fall observer.
type udpRate struct{ src *hosts.UDPSource }

func (u udpRate) SetRateGbps(now int64, gbps float64) { _ = u.src.SetRateGbps(now, gbps) }

// aqmHosts builds and attaches a PIE run's hosts: for udp-risefall a UDP
// source and sink per flow, for tcp the CUBIC connections. tap sees every
// packet that reaches a receiving host.
func (s *Scenario) aqmHosts(spec runSpec, hb hosts.Builder, eng sim.Engine, net *network, startPs, deadline int64, tap func(*packet.Packet)) (*aqmHostSet, error) {
	w := s.Workload
	prop := int64(s.Link.PropNs * 1000)
	hb = hb.WithDeadline(deadline)
	set := &aqmHostSet{}
	switch w.Kind {
	case "udp-risefall":
		var sinks []*hosts.UDPSink
		for i, f := range s.Pattern.Flows {
			src, dst := f[0], f[1]
			ssw, sport := net.hostPort(src)
			u, err := hb.WithHost(src, sport).WithUplink(ssw.IngressHandler(sport)).BuildUDP(sim.BuildNameWithIndex("Net", "UDPSource", src), hosts.UDPConfig{
				NICGbps: s.hostGbps(src), PropPs: prop, IPBytes: w.FrameBytes - 14, RateGbps: w.RateGbps, StartPs: startPs,
				Src: hosts.HostIP(src), Dst: hosts.HostIP(dst), SrcPort: uint16(10000 + i), DstPort: 5001, Flow: i, Batch: udpBatch})
			if err != nil {
				return nil, fmt.Errorf("pattern.flows[%d]: %v", i, err)
			}
			ssw.Attach(sport, link.To(u, sport, prop))
			dsw, dport := net.hostPort(dst)
			k := hb.WithHost(dst, dport).BuildUDPSink(sim.BuildNameWithIndex("Net", "UDPSink", dst))
			k.OnReceive(func(_ int64, pkt *packet.Packet) { tap(pkt) })
			dsw.Attach(dport, link.To(k, dport, prop))
			u.Start()
			set.sources = append(set.sources, udpRate{u})
			sinks = append(sinks, k)
		}
		set.goodputBytes = func() int64 {
			var n int64
			for _, k := range sinks {
				n += k.Bytes
			}
			return n
		}
		set.sent = func() int {
			n := 0
			for _, s := range set.sources {
				n += int(s.(udpRate).src.Sent)
			}
			return n
		}
		return set, nil
	case "tcp":
		src, dst := s.Pattern.Flows[0][0], s.Pattern.Flows[0][1]
		cfg := tcp.DefaultConfig()
		cfg.MSS = w.MSS
		cfg.PropPs = prop
		cfg.StackDelayPs = int64(w.HostDelayUs * 1e6)
		tb := tcp.MakeBuilder().WithEngine(eng).WithDeadline(deadline)
		if rec := hb.Recorder(); rec != nil {
			// The segments' ledger: every frame numbered by the recorder,
			// a data segment delivered when it reaches the receiver.
			tb = tb.WithPacketIDs(rec.NewID)
			inner := tap
			tap = func(pkt *packet.Packet) {
				rec.Delivered(pkt.ID)
				inner(pkt)
			}
		}
		build := func(h int, name string) (*tcp.Host, error) {
			sw, port := net.hostPort(h)
			c := cfg
			c.NICGbps = s.hostGbps(h)
			host, err := tb.WithConfig(c).WithHost(h, port).WithUplink(sw.IngressHandler(port)).Build(sim.BuildNameWithIndex("Net", name, h))
			if err != nil {
				return nil, fmt.Errorf("workload: %v", err)
			}
			return host, nil
		}
		sender, err := build(src, "TCPHost")
		if err != nil {
			return nil, err
		}
		receiver, err := build(dst, "TCPHost")
		if err != nil {
			return nil, err
		}
		ssw, sport := net.hostPort(src)
		ssw.Attach(sport, link.To(sender, sport, prop))
		dsw, dport := net.hostPort(dst)
		dsw.Attach(dport, link.To(tapped{receiver, tap}, dport, prop))
		var flows []*tcp.Flow
		for i := 0; i < spec.senders; i++ {
			// Assumed: the connections start a microsecond apart, as a
			// tool opening them one after another would.
			f := &tcp.Flow{ID: i, Src: src, Dst: dst, StartPs: startPs + int64(i)*1e6}
			if err := receiver.AddReceiver(f); err != nil {
				return nil, err
			}
			if err := sender.AddSender(f); err != nil {
				return nil, err
			}
			flows = append(flows, f)
		}
		set.goodputBytes = func() int64 {
			var n int64
			for _, f := range flows {
				n += f.Stats.Delivered
			}
			return n
		}
		set.sent = func() int {
			n := 0
			for _, f := range flows {
				n += f.Stats.SegmentsSent
			}
			return n
		}
		return set, nil
	}
	return nil, fmt.Errorf("workload %s has no hosts", w.Kind)
}

// tapped shows a host's arriving packets to a tap before the host takes
// them (no extra event).
type tapped struct {
	host sim.Handler
	tap  func(*packet.Packet)
}

// Handle taps an arriving packet and hands the event on.
func (t tapped) Handle(e sim.Event) error {
	if ev, ok := e.(*packet.Event); ok && ev.Kind == packet.KindArrive && ev.Pkt != nil {
		t.tap(ev.Pkt)
	}
	return t.host.Handle(e)
}
