package aggregation

import (
	"archsim/engine"
	"fmt"
	"sync"

	"archsim/arch/trio"
	"archsim/components/packet"
	"archsim/components/workers"
)

// The experiments of [TRIO] §6, each a set of simulated runs. The validation
// suite (validation/trio.go) checks the paper's claims on them; `archsim
// aggregate` runs single jobs.

// LatencyPoint is one packet size of the window-1 latency benchmark.
type LatencyPoint struct {
	Gradients int     `json:"gradients_per_packet"`
	LatencyUs float64 `json:"latency_us"`
	// Rate is gradients per packet over the aggregation latency (Fig. 15's
	// right axis), gradients per µs.
	Rate float64 `json:"rate_gradients_per_us"`
}

// LatencySweep is Fig. 15: four servers on one PFE, window 1, each
// sending blocks back to back; the latency is a block's send to the
// receipt of its result.
func LatencySweep(p *Params, sizes []int, blocks int, seed int64) ([]LatencyPoint, error) {
	var out []LatencyPoint
	for _, g := range sizes {
		wc := p.Workers(0, 0, seed)
		wc.Workers, wc.PerPacket, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, g, g*blocks, 1, 1, 0
		r, err := Run(Setup{Switch: "trio", Workers: wc, Seed: seed})
		if err != nil {
			return nil, err
		}
		if err := r.healthy(); err != nil {
			return nil, fmt.Errorf("%d gradients per packet: %v", g, err)
		}
		out = append(out, LatencyPoint{Gradients: g, LatencyUs: r.BlockLatencyUs, Rate: r.AggRateGradPerUs})
	}
	return out, nil
}

// WindowPoint is one window of the window sweep.
type WindowPoint struct {
	Window         int     `json:"window"`
	LatencyUs      float64 `json:"latency_us"`
	ThroughputGbps float64 `json:"throughput_gbps"` // aggregated gradient bits per second, per worker
}

// WindowSweep is Fig. 16: four servers, g gradients per packet, varying
// window; each worker streams max(minBlocks, 2 x window) blocks.
func WindowSweep(p *Params, g int, windows []int, minBlocks int, seed int64) ([]WindowPoint, error) {
	var out []WindowPoint
	for _, w := range windows {
		wc := p.Workers(0, 0, seed)
		blocks := max(minBlocks, 2*w)
		wc.Workers, wc.PerPacket, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, g, g*blocks, w, 1, 0
		r, err := Run(Setup{Switch: "trio", Workers: wc, Seed: seed})
		if err != nil {
			return nil, err
		}
		if err := r.healthy(); err != nil {
			return nil, fmt.Errorf("window %d: %v", w, err)
		}
		out = append(out, WindowPoint{Window: w, LatencyUs: r.BlockLatencyUs, ThroughputGbps: r.ThroughputGbps})
	}
	return out, nil
}

// healthy reports a run that lost or corrupted results.
func (r *Result) healthy() error {
	switch {
	case !r.Done:
		return fmt.Errorf("the job did not finish (%d results of %d packets)", r.Results, r.Sent)
	case r.Wrong > 0:
		return fmt.Errorf("%d results differ from the sum of the workers' gradients", r.Wrong)
	case r.SwitchDrops > 0:
		return fmt.Errorf("the switch dropped %d packets", r.SwitchDrops)
	}
	return nil
}

// EngineSaturation is the PFE's aggregation rate when gradient packets
// arrive faster than its read-modify-write engines can add them.
type EngineSaturation struct {
	Packets    int     `json:"packets"`
	Gradients  int64   `json:"gradients"`
	DurationUs float64 `json:"duration_us"`
	GOpsPerSec float64 `json:"aggregation_gops"` // gradients added per ns
	// EngineGOps is the engines' work per ns in add operations (busy time
	// over the time of one add): adds plus the result copies' reads and
	// the buffer clears' writes.
	EngineGOps  float64 `json:"engine_gops"`
	EngineUtil  float64 `json:"engine_utilisation"`
	HottestUtil float64 `json:"hottest_engine_utilisation"`
	MaxThreads  int     `json:"max_threads_busy"`
	Results     int     `json:"results"`
	Events      int64   `json:"events"`
}

