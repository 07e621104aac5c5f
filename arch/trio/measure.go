package trio

import (
	"slices"

	"archsim/arch"
	"archsim/arch/trio/lower"
	"archsim/components/stats"
)

// ThreadSummary is one gress's measurements.
type ThreadSummary struct {
	Packets       int                `json:"packets"`
	LatencyNs     stats.Summary      `json:"latency_ns"`
	WaitNs        stats.Summary      `json:"wait_for_thread_ns"`
	Instructions  stats.Summary      `json:"instructions"`
	XTXNPerPacket map[string]float64 `json:"xtxn_per_packet"`
	ThreadNs      float64            `json:"thread_ns_per_packet"` // mean time a packet holds its thread
}

// Saturation is the PFE's packet rate when more work is offered than it
// can do, and what binds it.
type Saturation struct {
	Packets    int     `json:"packets"`
	RateMpps   float64 `json:"rate_mpps"`
	PPEIssue   float64 `json:"ppe_issue_utilisation"`      // issued instructions / issue slots
	Threads    float64 `json:"thread_utilisation"`         // thread-time held / threads × time
	RMWEngines float64 `json:"rmw_engine_utilisation"`     // engine busy time / engines × time
	HotEngine  float64 `json:"rmw_engine_max_utilisation"` // the busiest engine
	Binding    string  `json:"binding_limit"`              // the resource closest to saturation
	MemoryWait float64 `json:"memory_wait_share"`          // share of a thread's time spent waiting on transactions
	LineMpps   float64 `json:"line_rate_mpps"`             // all ports at line rate with the traffic's size mix
	ThreadsFor float64 `json:"threads_for_line_rate"`      // Little's law at the measured thread time
	Available  int     `json:"threads_available"`          // PPEs × threads
	Sustains   bool    `json:"sustains_line_rate"`         // RateMpps ≥ LineMpps
	MaxWaiting int     `json:"max_heads_waiting"`          // heads queued for a thread
	MaxBankLag float64 `json:"max_engine_backlog_ns"`      // longest wait at an RMW engine
	AvgFrameB  float64 `json:"mean_frame_bytes"`           // of the offered mix
}

// DropCount is packets dropped for one reason.
type DropCount = arch.DropCount

// RunResult is what a latency run measured.
type RunResult struct {
	Offered     int           `json:"offered"`
	Delivered   int           `json:"delivered"`
	Copies      int           `json:"copies_created"`
	Emitted     int           `json:"packets_created"`
	Replicated  int           `json:"replicated"`
	Drops       []DropCount   `json:"drops"`
	Ingress     ThreadSummary `json:"ingress"`
	Egress      ThreadSummary `json:"egress"`
	EndToEndNs  stats.Summary `json:"end_to_end_ns"`
	Events      int64         `json:"events"`
	SimulatedNs float64       `json:"simulated_ns"`
	LastArrival float64       `json:"last_arrival_ns"`
	Saturation  *Saturation   `json:"saturation,omitempty"`
	Timers      *TimerSummary `json:"timers,omitempty"`
	PortsBeyond *PortsBeyond  `json:"ports_beyond_pfe,omitempty"`
}

// PortsBeyond are the port numbers a run used that the PFE does not have
// (≥ its ports): packets arrived on In and left on Out. A program's
// traffic and tables may number ports for another chip (the built-in
// programs were written for Tofino's pipes); the PFE then serves each such
// port as one more port at its port rate rather than refusing the run, and
// the report says so.
type PortsBeyond struct {
	Ports int   `json:"pfe_ports"`
	In    []int `json:"in,omitempty"`
	Out   []int `json:"out,omitempty"`
}

// noteBeyondIn records an arrival on port n ≥ cfg.Ports.
func (p *PFE) noteBeyondIn(n int) {
	if p.beyondIn == nil {
		p.beyondIn = map[int]bool{}
	}
	p.beyondIn[n] = true
}

// portsBeyond is the run's ports beyond the PFE's, sorted (nil: none).
func (p *PFE) portsBeyond() *PortsBeyond {
	r := &PortsBeyond{Ports: p.cfg.Ports}
	for n := range p.beyondIn {
		r.In = append(r.In, n)
	}
	for n := range p.out {
		if n >= p.cfg.Ports {
			r.Out = append(r.Out, n)
		}
	}
	if r.In == nil && r.Out == nil {
		return nil
	}
	slices.Sort(r.In)
	slices.Sort(r.Out)
	return r
}

// TimerSummary is what the timer threads did.
type TimerSummary struct {
	Runs         int           `json:"runs"`
	DurationNs   stats.Summary `json:"duration_ns"` // start to exit, waiting for a thread included
	Instructions stats.Summary `json:"instructions"`
}

