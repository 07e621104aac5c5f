package main

import (
	"archsim/internal/tables"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"archsim/experiments/aggregation"
)

// aggregateOptions are `archsim aggregate`'s flags; zero means "from
// configs/aggregation.yaml".
type aggregateOptions struct {
	sw         string
	chip       string
	workers    int
	perPacket  int
	window     int
	gradients  int
	iterations int
	computeMs  float64
	prob       float64
	typicalMs  float64
	firstLevel int
	pool       int
	sets       []string
	seed       int64
	json       bool
	quiet      bool
	compare    bool
	probs      []float64
}

func newAggregateCmd(out io.Writer) *cobra.Command {
	o := &aggregateOptions{}
	cmd := &cobra.Command{
		Use:   "aggregate --switch trio|tofino",
		Short: "Run an in-network aggregation job: workers streaming gradients to Trio-ML (Trio) or SwitchML (Tofino)",
		Long: `Simulates the workers of a data-parallel training job aggregating their
gradients in the network: trio-ml on Trio PFEs (one PFE, or first-level
PFEs feeding a top-level one) or switchml on the Tofino model. Host,
training and straggler parameters come from configs/aggregation.yaml
(override them with --set aggregation.KEY=VALUE or the flags below).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.sw != "trio" && o.sw != "tofino" {
				return &exitError{code: 2, msg: fmt.Sprintf("--switch %q: want trio or tofino", o.sw)}
			}
			if o.prob < 0 || o.prob > 1 {
				return &exitError{code: 2, msg: fmt.Sprintf("--straggle-prob %g: must be in [0, 1]", o.prob)}
			}
			if err := unusedAggregateFlags(cmd, o); err != nil {
				return err
			}
			p, err := aggregation.LoadParams(o.sets)
			if err != nil {
				return &exitError{code: 2, msg: oneLine(err.Error())}
			}
			if err := unusedAggregateSets(o); err != nil {
				return err
			}
			if o.compare {
				return aggregateCompare(out, cmd, o, p)
			}
			wc := p.Workers(o.prob, int64(o.typicalMs*1e9), o.seed)
			if o.sw == "tofino" {
				wc.PerPacket = 256 // switchml-256, the Trio paper's baseline (--gradients-per-packet 64: switchml)
			}
			for _, f := range []struct {
				v   int
				dst *int
			}{{o.workers, &wc.Workers}, {o.perPacket, &wc.PerPacket}, {o.window, &wc.Window}, {o.gradients, &wc.Gradients}, {o.iterations, &wc.Iterations}} {
				if f.v != 0 {
					*f.dst = f.v
				}
			}
			if cmd.Flags().Changed("compute-ms") {
				wc.ComputePs = int64(o.computeMs * 1e9)
			}
			firstLevel := p.Training.FirstLevel
			if o.firstLevel >= 0 {
				firstLevel = o.firstLevel
			}
			if o.sw == "tofino" {
				firstLevel = 0
			}
			runs := 1
			if o.prob > 0 && o.typicalMs <= 0 {
				runs = 2
			}
			if err := checkAggregate(cmd, o, wc, firstLevel, runs, 1); err != nil {
				return err
			}
			pg := startProgress(cmd, o.quiet)
			defer pg.Stop()
			what := fmt.Sprintf("aggregate: %d workers x %d iterations on %s", wc.Workers, wc.Iterations, o.sw)
			if o.prob > 0 && o.typicalMs <= 0 {
				// The sleeps scale with the typical iteration: a run
				// without stragglers measures it first.
				pg.Status("%s [1/2]: the typical iteration, without stragglers", what)
				base := wc
				base.StraggleProb = 0
				r, err := aggregation.Run(setupFor(o, p, base))
				if err != nil {
					return &exitError{code: 2, msg: oneLine(err.Error())}
				}
				wc.TypicalIterPs = int64(r.MeanIterationMs * 1e9)
				pg.Line("%s [1/2]: typical iteration %.1f ms", what, r.MeanIterationMs)
				pg.Status("%s [2/2]: with stragglers (p = %g)", what, o.prob)
			} else {
				pg.Status("%s", what)
			}
			r, err := aggregation.Run(setupFor(o, p, wc))
			pg.Stop()
			if err != nil {
				return &exitError{code: 2, msg: oneLine(err.Error())}
			}
			// Results that differ from the workers' true sum make the run
			// a failure (printed, exit 1): the program does not aggregate
			// correctly on this chip.
			var wrong error
			switch {
			case r.Wrong > 0:
				wrong = &exitError{code: 1, msg: fmt.Sprintf("%d of %d results differ from the workers' true sum: %s does not aggregate correctly on %s", r.Wrong, r.Results, r.Program, r.Chip)}
			case !r.Done:
				// Printed, and a failure: a job that stops short (more
				// workers than the program aggregates, a deadline) is not
				// a measurement of the job asked for.
				wrong = &exitError{code: 1, msg: fmt.Sprintf("the job did not finish: %d packets sent, %d results received, %d switch drops by %.6g ms simulated (%s on %s)", r.Sent, r.Results, r.SwitchDrops, r.SimulatedMs, r.Program, r.Chip)}
			}
			if o.json {
				if err := writeJSON(out, r); err != nil {
					return err
				}
				return wrong
			}
			var buf bytes.Buffer
			fmt.Fprintf(&buf, "%s on %s: %d workers, %d gradients per packet, window %d, %d iterations\n\n", r.Program, r.Chip, r.Workers, r.GradsPerPacket, r.Window, r.Iterations)
			t := tables.New(&buf, "Measure", "Value")
			row := func(k, v string) { t.Row(k, v) }
			row("Finished", fmt.Sprint(r.Done))
			row("Mean iteration (ms)", fmt.Sprintf("%.3f", r.MeanIterationMs))
			row("Block latency, send to result (µs)", fmt.Sprintf("%.1f", r.BlockLatencyUs))
			row("Aggregation throughput per worker (Gb/s)", fmt.Sprintf("%.2f", r.ThroughputGbps))
			row("Packets sent / results received", fmt.Sprintf("%d / %d", r.Sent, r.Results))
			row("Degraded (partial) results", fmt.Sprintf("%d (wait %.2f–%.2f ms)", r.Degraded, r.PartialMinMs, r.PartialMaxMs))
			row("Wrong results", fmt.Sprint(r.Wrong))
			row("Sleeps injected", fmt.Sprint(r.Sleeps))
			row("Switch: consumed / created / copies / delivered / other drops", fmt.Sprintf("%d / %d / %d / %d / %d", r.Consumed, r.Created, r.Copies, r.Delivered, r.SwitchDrops))
			row("Simulated (ms) / events", fmt.Sprintf("%.1f / %d", r.SimulatedMs, r.Events))
			t.Render()
			if _, err = out.Write(buf.Bytes()); err != nil {
				return err
			}
			return wrong
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.sw, "switch", "trio", "trio (trio-ml on Trio PFEs) or tofino (switchml)")
	f.StringVar(&o.chip, "chip", "", "the chip the switch is (default: trio for --switch trio, tofino for tofino; e.g. trio6, tofino2)")
	f.IntVar(&o.workers, "workers", 0, "workers (default: configs/aggregation.yaml)")
	f.IntVar(&o.perPacket, "gradients-per-packet", 0, "gradients per packet (trio: up to 4095; tofino: 64 runs switchml, 256 switchml-256)")
	f.IntVar(&o.window, "window", 0, "outstanding blocks per worker")
	f.IntVar(&o.gradients, "gradients", 0, "gradients per worker per iteration")
	f.IntVar(&o.iterations, "iterations", 0, "training iterations")
	f.Float64Var(&o.computeMs, "compute-ms", 0, "compute time per iteration (ms)")
	f.Float64Var(&o.prob, "straggle-prob", 0, "Slow Worker Pattern probability p")
	f.Float64Var(&o.typicalMs, "typical-ms", 0, "typical iteration time the sleeps scale with (default: measured without stragglers)")
	f.IntVar(&o.firstLevel, "first-level", -1, "trio: first-level PFEs (0: one PFE; default: configs/aggregation.yaml)")
	f.IntVar(&o.pool, "pool", 0, "tofino: SwitchML slots per worker (default: configs/aggregation.yaml)")
	f.StringArrayVar(&o.sets, "set", nil, "override an aggregation.yaml key, e.g. aggregation.host.core_ns_per_packet=500 (repeatable)")
	f.Int64Var(&o.seed, "seed", 1, "random seed (straggler pattern)")
	f.BoolVar(&o.json, "json", false, "print JSON")
	f.BoolVar(&o.quiet, "quiet", false, "no progress on stderr (there is none when stderr is not a terminal)")
	f.BoolVar(&o.compare, "compare", false, "Fig. 13: Trio-ML (hierarchical) and SwitchML-256 with the same stragglers, at each --probs value")
	f.Float64SliceVar(&o.probs, "probs", []float64{0, 0.04, 0.08, 0.16}, "with --compare: straggling probabilities")
	return cmd
}

// unusedAggregateFlags refuses a flag the run would ignore: --compare
// runs Trio-ML and SwitchML-256 over --probs, with their own packet sizes
// and windows; a single run takes one --straggle-prob; --first-level
// arranges Trio PFEs and --pool sizes SwitchML's slots.
func unusedAggregateFlags(cmd *cobra.Command, o *aggregateOptions) error {
	changed := cmd.Flags().Changed
	var why string
	switch {
	case o.compare && changed("straggle-prob"):
		why = "--straggle-prob sets a single run's probability; --compare takes --probs"
	case o.compare && changed("typical-ms"):
		why = "--typical-ms is a single run's; --compare measures each switch's iteration without stragglers"
	case o.compare && (changed("gradients-per-packet") || changed("window") || changed("switch") || changed("chip")):
		why = "--compare runs Trio-ML and SwitchML-256 as configs/aggregation.yaml sets them (--gradients-per-packet, --window, --switch, --chip are a single run's)"
	case !o.compare && changed("probs"):
		why = "--probs lists --compare's probabilities; a single run takes --straggle-prob"
	case !o.compare && changed("typical-ms") && o.prob == 0:
		why = "--typical-ms scales the stragglers' sleeps, and there are none: give --straggle-prob above 0"
	case !o.compare && changed("first-level") && o.sw == "tofino":
		why = "--first-level arranges Trio PFEs; --switch tofino aggregates on one Tofino"
	case !o.compare && changed("pool") && o.sw == "trio":
		why = "--pool sizes SwitchML's slots; --switch trio runs Trio-ML"
	default:
		return nil
	}
	return &exitError{code: 2, msg: why}
}

// unusedAggregateSets refuses the --set keys only validate reads (after
// the values themselves were checked).
func unusedAggregateSets(o *aggregateOptions) error {
	for _, kv := range o.sets {
		k, _, _ := strings.Cut(kv, "=")
		switch k = strings.ToLower(strings.TrimSpace(k)); k {
		case "aggregation.straggler.probability", "aggregation.straggler.iterations":
			// validate's trio.straggler.speedup claim reads them.
			return &exitError{code: 2, msg: fmt.Sprintf("--set %s: the trio.straggler.speedup claim's (archsim validate); aggregate takes --straggle-prob or --probs, and --iterations", k)}
		}
	}
	return nil
}

// aggregateCompare runs the straggler sweep of [TRIO] Fig. 13.
func aggregateCompare(out io.Writer, cmd *cobra.Command, o *aggregateOptions, p *aggregation.Params) error {
	t := &p.Training
	for _, f := range []struct {
		v   int
		dst *int
	}{{o.workers, &t.Workers}, {o.gradients, &t.Gradients}, {o.iterations, &t.Iterations}} {
		if f.v != 0 {
			*f.dst = f.v
		}
	}
	if cmd.Flags().Changed("compute-ms") {
		t.ComputeMs = o.computeMs
	}
	if o.firstLevel >= 0 {
		t.FirstLevel = o.firstLevel
	}
	if o.pool > 0 {
		p.SwitchML.Pool = o.pool
	}
	for i, pr := range o.probs {
		if pr < 0 || pr > 1 {
			return &exitError{code: 2, msg: fmt.Sprintf("--probs %g: each must be in [0, 1]", pr)}
		}
		if slices.Index(o.probs, pr) < i {
			return &exitError{code: 2, msg: fmt.Sprintf("--probs %g: given twice (each point runs once)", pr)}
		}
	}
	if len(o.probs) == 0 || len(o.probs) > 100 {
		return &exitError{code: 2, msg: fmt.Sprintf("--probs: %d values, want 1..100", len(o.probs))}
	}
	// The sweep runs Trio-ML and SwitchML-256 at each probability (and
	// each without stragglers), two at a time.
	wc := p.Workers(0, 0, o.seed)
	if err := checkAggregate(cmd, o, wc, t.FirstLevel, 2*(len(o.probs)+1), 2); err != nil {
		return err
	}
	pg := startProgress(cmd, o.quiet)
	total, n := 2*(len(o.probs)+1), 0
	var mu sync.Mutex // the sweep reports from two goroutines
	pg.Status("aggregate --compare: %d simulations, two at a time", total)
	pts, err := aggregation.StragglerSweepWith(p, o.probs, o.seed, func(what string) {
		mu.Lock()
		defer mu.Unlock()
		n++
		pg.Line("[%d/%d] %s", n, total, what)
	})
	pg.Stop()
	if err != nil {
		return &exitError{code: 2, msg: oneLine(err.Error())}
	}
	if o.json {
		return writeJSON(out, map[string]any{"points": pts})
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "Trio-ML vs SwitchML-256: %d workers, %d iterations, typical iteration %.1f ms (Trio-ML without stragglers)\n\n", t.Workers, t.Iterations, pts[0].TypicalMs)
	tb := tables.New(&buf, "p", "Trio-ML ms", "SwitchML-256 ms", "Speed-up", "Sleeps", "Degraded results")
	for _, pt := range pts {
		tb.Row(fmt.Sprintf("%.2f", pt.Probability), fmt.Sprintf("%.1f", pt.TrioMs), fmt.Sprintf("%.1f", pt.SwitchMLMs),
			fmt.Sprintf("%.2f", pt.Ratio), fmt.Sprint(pt.Sleeps), fmt.Sprint(pt.Degraded))
	}
	tb.Render()
	_, err = out.Write(buf.Bytes())
	return err
}

func setupFor(o *aggregateOptions, p *aggregation.Params, wc aggregation.WorkersConfig) aggregation.Setup {
	s := aggregation.Setup{Switch: o.sw, Chip: o.chip, Workers: wc, Seed: o.seed, Pool: p.SwitchML.Pool}
	if o.pool > 0 {
		s.Pool = o.pool
	}
	if o.sw == "trio" {
		s.FirstLevel, s.FabricPs = p.Training.FirstLevel, int64(p.Training.FabricNs*1000)
		if o.firstLevel >= 0 {
			s.FirstLevel = o.firstLevel
		}
	}
	return s
}
