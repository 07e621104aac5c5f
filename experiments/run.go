package experiments

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"
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

// Execute runs every variant at every sweep point. Independent runs go in
// parallel on local cores (each on its own serial Akita engine, so results
// do not depend on the number of jobs); --shard i/n runs every n-th.
func (s *Scenario) Execute(opt Options) (*Result, error) {
	seed := opt.Seed
	if seed == 0 {
		seed = s.Seed
	}
	specs, err := s.specs(seed)
	if err != nil {
		return nil, err
	}
	for i := range specs {
		specs[i].sonicOverride = opt.SonicConfig
		specs[i].records = opt.Records
		specs[i].pcap, specs[i].pcapMax = opt.Pcap, opt.PcapMaxBytes
	}
	sh := &shardResult{seed: seed, sonicConfig: opt.SonicConfig, shards: 1, total: len(specs)}
	if opt.Shards > 1 {
		sh.shard, sh.shards = opt.Shard, opt.Shards
		var mine []runSpec
		for i, sp := range specs {
			if i%opt.Shards == opt.Shard {
				mine = append(mine, sp)
				sh.indices = append(sh.indices, i)
			}
		}
		specs = mine
	} else {
		for i := range specs {
			sh.indices = append(sh.indices, i)
		}
	}
	jobs := opt.ParallelJobs(len(specs))
	runs := make([]*Run, len(specs))
	errs := make([]error, len(specs))
	var mu sync.Mutex
	done := 0
	start := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	for j := 0; j < jobs; j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				runs[i], errs[i] = s.runOne(specs[i])
				mu.Lock()
				done++
				if opt.Progress != nil {
					label := specs[i].variant.Name
					if specs[i].value != "" {
						label += " " + s.Sweep.Var + "=" + specs[i].value
					}
					status := "ok"
					if errs[i] != nil {
						status = "error"
					} else {
						status = fmt.Sprintf("%.0f ms, %d events", runs[i].WallMs, runs[i].Events)
					}
					fmt.Fprintf(opt.Progress, "[%d/%d] %s %s: %s (%.1f s elapsed)\n", done, len(specs), s.Name, label, status, time.Since(start).Seconds())
				}
				mu.Unlock()
			}
		}()
	}
	for i := range specs {
		work <- i
	}
	close(work)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s, variant %s: %v", s.Name, specs[i].variant.Name, err)
		}
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
