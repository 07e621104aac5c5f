package aggregation

import (
	"fmt"
	"math/rand"

	"archsim/components/workers"
)

// StraggleCost is what one sleep costs the job: the single-straggle
// experiment that isolates the mechanism behind trio.straggler.speedup.
// One worker sleeps once, for Fraction × the typical iteration (Trio-ML's
// without stragglers), at the start of iteration Iteration; nothing else
// straggles. Each system's extra time is its makespan with the sleep minus
// its makespan without it.
type StraggleCost struct {
	Fraction        float64 `json:"sleep_fraction"` // sleep / typical iteration
	SleepMs         float64 `json:"sleep_ms"`
	TrioExtraMs     float64 `json:"trio_ml_extra_ms"`
	SwitchMLExtraMs float64 `json:"switchml_extra_ms"`
	TrioDegraded    int     `json:"trio_degraded_results"`
	// The same sleep on Trio-ML with workers.Config.Resync (a what-if:
	// the sleeper skips the iteration after the one it slept in, instead
	// of keeping its lag).
	TrioResyncExtraMs float64 `json:"trio_ml_resync_extra_ms"`
}

// SingleStraggle runs, for each fraction f, Trio-ML (hierarchical, as in
// StragglerSweep) and SwitchML-256 with worker 0 sleeping f × the typical
// iteration at the start of iteration 1, and reports each system's extra
// time. SwitchML waits for every worker, so its extra time is the sleep;
// Trio-ML's is what the other workers lose to scan timeouts while the
// straggler is absent and, after it wakes behind them, until it has caught
// up. p.Training.Iterations must leave room for that (at least 2 + f + the
// lag divided by a scan timeout); the caller checks the extra times
// against that bound.
func SingleStraggle(p *Params, fractions []float64, seed int64) (typicalMs float64, out []StraggleCost, err error) {
	if p.Training.Iterations < 3 {
		return 0, nil, fmt.Errorf("single straggle: %d iterations, want at least 3", p.Training.Iterations)
	}
	trio := func(inj []workers.Sleep, resync bool) (*Result, error) {
		wc := p.Workers(0, 0, seed)
		wc.Injected, wc.Resync = inj, resync
		r, err := Run(Setup{Switch: "trio", Workers: wc, Seed: seed, FirstLevel: p.Training.FirstLevel, FabricPs: int64(p.Training.FabricNs * 1000)})
		if err == nil && (!r.Done || r.Wrong > 0) {
			err = fmt.Errorf("trio-ml: done %v, %d wrong results", r.Done, r.Wrong)
		}
		return r, err
	}
	switchml := func(inj []workers.Sleep) (*Result, error) {
		wc := p.Workers(0, 0, seed)
		wc.PerPacket = 256
		wc.Injected = inj
		r, err := Run(Setup{Switch: "tofino", Workers: wc, Pool: p.SwitchML.Pool, Seed: seed})
		if err == nil {
			err = r.healthy()
		}
		return r, err
	}
	makespan := func(r *Result) float64 { return r.MeanIterationMs * float64(r.Iterations) }
	typ, err := trio(nil, false)
	if err != nil {
		return 0, nil, err
	}
	idle, err := switchml(nil)
	if err != nil {
		return 0, nil, err
	}
	typicalMs = typ.MeanIterationMs
	for _, f := range fractions {
		if f < 0 {
			return 0, nil, fmt.Errorf("single straggle: sleep fraction %g, want >= 0", f)
		}
		ps := int64(f * typicalMs * 1e9)
		inj := []workers.Sleep{{Worker: 0, Iteration: 1, Ps: ps}}
		tr, err := trio(inj, false)
		if err != nil {
			return 0, nil, fmt.Errorf("trio-ml, sleep %g x typical: %v", f, err)
		}
		rs, err := trio(inj, true)
		if err != nil {
			return 0, nil, fmt.Errorf("trio-ml with resync, sleep %g x typical: %v", f, err)
		}
		sm, err := switchml(inj)
		if err != nil {
			return 0, nil, fmt.Errorf("switchml, sleep %g x typical: %v", f, err)
		}
		out = append(out, StraggleCost{Fraction: f, SleepMs: float64(ps) / 1e9,
			TrioExtraMs: makespan(tr) - makespan(typ), SwitchMLExtraMs: makespan(sm) - makespan(idle), TrioDegraded: tr.Degraded,
			TrioResyncExtraMs: makespan(rs) - makespan(typ)})
	}
	return typicalMs, out, nil
}

