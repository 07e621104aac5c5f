package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"archsim/components/workers"
	"archsim/experiments"
	"archsim/experiments/aggregation"
	"archsim/harness"
	"archsim/programs"
)

// Up-front limits: a command whose estimated memory or event count exceeds
// them is refused before any work, with the estimate in the message
// (--max-memory, --max-events). The estimates are coarse upper bounds
// derived from the run's own parameters; the constants below are what
// they charge, measured on this repository's runs (README, "Limits").
const (
	// Hard bounds on flags, whatever the limits: beyond them a run is
	// nonsense rather than large.
	maxPackets = 100_000_000 // --packets (main job, compare, bench): 100 M packets ≈ 60 GB
	maxJobs    = 1024        // --jobs: more is refused (above the runs or the cores, it is clamped)

	// Memory charged per packet the latency harness offers: it generates
	// every arrival up front. Measured with --packets 1e5 and 3e5 (ndp):
	// ~590 B per packet on Tofino, ~520 B on Trio; 640 B leaves a margin.
	bytesPerOfferedPacket = 640
	// baseBytes is the process before any packet: binary, chip model,
	// program (measured: 21–27 MB peak RSS for --packets 3000).
	baseBytes = 64 << 20
	// eventsPerOfferedPacket bounds the engine events one packet costs in
	// the latency harness: measured 4–276 over the built-in programs on
	// every chip (switchml on Trio the most).
	eventsPerOfferedPacket = 300
	// Scenario runs: memory per packet a host keeps in flight (window or
	// queue) and events per data packet (measured 7–17 with ACKs, NACKs
	// and PULLs in trim-fig6; a Trio program costs up to ~300 per packet).
	bytesPerInFlightPacket = 640
	eventsPerDataPacket    = 30
	eventsPerTrioPacket    = 300
	// Aggregation: events per gradient packet a worker sends (with its
	// result and the timers: measured 419 for trio-ml on Trio 5 PFEs, 27
	// for switchml-256 on Tofino) and bytes per gradient of aggregation
	// buffer (a slot per window entry, rounded to a power of two, per PFE:
	// measured ~8.2 B from --window 4096 to 16384).
	eventsPerAggPacket = 500
	bytesPerSlotGrad   = 10
	// eventsPerScanRecord: a Trio-ML scan timer thread's events per
	// record it visits (measured ~5: 2.1e8 events for 10^6 ticks of 41
	// records each, --compute-ms 1e5).
	eventsPerScanRecord = 5
)

// limitFlags are the global --max-memory and --max-events.
type limitFlags struct {
	memory byteSize
	events float64
}

// defaultLimits: 4 GiB fits a laptop beside other work; 1e10 events is
// about an hour at the engine's ~300 ns per event.
var defaultLimits = limitFlags{memory: 4 << 30, events: 1e10}

// addLimitFlags adds --max-memory and --max-events to a root command.
func addLimitFlags(root *cobra.Command) {
	l := &limitFlags{}
	*l = defaultLimits
	root.PersistentFlags().Var(&l.memory, "max-memory", "refuse, before any work, a run whose estimated memory exceeds this (e.g. 4GiB, 512MiB; README: Limits)")
	root.PersistentFlags().Float64Var(&l.events, "max-events", l.events, "refuse, before any work, a run whose estimated engine events exceed this (README: Limits)")
	limitsByRoot.Store(root, l)
}

// limitsByRoot holds each command tree's limits (tests build several).
var limitsByRoot sync.Map

// limitsOf is the limits of the command tree cmd belongs to (the defaults
// when it has none).
func limitsOf(cmd *cobra.Command) limitFlags {
	if cmd != nil {
		if l, ok := limitsByRoot.Load(cmd.Root()); ok {
			return *l.(*limitFlags)
		}
	}
	return defaultLimits
}

// byteSize is a --max-memory value: bytes, or a number with a unit (KiB,
// MiB, GiB, TiB, PiB, or KB, MB, GB, TB, PB as powers of 1000; K, M, G,
// T, P as powers of 1024).
type byteSize int64

func (b *byteSize) String() string { return formatBytes(float64(*b)) }
func (b *byteSize) Type() string   { return "size" }

func (b *byteSize) Set(s string) error {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"PiB", 1 << 50},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"PB", 1e15},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"P", 1 << 50}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v*mult < 1<<20 || v*mult > 1<<50 || math.IsNaN(v) {
		return fmt.Errorf("want a size from 1MiB to 1PiB, e.g. 4GiB or 512MiB")
	}
	*b = byteSize(v * mult)
	return nil
}

func formatBytes(v float64) string {
	switch {
	case v >= 1<<40:
		return fmt.Sprintf("%.3gTiB", v/(1<<40))
	case v >= 1<<30:
		return fmt.Sprintf("%.3gGiB", v/(1<<30))
	case v >= 1<<20:
		return fmt.Sprintf("%.3gMiB", v/(1<<20))
	}
	return fmt.Sprintf("%.0fB", v)
}

