package validation

import (
	"archsim/arch"
	"archsim/harness"
	"archsim/job"
	"errors"
	"fmt"
	"math"
	"strings"

	"archsim/arch/tofino/compiler"
	"archsim/arch/trio"
	"archsim/arch/trio/lower"
	"archsim/experiments/aggregation"
)

// The Trio paper's claims ([TRIO] = Yang et al., SIGCOMM'22). Every value is
// measured on the trio-ml program lowered for the Trio 5 PFE config and
// simulated with the workers of configs/aggregation.yaml.

const trioSrc = "Trio paper"

// memo caches an experiment shared by several claims. It is safe for use
// from several goroutines (a claim's early work runs beside the scenario
// pool, see Claim.early): the first caller of a key computes it, and the
// others wait for that result.
func (c *Context) memo(key string, f func() (any, error)) (any, error) {
	c.memoMu.Lock()
	if c.memos == nil {
		c.memos = map[string]*memoResult{}
	}
	r, ok := c.memos[key]
	if !ok {
		r = &memoResult{done: make(chan struct{})}
		c.memos[key] = r
	}
	c.memoMu.Unlock()
	if ok {
		<-r.done
		return r.v, r.err
	}
	r.v, r.err = f()
	close(r.done)
	return r.v, r.err
}

type memoResult struct {
	v    any
	err  error
	done chan struct{} // closed when v and err are set
}

