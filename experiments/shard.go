package experiments

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"archsim/engine"
	"archsim/internal/mkdir"
)

// ShardFormat names the shard file's layout; merge refuses any other.
const ShardFormat = "archsim-shard/1"

// Shard is what one `archsim run --shard i/n` keeps for `archsim merge`:
// the scenario as it ran (after --variant), the options that change
// results, and every run of the shard with the data the plots need (the
// per-packet series the JSON summary leaves out). The runs of all n
// shards, put back in their places, are the unsharded run's runs.
type Shard struct {
	Format      string    `json:"format"`
	Scenario    *Scenario `json:"scenario"`
	Seed        int64     `json:"seed"`
	SonicConfig string    `json:"sonic_config,omitempty"`
	// TieBreak is the order of same-time events the runs were made in
	// (--tie-break as ParseOrder reads it: fifo, akita, random:SEED).
	// Shards written before 2026-11-29 do not record it (their default
	// was akita); merge refuses shards of different orders.
	TieBreak string      `json:"tie_break,omitempty"`
	Index    int         `json:"shard"`
	Count    int         `json:"shards"`
	Total    int         `json:"total_runs"` // runs of the whole scenario
	Runs     []*ShardRun `json:"runs"`
}

// ShardRun is one run and its place in the whole scenario's run order.
type ShardRun struct {
	Index int  `json:"index"`
	Run   *Run `json:"run"`
	// The series the JSON summary omits (json:"-" fields of Run).
	HeadersUs      []float64     `json:"headers_us,omitempty"`
	Modes          []ModeEvent   `json:"modes,omitempty"`
	Arrivals       []Arrival     `json:"arrivals,omitempty"`
	Queue          []QueueSample `json:"queue,omitempty"`
	FirstDeflectUs float64       `json:"first_deflect_us,omitempty"`
	FlowSrc        []int         `json:"flow_src,omitempty"`
	FlowDst        []int         `json:"flow_dst,omitempty"`
	SwitchHops     int           `json:"switch_hops,omitempty"`
	// AQMTrace is a PIE run's drop_prob and queueing-delay series.
	AQMTrace []AQMSample `json:"aqm_trace,omitempty"`
	DelayCDF []float64   `json:"delay_cdf,omitempty"`
}

// shardResult is how a Result came to be: which runs of the whole
// scenario it holds (Execute fills it in).
type shardResult struct {
	seed        int64
	sonicConfig string
	tieBreak    string // engine.DefaultOrderName() when the runs were made
	shard       int
	shards      int
	total       int
	indices     []int // each run's index in the whole scenario's order
}

// MaxShards bounds n in --shard i/n (and a shard file's count): more
// shards than that many machines is no batch engine's use, and merge
// keeps a flag per shard.
const MaxShards = 1 << 16

// ShardFileName is the shard file's name in a shard's output directory.
func ShardFileName(i, n int) string { return fmt.Sprintf("shard-%d-of-%d.json", i, n) }

// WriteShard writes the result as shard file into dir (see Shard) and
// returns its path. Only a result of Execute can be written.
func (r *Result) WriteShard(dir string) (string, error) {
	m := r.shard
	if m == nil || r.Scenario == nil {
		return "", fmt.Errorf("internal: the result does not come from Execute")
	}
	sh := &Shard{Format: ShardFormat, Scenario: r.Scenario, Seed: m.seed, SonicConfig: m.sonicConfig,
		TieBreak: m.tieBreak, Index: m.shard, Count: max(m.shards, 1), Total: m.total}
	for i, run := range r.Runs {
		sh.Runs = append(sh.Runs, &ShardRun{Index: m.indices[i], Run: run, HeadersUs: run.HeadersUs, Modes: run.Modes,
			Arrivals: run.Arrivals, Queue: run.Queue, FirstDeflectUs: run.FirstDeflectUs, FlowSrc: run.FlowSrc,
			FlowDst: run.FlowDst, SwitchHops: run.SwitchHops, AQMTrace: run.aqmTrace(), DelayCDF: run.delayCDF()})
	}
	b, err := json.Marshal(sh)
	if err != nil {
		return "", fmt.Errorf("shard file: %v", err)
	}
	made, err := mkdir.All(dir)
	if err != nil {
		return "", fmt.Errorf("cannot create %s: %v", dir, err)
	}
	// Written whole under a temporary name, then renamed: a merge never
	// reads half a shard.
	path := filepath.Join(dir, ShardFileName(sh.Index, sh.Count))
	tmp := filepath.Join(dir, ".archsim-partial-"+ShardFileName(sh.Index, sh.Count))
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		os.Remove(tmp)
		mkdir.Undo(made)
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		mkdir.Undo(made)
		return "", err
	}
	return path, nil
}

