// Package aggregation runs in-network aggregation jobs end to end: the
// workers of components/workers streaming gradients to a Trio PFE running
// trio-ml or to a Tofino switch running switchml, on one Akita serial
// engine. The host, training and straggler parameters come from
// configs/aggregation.yaml.
package aggregation

import (
	"fmt"
	"slices"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch/tofino"
	"archsim/arch/trio"
	"archsim/components/packet"
	"archsim/components/workers"
	"archsim/configs"
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
	} `mapstructure:"training"`
	Straggler struct {
		DelayPoints int     `mapstructure:"delay_points"`
		SlowMin     float64 `mapstructure:"slow_min"`
		SlowMax     float64 `mapstructure:"slow_max"`
		Probability float64 `mapstructure:"probability"`
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
	return p, nil
}

// Setup is one run.
type Setup struct {
	Switch     string // "trio" or "tofino"
	Workers    workers.Config
	Pool       int               // SwitchML slots per worker
	Params     map[string]string // program constants (besides the ones Run sets)
	DeadlinePs int64             // 0: until the job is done
	StartPs    int64             // when the workers start (timer threads start at 0)
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
	Switch           string  `json:"switch"`
	Program          string  `json:"program"`
	Workers          int     `json:"workers"`
	GradsPerPacket   int     `json:"gradients_per_packet"`
	Window           int     `json:"window"`
	Iterations       int     `json:"iterations"`
	Done             bool    `json:"done"`
	MeanIterationMs  float64 `json:"mean_iteration_ms"`
	BlockLatencyUs   float64 `json:"block_latency_us"` // mean, full results
	AggRateGradPerUs float64 `json:"aggregation_rate_gradients_per_us"`
	ThroughputGbps   float64 `json:"throughput_gbps"` // aggregated gradient bits per second (one worker's share)
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
	// DegradedSources: degraded results received, by the src_cnt they
	// carry.
	DegradedSources map[int]int `json:"degraded_results_by_sources,omitempty"`
	Events          int64       `json:"events"`
	// Trio PFE only: threads' instructions per packet (mean) and engine
	// utilisation over the run.
	InstrPerPacket float64 `json:"instructions_per_packet,omitempty"`
	SimulatedMs    float64 `json:"simulated_ms"`
}

