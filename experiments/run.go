package experiments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"archsim/engine"
)

// Options control a scenario run.
type Options struct {
	Seed     int64     // 0: the scenario's seed
	Jobs     int       // parallel simulations (0: GOMAXPROCS; clamped, see ParallelJobs)
	Shard    int       // this shard (0-based) ...
	Shards   int       // ... of this many (0 or 1: all runs)
	Progress io.Writer // progress lines (nil: none)
	// SonicConfig, if set, replaces the sonic_config of every variant
	// that has one (a CONFIG_DB file or a configs/sonic name).
	SonicConfig string
	// Records, if set, is a directory into which every run streams its
	// per-packet events (hosts.Recorder.Stream) as packets-<variant>[-<sweep
	// value>].csv.
	Records string
	// Pcap, if set, is a directory into which every run writes a packet
	// capture per switch port (components/pcap), under
	// <variant>[-<sweep var>=<value>]/; PcapMaxBytes bounds each run's
	// capture (0: pcap.DefaultMaxBytes).
	Pcap         string
	PcapMaxBytes int64
}

// ParallelJobs is how many simulations run at once for runs runs: Jobs,
// or one per core when 0, never more than the runs or the cores (a worker
// is a goroutine with a simulation's memory; more would only wait).
func (opt Options) ParallelJobs(runs int) int {
	cores := runtime.GOMAXPROCS(0)
	jobs := opt.Jobs
	if jobs <= 0 || jobs > cores {
		jobs = cores
	}
	return max(1, min(jobs, runs))
}

// shard keeps this shard's runs (every Shards-th from Shard).
func (opt Options) shard(specs []runSpec) []runSpec {
	if opt.Shards <= 1 {
		return specs
	}
	var mine []runSpec
	for i, sp := range specs {
		if i%opt.Shards == opt.Shard {
			mine = append(mine, sp)
		}
	}
	return mine
}

// Result is a scenario's runs, in a fixed order (sweep value, then variant).
type Result struct {
	Scenario *Scenario `json:"-"`
	Name     string    `json:"scenario"`
	Source   string    `json:"source"`
	Runs     []*Run    `json:"runs"`
	shard    *shardResult
}

// Job is one run of a scenario: a variant at a sweep value, with the
// options it runs under. Jobs of different scenarios can share one pool of
// workers (RunJobs), so that no core waits for the last run of a scenario
// while others are queued (archsim validate).
type Job struct {
	s    *Scenario
	spec runSpec
}

// Key names the run (scenario, seed, variant, sweep value): a run depends
// on nothing else, so jobs with one key give the same run whichever
// subset of the scenario's variants or sweep values they came from.
func (j Job) Key() string {
	return fmt.Sprintf("%s|%d|%s|%s", j.s.Name, j.spec.seed, j.spec.variant.Name, j.spec.value)
}