// ReadShard reads a shard file and checks it is one.
func ReadShard(path string) (*Shard, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read shard file: %v", path, err)
	}
	sh := &Shard{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(sh); err != nil {
		return nil, fmt.Errorf("%s: not a shard file: %v", path, err)
	}
	switch {
	case sh.Format != ShardFormat:
		return nil, fmt.Errorf("%s: format %q, want %q (written by another archsim version?)", path, sh.Format, ShardFormat)
	case sh.Scenario == nil:
		return nil, fmt.Errorf("%s: scenario: missing", path)
	case sh.Count < 1 || sh.Count > MaxShards || sh.Index < 0 || sh.Index >= sh.Count:
		return nil, fmt.Errorf("%s: shard %d/%d: expected i/n with 0 <= i < n <= %d", path, sh.Index, sh.Count, MaxShards)
	case sh.Total < 0 || sh.Total > 1<<24:
		return nil, fmt.Errorf("%s: total_runs %d out of range", path, sh.Total)
	}
	if sh.TieBreak != "" {
		if _, _, err := engine.ParseOrder(sh.TieBreak); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	if err := sh.Scenario.validate(); err != nil {
		return nil, fmt.Errorf("%s: scenario: %v", path, err)
	}
	for k, sr := range sh.Runs {
		if sr == nil || sr.Run == nil {
			return nil, fmt.Errorf("%s: runs[%d]: missing", path, k)
		}
		if sr.Index < 0 || sr.Index >= sh.Total || sr.Index%sh.Count != sh.Index {
			return nil, fmt.Errorf("%s: runs[%d]: index %d does not belong to shard %d/%d of %d runs", path, k, sr.Index, sh.Index, sh.Count, sh.Total)
		}
		if len(sr.FlowSrc) != len(sr.Run.GoodputGbps) || len(sr.FlowDst) != len(sr.Run.GoodputGbps) {
			return nil, fmt.Errorf("%s: runs[%d]: %d flows' goodput but %d sources and %d destinations", path, k, len(sr.Run.GoodputGbps), len(sr.FlowSrc), len(sr.FlowDst))
		}
		run := sr.Run
		switch {
		case run.Scenario != sh.Scenario.Name:
			return nil, fmt.Errorf("%s: runs[%d]: scenario %q in a shard of scenario %q", path, k, run.Scenario, sh.Scenario.Name)
		case !slices.ContainsFunc(sh.Scenario.Variants, func(v Variant) bool { return v.Name == run.Variant }):
			return nil, fmt.Errorf("%s: runs[%d]: variant %q is not one of the shard's scenario's", path, k, run.Variant)
		case run.Seed != sh.Seed:
			return nil, fmt.Errorf("%s: runs[%d]: seed %d in a shard run with seed %d", path, k, run.Seed, sh.Seed)
		case run.Value != "" && (sh.Scenario.Sweep == nil || !slices.Contains(sh.Scenario.Sweep.Values, run.Value)):
			return nil, fmt.Errorf("%s: runs[%d]: sweep value %q is not one of the shard's scenario's", path, k, run.Value)
		}
		run.HeadersUs, run.Modes, run.Arrivals, run.Queue = sr.HeadersUs, sr.Modes, sr.Arrivals, sr.Queue
		if run.PIERun != nil {
			run.Trace, run.DelayCDF = sr.AQMTrace, sr.DelayCDF
		}
		run.FirstDeflectUs, run.FlowSrc, run.FlowDst, run.SwitchHops = sr.FirstDeflectUs, sr.FlowSrc, sr.FlowDst, sr.SwitchHops
	}
	return sh, nil
}

// FindShards lists the shard files a merge argument names: the file
// itself, or every shard-*-of-*.json in a directory (sorted).
func FindShards(arg string) ([]string, error) {
	st, err := os.Stat(arg)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", arg, err)
	}
	if !st.IsDir() {
		return []string{arg}, nil
	}
	files, err := filepath.Glob(filepath.Join(arg, "shard-*-of-*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no shard file (shard-I-of-N.json, written by archsim run --shard I/N)", arg)
	}
	sort.Strings(files)
	return files, nil
}