// Run simulates one job.
func Run(s Setup) (*Result, error) {
	engine := &packet.CountingEngine{Engine: sim.NewSerialEngine()}
	wc := s.Workers
	params := map[string]string{}
	for k, v := range s.Params {
		params[k] = v
	}
	var proto workers.Protocol
	var uplink func(int) sim.Handler
	var attach func(int, sim.Handler, int64)
	var collect func(r *Result)
	var stopTimers func(ps int64)
	r := &Result{Switch: s.Switch, Workers: wc.Workers, GradsPerPacket: wc.PerPacket, Window: wc.Window, Iterations: wc.Iterations}
	port := func(w int) int { return w }
	switch s.Switch {
	case "trio":
		r.Program = "trio-ml"
		if wc.PerPacket > 4095 {
			return nil, fmt.Errorf("gradients per packet: %d, the Trio-ML header's grad_cnt has 12 bits", wc.PerPacket)
		}
		if err := wc.Validate(); err != nil {
			return nil, err
		}
		params["SOURCES"] = fmt.Sprint(wc.Workers)
		if _, ok := params["GRAD_MAX"]; !ok {
			params["GRAD_MAX"] = fmt.Sprint(max(16, (wc.PerPacket+15)/16*16))
		}
		blocks := 1
		for blocks < wc.Window {
			blocks *= 2
		}
		if _, ok := params["BLOCKS"]; !ok {
			params["BLOCKS"] = fmt.Sprint(blocks)
		}
		pfe, mc, err := buildTrio(engine, params, s.Seed)
		if err != nil {
			return nil, err
		}
		proto = workers.TrioML{Port: 12000, ResultPort: 12001, Job: 1}
		uplink, attach = pfe.IngressHandler, pfe.Attach
		if s.DeadlinePs > 0 {
			pfe.SetDeadline(s.DeadlinePs)
		}
		collect = func(r *Result) {
			st := pfe.Stats
			r.Delivered = st.Delivered
			r.InstrPerPacket = st.Instr[0].Summarize(1).Mean
			r.SwitchDrops = unexpectedDrops(pfe.Drops())
			r.Consumed = programDrops(pfe.Drops())
			r.Created, r.Copies = st.Emitted, st.Copies
		}
		deadline := s.DeadlinePs
		if deadline <= 0 {
			deadline = 1 << 62
		}
		pfe.StartTimers(deadline)
		stopTimers = pfe.StopTimers
		_ = mc
	case "tofino":
		r.Program = "switchml"
		if wc.PerPacket != workers.SwitchMLValues {
			return nil, fmt.Errorf("switchml carries %d gradients per packet, not %d", workers.SwitchMLValues, wc.PerPacket)
		}
		params["NUM_WORKERS"] = fmt.Sprint(wc.Workers)
		sw, err := buildTofino(engine, params, s.Seed)
		if err != nil {
			return nil, err
		}
		pool := s.Pool
		if pool <= 0 {
			pool = wc.Window
		}
		if pool > 8192 {
			return nil, fmt.Errorf("switchml pool: %d slots, the program has 8192", pool)
		}
		wc.Window = min(wc.Window, pool)
		proto = workers.SwitchML{Port: 48864, Pool: pool}
		uplink, attach = sw.IngressHandler, sw.Attach
		sw.SetDeadline(1 << 62)
		if s.DeadlinePs > 0 {
			sw.SetDeadline(s.DeadlinePs)
		}
		collect = func(r *Result) {
			var drops []trio.DropCount
			for _, d := range sw.Drops() {
				drops = append(drops, trio.DropCount{Reason: d.Reason, Packets: d.Packets})
			}
			r.SwitchDrops = unexpectedDrops(drops)
			r.Consumed = programDrops(drops)
		}
		stopTimers = func(int64) {}
	default:
		return nil, fmt.Errorf("switch %q: want trio or tofino", s.Switch)
	}
	job, err := workers.NewJob(engine, wc, proto, uplink, port)
	if err != nil {
		return nil, err
	}
	for w, wk := range job.Workers {
		attach(port(w), wk, wc.PropPs)
	}
	// Timer threads run while the job does.
	job.OnDone = stopTimers
	job.Start(s.StartPs)
	if err := engine.Run(); err != nil {
		return nil, err
	}
	st := job.Stats
	r.Done = job.Done()
	r.MeanIterationMs = job.MeanIterationPs(s.StartPs) / 1e9
	r.Sent, r.Results, r.Degraded, r.Wrong, r.Stale, r.Duplicates = st.Sent, st.Results, st.Degraded, st.Wrong, st.Stale, st.Duplicates
	r.Sleeps = len(st.Slept)
	r.DegradedSources = st.DegradedSources
	r.BlockLatencyUs = meanPs(st.BlockLatency) / 1e6
	if r.BlockLatencyUs > 0 {
		r.AggRateGradPerUs = float64(wc.PerPacket) / r.BlockLatencyUs
	}
	if span := st.LastResultPs - st.FirstSendPs; span > 0 {
		r.ThroughputGbps = float64(st.AggregatedGrads) * 32 / float64(span) * 1000 / float64(wc.Workers)
	}
	r.PartialMeanMs = meanPs(st.Partial) / 1e9
	r.PartialMaxMs = float64(maxPs(st.Partial)) / 1e9
	if len(st.Partial) > 0 {
		r.PartialMinMs = float64(slices.Min(st.Partial)) / 1e9
	}
	r.Events = engine.N
	r.SimulatedMs = float64(packet.SecToPs(engine.CurrentTime())) / 1e9
	collect(r)
	return r, nil
}

func meanPs(v []int64) float64 {
	if len(v) == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += float64(x)
	}
	return s / float64(len(v))
}

func maxPs(v []int64) int64 {
	var m int64
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func buildTrio(engine sim.Engine, params map[string]string, seed int64) (*trio.PFE, *trio.Microcode, error) {
	l, err := configs.Load(configs.Source{Base: []string{"trio5.yaml"}})
	if err != nil {
		return nil, nil, err
	}
	cfg, err := trio.LoadConfig(l)
	if err != nil {
		return nil, nil, err
	}
	prog, err := programs.Resolve("trio-ml", params)
	if err != nil {
		return nil, nil, err
	}
	mc, err := trio.Lower(cfg, prog)
	if err != nil {
		return nil, nil, err
	}
	return trio.NewPFE(engine, cfg, mc, seed), mc, nil
}

func buildTofino(engine sim.Engine, params map[string]string, seed int64) (*tofino.Switch, error) {
	l, err := configs.Load(configs.Source{Base: []string{"tofino.yaml"}})
	if err != nil {
		return nil, err
	}
	chip, err := tofino.LoadConfig(l)
	if err != nil {
		return nil, err
	}
	prog, err := programs.Resolve("switchml", params)
	if err != nil {
		return nil, err
	}
	place, err := tofino.Place(chip, prog)
	if err != nil {
		return nil, err
	}
	return tofino.MakeBuilder().WithEngine(engine).WithConfig(chip).WithPlacement(place).WithSeed(seed).Build(), nil
}

// programDrops counts the drops the program made.
func programDrops(ds []trio.DropCount) int {
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
func unexpectedDrops(ds []trio.DropCount) int {
	n := 0
	for _, d := range ds {
		if d.Reason != "ingress program drop" && d.Reason != "egress program drop" {
			n += d.Packets
		}
	}
	return n
}