// SaturateEngines offers blocks x sources packets of g gradients to one
// PFE at the line rate of all its ports together (no hosts) and measures
// how fast it aggregates: gradients over the time from the first arrival
// to the last thread's end.
func SaturateEngines(sources, blocks, g int, seed int64) (*EngineSaturation, error) {
	engine := engine.New()
	params := map[string]string{"SOURCES": fmt.Sprint(sources), "GRAD_MAX": fmt.Sprint((g + 15) / 16 * 16), "BLOCKS": fmt.Sprint(pow2(blocks))}
	sw, err := build(engine, "trio", "trio-ml", params, seed)
	if err != nil {
		return nil, err
	}
	pfe := sw.(*trio.PFE) // the experiment reads the PFE's own engine statistics
	cfg := pfe.Config()
	pfe.SetDeadline(1 << 62)
	proto := workers.TrioML{Port: 12000, ResultPort: 12001, Job: 1}
	grads := make([]int32, g)
	var at int64
	n := 0
	for b := 0; b < blocks; b++ {
		for s := 0; s < sources; s++ {
			for i := range grads {
				grads[i] = workers.Gradient(s, 1, b, i)
			}
			pkt := proto.Packet(s, 1, b, int64(b), grads)
			pkt.InPort = s % cfg.Ports
			pfe.Inject(pkt, at)
			// The ports together bring cfg.Ports frames per serialization time.
			at += packet.SerializationPs(pkt.Len, cfg.PortGbps) / int64(cfg.Ports)
			n++
		}
	}
	if err := engine.Run(); err != nil {
		return nil, err
	}
	if err := pfe.Fault(); err != nil {
		return nil, err
	}
	st := pfe.Stats
	dur := st.LastThreadEndPs
	total, hottest := pfe.EngineBusy()
	out := &EngineSaturation{Packets: n, Gradients: int64(n) * int64(g), DurationUs: float64(dur) / 1e6,
		MaxThreads: st.MaxThreads, Results: st.Emitted, Events: engine.Scheduled()}
	if dur > 0 {
		out.GOpsPerSec = float64(out.Gradients) / (float64(dur) / 1000)
		out.EngineUtil = float64(total) / float64(cfg.SMem.RMWEngines) / float64(dur)
		out.HottestUtil = float64(hottest) / float64(dur)
		out.EngineGOps = float64(total) / float64(cfg.CyclesToPs(int64(cfg.SMem.AddCycles))) / (float64(dur) / 1000)
	}
	if st.Emitted != blocks {
		return out, fmt.Errorf("%d results for %d blocks", st.Emitted, blocks)
	}
	return out, nil
}

func pow2(n int) int {
	p := 1
	for p < n {
		p *= 2
	}
	return p
}

// PartialResult is the straggler-recovery time for one timeout (Fig. 14).
type PartialResult struct {
	TimeoutMs float64 `json:"timeout_ms"`
	Blocks    int     `json:"blocks"`
	MeanMs    float64 `json:"mean_ms"`
	MaxMs     float64 `json:"max_ms"`
	MinMs     float64 `json:"min_ms"`
}

