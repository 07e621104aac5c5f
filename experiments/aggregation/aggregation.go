// Package aggregation runs in-network aggregation jobs end to end: the
// workers of components/workers streaming gradients to a Trio PFE running
// trio-ml or to a Tofino switch running switchml (64 gradients per packet)
// or switchml-256 (256, by recirculation), on one Akita serial
// engine. The host, training and straggler parameters come from
// configs/aggregation.yaml.
package aggregation

import (
	"archsim/engine"
	"context"
	"fmt"
	"runtime/pprof"
	"strconv"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/components/link"
	"archsim/components/packet"
	"archsim/components/workers"
	"archsim/configs"
	"archsim/job"
	"archsim/programs"
)

// Params are configs/aggregation.yaml's settings.
type Params struct {
	Host struct {
		NICGbps         float64 `mapstructure:"nic_gbps"`
		PropNs          float64 `mapstructure:"prop_ns"`
		StackNs         float64 `mapstructure:"stack_ns"`
		StackNsPerGrad  float64 `mapstructure:"stack_ns_per_gradient"`
		CoreNsPerPacket float64 `mapstructure:"core_ns_per_packet"`
	} `mapstructure:"host"`
	Training struct {
		Workers    int     `mapstructure:"workers"`
		PerPacket  int     `mapstructure:"gradients_per_packet"`
		Window     int     `mapstructure:"window"`
		Gradients  int     `mapstructure:"gradients"`
		ComputeMs  float64 `mapstructure:"compute_ms"`
		Iterations int     `mapstructure:"iterations"`
		FirstLevel int     `mapstructure:"first_level_pfes"`
		FabricNs   float64 `mapstructure:"fabric_ns"`
	} `mapstructure:"training"`
	Straggler struct {
		DelayPoints int     `mapstructure:"delay_points"`
		SlowMin     float64 `mapstructure:"slow_min"`
		SlowMax     float64 `mapstructure:"slow_max"`
		Probability float64 `mapstructure:"probability"`
		// Iterations the Fig. 13 comparison averages (the
		// trio.straggler.speedup claim); training.iterations stays the
		// default of single runs and of aggregate --compare.
		Iterations int `mapstructure:"iterations"`
	} `mapstructure:"straggler"`
	SwitchML struct {
		Pool int `mapstructure:"pool"`
	} `mapstructure:"switchml"`
}

// LoadParams reads configs/aggregation.yaml with key=value overrides.
func LoadParams(sets []string) (*Params, error) {
	l, err := configs.Load(configs.Source{Base: []string{"aggregation.yaml"}, Sets: sets})
	if err != nil {
		return nil, err
	}
	p := &Params{}
	if err := l.Decode("aggregation", p); err != nil {
		return nil, err
	}
	if err := l.CheckRanges("aggregation", p.ranges()); err != nil {
		return nil, err
	}
	return p, nil
}

// Bounds on the aggregation parameters: sizes bound a job's memory (the
// Trio-ML aggregation buffer is window x gradients per packet per PFE)
// and its events (workers x blocks x iterations packets); the README lists
// them (section "Limits").
const (
	MaxWindow     = 1 << 16 // blocks in flight per worker (the paper's 4096 x 16)
	MaxGradients  = 1 << 28 // gradients per worker per iteration (1 GiB of fp32)
	MaxIterations = 100000
	MaxPool       = 1 << 16 // SwitchML slots per worker
)

