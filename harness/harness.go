// Package harness is archsim's one latency harness: it offers a program's
// traffic templates (components/trafficgen) to a switch built by any chip
// through the arch seam, runs a serial Akita engine and returns what was
// simulated; the chip turns that into its report. A rate probe offers
// packets at once to unpaced ports to measure a chip's packet rate.
package harness

import (
	"fmt"

	"archsim/engine"

	"archsim/arch"
	"archsim/components/packet"
	"archsim/programs"
)

// Sim is what the latency harness simulates.
type Sim struct {
	Packets int     // packets offered, spread over the program's traffic ports
	Load    float64 // per ingress port, fraction of its line rate
	// RateProbe, if > 0 and the chip measures its packet rate by probing
	// (arch.RateProber), offers that many packets at once to a second
	// switch whose output ports do not pace.
	RateProbe int
	// Setup, if set, programs the switch (a control plane) before any
	// packet arrives.
	Setup func(sw arch.Switch) error
	// MaxEvents, if > 0, refuses a latency run whose estimated events
	// (EstimateEvents) exceed it, before the engine runs.
	MaxEvents int64
}

// Coarse per-item event costs for EstimateEvents: a packet costs at most
// ~300 events over the built-in programs on every chip (measured: 4 on
// Tofino ndp to 276 for switchml on Trio); a timer thread start ~6
// (measured with trio-ml's scan timer on Trio 5), 8 charged.
const (
	eventsPerPacket      = 300
	eventsPerTimerThread = 8
)

// EventsPerTimerThread is what a timer thread's start costs in engine
// events, for other estimates (the aggregation's).
const EventsPerTimerThread = eventsPerTimerThread

// EstimateEvents bounds a latency run's engine events from the offered
// packets and, on a chip that runs timers, the timer threads started
// until the last arrival.
func EstimateEvents(prog *programs.Program, timers bool, packets int, lastArrivalPs int64) float64 {
	ev := float64(packets) * eventsPerPacket
	if timers {
		for _, t := range prog.Timers {
			ev += float64(t.Threads) * (float64(lastArrivalPs)/1000/float64(t.PeriodNs) + 1) * eventsPerTimerThread
		}
	}
	return ev
}

// drainPs is how long a latency run continues after the last offered
// packet: packets still in the switch then are counted as in flight.
const drainPs = 1_000_000_000 // 1 ms

// probePsPerPacket bounds how long the rate probe waits per packet
// offered (see RateProbe).
const probePsPerPacket = 10_000_000 // 10 µs