// PartialResults is Fig. 14: four servers on one PFE, one of which never
// sends; the others send 20 blocks back to back, and each waits for the
// partial results the scan timers send (send to receipt).
func PartialResults(p *Params, timeoutsMs []float64, seed int64) ([]PartialResult, error) {
	var out []PartialResult
	for _, tmo := range timeoutsMs {
		wc := p.Workers(0, 0, seed)
		wc.Workers, wc.PerPacket, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, 1024, 1024*20, 20, 1, 0
		wc.Stalled = []int{3}
		// The scan threads start at time 0; the workers start at a
		// point of the scan period that depends on the seed, as in a
		// testbed where the job starts whenever it does.
		r, err := Run(Setup{Switch: "trio", Workers: wc, Seed: seed, Params: map[string]string{"TIMEOUT_NS": fmt.Sprint(int64(tmo * 1e6))},
			StartPs: int64(float64(seed%97) / 97 * tmo * 1e9)})
		if err != nil {
			return nil, err
		}
		// Every worker, the stalled one too, gets each block's partial
		// result.
		if !r.Done || r.Degraded != 4*20 || r.Wrong > 0 {
			return nil, fmt.Errorf("timeout %g ms: %d degraded results, want 80 (4 workers x 20 blocks)", tmo, r.Degraded)
		}
		out = append(out, PartialResult{TimeoutMs: tmo, Blocks: r.Degraded, MeanMs: r.PartialMeanMs, MaxMs: r.PartialMaxMs, MinMs: r.PartialMinMs})
	}
	return out, nil
}

// Speedup is the straggler experiment of [TRIO] §6.2 (Fig. 13) at one
// straggling probability. Trio-ML runs hierarchically as in the paper's
// testbed (configs/aggregation.yaml: servers split among first-level
// PFEs); SwitchML-256 has every server on one pipe, as in the paper.
type Speedup struct {
	Probability    float64 `json:"probability"`
	TypicalMs      float64 `json:"typical_iteration_ms"` // Trio-ML without stragglers
	TrioMs         float64 `json:"trio_ml_iteration_ms"`
	SwitchMLMs     float64 `json:"switchml_iteration_ms"`
	SwitchMLIdleMs float64 `json:"switchml_no_straggler_iteration_ms"`
	Ratio          float64 `json:"speedup"`
	// The same for the median worker's own mean iteration time.
	TrioMedianMs     float64 `json:"trio_ml_median_worker_iteration_ms"`
	SwitchMLMedianMs float64 `json:"switchml_median_worker_iteration_ms"`
	Sleeps           int     `json:"sleeps"`
	Degraded         int     `json:"trio_degraded_results"`
	// Events and Sent are the engine events and the gradient packets the
	// workers sent in the runs behind this point that no earlier point of
	// the sweep counted (the first counts the two runs without
	// stragglers too): their sums are the sweep's (archsim bench).
	Events int64 `json:"-"`
	Sent   int   `json:"-"`
}

// StragglerSpeedup runs the training job on Trio-ML and on SwitchML with
// the same Slow Worker Pattern (same seed): the typical iteration time the
// sleeps scale with is Trio-ML's without stragglers.
func StragglerSpeedup(p *Params, prob float64, seed int64) (*Speedup, error) {
	pts, err := StragglerSweep(p, []float64{prob}, seed)
	if err != nil {
		return nil, err
	}
	return &pts[0], nil
}

// StragglerSweep is Fig. 13: the iteration time of Trio-ML and SwitchML at
// each straggling probability, with the typical iteration (Trio-ML without
// stragglers) and SwitchML without stragglers measured once.
func StragglerSweep(p *Params, probs []float64, seed int64) ([]Speedup, error) {
	return StragglerSweepWith(p, probs, seed, nil)
}