// ranges are the parameters' allowed ranges (configs.CheckRanges).
func (p *Params) ranges() []configs.Range {
	h, t, s := p.Host, p.Training, p.Straggler
	return []configs.Range{
		configs.In("host.nic_gbps", h.NICGbps, 0.001, 1600),
		configs.In("host.prop_ns", h.PropNs, 0, 1e9),
		configs.In("host.stack_ns", h.StackNs, 0, 1e9),
		configs.In("host.stack_ns_per_gradient", h.StackNsPerGrad, 0, 1e6),
		configs.In("host.core_ns_per_packet", h.CoreNsPerPacket, 0, 1e9),
		configs.In("training.workers", float64(t.Workers), 1, 32),
		configs.In("training.gradients_per_packet", float64(t.PerPacket), 1, 4095),
		configs.In("training.window", float64(t.Window), 1, MaxWindow),
		configs.In("training.gradients", float64(t.Gradients), 1, MaxGradients),
		configs.In("training.compute_ms", t.ComputeMs, 0, 1e6),
		configs.In("training.iterations", float64(t.Iterations), 1, MaxIterations),
		configs.In("training.first_level_pfes", float64(t.FirstLevel), 0, 32),
		configs.In("training.fabric_ns", t.FabricNs, 0, 1e9),
		configs.In("straggler.delay_points", float64(s.DelayPoints), 0, 1000),
		configs.In("straggler.slow_min", s.SlowMin, 0, 1000),
		configs.In("straggler.slow_max", s.SlowMax, s.SlowMin, 1000).From("straggler.slow_min", ""),
		configs.In("straggler.probability", s.Probability, 0, 1),
		configs.In("straggler.iterations", float64(s.Iterations), 1, MaxIterations),
		configs.In("switchml.pool", float64(p.SwitchML.Pool), 1, MaxPool),
	}
}

// Setup is one run.
type Setup struct {
	Switch     string // the system: "trio" (Trio-ML) or "tofino" (SwitchML), see systems
	Chip       string // the registered chip it runs on ("": the system's own, e.g. trio6 for a Trio 6 PFE)
	Workers    workers.Config
	Pool       int               // SwitchML slots per worker
	Params     map[string]string // program constants (besides the ones Run sets)
	DeadlinePs int64             // 0: until the job is done
	StartPs    int64             // when the workers start (timer threads start at 0)
	// FirstLevel > 1: hierarchical aggregation ([TRIO] §4, §6.1): the
	// servers are split among FirstLevel PFEs (consecutive servers on one
	// PFE, ports from 0), each sending its results to a top-level PFE over
	// the chassis fabric (FabricPs one way). 0: one PFE.
	FirstLevel int
	FabricPs   int64
	Seed       int64
}

// Workers builds the worker configuration from the parameters: straggle
// probability p, typical iteration time typicalPs (for the sleeps).
func (p *Params) Workers(prob float64, typicalPs int64, seed int64) workers.Config {
	h, t, s := p.Host, p.Training, p.Straggler
	return workers.Config{Workers: t.Workers, Gradients: t.Gradients, PerPacket: t.PerPacket, Window: t.Window,
		ComputePs: int64(t.ComputeMs * 1e9), Iterations: t.Iterations, StartGen: 1,
		StackPs: int64(h.StackNs * 1000), StackPerGradPs: h.StackNsPerGrad * 1000, CorePerPktPs: int64(h.CoreNsPerPacket * 1000),
		NICGbps: h.NICGbps, PropPs: int64(h.PropNs * 1000),
		StraggleProb: prob, DelayPoints: s.DelayPoints, TypicalIterPs: typicalPs, SlowMin: s.SlowMin, SlowMax: s.SlowMax, Seed: seed}
}