// Measure runs the latency harness: the program's traffic templates
// offered to a switch built from c on a serial Akita engine (and, if
// asked, the rate probe).
func Measure(t arch.Target, c *arch.Compiled, seed int64, s Sim) (*arch.Measurement, error) {
	m := &arch.Measurement{}
	var err error
	if m.Latency, err = latencyRun(t, c, seed, s); err != nil {
		return nil, err
	}
	if p, ok := t.(arch.RateProber); ok && p.ProbesRate() && s.RateProbe > 0 {
		if m.Rate, err = RateProbe(t, c, seed, s.RateProbe); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// latencyRun offers the traffic at the given load and runs until every
// packet has left (or the drain time after the last arrival has passed);
// timer threads run until the last arrival.
func latencyRun(t arch.Target, c *arch.Compiled, seed int64, s Sim) (*arch.Run, error) {
	engine := engine.New()
	sw, err := t.Build(arch.BuildSpec{Engine: engine, Compiled: c, Seed: seed, ThreadStats: true})
	if err != nil {
		return nil, err
	}
	if s.Setup != nil {
		if err := s.Setup(sw); err != nil {
			return nil, err
		}
	}
	gen, hasGen := sw.(arch.PacketGenerator)
	hasGen = hasGen && len(c.Program.Pktgen) > 0
	off, err := GenerateWith(c.Program, sw.IngressGbps, s.Packets, s.Load, seed, hasGen)
	if err != nil {
		return nil, err
	}
	if hasGen {
		// The control plane's setup: the program's applications, all
		// enabled at 0; a periodic one stops after its share of triggers.
		if err := gen.ConfigurePktGen(c.Program.Pktgen); err != nil {
			return nil, err
		}
		until := map[string]int64{}
		for _, r := range off.Pktgen {
			until[r.App.Name] = r.UntilPs
		}
		for _, a := range c.Program.Pktgen {
			u, ok := until[a.Name]
			if !ok {
				u = -1
			}
			if err := gen.EnablePktGen(a.Name, 0, u); err != nil {
				return nil, err
			}
		}
	}
	if s.MaxEvents > 0 {
		_, timers := sw.(arch.TimerSwitch)
		if ev := EstimateEvents(c.Program, timers && len(c.Program.Timers) > 0, len(off.Arrivals), off.LastArrivalPs); ev > float64(s.MaxEvents) {
			return nil, fmt.Errorf("--packets %d at --load %g: estimated %.3g events (%d per packet, %d per timer thread over %.3g µs of arrivals) exceed --max-events %d",
				s.Packets, s.Load, ev, eventsPerPacket, eventsPerTimerThread, float64(off.LastArrivalPs)/1e6, s.MaxEvents)
		}
	}
	if o, ok := sw.(arch.Offerer); ok {
		o.Offer(off.Arrivals)
	} else {
		for _, a := range off.Arrivals {
			packet.Schedule(engine, sw.IngressHandler(a.Port), a.AtPs, packet.KindArrive, a.Pkt, a.Port)
		}
	}
	sw.SetDeadline(off.LastArrivalPs + drainPs)
	if ts, ok := sw.(arch.TimerSwitch); ok {
		ts.StartTimers(off.LastArrivalPs)
	}
	if err := engine.Run(); err != nil {
		return nil, err
	}
	if err := arch.FaultOf(sw); err != nil {
		return nil, err
	}
	offered := len(off.Arrivals)
	if hasGen {
		offered += gen.PktGenerated()
	}
	return &arch.Run{Switch: sw, Offered: offered, LastArrivalPs: off.LastArrivalPs, MeanFrameBytes: off.MeanFrameBytes,
		Events: engine.Scheduled(), SimulatedNs: float64(packet.SecToPs(engine.CurrentTime())) / 1000}, nil
}

// RateProbe offers n packets at once (at line-rate spacing order, all at
// time 0) to a switch with unpaced output ports: how fast the chip itself
// processes them.
func RateProbe(t arch.Target, c *arch.Compiled, seed int64, n int) (*arch.Run, error) {
	engine := engine.New()
	sw, err := t.Build(arch.BuildSpec{Engine: engine, Compiled: c, Seed: seed, Unpaced: true, ThreadStats: true})
	if err != nil {
		return nil, err
	}
	off, err := Generate(c.Program, sw.IngressGbps, n, 1, seed)
	if err != nil {
		return nil, err
	}
	for _, a := range off.TimeOrdered() {
		a.Pkt.BornPs = 0
		packet.Schedule(engine, sw.IngressHandler(a.Port), 0, packet.KindArrive, a.Pkt, a.Port)
	}
	// A program that recirculates or makes packets without end would keep
	// the probe running: it ends at a bound no chip needs (10 µs a packet,
	// 50 times the slowest built-in's), and says so.
	deadline := drainPs + int64(n)*probePsPerPacket
	sw.SetDeadline(deadline)
	if err := engine.Run(); err != nil {
		return nil, err
	}
	if end := packet.SecToPs(engine.CurrentTime()); end > deadline {
		return nil, fmt.Errorf("the rate probe did not end: packets were still in the chip %.6g ms after %d arrived at once (a program that recirculates or makes packets without end, or a chip configured this slow: its clock, memory latencies)", float64(deadline)/1e9, n)
	}
	if err := arch.FaultOf(sw); err != nil {
		return nil, err
	}
	return &arch.Run{Switch: sw, Offered: len(off.Arrivals), MeanFrameBytes: off.MeanFrameBytes,
		Events: engine.Scheduled(), SimulatedNs: float64(packet.SecToPs(engine.CurrentTime())) / 1000}, nil
}
