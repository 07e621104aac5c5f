package trio

import (
	"fmt"
	"math/rand"
	"sort"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
	"archsim/components/stats"
)

// RunOptions is what Measure simulates.
type RunOptions struct {
	Packets  int     // packets offered at Load of each port's line rate
	Load     float64 // per ingress port, fraction of line rate
	Seed     int64
	Saturate int // packets offered at once to find the PFE's packet rate (0: skip)
}

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
type DropCount struct {
	Reason  string `json:"reason"`
	Packets int    `json:"packets"`
}

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
}

// TimerSummary is what the timer threads did.
type TimerSummary struct {
	Runs         int           `json:"runs"`
	DurationNs   stats.Summary `json:"duration_ns"` // start to exit, waiting for a thread included
	Instructions stats.Summary `json:"instructions"`
}

// drainPs is how long a run continues after the last injected packet.
const drainPs = 1_000_000_000 // 1 ms

// Measure simulates the program's traffic templates through the PFE.
func Measure(cfg *Config, mc *Microcode, opt RunOptions) (*RunResult, error) {
	prog := mc.Prog
	if len(prog.Traffic) == 0 {
		return nil, fmt.Errorf("%s: program %s has no traffic section, so there are no packets to measure latency with", prog.File, prog.Name)
	}
	if opt.Load <= 0 || opt.Load > 1 {
		return nil, fmt.Errorf("--load %g: must be in (0, 1]", opt.Load)
	}
	engine := &packet.CountingEngine{Engine: sim.NewSerialEngine()}
	p := NewPFE(engine, cfg, mc, opt.Seed)
	pkts, last, frame, err := traffic(cfg, mc, opt.Packets, opt.Load, opt.Seed)
	if err != nil {
		return nil, err
	}
	for _, a := range pkts {
		p.Inject(a.pkt, a.at)
	}
	p.deadlinePs = last + drainPs
	p.StartTimers(last)
	if err := engine.Run(); err != nil {
		return nil, err
	}
	r := &RunResult{Offered: len(pkts), Delivered: p.Stats.Delivered, Copies: p.Stats.Copies, Replicated: p.Stats.Replicated, Emitted: p.Stats.Emitted,
		Events: engine.N, LastArrival: float64(last) / 1000,
		SimulatedNs: float64(packet.SecToPs(engine.CurrentTime())) / 1000}
	r.Ingress, r.Egress = summary(p, 0), summary(p, 1)
	r.EndToEndNs = p.Stats.E2E.Summarize(1000)
	r.Drops = p.dropList()
	if p.Stats.TimerRuns > 0 {
		r.Timers = &TimerSummary{Runs: p.Stats.TimerRuns, DurationNs: p.Stats.TimerNs.Summarize(1000), Instructions: p.Stats.TimerInstr.Summarize(1)}
	}
	if opt.Saturate > 0 {
		s, err := saturate(cfg, mc, opt.Saturate, opt.Seed, frame, r.Ingress.ThreadNs+r.Egress.ThreadNs)
		if err != nil {
			return nil, err
		}
		r.Saturation = s
	}
	return r, nil
}

func summary(p *PFE, g int) ThreadSummary {
	s := ThreadSummary{Packets: p.Stats.Packets[g], LatencyNs: p.Stats.Latency[g].Summarize(1000), WaitNs: p.Stats.WaitPs[g].Summarize(1000),
		Instructions: p.Stats.Instr[g].Summarize(1), XTXNPerPacket: map[string]float64{}}
	if n := p.Stats.Packets[g]; n > 0 {
		for k := XKind(0); k < xkinds; k++ {
			if v := p.Stats.XTXN[g][k]; v > 0 {
				s.XTXNPerPacket[k.String()] = float64(v) / float64(n)
			}
		}
		s.ThreadNs = float64(p.Stats.ThreadPs[g]) / float64(n) / 1000
	}
	return s
}