// Result is what a run measured.
type Result struct {
	Switch          string  `json:"switch"`
	Chip            string  `json:"chip"`
	Program         string  `json:"program"`
	Workers         int     `json:"workers"`
	GradsPerPacket  int     `json:"gradients_per_packet"`
	Window          int     `json:"window"`
	Iterations      int     `json:"iterations"`
	Done            bool    `json:"done"`
	MeanIterationMs float64 `json:"mean_iteration_ms"`
	// MedianWorkerMs is the median worker's own mean iteration time (the
	// makespan-based mean above waits for the last worker).
	MedianWorkerMs   float64 `json:"median_worker_iteration_ms"`
	BlockLatencyUs   float64 `json:"block_latency_us"` // mean, full results
	AggRateGradPerUs float64 `json:"aggregation_rate_gradients_per_us"`
	ThroughputGbps   float64 `json:"throughput_gbps"` // aggregated gradient bits per second per worker, first send to last result (compute time included)
	PartialMeanMs    float64 `json:"partial_result_mean_ms"`
	PartialMaxMs     float64 `json:"partial_result_max_ms"`
	PartialMinMs     float64 `json:"partial_result_min_ms"`
	Sent             int     `json:"packets_sent"`
	Results          int     `json:"results_received"`
	Degraded         int     `json:"degraded_results"`
	Wrong            int     `json:"wrong_results"`
	Stale            int     `json:"stale_results"`
	Duplicates       int     `json:"duplicate_results"`
	Sleeps           int     `json:"sleeps"`
	SwitchDrops      int     `json:"switch_drops"`
	Consumed         int     `json:"switch_consumed"` // contributions the program consumed (dropped by design)
	Created          int     `json:"switch_results_created"`
	Copies           int     `json:"switch_multicast_copies"`
	Delivered        int     `json:"switch_delivered"`
	// Tofino only: pipe passes that ran the aggregation registers (a
	// switchml contribution makes 1, a switchml-256 one 4; a slot's last
	// packet makes 1 or 7 more).
	Passes int `json:"switch_aggregation_passes,omitempty"`
	// DegradedSources: degraded results received, by the src_cnt they
	// carry.
	DegradedSources map[int]int `json:"degraded_results_by_sources,omitempty"`
	Events          int64       `json:"events"`
	// Trio PFE only: threads' instructions per packet (mean) and engine
	// utilisation over the run.
	InstrPerPacket float64 `json:"instructions_per_packet,omitempty"`
	SimulatedMs    float64 `json:"simulated_ms"`
}

// system is an aggregation system a job runs on: an aggregation program
// family with its workers' protocol, on a chip that runs it.
type system struct {
	chip  string // the registered chip it runs on unless Setup.Chip says otherwise
	doc   string
	build func(s Setup, engine sim.Engine, params map[string]string, wc *workers.Config, r *Result) (*fabric, error)
}

// fabric is the switches of a job as its workers see them.
type fabric struct {
	proto      workers.Protocol
	uplink     func(w int) sim.Handler
	port       func(w int) int
	attach     func(w int, h sim.Handler, propPs int64) // connects worker w
	collect    func(r *Result)
	stopTimers func(ps int64)
	switches   []arch.Switch // checked for a fault after the run (arch.FaultOf)
}

// systems are the two systems [TRIO] §6 compares (Setup.Switch).
var systems = map[string]system{
	"trio":   {chip: "trio", doc: "Trio-ML on Trio PFEs (one, or first-level PFEs feeding a top-level one)", build: trioML},
	"tofino": {chip: "tofino", doc: "SwitchML (64 gradients per packet) or SwitchML-256 (256) on a Tofino pipeline", build: switchML},
}

// Run simulates one job.
func Run(s Setup) (r *Result, err error) {
	// Labelled as scenario runs are, so that a --cpuprofile splits by
	// run (go tool pprof -tags).
	pprof.Do(context.Background(), pprof.Labels("scenario", "aggregate", "variant", s.Switch), func(context.Context) {
		r, err = run(s)
	})
	return r, err
}