// checkLimits refuses an estimate above the limits; what names the run
// and how the estimate was made.
func checkLimits(cmd *cobra.Command, what string, memBytes, events float64) error {
	limits := limitsOf(cmd)
	if memBytes > float64(limits.memory) {
		return &exitError{code: 2, msg: fmt.Sprintf("%s: estimated memory %s exceeds --max-memory %s (raise it, or make the run smaller)", what, formatBytes(memBytes), formatBytes(float64(limits.memory)))}
	}
	if events > limits.events {
		return &exitError{code: 2, msg: fmt.Sprintf("%s: estimated %.3g events exceed --max-events %.3g (raise it, or make the run smaller)", what, events, limits.events)}
	}
	return nil
}

// checkPackets bounds --packets and checks the latency harness's estimate
// (every packet generated up front; the rate probe's too).
// A switch built for a run holds its program's state: its registers,
// counters and meters, two switches at once with the rate probe.
func checkPackets(cmd *cobra.Command, packets, probe, chips int, prog *programs.Program) error {
	if packets > maxPackets {
		return &exitError{code: 2, msg: fmt.Sprintf("--packets %d: must be 1..%d", packets, maxPackets)}
	}
	n := float64(packets + probe)
	state := 2 * prog.StateBytes()
	mem := baseBytes + n*bytesPerOfferedPacket + state
	return checkLimits(cmd, fmt.Sprintf("latency run of --packets %d (%d B each, + %s, + the program's registers, counters and meters %s)", packets, bytesPerOfferedPacket, formatBytes(baseBytes), formatBytes(state)), mem,
		float64(chips)*n*eventsPerOfferedPacket)
}

// checkScenario estimates a scenario's runs: memory for the runs in
// parallel, events for all of them.
func checkScenario(cmd *cobra.Command, sc *experiments.Scenario, opt experiments.Options) error {
	est := sc.Estimate(opt, bytesPerInFlightPacket, eventsPerDataPacket, eventsPerTrioPacket)
	jobs := opt.ParallelJobs(est.Runs)
	mem := float64(baseBytes) + float64(jobs)*(baseBytes+est.MaxRunBytes)
	return checkLimits(cmd, fmt.Sprintf("scenario %s (%d runs, ≤ %.3g data packets, %d in parallel)", sc.Name, est.Runs, est.DataPackets, jobs), mem, est.Events)
}

// checkAggregate bounds an aggregation job's flags (aggregation.yaml's
// values are checked where they are loaded) and checks its estimate:
// runs jobs of the configuration, par of them at once.
func checkAggregate(cmd *cobra.Command, o *aggregateOptions, wc workers.Config, firstLevel, runs, par int) error {
	for _, f := range []struct {
		flag   string
		v, max int
	}{{"--workers", o.workers, 32}, {"--gradients-per-packet", o.perPacket, 4095}, {"--window", o.window, aggregation.MaxWindow},
		{"--gradients", o.gradients, aggregation.MaxGradients}, {"--iterations", o.iterations, aggregation.MaxIterations}, {"--pool", o.pool, aggregation.MaxPool}} {
		if f.v < 0 || f.v > f.max {
			return &exitError{code: 2, msg: fmt.Sprintf("%s %d: must be 1..%d (0: configs/aggregation.yaml)", f.flag, f.v, f.max)}
		}
	}
	if o.computeMs < 0 || o.computeMs > 1e6 {
		return &exitError{code: 2, msg: fmt.Sprintf("--compute-ms %g: must be 0..1e6", o.computeMs)}
	}
	if o.typicalMs < 0 || o.typicalMs > 1e6 {
		return &exitError{code: 2, msg: fmt.Sprintf("--typical-ms %g: must be 0..1e6", o.typicalMs)}
	}
	if o.firstLevel > 32 || (o.firstLevel < 0 && cmd.Flags().Changed("first-level")) {
		return &exitError{code: 2, msg: fmt.Sprintf("--first-level %d: must be 0..32 (0: one PFE)", o.firstLevel)}
	}
	packets := float64(wc.Workers) * float64(wc.Blocks()) * float64(wc.Iterations)
	pfes := 1.0
	if firstLevel > 1 {
		pfes += float64(firstLevel)
	}
	slots := 1.0
	for slots < float64(wc.Window) {
		slots *= 2
	}
	gradMax := float64((wc.PerPacket + 15) / 16 * 16)
	perRun := pfes * slots * gradMax * bytesPerSlotGrad
	mem := float64(baseBytes) + float64(par)*perRun
	events := float64(runs) * packets * eventsPerAggPacket
	if o.sw == "trio" || o.compare {
		// Trio-ML's scan timers tick through the whole run, compute time
		// included: at least iterations x compute of it (--compute-ms
		// 1e6 was a thousand seconds of scans per iteration).
		prog, err := programs.Resolve("trio-ml", nil)
		if err != nil {
			return err
		}
		span := float64(wc.Iterations) * float64(wc.ComputePs) / 1000 // ns
		for _, t := range prog.Timers {
			if t.PeriodNs <= 0 || t.Threads <= 0 {
				continue
			}
			records := float64(slots) / float64(t.Threads)
			events += float64(runs) * pfes * float64(t.Threads) * (span/float64(t.PeriodNs) + 1) * (harness.EventsPerTimerThread + eventsPerScanRecord*records)
		}
	}
	return checkLimits(cmd, fmt.Sprintf("aggregation of %d workers x %d blocks x %d iterations, runs: %d", wc.Workers, wc.Blocks(), wc.Iterations, runs),
		mem, events)
}