func (p *PFE) dropList() []DropCount {
	var out []DropCount
	for r, n := range p.drops {
		out = append(out, DropCount{r, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out
}

type arrival struct {
	pkt *packet.Packet
	at  int64
}

// traffic builds the offered packets: per template port, back to back at
// load × line rate (or every interval_ns), sizes cycling through each
// template's size classes, templates picked by weight (seeded). It returns
// the packets, the last arrival and the mean frame size.
func traffic(cfg *Config, mc *Microcode, packets int, load float64, seed int64) ([]arrival, int64, float64, error) {
	prog := mc.Prog
	byPort := map[int][]int{}
	var ports []int
	for fi, ft := range prog.Traffic {
		for _, dp := range ft.Ports {
			if _, ok := byPort[dp]; !ok {
				ports = append(ports, dp)
			}
			byPort[dp] = append(byPort[dp], fi)
		}
	}
	sort.Ints(ports)
	if packets < len(ports) {
		return nil, 0, 0, fmt.Errorf("--packets %d: need at least one packet per ingress port (%d ports)", packets, len(ports))
	}
	rng := rand.New(rand.NewSource(seed))
	var out []arrival
	var last int64
	var bytes float64
	var id uint64
	for pi, port := range ports {
		flows := byPort[port]
		n := packets / len(ports)
		if pi < packets%len(ports) {
			n++
		}
		weights := 0
		for _, fi := range flows {
			weights += prog.Traffic[fi].Weight
		}
		seq := make([]int, len(prog.Traffic))
		var t int64
		for k := 0; k < n; k++ {
			pick := rng.Intn(weights)
			fi := flows[0]
			for _, f := range flows {
				if pick < prog.Traffic[f].Weight {
					fi = f
					break
				}
				pick -= prog.Traffic[f].Weight
			}
			ft := prog.Traffic[fi]
			size := ft.Sizes[seq[fi]%len(ft.Sizes)]
			head := ft.BuildPacket(seq[fi], size)
			seq[fi]++
			size = max(size, len(head))
			gap := int64(float64(packet.SerializationPs(size, cfg.PortGbps)) / load)
			if ft.IntervalNs > 0 {
				gap = ft.IntervalNs * 1000
			}
			if k == 0 {
				t = rng.Int63n(max(gap, 1))
			}
			id++
			// One reorder flow per template and port.
			out = append(out, arrival{&packet.Packet{ID: id, Flow: fi*4096 + port, Head: head, Len: size, InPort: port, BornPs: t, Passes: 1}, t})
			bytes += float64(size)
			last = max(last, t)
			t += gap
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out, last, bytes / float64(len(out)), nil
}

// saturate offers n packets at once and measures the rate at which
// ingress threads finish, and the utilisation of PPE issue slots, threads
// and RMW engines over that interval.
func saturate(cfg *Config, mc *Microcode, n int, seed int64, frame, threadNs float64) (*Saturation, error) {
	engine := &packet.CountingEngine{Engine: sim.NewSerialEngine()}
	p := NewPFE(engine, cfg, mc, seed)
	p.unpaced = true
	pkts, _, _, err := traffic(cfg, mc, n, 1, seed)
	if err != nil {
		return nil, err
	}
	for _, a := range pkts {
		a.pkt.BornPs = 0
		p.Inject(a.pkt, 0)
	}
	if err := engine.Run(); err != nil {
		return nil, err
	}
	s := &Saturation{Packets: n, Available: cfg.PPEs * cfg.ThreadsPerPPE, MaxWaiting: p.Stats.MaxWaiting, AvgFrameB: frame,
		MaxBankLag: float64(p.Stats.BankBusyMax) / 1000}
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
		s.RMWEngines = float64(p.Stats.EngineBusyPs) / (float64(span) * float64(cfg.SMem.RMWEngines))
		for _, b := range p.bankBusy {
			s.HotEngine = max(s.HotEngine, float64(b)/float64(span))
		}
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
	return s, nil
}