func run(s Setup) (*Result, error) {
	engine := engine.New()
	wc := s.Workers
	params := map[string]string{}
	for k, v := range s.Params {
		params[k] = v
	}
	if s.FirstLevel == 1 || s.FirstLevel < 0 || s.FirstLevel > wc.Workers {
		if wc.Workers < 2 {
			return nil, fmt.Errorf("first-level PFEs: %d, but %d worker cannot be split among PFEs: want 0 (one PFE; --first-level 0)", s.FirstLevel, wc.Workers)
		}
		return nil, fmt.Errorf("first-level PFEs: %d, want 0 (one PFE) or 2..%d (servers split among them)", s.FirstLevel, wc.Workers)
	}
	sys, ok := systems[s.Switch]
	if !ok {
		return nil, fmt.Errorf("switch %q: want trio or tofino", s.Switch)
	}
	// The workers' compute alone takes iterations x compute of simulated
	// time; past the clock's end a job cannot finish (it used to run to the
	// end and report an unfinished job, exit 1), so it is refused here.
	if need := float64(s.StartPs) + float64(wc.Iterations)*float64(wc.ComputePs); need >= float64(clockEndPs) {
		return nil, fmt.Errorf("%d iterations of %s ms compute are %.3g s of simulated time, past the end of the engine's clock (2^62 ps, %.3g s): fewer iterations or less compute per iteration",
			wc.Iterations, strconv.FormatFloat(float64(wc.ComputePs)/1e9, 'f', -1, 64), need/1e12, float64(clockEndPs)/1e12)
	}
	if s.Chip == "" {
		s.Chip = sys.chip
	}
	r := &Result{Switch: s.Switch, Chip: s.Chip, Workers: wc.Workers, GradsPerPacket: wc.PerPacket, Window: wc.Window, Iterations: wc.Iterations}
	f, err := sys.build(s, engine, params, &wc, r)
	if err != nil {
		return nil, err
	}
	proto, uplink, port, attach, collect, stopTimers := f.proto, f.uplink, f.port, f.attach, f.collect, f.stopTimers
	job, err := workers.MakeBuilder().WithEngine(engine).WithConfig(wc).WithProtocol(proto).WithUplinks(uplink, port).Build("Job")
	if err != nil {
		return nil, err
	}
	for w, wk := range job.Workers {
		attach(w, wk, wc.PropPs)
	}
	// Timer threads run while the job does.
	job.OnDone = stopTimers
	job.Start(s.StartPs)
	if err := engine.Run(); err != nil {
		return nil, err
	}
	for _, sw := range f.switches {
		if err := arch.FaultOf(sw); err != nil {
			return nil, err
		}
	}
	st := job.Stats
	r.Done = job.Done()
	r.MeanIterationMs = job.MeanIterationPs(s.StartPs) / 1e9
	r.MedianWorkerMs = job.MedianWorkerIterationPs(s.StartPs) / 1e9
	r.Sent, r.Results, r.Degraded, r.Wrong, r.Stale, r.Duplicates = st.Sent, st.Results, st.Degraded, st.Wrong, st.Stale, st.Duplicates
	r.Sleeps = len(st.Slept)
	r.DegradedSources = st.DegradedSources
	r.BlockLatencyUs = st.BlockLatency.Mean() / 1e6
	if r.BlockLatencyUs > 0 {
		r.AggRateGradPerUs = float64(wc.PerPacket) / r.BlockLatencyUs
	}
	if span := st.LastResultPs - st.FirstSendPs; span > 0 {
		r.ThroughputGbps = float64(st.AggregatedGrads) * 32 / float64(span) * 1000 / float64(wc.Workers)
	}
	r.PartialMeanMs = st.Partial.Mean() / 1e9
	if st.Partial.N() > 0 {
		r.PartialMaxMs = float64(max(0, st.Partial.Max())) / 1e9
		r.PartialMinMs = float64(st.Partial.Min()) / 1e9
	}
	r.Events = engine.Scheduled()
	r.SimulatedMs = float64(packet.SecToPs(engine.CurrentTime())) / 1e9
	collect(r)
	return r, nil
}

