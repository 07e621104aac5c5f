package experiments

import (
	"strings"
)

// Estimate is a coarse upper bound on what a scenario's runs cost, derived
// from the scenario alone (no simulation): the command refuses a scenario
// whose estimate exceeds its limits before any run starts.
type Estimate struct {
	Runs        int
	DataPackets float64 // data packets the hosts can send, all runs together
	Events      float64 // engine events, all runs together
	MaxRunBytes float64 // memory of the largest run (packets in flight, program state)
}

// Estimate bounds the scenario's runs (this shard's, with opt.Shards).
// Each flow sends at most its size, and no faster than its host's link
// over the duration; packets in flight are bounded by the senders'
// windows (ndp) plus the switch queues, each costing perPacketBytes; a
// run also holds its switches' program state (registers, counters,
// meters). eventsPerPacket and eventsPerTrioPacket are what one data
// packet costs with its control packets (on a Trio chip, a program run
// per packet).
func (s *Scenario) Estimate(opt Options, perPacketBytes, eventsPerPacket, eventsPerTrioPacket float64) Estimate {
	var e Estimate
	specs, err := s.specs(s.Seed)
	if err != nil {
		return e
	}
	specs = opt.shard(specs)
	e.Runs = len(specs)
	stateOf := map[string]float64{} // program state by program and constants
	w := s.Workload
	frameBits := float64(w.MSS) * 8
	linkPkts := s.DurationUs * 1e-6 * s.Link.Gbps * 1e9 / frameBits // one host's link over the run
	if w.Kind == "cbr" {
		linkPkts = s.DurationUs * 1e-6 * min(w.RateGbps, s.Link.Gbps) * 1e9 / frameBits
	}
	for _, sp := range specs {
		flows, err := s.flows(sp.senders)
		if err != nil {
			continue
		}
		pkts, inflight := 0.0, 0.0
		for _, f := range flows {
			n := min(float64(f.Packets), linkPkts)
			pkts += n
			if w.Kind == "ndp" {
				inflight += min(n, float64(w.Window))
			} // a cbr host keeps nothing in flight: its packets queue in the switch

		}
		queues := float64(sp.variant.QueuePackets * s.Hosts)
		state := 0.0 // the switches' program state
		for _, ts := range s.topology().Switches {
			setup := sp.variant.setupOf(ts.Name)
			if setup.Program == "" {
				continue
			}
			params := map[string]string{}
			for k, v := range setup.Params {
				params[k] = v
			}
			for k, v := range sp.sweepParams {
				params[k] = v
			}
			key := setup.Program + "|" + sortedParams(params)
			b, ok := stateOf[key]
			if !ok {
				if prog, err := s.checkedProgram(setup.Program, params); err == nil {
					b = prog.StateBytes()
				}
				stateOf[key] = b
			}
			state += b
		}
		per := eventsPerPacket
		if sp.variant.runsOnTrio() {
			per = eventsPerTrioPacket
		}
		e.DataPackets += pkts
		e.Events += pkts * per
		e.MaxRunBytes = max(e.MaxRunBytes, (inflight+queues)*perPacketBytes+state)
	}
	return e
}

// runsOnTrio reports whether a switch of the variant is a Trio chip.
func (v Variant) runsOnTrio() bool {
	if strings.HasPrefix(v.chipOf(), "trio") {
		return true
	}
	for _, o := range v.Switches {
		if strings.HasPrefix(o.Chip, "trio") {
			return true
		}
	}
	return false
}