// MergeShards puts the runs of every shard of one sharded run back in
// order: the result is the unsharded run's (same summary, CSVs and
// plots). The shards must come from the same scenario, seed and options,
// each shard once, none missing.
func MergeShards(shards []*Shard) (*Result, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("no shard to merge")
	}
	first := shards[0]
	if first.Scenario != nil {
		// The files it will write are named by the shard's scenario.
		if err := first.Scenario.checkOutputNames(); err != nil {
			return nil, fmt.Errorf("shard %d/%d: %v", first.Index, first.Count, err)
		}
	}
	want, _ := json.Marshal(first.Scenario)
	seen := make([]bool, first.Count)
	runs := make([]*Run, first.Total)
	for _, sh := range shards {
		got, _ := json.Marshal(sh.Scenario)
		switch {
		case sh.Count != first.Count:
			return nil, fmt.Errorf("shard %d/%d next to shard %d/%d: the shards come from different runs", sh.Index, sh.Count, first.Index, first.Count)
		case !bytes.Equal(got, want):
			return nil, fmt.Errorf("shard %d/%d ran another scenario (or variant) than shard %d/%d", sh.Index, sh.Count, first.Index, first.Count)
		case sh.Seed != first.Seed:
			return nil, fmt.Errorf("shard %d/%d ran with seed %d, shard %d/%d with seed %d", sh.Index, sh.Count, sh.Seed, first.Index, first.Count, first.Seed)
		case sh.TieBreak != first.TieBreak:
			return nil, fmt.Errorf("shard %d/%d ran with --tie-break %s, shard %d/%d with %s: same-time events in different orders", sh.Index, sh.Count, tieBreakName(sh.TieBreak), first.Index, first.Count, tieBreakName(first.TieBreak))
		case sh.SonicConfig != first.SonicConfig:
			return nil, fmt.Errorf("shard %d/%d ran with --sonic-config %q, shard %d/%d with %q", sh.Index, sh.Count, sh.SonicConfig, first.Index, first.Count, first.SonicConfig)
		case sh.Total != first.Total:
			return nil, fmt.Errorf("shard %d/%d counts %d runs, shard %d/%d %d", sh.Index, sh.Count, sh.Total, first.Index, first.Count, first.Total)
		case seen[sh.Index]:
			return nil, fmt.Errorf("shard %d/%d given twice", sh.Index, sh.Count)
		}
		seen[sh.Index] = true
		for _, sr := range sh.Runs {
			if runs[sr.Index] != nil {
				return nil, fmt.Errorf("run %d given twice", sr.Index)
			}
			runs[sr.Index] = sr.Run
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		return nil, fmt.Errorf("shard %d/%d missing", i, first.Count)
	}
	for i, run := range runs {
		if run == nil {
			return nil, fmt.Errorf("run %d of %d missing from shard %d/%d", i, first.Total, i%first.Count, first.Count)
		}
	}
	s := first.Scenario
	return &Result{Scenario: s, Name: s.Name, Source: s.Source, Runs: runs}, nil
}

// aqmTrace is a PIE run's time series (nil for other runs).
func (r *Run) aqmTrace() []AQMSample {
	if r.PIERun == nil {
		return nil
	}
	return r.Trace
}

// delayCDF is a PIE run's queueing-delay quantiles (nil for other runs).
func (r *Run) delayCDF() []float64 {
	if r.PIERun == nil {
		return nil
	}
	return r.DelayCDF
}

// tieBreakName is a shard's order for an error message.
func tieBreakName(s string) string {
	if s == "" {
		return "unrecorded (an archsim before 2026-11-29, whose default was akita)"
	}
	return s
}