// RunResultOf is the latency run's outcome, from the PFE's statistics,
// with the rate probe's saturation figures if it ran (nil without a
// measurement).
func RunResultOf(m *arch.Measurement) *RunResult {
	if m == nil || m.Latency == nil {
		return nil
	}
	run := m.Latency
	p := run.Switch.(*PFE)
	r := &RunResult{Offered: run.Offered, Delivered: p.Stats.Delivered, Copies: p.Stats.Copies, Replicated: p.Stats.Replicated, Emitted: p.Stats.Emitted + p.Stats.Resent,
		Events: run.Events, LastArrival: float64(run.LastArrivalPs) / 1000, SimulatedNs: run.SimulatedNs}
	r.Ingress, r.Egress = summary(p, 0), summary(p, 1)
	r.EndToEndNs = p.Stats.E2E.Summarize(1000)
	r.Drops = p.dropList()
	r.PortsBeyond = p.portsBeyond()
	if p.Stats.TimerRuns > 0 {
		r.Timers = &TimerSummary{Runs: p.Stats.TimerRuns, DurationNs: p.Stats.TimerNs.Summarize(1000), Instructions: p.Stats.TimerInstr.Summarize(1)}
	}
	if m.Rate != nil {
		// The line rate from the probe's own frames, the mix the rate
		// was measured on (the latency run's few packets may not be it).
		r.Saturation = saturation(m.Rate, m.Rate.MeanFrameBytes, r.Ingress.ThreadNs+r.Egress.ThreadNs)
	}
	return r
}

func summary(p *PFE, g int) ThreadSummary {
	s := ThreadSummary{Packets: p.Stats.Packets[g], LatencyNs: p.Stats.Latency[g].Summarize(1000), WaitNs: p.Stats.WaitPs[g].Summarize(1000),
		Instructions: p.Stats.Instr[g].Summarize(1), XTXNPerPacket: map[string]float64{}}
	if n := p.Stats.Packets[g]; n > 0 {
		for k := lower.XKind(0); k < lower.NumXKinds; k++ {
			if v := p.Stats.XTXN[g][k]; v > 0 {
				s.XTXNPerPacket[k.String()] = float64(v) / float64(n)
			}
		}
		s.ThreadNs = float64(p.Stats.ThreadPs[g]) / float64(n) / 1000
	}
	return s
}

func (p *PFE) dropList() []DropCount {
	if p.drops.Len() == 0 {
		return nil
	}
	return p.drops.Sorted()
}

// saturation is the rate probe's outcome (n packets offered at once): the
// rate at which ingress threads finish, and the utilisation of PPE issue
// slots, threads and RMW engines over that interval.
func saturation(probe *arch.Run, frame, threadNs float64) *Saturation {
	p := probe.Switch.(*PFE)
	cfg, n := p.cfg, probe.Offered
	s := &Saturation{Packets: n, Available: cfg.PPEs * cfg.ThreadsPerPPE, MaxWaiting: p.Stats.MaxWaiting, AvgFrameB: frame,
		MaxBankLag: float64(p.smem.MaxBacklogPs) / 1000}
	span := p.Stats.LastThreadEndPs // all arrived at 0
	done := p.Stats.Packets[0]
	if span > 0 && done > 1 {
		s.RateMpps = float64(done) / (float64(span) / 1e12) / 1e6
		cycles := float64(span) / cfg.CyclePs()
		var instr int64
		for _, pp := range p.ppes {
			instr += pp.instr
		}
		s.PPEIssue = float64(instr) / (cycles * float64(cfg.PPEs))
		s.Threads = float64(p.Stats.ThreadPs[0]+p.Stats.ThreadPs[1]) / (float64(span) * float64(s.Available))
		s.RMWEngines = float64(p.smem.BusyPs) / (float64(span) * float64(cfg.SMem.RMWEngines))
		s.HotEngine = float64(p.smem.Hottest()) / float64(span)
		computePs := float64(instr) * float64(cfg.Instr.Cycles) * cfg.CyclePs()
		if held := float64(p.Stats.ThreadPs[0] + p.Stats.ThreadPs[1]); held > 0 {
			s.MemoryWait = max(0, 1-computePs/held)
		}
	}
	s.Binding = "ppe-issue"
	best := s.PPEIssue
	if s.Threads > best {
		best, s.Binding = s.Threads, "threads"
		if s.MemoryWait > 0.5 {
			s.Binding = "threads (waiting on memory)"
		}
	}
	if s.RMWEngines > best {
		best, s.Binding = s.RMWEngines, "rmw-engines"
	}
	if s.HotEngine > 0.9 && s.HotEngine > best {
		s.Binding = "rmw-engines (one hot engine)"
	}
	bitsPerPkt := (frame + 24) * 8 // preamble, IFG and FCS on the wire
	s.LineMpps = float64(cfg.Ports) * cfg.PortGbps * 1e9 / bitsPerPkt / 1e6
	s.ThreadsFor = s.LineMpps * 1e6 * threadNs * 1e-9
	s.Sustains = s.RateMpps >= s.LineMpps
	return s
}