// Inputs names everything the run depends on: the scenario's network,
// workload, duration and traces, the variant, the sweep point and the seed;
// not the scenario's name, documentation, plots' titles or its other
// variants and sweep values. Two jobs with equal inputs, even of different
// scenarios (trim-fig8-64 and trim-fig9-one-pipe-64 share their Tofino
// sweeps), simulate the same run, so one run serves both (Adopt) and
// archsim validate makes it once. Jobs that write files (records, pcap)
// have no inputs ("") and are never shared.
func (j Job) Inputs() string {
	sp := j.spec
	if sp.records != "" || sp.pcap != "" {
		return ""
	}
	s := *j.s
	var sweepVar string
	if s.Sweep != nil {
		sweepVar = s.Sweep.Var
	}
	// What a run records depends on two plot kinds (runOne), not on the
	// plots' titles or files.
	headers, arrivals := s.plots("header_cdf"), s.plots("arrivals")
	s.Name, s.Doc, s.Source, s.Sweep, s.Variants, s.Plots = "", "", "", nil, nil, nil
	s.ix, s.checked = nil, nil
	b, err := json.Marshal(struct {
		Scenario          Scenario
		Dir               string
		SweepVar          string
		Headers, Arrivals bool
		Variant           Variant
		Senders           int
		Value             string
		Params, Sweep     map[string]string
		Seed              int64
		Sonic             string
	}{s, filepath.Dir(j.s.file), sweepVar, headers, arrivals, sp.variant, sp.senders, sp.value,
		sp.params, sp.sweepParams, sp.seed, sp.sonicOverride})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Adopt returns r, a run made for a job with the same inputs, as this
// job's: the same numbers under this job's scenario name (a copy when the
// names differ; r itself is not changed).
func (j Job) Adopt(r *Run) *Run {
	if r == nil || r.Scenario == j.s.Name {
		return r
	}
	c := *r
	c.Scenario = j.s.Name
	return &c
}

// label is the run's name in progress lines.
func (j Job) label() string {
	label := j.s.Name + " " + j.spec.variant.Name
	if j.spec.value != "" {
		label += " " + j.s.Sweep.Var + "=" + j.spec.value
	}
	return label
}

// Jobs returns every run of the scenario under opt (every shard's), in
// the order Execute runs and reports them.
func (s *Scenario) Jobs(opt Options) ([]Job, error) {
	seed := opt.Seed
	if seed == 0 {
		seed = s.Seed
	}
	specs, err := s.specs(seed)
	if err != nil {
		return nil, err
	}
	jobs := make([]Job, len(specs))
	for i := range specs {
		specs[i].sonicOverride = opt.SonicConfig
		specs[i].records = opt.Records
		specs[i].pcap, specs[i].pcapMax = opt.Pcap, opt.PcapMaxBytes
		jobs[i] = Job{s: s, spec: specs[i]}
	}
	return jobs, nil
}

// RunJobs runs the jobs, opt.ParallelJobs at a time, each on its own
// serial Akita engine (so the runs do not depend on the number of
// workers), and returns their runs in the jobs' order. When a run fails
// it returns the first failure and the runs that succeeded (nil for the
// others).
func RunJobs(jobs []Job, opt Options) ([]*Run, error) {
	workers := opt.ParallelJobs(len(jobs))
	runs := make([]*Run, len(jobs))
	errs := make([]error, len(jobs))
	outs := make([]*runOutputs, len(jobs)) // what each run writes as it goes
	var mu sync.Mutex
	done := 0
	start := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if engine.Interrupted() {
					// A signal stopped the command: start no more runs.
					errs[i] = engine.ErrInterrupted
					continue
				}
				// Labelled, so that a --cpuprofile splits by run
				// (go tool pprof -tagfocus / -tags).
				pprof.Do(context.Background(), pprof.Labels("scenario", jobs[i].s.Name, "variant", jobs[i].spec.variant.Name), func(context.Context) {
					spec := jobs[i].spec
					outs[i] = &runOutputs{}
					spec.out = outs[i]
					runs[i], errs[i] = jobs[i].s.runOne(spec)
				})
				mu.Lock()
				done++
				if opt.Progress != nil {
					status := "error"
					if errs[i] == nil {
						status = fmt.Sprintf("%.0f ms, %d events", runs[i].WallMs, runs[i].Events)
					}
					fmt.Fprintf(opt.Progress, "[%d/%d] %s: %s (%.1f s elapsed)\n", done, len(jobs), jobs[i].label(), status, time.Since(start).Seconds())
				}
				mu.Unlock()
			}
		}()
	}
	for i := range jobs {
		work <- i
	}
	close(work)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			// Every run's files, then every directory a run made: a
			// directory one failed run made and another wrote into is
			// empty only once both took theirs back.
			discardOutputs(outs)
			// The runners name the variant in most of their errors: once is enough.
			v := jobs[i].spec.variant.Name
			msg := err.Error()
			for p := "variant " + v + ": "; strings.HasPrefix(msg, p); {
				msg = strings.TrimPrefix(msg, p)
			}
			return runs, fmt.Errorf("%s, variant %s: %s", jobs[i].s.Name, v, msg)
		}
	}
	return runs, nil
}

// Collect is the scenario's result from the runs of its jobs (in the
// order Jobs returned them). It cannot be written as a shard file.
func (s *Scenario) Collect(runs []*Run) *Result {
	return &Result{Scenario: s, Name: s.Name, Source: s.Source, Runs: runs}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Execute runs every variant at every sweep point. Independent runs go in
// parallel on local cores (RunJobs); --shard i/n runs every n-th.
func (s *Scenario) Execute(opt Options) (*Result, error) {
	all, err := s.Jobs(opt)
	if err != nil {
		return nil, err
	}
	seed := opt.Seed
	if seed == 0 {
		seed = s.Seed
	}
	sh := &shardResult{seed: seed, sonicConfig: opt.SonicConfig, tieBreak: engine.DefaultOrderName(), shards: 1, total: len(all)}
	jobs := all
	if opt.Shards > 1 {
		sh.shard, sh.shards = opt.Shard, opt.Shards
		jobs = nil
		for i, j := range all {
			if i%opt.Shards == opt.Shard {
				jobs = append(jobs, j)
				sh.indices = append(sh.indices, i)
			}
		}
	} else {
		sh.indices = seq(len(all))
	}
	runs, err := RunJobs(jobs, opt)
	if err != nil {
		// The command fails: the runs that finished take their
		// records and captures with them (a failed run removed its own).
		(&Result{Runs: runs}).DiscardOutputs()
		return nil, err
	}
	return &Result{Scenario: s, Name: s.Name, Source: s.Source, Runs: runs, shard: sh}, nil
}

// Find returns the run of a variant at a sweep value ("" without a sweep).
func (r *Result) Find(variant, value string) *Run {
	for _, run := range r.Runs {
		if run.Variant == variant && run.Value == value {
			return run
		}
	}
	return nil
}