// trioML builds Trio-ML's PFEs (one, or a hierarchy) for the workers.
func trioML(s Setup, engine sim.Engine, params map[string]string, wcp *workers.Config, r *Result) (*fabric, error) {
	wc := *wcp
	f := &fabric{}
	r.Program = "trio-ml"
	if wc.PerPacket > 4095 {
		return nil, fmt.Errorf("gradients per packet: %d, the Trio-ML header's grad_cnt has 12 bits", wc.PerPacket)
	}
	// A block record's tag (blk_rcvd's high half) is gen_id and the low 16
	// bits of block_id: within one iteration (one gen_id) block b+65536
	// would match block b's finished record and never be aggregated (a job
	// of 2^27 gradients stalled after 65 536 blocks).
	if b := wc.Blocks(); b > 1<<16 {
		return nil, fmt.Errorf("%d gradients at %d per packet are %d blocks per iteration; trio-ml's block records tell blocks apart by the low 16 bits of block_id (at most 65536 per iteration: raise the gradients per packet or lower the gradients)",
			wc.Gradients, wc.PerPacket, b)
	}
	if err := wc.Validate(); err != nil {
		return nil, err
	}
	if _, ok := params["GRAD_MAX"]; !ok {
		params["GRAD_MAX"] = fmt.Sprint(max(16, (wc.PerPacket+15)/16*16))
	}
	if _, ok := params["BLOCKS"]; !ok {
		params["BLOCKS"] = fmt.Sprint(pow2(wc.Window))
		// trio-ml's aggregation buffer holds GRAD_MAX sums per block
		// slot: say which settings make it larger than a register.
		if cells := int64(pow2(wc.Window)) * int64(max(16, (wc.PerPacket+15)/16*16)); cells > programs.MaxRegisterCells {
			return nil, fmt.Errorf("window %d (%d block slots) x %d gradients per packet: trio-ml's aggregation buffer would need %d cells, more than a register holds (%d); lower the window or the gradients per packet",
				wc.Window, pow2(wc.Window), wc.PerPacket, cells, programs.MaxRegisterCells)
		}
	}
	h, err := buildHierarchy(engine, s.Chip, params, wc.Workers, s.FirstLevel, s.FabricPs, s.Seed)
	if err != nil {
		return nil, err
	}
	f.proto = workers.TrioML{Port: 12000, ResultPort: 12001, Job: 1}
	f.switches = h.all
	f.uplink = func(w int) sim.Handler { return h.edge(w).IngressHandler(0) }
	f.attach = func(w int, wk sim.Handler, prop int64) { h.edge(w).Attach(h.port(w), link.To(wk, h.port(w), prop)) }
	f.port = h.port
	deadline := s.DeadlinePs
	if deadline <= 0 {
		deadline = defaultDeadline(s.StartPs, wc)
	}
	for _, pfe := range h.all {
		pfe.SetDeadline(deadline)
		if ts, ok := pfe.(arch.TimerSwitch); ok {
			ts.StartTimers(deadline)
		}
	}
	f.collect = func(r *Result) {
		for i, pfe := range h.all {
			c := pfe.Counters()
			if i == 0 {
				r.InstrPerPacket = c.InstrPerPacket
			}
			r.SwitchDrops += unexpectedDrops(c.Drops)
			r.Consumed += programDrops(c.Drops)
			r.Created += c.Created
			r.Copies += c.Copies
			r.Delivered += c.Delivered
		}
	}
	f.stopTimers = func(ps int64) {
		for _, pfe := range h.all {
			if ts, ok := pfe.(arch.TimerSwitch); ok {
				ts.StopTimers(ps)
			}
		}
	}
	return f, nil
}

// switchML builds the SwitchML switch for the workers: the program by the
// gradients per packet, the pool bounding the window.
func switchML(s Setup, engine sim.Engine, params map[string]string, wc *workers.Config, r *Result) (*fabric, error) {
	f := &fabric{port: func(w int) int { return w }}
	port := f.port
	sp, ok := switchMLPrograms[wc.PerPacket]
	if !ok {
		return nil, fmt.Errorf("switchml carries %d (program switchml) or %d (switchml-256) gradients per packet, not %d",
			workers.SwitchMLValues, workers.SwitchML256Values, wc.PerPacket)
	}
	r.Program = sp.name
	params["NUM_WORKERS"] = fmt.Sprint(wc.Workers)
	sw, err := build(engine, s.Chip, sp.name, params, s.Seed)
	if err != nil {
		return nil, err
	}
	prog := sw.Program()
	// SwitchML's control plane sets the job's result group to its
	// workers' ports (the program's file lists ports 0..7, which left a
	// ninth worker without results and sent copies to empty ports).
	if err := setResultGroup(sw, prog, wc.Workers, port); err != nil {
		return nil, err
	}
	pool := s.Pool
	if pool <= 0 {
		pool = wc.Window
	}
	if pool > sp.slots {
		return nil, fmt.Errorf("%s pool: %d slots, the program has %d", sp.name, pool, sp.slots)
	}
	wc.Window = min(wc.Window, pool)
	r.Window = wc.Window
	sml := workers.SwitchML{Port: 48864, Pool: pool, Values: wc.PerPacket}
	if err := sml.Validate(); err != nil {
		return nil, err
	}
	f.proto = sml
	f.uplink = sw.IngressHandler
	f.attach = func(w int, wk sim.Handler, prop int64) { sw.Attach(port(w), link.To(wk, port(w), prop)) }
	sw.SetDeadline(1 << 62)
	if s.DeadlinePs > 0 {
		sw.SetDeadline(s.DeadlinePs)
	}
	// Every pass of a contribution or harvest through the pipe runs one
	// action of the first processor register.
	first := prog.Register("value00")
	if t, ok := sw.(arch.RegisterTracer); ok {
		t.TraceRegister(func(_ int, ra *programs.RegisterAction, _, _ int64) {
			if ra.Register == first {
				r.Passes++
			}
		})
	}
	f.collect = func(r *Result) {
		c := sw.Counters()
		r.SwitchDrops = unexpectedDrops(c.Drops)
		r.Consumed = programDrops(c.Drops)
		// SwitchML creates no packet: a slot's last gradient packet
		// becomes its result and is multicast (Created stays 0).
		r.Copies, r.Delivered = c.Copies, c.Delivered
	}
	f.stopTimers = func(int64) {}
	return f, nil
}

