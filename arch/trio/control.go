package trio

import (
	"fmt"
	"sort"

	"archsim/arch"
	"archsim/arch/trio/spec"
	"archsim/components/packet"
	"archsim/programs"
)

// The PFE as experiments see it (arch.Switch) and its control-plane hooks.

// Name is the PFE's component name.
func (p *PFE) Name() string { return p.ComponentBase.Name() }

// FrontPorts are the PFE's ports 0..ports-1.
func (p *PFE) FrontPorts() []int {
	out := make([]int, p.cfg.Ports)
	for i := range out {
		out[i] = i
	}
	return out
}

// IngressGbps is a port's rate.
func (p *PFE) IngressGbps(port int) (float64, error) { return p.portGbps(port), nil }

// portGbps is a port's speed: the PFE's, unless the network set it.
func (p *PFE) portGbps(port int) float64 {
	if g, ok := p.speeds[port]; ok {
		return g
	}
	return p.cfg.PortGbps
}

// SetPortGbps sets a port's speed (its output queue drains at it).
func (p *PFE) SetPortGbps(port int, gbps float64) error {
	if port < 0 || port >= p.cfg.Ports || !(gbps > 0 && gbps <= 3200) {
		return fmt.Errorf("%s: port %d at %g Gb/s: want a port 0..%d and a rate in (0, 3200]", p.Name(), port, gbps, p.cfg.Ports-1)
	}
	if p.speeds == nil {
		p.speeds = map[int]float64{}
	}
	p.speeds[port] = gbps
	return nil
}

// SetMulticastGroup replaces a multicast group's ports (arch.Replicator):
// the control plane's write of the replication list.
func (p *PFE) SetMulticastGroup(id int, ports []int) error {
	if id <= 0 || id >= 1<<16 {
		return fmt.Errorf("%s: multicast group %d: want 1..65535", p.Name(), id)
	}
	for _, port := range ports {
		if port < 0 || port >= p.cfg.Ports {
			return fmt.Errorf("%s: multicast group %d: port %d does not exist (ports 0..%d)", p.Name(), id, port, p.cfg.Ports-1)
		}
	}
	p.groups[id] = &programs.MulticastGroup{ID: id, Ports: append([]int(nil), ports...)}
	return nil
}

// The PFE's control plane writes multicast groups and reads queues.
var (
	_ arch.Replicator = (*PFE)(nil)
	_ arch.QueueUser  = (*PFE)(nil)
)

// TimerRuns is the timer threads run so far.
func (p *PFE) TimerRuns() int64 { return int64(p.Stats.TimerRuns) }

// OnDrop sets a hook called for every packet the PFE drops.
func (p *PFE) OnDrop(f func(*packet.Packet, string)) { p.dropHook = f }

// TapWire sees every frame leaving a port (arch.Tappable).
func (p *PFE) TapWire(f arch.WireTap) { p.tap = f }

func (p *PFE) dropped(pkt *packet.Packet, reason string) {
	p.egressSized(pkt, 0)
	p.drops.Add(reason)
	if p.dropHook != nil {
		p.dropHook(pkt, reason)
	}
}

// Counters are the PFE's deliveries and drops (it trims nothing).
func (p *PFE) Counters() arch.Counters {
	return arch.Counters{Delivered: p.Stats.Delivered, Drops: p.dropList(), Copies: p.Stats.Copies, Created: p.Stats.Emitted + p.Stats.Resent,
		InstrPerPacket: p.Stats.Instr[0].Summarize(1).Mean}
}

// Offer schedules offered packets in time order: the dispatcher sees heads
// in the order they arrive.
func (p *PFE) Offer(as []arch.Arrival) {
	as = append([]arch.Arrival(nil), as...)
	sort.SliceStable(as, func(i, j int) bool { return as[i].AtPs < as[j].AtPs })
	for _, a := range as {
		p.Inject(a.Pkt, a.AtPs)
	}
}

// TraceRegister calls f whenever a register action runs.
func (p *PFE) TraceRegister(f func(unit int, ra *programs.RegisterAction, index int64, nowPs int64)) {
	p.exec.OnRegister = func(ra *programs.RegisterAction, index int64, now int64) { f(0, ra, index, now) }
}

// StopTimers ends the timer threads: none starts after ps (an experiment
// calls it when its workload is over, so the periodic threads do not keep
// the simulation going).
func (p *PFE) StopTimers(ps int64) { p.timersUntil = min(p.timersUntil, ps) }

// Drops lists the packets the PFE dropped, by reason (sorted by reason).
func (p *PFE) Drops() []DropCount { return p.dropList() }

// EngineBusy returns the read-modify-write engines' busy time so far: the
// sum over the engines and the busiest engine's (ps).
func (p *PFE) EngineBusy() (total, hottest int64) { return p.smem.BusyPs, p.smem.Hottest() }

// Config is the PFE's configuration.
func (p *PFE) Config() *spec.Config { return p.cfg }