// ResyncPoint compares Trio-ML under the Slow Worker Pattern with and
// without workers.Config.Resync (the what-if in which a straggler that
// wakes behind skips an iteration instead of keeping its lag).
type ResyncPoint struct {
	Probability  float64 `json:"probability"`
	TypicalMs    float64 `json:"typical_iteration_ms"` // Trio-ML without stragglers
	TrioMs       float64 `json:"trio_ml_iteration_ms"`
	TrioResyncMs float64 `json:"trio_ml_resync_iteration_ms"`
	Sleeps       int     `json:"sleeps"`
}

// StragglerResync runs Trio-ML (hierarchical, as StragglerSweep) without
// stragglers, with the Slow Worker Pattern at prob, and with the same
// pattern and Resync.
func StragglerResync(p *Params, prob float64, seed int64) (*ResyncPoint, error) {
	run := func(prob float64, typicalPs int64, resync bool) (*Result, error) {
		wc := p.Workers(prob, typicalPs, seed)
		wc.Resync = resync
		r, err := Run(Setup{Switch: "trio", Workers: wc, Seed: seed, FirstLevel: p.Training.FirstLevel, FabricPs: int64(p.Training.FabricNs * 1000)})
		if err == nil && (!r.Done || r.Wrong > 0) {
			err = fmt.Errorf("trio-ml at p = %g (resync %v): done %v, %d wrong results", prob, resync, r.Done, r.Wrong)
		}
		return r, err
	}
	typ, err := run(0, 0, false)
	if err != nil {
		return nil, err
	}
	typicalPs := int64(typ.MeanIterationMs * 1e9)
	tr, err := run(prob, typicalPs, false)
	if err != nil {
		return nil, err
	}
	rs, err := run(prob, typicalPs, true)
	if err != nil {
		return nil, err
	}
	return &ResyncPoint{Probability: prob, TypicalMs: typ.MeanIterationMs, TrioMs: tr.MeanIterationMs, TrioResyncMs: rs.MeanIterationMs, Sleeps: tr.Sleeps}, nil
}

// PatternSlowdown is the iteration time of a synchronous job (one that
// waits for every worker, as SwitchML), in typical iterations, that the
// Slow Worker Pattern's sleeps alone cause: the mean over iterations of 1 +
// the largest worker's total sleep in that iteration. everyServer false is
// [TRIO] §6.1 as the workers package draws it (at each delay point one
// server, drawn at random, sleeps with probability prob); true is the
// other reading (every server decides at every point). It simulates no
// network: it is the bound a Trio-ML that loses nothing to stragglers
// would reach against SwitchML.
func PatternSlowdown(p *Params, prob float64, everyServer bool, iterations int, seed int64) float64 {
	s, n := p.Straggler, p.Training.Workers
	rng := rand.New(rand.NewSource(seed))
	sleep := make([]float64, n)
	var total float64
	for k := 0; k < iterations; k++ {
		clear(sleep)
		for d := 0; d < s.DelayPoints; d++ {
			for w := 0; w < n; w++ {
				who := w
				if !everyServer {
					who = rng.Intn(n)
				}
				slow := rng.Float64() < prob
				f := s.SlowMin + rng.Float64()*(s.SlowMax-s.SlowMin)
				if slow {
					sleep[who] += f
				}
				if !everyServer {
					break
				}
			}
		}
		worst := 0.0
		for _, v := range sleep {
			worst = max(worst, v)
		}
		total += 1 + worst
	}
	return total / float64(iterations)
}