// hierarchy is the PFEs of a Trio-ML job: all[0] is the top level; with
// first-level PFEs, all[1:] hold the servers.
type hierarchy struct {
	all     []arch.Switch
	perEdge int
}

func (h *hierarchy) edge(w int) arch.Switch {
	if len(h.all) == 1 {
		return h.all[0]
	}
	return h.all[1+w/h.perEdge]
}

func (h *hierarchy) port(w int) int {
	if len(h.all) == 1 {
		return w
	}
	return w % h.perEdge
}

// buildHierarchy builds one PFE for all the servers, or a top-level PFE
// and first first-level PFEs: first-level PFE i has perEdge servers on
// ports 0..perEdge-1 and its uplink on port perEdge, wired to the top
// level's port i; the top level aggregates the first-level PFEs (source
// ids 0..first-1) and multicasts the result back down (group first =
// ports 0..first-1), where each first-level PFE multicasts it to its
// servers.
func buildHierarchy(engine sim.Engine, chip string, params map[string]string, servers, first int, fabricPs, seed int64) (*hierarchy, error) {
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range params {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	if first == 0 {
		pfe, err := build(engine, chip, "trio-ml", with(map[string]string{"SOURCES": fmt.Sprint(servers), "GROUP": fmt.Sprint(servers)}), seed)
		if err != nil {
			return nil, err
		}
		if err := sourcesGroup(pfe, servers); err != nil {
			return nil, err
		}
		return &hierarchy{all: []arch.Switch{pfe}}, nil
	}
	if servers%first != 0 {
		return nil, fmt.Errorf("%d servers do not split evenly among %d first-level PFEs", servers, first)
	}
	per := servers / first
	// The top level scans with twice the period, so a first-level PFE's
	// partial result (sent one to two periods after its last reference)
	// reaches a live record.
	top, err := build(engine, chip, "trio-ml", with(map[string]string{"SOURCES": fmt.Sprint(first), "GROUP": fmt.Sprint(first), "TIMEOUT_SCALE": "2"}), seed)
	if err != nil {
		return nil, err
	}
	if err := sourcesGroup(top, first); err != nil {
		return nil, err
	}
	h := &hierarchy{all: []arch.Switch{top}, perEdge: per}
	for i := 0; i < first; i++ {
		pfe, err := build(engine, chip, "trio-ml", with(map[string]string{"SOURCES": fmt.Sprint(per), "GROUP": fmt.Sprint(per),
			"UP_PORT": fmt.Sprint(per), "UP_SRC": fmt.Sprint(i)}), seed+int64(i)+1)
		if err != nil {
			return nil, err
		}
		if err := sourcesGroup(pfe, per); err != nil {
			return nil, err
		}
		// The fabric: the first-level PFE's uplink to the top level's
		// port i and back.
		pfe.Attach(per, link.To(top.IngressHandler(i), i, fabricPs))
		top.Attach(i, link.To(pfe.IngressHandler(per), per, fabricPs))
		h.all = append(h.all, pfe)
	}
	return h, nil
}

// build loads a chip, compiles a built-in program with constant overrides
// for it and builds the switch on the engine.
func build(engine sim.Engine, chip, program string, params map[string]string, seed int64) (arch.Switch, error) {
	t, err := job.Load(chip, arch.Overrides{})
	if err != nil {
		return nil, err
	}
	c, err := job.Compile(t, program, params)
	if err != nil {
		return nil, err
	}
	if !c.Fits {
		return nil, c.Err
	}
	return t.Build(arch.BuildSpec{Engine: engine, Compiled: c, Seed: seed})
}

// sourcesGroup writes trio-ml's multicast group GROUP = n, the job's n
// sources on ports 0..n-1, as the control plane does (the program's file
// lists groups 1..8 only, so a PFE with more sources sent no result).
func sourcesGroup(sw arch.Switch, n int) error {
	rep, ok := sw.(arch.Replicator)
	if !ok {
		return fmt.Errorf("%s cannot set multicast groups", sw.Name())
	}
	ports := make([]int, n)
	for i := range ports {
		ports[i] = i
	}
	if err := rep.SetMulticastGroup(n, ports); err != nil {
		return fmt.Errorf("trio-ml's group of %d sources: %v", n, err)
	}
	return nil
}

// setResultGroup writes the program's RESULT_GROUP multicast group: the
// ports of workers 0..n-1.
func setResultGroup(sw arch.Switch, prog *programs.Program, n int, port func(int) int) error {
	group := int64(-1)
	for _, c := range prog.Constants {
		if c.Name == "RESULT_GROUP" {
			group = c.Value
		}
	}
	if group < 0 {
		return fmt.Errorf("%s has no RESULT_GROUP constant for the workers' results", prog.Name)
	}
	rep, ok := sw.(arch.Replicator)
	if !ok {
		return fmt.Errorf("%s cannot set multicast groups", sw.Name())
	}
	ports := make([]int, n)
	for w := range ports {
		ports[w] = port(w)
	}
	if err := rep.SetMulticastGroup(int(group), ports); err != nil {
		return fmt.Errorf("%s's result group for %d workers (on ports %d..%d): %v", prog.Name, n, port(0), port(n-1), err)
	}
	return nil
}

// switchMLPrograms: the SwitchML program for a packet's gradient count,
// and the slots its registers hold (each with a shadow copy).
var switchMLPrograms = map[int]struct {
	name  string
	slots int
}{
	workers.SwitchMLValues:    {"switchml", 8192},     // 16384 cells = 8192 slots x 2 sets
	workers.SwitchML256Values: {"switchml-256", 2048}, // 16384 cells = 2048 slots x 2 sets x 4 sections
}

// defaultDeadline bounds a run whose job might never finish (the timer
// threads would tick forever): every iteration's compute and the longest
// sleeps it can draw, plus a second per iteration for aggregation.
func defaultDeadline(start int64, wc workers.Config) int64 {
	per := float64(wc.ComputePs) + float64(wc.DelayPoints)*wc.SlowMax*float64(wc.TypicalIterPs) + 1e12
	// Saturate rather than wrap (10^4 iterations of 10^6 ms overflowed
	// int64 picoseconds and stopped the run after its first compute).
	return int64(min(float64(start)+float64(wc.Iterations)*per, clockEndPs))
}

// clockEndPs is the latest time a job's run may reach (its default
// deadline saturates there; the engine counts int64 picoseconds).
const clockEndPs = 1 << 62

// programDrops counts the drops the program made.
func programDrops(ds []arch.DropCount) int {
	n := 0
	for _, d := range ds {
		if d.Reason == "ingress program drop" || d.Reason == "egress program drop" {
			n += d.Packets
		}
	}
	return n
}

// unexpectedDrops counts drops other than the programs' own (a consumed
// contribution is dropped by design).
func unexpectedDrops(ds []arch.DropCount) int {
	n := 0
	for _, d := range ds {
		if d.Reason != "ingress program drop" && d.Reason != "egress program drop" {
			n += d.Packets
		}
	}
	return n
}

// WorkersConfig is the workers' configuration (components/workers.Config).
type WorkersConfig = workers.Config