func (c *Context) trioML() (*lower.Microcode, error) {
	v, err := c.memo("trio-ml lowered", func() (any, error) {
		t, err := job.Load("trio", arch.Overrides{})
		if err != nil {
			return nil, err
		}
		comp, err := job.Compile(t, "trio-ml", nil)
		if err != nil {
			return nil, err
		}
		if !comp.Fits {
			return nil, comp.Err
		}
		return trio.Lowered(comp), nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*lower.Microcode), nil
}

func (c *Context) aggParams() (*aggregation.Params, error) {
	v, err := c.memo("aggregation params", func() (any, error) { return aggregation.LoadParams(nil) })
	if err != nil {
		return nil, err
	}
	return v.(*aggregation.Params), nil
}

// latencySweep is Fig. 15's sweep, 100 blocks per size.
func (c *Context) latencySweep() ([]aggregation.LatencyPoint, error) {
	v, err := c.memo("fig15", func() (any, error) {
		p, err := c.aggParams()
		if err != nil {
			return nil, err
		}
		return aggregation.LatencySweep(p, []int{64, 128, 256, 512, 1024}, 100, 1)
	})
	if err != nil {
		return nil, err
	}
	return v.([]aggregation.LatencyPoint), nil
}

// windowSweep is Fig. 16's sweep (trio.window.*).
func (c *Context) windowSweep() ([]aggregation.WindowPoint, error) {
	v, err := c.memo("fig16", func() (any, error) {
		p, err := c.aggParams()
		if err != nil {
			return nil, err
		}
		return aggregation.WindowSweep(p, 1024, []int{1, 16, 256, 1024, 4096, 8192}, 64, 1)
	})
	if err != nil {
		return nil, err
	}
	return v.([]aggregation.WindowPoint), nil
}

// stragglerSpeedup is Fig. 13's point at the straggling probability of
// configs/aggregation.yaml (trio.straggler.speedup), with the pattern's own
// expectation of SwitchML over the typical iteration (no network, many
// iterations).
func (c *Context) stragglerSpeedup() (*aggregation.Speedup, float64, error) {
	type result struct {
		s     *aggregation.Speedup
		bound float64
	}
	v, err := c.memo("fig13", func() (any, error) {
		p, err := c.aggParams()
		if err != nil {
			return nil, err
		}
		// [TRIO] §6.2 averages the first 100 iterations
		// (straggler.iterations); the shared params stay as loaded.
		q := *p
		q.Training.Iterations = q.Straggler.Iterations
		p = &q
		s, err := aggregation.StragglerSpeedup(p, p.Straggler.Probability, 1)
		if err != nil {
			return nil, err
		}
		return result{s, aggregation.PatternSlowdown(p, p.Straggler.Probability, false, 100000, 1)}, nil
	})
	if err != nil {
		return nil, 0, err
	}
	r := v.(result)
	return r.s, r.bound, nil
}

func trioClaims() []Claim {
	return append(trioArchClaims(), []Claim{
		contrastClaim("trio.contrast.pie-rfc", trioSrc+" §1, §3; PIE paper §IV",
			"PIE_RFC is rejected on Tofino (stage-local memory) and runs on Trio", "exact",
			"the same pie-rfc description placed on the Tofino model and lowered and simulated on the Trio 5 PFE (its traffic section)",
			"pie-rfc", nil, compiler.RuleStageLocal, func(r *trioRun) (bool, string) {
				return r.Delivered+r.Dropped > 0, fmt.Sprintf("%d packets processed, %d instructions per packet", r.Delivered+r.Dropped, int(math.Round(r.Instr)))
			}),
		// A 100 µs scan period, so the short run sees every thread.
		contrastClaim("trio.contrast.timers", trioSrc+" §5",
			"straggler mitigation needs timer threads: trio-ml is rejected on Tofino and its 100 scan threads run on Trio",
			"exact: Tofino rule timer-threads; Trio runs the scan threads",
			"trio-ml placed on the Tofino model, then simulated on the Trio 5 PFE with its traffic section and a 100 µs scan period (TIMEOUT_NS), so the 100 scan threads, started 1 µs apart, run during the short run",
			"trio-ml", map[string]string{"TIMEOUT_NS": "100000"}, compiler.RuleTimerThreads, func(r *trioRun) (bool, string) {
				return r.TimerRuns > 0, fmt.Sprintf("%d scan-thread runs during %.0f µs", r.TimerRuns, r.SimUs)
			}),
		{
			ID:        "trio.ml.instructions",
			Source:    trioSrc + " §6.3",
			Expected:  "the Trio-ML aggregation program is ≈ 60 instructions",
			Tolerance: "± 25 %",
			Note:      "measured = static micro-instructions of trio-ml's packet path after lowering (parser, ingress with its 16-gradient loop, actions, the result function); the scan timer, added for §5, is reported apart",
			probe: func(ctx *Context) reading {
				mc, err := ctx.trioML()
				if err != nil {
					return broken(err)
				}
				n, timers := 0, 0
				for _, b := range mc.Blocks {
					if strings.HasPrefix(b.Name, "timer ") {
						timers += b.Instr
						continue
					}
					n += b.Instr
				}
				return read(fmt.Sprintf("%d instructions (+ %d in the scan timer)", n, timers), float64(n))
			},
			check: near(60, 15),
		},
		{
			ID:        "trio.ml.per-gradient",
			Source:    trioSrc + " §6.3",
			Expected:  "≈ 1.2 run-time instructions per gradient",
			Tolerance: "± 25 %",
			Note:      "measured = mean instructions a thread executes per 1024-gradient packet in the window-1 run of Fig. 15 (every packet of every source), divided by 1024",
			probe: func(ctx *Context) reading {
				p, err := ctx.aggParams()
				if err != nil {
					return broken(err)
				}
				wc := p.Workers(0, 0, 1)
				wc.Workers, wc.PerPacket, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, 1024, 1024*50, 1, 1, 0
				r, err := aggregation.Run(aggregation.Setup{Switch: "trio", Workers: wc, Seed: 1})
				if err != nil {
					return broken(err)
				}
				v := r.InstrPerPacket / 1024
				return read(fmt.Sprintf("%.3f (%.1f instructions per 1024-gradient packet)", v, r.InstrPerPacket), v)
			},
			check: near(1.2, 0.3),
		},
		{
			ID:        "trio.ml.engine-bound",
			Source:    trioSrc + " §6.3",
			Expected:  "12 RMW engines × 2 cycles per add at 1 GHz = 6 G operations/s per PFE, reached when the engines saturate",
			Tolerance: "± 10 %, with the hottest engine ≥ 90 % busy",
			Note:      "measured by simulation: 1024 packets of 1024 gradients (256 blocks × 4 sources) offered at the line rate of the PFE's four 100G ports, no hosts. Measured = the engines' work per second in add operations (their busy time over one add's two cycles) up to the last thread's end; the gradients aggregated per second are lower because the same engines also read each block's result (256-byte copies) and clear its buffer (64-byte writes)",
			probe: func(ctx *Context) reading {
				s, err := aggregation.SaturateEngines(4, 256, 1024, 1)
				if err != nil {
					return broken(err)
				}
				return read(fmt.Sprintf("%.2f G ops/s (%.2f G gradients/s; engines %.0f %% busy, hottest %.0f %%, %d threads at most)", s.EngineGOps, s.GOpsPerSec, 100*s.EngineUtil, 100*s.HottestUtil, s.MaxThreads),
					s.EngineGOps, s.HottestUtil)
			},
			check: each(near(6, 0.6), atLeast(0.9)),
		},
		{
			ID:        "trio.latency.ratio",
			Source:    trioSrc + " §6.3, Fig. 15",
			Expected:  "window 1: 64 gradients ≈ 30 µs, 1024 ≈ 200 µs (× 6.6 for × 16 data)",
			Tolerance: "ratio ± 10 %",
			Note:      "four servers, window 1, 100 blocks per size; latency = a block's send to its result's receipt. The host's two software-path parameters were calibrated once on these two points (configs/aggregation.yaml), so the endpoints agree by construction as long as the PFE model is unchanged; the simulation contributes the PFE's share (≈ 3 µs and 34 µs) and every other point",
			probe: func(ctx *Context) reading {
				pts, err := ctx.latencySweep()
				if err != nil {
					return broken(err)
				}
				lo, hi := pts[0], pts[len(pts)-1]
				v := hi.LatencyUs / lo.LatencyUs
				return read(fmt.Sprintf("%.1f µs → %.1f µs: × %.2f", lo.LatencyUs, hi.LatencyUs, v), v)
			},
			check: near(6.6, 0.66),
		},
		{
			ID:        "trio.latency.plateau",
			Source:    trioSrc + " §6.3, Fig. 15",
			Expected:  "the aggregation rate (gradients / latency) plateaus between 512 and 1024 gradients per packet",
			Tolerance: "rate gain 512 → 1024 ≤ 15 % and under a third of the gain 64 → 128",
			Note:      "same runs as trio.latency.ratio",
			probe: func(ctx *Context) reading {
				pts, err := ctx.latencySweep()
				if err != nil {
					return broken(err)
				}
				rate := map[int]float64{}
				var parts []string
				for _, p := range pts {
					rate[p.Gradients] = p.Rate
					parts = append(parts, fmt.Sprintf("%d: %.2f", p.Gradients, p.Rate))
				}
				late, early := rate[1024]/rate[512]-1, rate[128]/rate[64]-1
				return read(fmt.Sprintf("gradients/µs %s; gain 512→1024 %.0f %%, 64→128 %.0f %%", strings.Join(parts, ", "), 100*late, 100*early), late, early)
			},
			// The late gain (first value) against a bound and a third of
			// the early one (second).
			check: check{0.15, func(v []float64) bool { return v[0] <= 0.15 && v[0] < v[1]/3 }},
		},
		windowClaim("trio.window.trend", "larger windows raise both the aggregation latency and the throughput", "latency and throughput rise with the window (each step within 5 % or up), throughput of the largest window ≥ 2 × window 1's",
			func(pts []aggregation.WindowPoint) bool {
				for i := 1; i < len(pts); i++ {
					if pts[i].LatencyUs < 0.95*pts[i-1].LatencyUs || pts[i].ThroughputGbps < 0.95*pts[i-1].ThroughputGbps {
						return false
					}
				}
				return pts[len(pts)-1].ThroughputGbps >= 2*pts[0].ThroughputGbps
			}),
		windowClaim("trio.window.balance", "window 4096 balances latency and throughput", "the smallest window reaching 95 % of the sweep's best throughput (the knee) is 2048–8192",
			func(pts []aggregation.WindowPoint) bool {
				k := knee(pts)
				return k >= 2048 && k <= 8192
			}),
		{
			ID:        "trio.straggler.partial",
			Source:    trioSrc + " §6.2, Fig. 14",
			Expected:  "N = 100 scan threads: non-stragglers get partial results within 2 × the timeout",
			Tolerance: "every block's wait ≤ 2 × timeout + 2.5 %",
			Note:      "four servers on one PFE, one never sends; the others send 20 blocks back to back; wait = send to receipt of the degraded result, for timeouts of 5, 10 and 20 ms (TIMEOUT_NS); a record is aged after one scan period without a reference, so the wait is between one and two periods plus the host path",
			probe: func(ctx *Context) reading {
				p, err := ctx.aggParams()
				if err != nil {
					return broken(err)
				}
				pts, err := aggregation.PartialResults(p, []float64{5, 10, 20}, 1)
				if err != nil {
					return broken(err)
				}
				worst := 0.0
				var parts []string
				for _, pt := range pts {
					worst = math.Max(worst, pt.MaxMs/pt.TimeoutMs)
					parts = append(parts, fmt.Sprintf("%g ms: %.2f–%.2f ms", pt.TimeoutMs, pt.MinMs, pt.MaxMs))
				}
				return read(fmt.Sprintf("%s; worst %.3f × timeout", strings.Join(parts, ", "), worst), worst)
			},
			check: atMost(2.05).expecting(2),
		},
		{
			ID:        "trio.straggler.speedup",
			Source:    trioSrc + " §6.2, Fig. 13",
			Expected:  "straggling probability 16 %: iteration time 1.72–1.8 × better than SwitchML",
			Tolerance: "speed-up 1.65–1.87",
			Note:      "six workers, 100 iterations (§6.2: \"the first 100 iterations\") of 120 ms compute + a 1 MB slice of the model, Slow Worker Pattern with the same seed on both switches, typical iteration = Trio-ML's without stragglers; Trio-ML on two first-level PFEs and a top-level one (the paper's testbed); SwitchML = the switchml-256 program on the Tofino model (256 gradients per packet, pool 512, the paper's baseline); iteration time = makespan / iterations",
			long:      true,
			early:     func(ctx *Context) { _, _, _ = ctx.stragglerSpeedup() },
			probe: func(ctx *Context) reading {
				s, bound, err := ctx.stragglerSpeedup()
				if err != nil {
					return broken(err)
				}
				// SwitchML/typical is the speed-up a Trio-ML at the
				// typical iteration (no cost at all for the sleeps) would
				// reach with these sleeps.
				return read(fmt.Sprintf("× %.2f: SwitchML %.1f ms, Trio-ML %.1f ms (typical %.1f ms, %d sleeps, %d degraded results; median worker × %.2f); SwitchML/typical × %.2f (the pattern's expectation about × %.2f)",
					s.Ratio, s.SwitchMLMs, s.TrioMs, s.TypicalMs, s.Sleeps, s.Degraded, s.SwitchMLMedianMs/s.TrioMedianMs, s.SwitchMLMs/s.TypicalMs, bound), s.Ratio)
			},
			check: between(1.65, 1.87, 1.76),
		},
	}...)
}

// contrastClaim places a built-in program on Tofino, which must reject it
// with rule, and runs it on the Trio 5 PFE (with params), where runs
// decides whether it ran and describes the run.
func contrastClaim(id, source, expected, tol, note, program string, params map[string]string, rule compiler.Rule, runs func(*trioRun) (bool, string)) Claim {
	return Claim{ID: id, Source: source, Expected: expected, Tolerance: tol, Note: note,
		probe: func(ctx *Context) reading {
			_, err := ctx.place(program, nil)
			var pe *compiler.PlacementError
			rejected := errors.As(err, &pe) && pe.Rule == rule
			r, terr := runOnTrio(program, params)
			if terr != nil {
				return broken(terr)
			}
			ran, what := runs(r)
			return decided(fmt.Sprintf("Tofino: %s; Trio: %s", ruleOf(err), what), rejected && ran)
		},
		check: holds(1),
	}
}

func windowClaim(id, expected, tol string, ok func([]aggregation.WindowPoint) bool) Claim {
	return Claim{
		ID:        id,
		Source:    trioSrc + " §6.3, Fig. 16",
		Expected:  expected,
		Tolerance: tol,
		Note:      "four servers, 1024 gradients per packet, windows 1, 16, 256, 1024, 4096 and 8192, each worker streaming 2 × window blocks (at least 64); latency = send to result, throughput = aggregated gradient bits per second per worker",
		long:      true,
		early:     func(ctx *Context) { _, _ = ctx.windowSweep() },
		probe: func(ctx *Context) reading {
			pts, err := ctx.windowSweep()
			if err != nil {
				return broken(err)
			}
			var parts []string
			for _, p := range pts {
				parts = append(parts, fmt.Sprintf("%d: %.0f µs %.1f Gb/s", p.Window, p.LatencyUs, p.ThroughputGbps))
			}
			return decided(fmt.Sprintf("%s; knee at window %d", strings.Join(parts, ", "), knee(pts)), ok(pts)).reporting(float64(knee(pts)))
		},
		check: holds(4096),
	}
}

// knee is the smallest window whose throughput is within 5 % of the
// sweep's best.
func knee(pts []aggregation.WindowPoint) int {
	best := 0.0
	for _, p := range pts {
		best = math.Max(best, p.ThroughputGbps)
	}
	for _, p := range pts {
		// 5 %: a 10 % criterion puts the model's knee on the edge between
		// 1024 (90.0 % of the best) and 4096, so it flips with any change.
		if p.ThroughputGbps >= 0.95*best {
			return p.Window
		}
	}
	return 0
}

func ruleOf(err error) string {
	var pe *compiler.PlacementError
	if errors.As(err, &pe) {
		return "rejected, rule " + string(pe.Rule)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return "placed"
}

// trioRun is what a claim needs from a program's run on the Trio PFE.
type trioRun struct {
	Delivered, Dropped, TimerRuns int
	Instr, SimUs                  float64
}

// runOnTrio lowers a built-in program for the Trio 5 PFE and simulates its
// traffic section.
func runOnTrio(name string, params map[string]string) (*trioRun, error) {
	o, err := job.Run(job.Spec{Arch: "trio", Program: name, Params: params, Seed: 1, Sim: &harness.Sim{Packets: 400, Load: 0.5}})
	if err != nil {
		return nil, err
	}
	if !o.Compiled.Fits {
		return nil, o.Compiled.Err
	}
	r := trio.RunResultOf(o.Measurement)
	out := &trioRun{Delivered: r.Delivered, Instr: r.Ingress.Instructions.Mean, SimUs: r.SimulatedNs / 1000}
	for _, d := range r.Drops {
		out.Dropped += d.Packets
	}
	if r.Timers != nil {
		out.TimerRuns = r.Timers.Runs
	}
	return out, nil
}