// StragglerSweepWith is StragglerSweep calling done (if set, from the
// sweep's goroutines) after each of its simulations, naming it.
func StragglerSweepWith(p *Params, probs []float64, seed int64, done func(what string)) ([]Speedup, error) {
	report := func(what string) {
		if done != nil {
			done(what)
		}
	}
	hier := func(s Setup) Setup {
		s.FirstLevel, s.FabricPs = p.Training.FirstLevel, int64(p.Training.FabricNs*1000)
		return s
	}
	// The paper's baseline: SwitchML-256 with pool size 512 ([TRIO] §6.1).
	switchml := func(prob float64, typicalPs int64) (*Result, error) {
		sc := p.Workers(prob, typicalPs, seed)
		sc.PerPacket = 256
		r, err := Run(Setup{Switch: "tofino", Workers: sc, Pool: p.SwitchML.Pool, Seed: seed})
		if err != nil {
			return nil, err
		}
		if err := r.healthy(); err != nil {
			return nil, fmt.Errorf("switchml at p = %g: %v", prob, err)
		}
		return r, nil
	}
	// The runs are independent simulations, each on its own serial engine:
	// they run in two lanes in parallel, Trio-ML's runs in one and
	// SwitchML's in the other (so that one SwitchML run, the larger, is in
	// memory at a time), and their errors are reported in the order of the
	// sequential sweep. SwitchML without stragglers starts with Trio-ML's
	// typical run: the typical iteration scales only the sleeps of
	// stragglers, so it does not need it (as the typical run, it is given
	// 0); SwitchML's runs with stragglers wait for it.
	var typ, idle *Result
	var err, idleErr error
	tr := make([]*Result, len(probs))
	sml := make([]*Result, len(probs))
	trErr := make([]error, len(probs))
	smlErr := make([]error, len(probs))
	var typicalPs int64
	typDone := make(chan bool, 1) // whether the typical run is healthy
	valid := func(prob float64) bool { return prob >= 0 && prob <= 1 }
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		typ, err = Run(hier(Setup{Switch: "trio", Workers: p.Workers(0, 0, seed), Seed: seed}))
		report("Trio-ML without stragglers")
		ok := err == nil && typ.healthy() == nil
		if ok {
			typicalPs = int64(typ.MeanIterationMs * 1e9)
		}
		typDone <- ok
		if !ok {
			return
		}
		for i, prob := range probs {
			if valid(prob) {
				tr[i], trErr[i] = Run(hier(Setup{Switch: "trio", Workers: p.Workers(prob, typicalPs, seed), Seed: seed}))
				report(fmt.Sprintf("Trio-ML at p = %g", prob))
			}
		}
	}()
	go func() {
		defer wg.Done()
		idle, idleErr = switchml(0, 0)
		report("SwitchML-256 without stragglers")
		if !<-typDone || idleErr != nil {
			return
		}
		for i, prob := range probs {
			if valid(prob) {
				sml[i], smlErr[i] = switchml(prob, typicalPs)
				report(fmt.Sprintf("SwitchML-256 at p = %g", prob))
			}
		}
	}()
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if err := typ.healthy(); err != nil {
		return nil, fmt.Errorf("trio-ml without stragglers: %v", err)
	}
	if idleErr != nil {
		return nil, idleErr
	}
	var out []Speedup
	for i, prob := range probs {
		if prob < 0 || prob > 1 {
			return nil, fmt.Errorf("straggling probability %g: want 0..1", prob)
		}
		if trErr[i] != nil {
			return nil, trErr[i]
		}
		tr := tr[i]
		if !tr.Done || tr.Wrong > 0 {
			return nil, fmt.Errorf("trio-ml at p = %g: done %v, %d wrong results", prob, tr.Done, tr.Wrong)
		}
		if smlErr[i] != nil {
			return nil, smlErr[i]
		}
		sml := sml[i]
		pt := Speedup{Probability: prob, TypicalMs: typ.MeanIterationMs, TrioMs: tr.MeanIterationMs, SwitchMLMs: sml.MeanIterationMs,
			SwitchMLIdleMs: idle.MeanIterationMs, Ratio: sml.MeanIterationMs / tr.MeanIterationMs, Sleeps: tr.Sleeps, Degraded: tr.Degraded,
			TrioMedianMs: tr.MedianWorkerMs, SwitchMLMedianMs: sml.MedianWorkerMs,
			Events: tr.Events + sml.Events, Sent: tr.Sent + sml.Sent}
		if i == 0 {
			pt.Events += typ.Events + idle.Events
			pt.Sent += typ.Sent + idle.Sent
		}
		out = append(out, pt)
	}
	return out, nil
}
