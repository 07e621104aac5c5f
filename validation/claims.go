package validation

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"

	"archsim/arch"
	"archsim/arch/tofino"
	"archsim/arch/tofino/compiler"
	"archsim/experiments"
	"archsim/job"
)

// Claim is one checkable statement from a paper, written as data: its
// texts, what it runs, what it measures there and how the measurement is
// checked. The code shared by every claim (skipping long claims in short
// runs, running the scenario through the context's cache, errors, the
// result) is in run.
type Claim struct {
	ID        string
	Source    string
	Expected  string
	Tolerance string
	// Note explains what the claim measures and, for claims the model is
	// known not to meet, why.
	Note string
	// KnownDeviation marks a claim the model does not meet today; `go test`
	// checks that it still runs and reports it, and fails if it starts
	// passing (so the mark is removed).
	KnownDeviation bool

	// long marks a claim that needs whole sweeps (minutes): it is skipped
	// unless Context.Long.
	long bool
	// full marks a claim whose scenario takes tens of minutes (the PIE
	// paper's 10 s TCP runs): it runs only with Context.Full (`archsim
	// validate --full`, ARCHSIM_FULL=1 under go test).
	full bool
	// scenario is run (through the context's cache) and handed to measure;
	// values are the sweep values the claim needs when sweeps are cut
	// (short runs; none: the whole sweep).
	scenario string
	values   []string
	// variants, when set, are the only variants of the scenario the claim
	// needs (the others are not run for it).
	variants []string
	measure  func(*experiments.Result) reading
	// probe measures a claim without a scenario of its own (placements,
	// Trio runs, several scenarios); used when scenario is empty.
	probe func(*Context) reading
	// needs are the scenarios a probe reads (through Context.scenario),
	// so that RunWith can run them with every other claim's in one pool
	// before the claims are measured; a scenario a probe reads without
	// declaring it is still run, on its own, when the probe asks.
	needs []need
	// early, when set, starts the simulations the probe reads through
	// Context.memo before the scenario pool runs, so that they share the
	// cores with its runs instead of running alone after it (the Trio
	// aggregation experiments: tens of seconds each, no scenario).
	early func(*Context)
	check check
}

// need is a scenario a claim reads: its sweep values when sweeps are cut
// (none: the whole sweep) and, when set, the only variants it needs.
type need struct {
	scenario string
	values   []string
	variants []string
	// seedPlus, when > 0, runs the scenario at its seed + seedPlus
	// instead of its seed (the extra seeds of stableFromSeeds).
	seedPlus int64
}

// Result is a claim's measured outcome.
type Result struct {
	ID        string  `json:"id"`
	Source    string  `json:"source"`
	Expected  string  `json:"expected"`
	Measured  string  `json:"measured"`
	Tolerance string  `json:"tolerance"`
	Pass      bool    `json:"pass"`
	Note      string  `json:"note,omitempty"`
	Value     float64 `json:"measured_value"`
	Target    float64 `json:"expected_value"`
	Err       string  `json:"error,omitempty"`
	Skipped   bool    `json:"skipped,omitempty"`
}

// MarshalJSON writes a non-finite measured or expected value (e.g. "never
// stable in the sweep") as null, which JSON can carry, and both of a
// claim that was not run.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	finite := func(x float64) *float64 {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		return &x
	}
	v, t := finite(r.Value), finite(r.Target)
	if r.Skipped {
		v, t = nil, nil // not run: nothing measured, and the probe that sets the target did not run
	}
	return json.Marshal(struct {
		plain
		Value  *float64 `json:"measured_value"`
		Target *float64 `json:"expected_value"`
	}{plain(r), v, t})
}

// Context caches chip configs, placements and scenario results shared by
// claims.
type Context struct {
	targets map[string]arch.Target
	places  map[string]placeResult
	results map[string]*experiments.Result
	// runs holds every run of a scenario made so far, by its job's inputs
	// (runKey): claims that read different variants or sweep values of one
	// scenario share the runs they have in common, and scenarios that
	// simulate the same run (trim-fig8-64 and trim-fig9-one-pipe-64 sweep
	// the same Tofino variants) make it once.
	runs map[string]*experiments.Run
	// Long runs the claims that need whole sweeps (minutes).
	Long bool
	// SeedOffset runs every scenario at its seed + SeedOffset (archsim
	// validate --seed-offset: how much the verdicts hang on the seed).
	// The simulations without a scenario (Trio aggregation, placements)
	// keep their seeds.
	SeedOffset int64
	// Full also runs the claims that take tens of minutes.
	Full bool
	// Progress receives the scenarios' progress lines (nil: none).
	Progress io.Writer
	// Status, when set, is told what RunWith does next: running the
	// scenarios (i = 0, n runs), then each claim (i of n, from 1).
	Status func(i, n int, what string)
	memoMu sync.Mutex
	memos  map[string]*memoResult
}

type placeResult struct {
	p   *compiler.Placement
	err error
}

// seedOf is the seed the context runs scenario result r's runs at.
func (c *Context) seedOf(r *experiments.Result) int64 { return r.Scenario.Seed + c.SeedOffset }

// NewContext returns an empty cache.
func NewContext() *Context {
	return &Context{targets: map[string]arch.Target{}, places: map[string]placeResult{}, results: map[string]*experiments.Result{},
		runs: map[string]*experiments.Run{}}
}

// target loads Tofino 1 with --set style overrides (through the job
// runner, as the main job does).
func (c *Context) target(sets ...string) (arch.Target, error) {
	key := strings.Join(sets, ",")
	if t, ok := c.targets[key]; ok {
		return t, nil
	}
	t, err := job.Load("tofino", arch.Overrides{Sets: sets})
	if err != nil {
		return nil, err
	}
	c.targets[key] = t
	return t, nil
}

// place places a built-in program (with constant overrides) on Tofino 1;
// a program that does not fit returns its placement error.
func (c *Context) place(program string, params map[string]string, sets ...string) (*compiler.Placement, error) {
	key := fmt.Sprintf("%s|%v|%v", program, params, sets)
	if r, ok := c.places[key]; ok {
		return r.p, r.err
	}
	t, err := c.target(sets...)
	if err != nil {
		return nil, err
	}
	comp, err := job.Compile(t, program, params)
	if err != nil {
		return nil, err
	}
	r := placeResult{p: tofino.Placed(comp), err: comp.Err}
	c.places[key] = r
	return r.p, r.err
}

// Long claims need whole sweeps (Figs. 6, 8, 9: minutes of simulation);
// `go test` runs them only with ARCHSIM_LONG=1, `archsim validate` always.
func longClaimsEnabled() bool { return os.Getenv("ARCHSIM_LONG") == "1" }

// fullClaimsEnabled: ARCHSIM_FULL=1 also runs the claims of tens of minutes.
func fullClaimsEnabled() bool { return os.Getenv("ARCHSIM_FULL") == "1" }

// scenario runs (and caches) a scenario, optionally on a subset of its
// sweep values.
func (c *Context) scenario(name string, values ...string) (*experiments.Result, error) {
	return c.scenarioOf(name, nil, values...)
}

// scenarioOf is scenario with only some of its variants (nil: all). The
// runs it has not made yet are made in parallel (experiments.RunJobs).
func (c *Context) scenarioOf(name string, variants []string, values ...string) (*experiments.Result, error) {
	if c.Long {
		values = nil // the whole sweep serves every claim
	}
	return c.result(need{scenario: name, values: values, variants: variants})
}

// result is the scenario of n, its runs made (those not made yet in
// parallel) and kept.
func (c *Context) result(n need) (*experiments.Result, error) {
	key := fmt.Sprintf("%s|%s|%s|%d", n.scenario, strings.Join(n.variants, ","), strings.Join(n.values, ","), n.seedPlus)
	if r, ok := c.results[key]; ok {
		return r, nil
	}
	s, jobs, err := c.jobsOf(n)
	if err != nil {
		return nil, err
	}
	if err := c.runJobs(jobs); err != nil {
		return nil, err
	}
	runs := make([]*experiments.Run, len(jobs))
	for i, j := range jobs {
		runs[i] = j.Adopt(c.runs[runKey(j)])
	}
	r := s.Collect(runs)
	c.results[key] = r
	return r, nil
}

// jobsOf loads a scenario cut to the sweep values and variants a claim
// needs and returns its runs.
func (c *Context) jobsOf(n need) (*experiments.Scenario, []experiments.Job, error) {
	s, err := experiments.Load(n.scenario)
	if err != nil {
		return nil, nil, err
	}
	if len(n.values) > 0 && s.Sweep != nil {
		s.Sweep.Values = n.values
	}
	if len(n.variants) > 0 {
		keep := s.Variants[:0:0]
		for _, v := range s.Variants {
			if slices.Contains(n.variants, v.Name) {
				keep = append(keep, v)
			}
		}
		if len(keep) != len(n.variants) {
			return nil, nil, fmt.Errorf("%s: claims ask for variants %v, the scenario has others", n.scenario, n.variants)
		}
		s.Variants = keep
	}
	var opt experiments.Options
	if k := c.SeedOffset + n.seedPlus; k > 0 {
		opt.Seed = s.Seed + k
	}
	jobs, err := s.Jobs(opt)
	if err != nil {
		return nil, nil, err
	}
	return s, jobs, nil
}

// runKey is what a job's run is kept under: its inputs, or its key for a
// job that has none (experiments.Job.Inputs).
func runKey(j experiments.Job) string {
	if in := j.Inputs(); in != "" {
		return in
	}
	return "key:" + j.Key()
}

// todo is the jobs whose runs are not made yet, each once.
func (c *Context) todo(jobs []experiments.Job) []experiments.Job {
	var out []experiments.Job
	seen := map[string]bool{}
	for _, j := range jobs {
		if k := runKey(j); c.runs[k] == nil && !seen[k] {
			seen[k] = true
			out = append(out, j)
		}
	}
	return out
}

// runJobs makes the runs of jobs not made yet, in parallel, once each.
func (c *Context) runJobs(jobs []experiments.Job) error {
	todo := c.todo(jobs)
	if len(todo) == 0 {
		return nil
	}
	runs, err := experiments.RunJobs(todo, experiments.Options{Progress: c.Progress})
	for i, j := range todo {
		if runs[i] != nil {
			c.runs[runKey(j)] = runs[i]
		}
	}
	return err
}

// prefetch makes the runs of every scenario the claims read, in one pool:
// a scenario's last runs then share the cores with the next scenario's
// instead of leaving them idle. The runs are the same as when each claim
// asks for its own (each run depends only on its job), so the results do
// not change. A scenario that fails to load or run is left to its claims,
// which report the error.
func (c *Context) prefetch(claims []Claim) {
	var jobs []experiments.Job
	for _, cl := range claims {
		if (cl.full && !c.Full) || (cl.long && !c.Long) {
			continue
		}
		needs := cl.needs
		if cl.scenario != "" {
			needs = append([]need{{scenario: cl.scenario, values: cl.values, variants: cl.variants}}, needs...)
		}
		for _, n := range needs {
			if c.Long {
				n.values = nil
			}
			if _, js, err := c.jobsOf(n); err == nil {
				jobs = append(jobs, js...)
			}
		}
	}
	jobs = c.todo(jobs)
	if c.Status != nil {
		c.Status(0, len(jobs), "running the claims' scenarios")
	}
	_ = c.runJobs(jobs)
}

// Claims returns every claim, in a fixed order.
func Claims() []Claim {
	out := pieClaims()
	out = append(out, pieParamsClaim(), pieIngressClaim())
	out = append(out, pieRiseFallClaims()...)
	out = append(out, pieTCPClaims()...)
	out = append(out, protegoClaims()...)
	out = append(out, protegoE2EClaims()...)
	out = append(out, trimClaims()...)
	out = append(out, sonicClaims()...)
	out = append(out, trioClaims()...)
	return out
}

// Run runs the claims whose id equals only or starts with only + "." (all
// when only is empty), with every sweep.
func Run(only string) ([]Result, error) {
	ctx := NewContext()
	ctx.Long = true
	return RunWith(ctx, only)
}

// RunWith runs the selected claims in a context: every claim, or those
// only names (an id or a prefix of ids, e.g. pie.table3).
func RunWith(ctx *Context, only string) ([]Result, error) {
	var onlys []string
	if only != "" {
		onlys = []string{only}
	}
	return RunSome(ctx, onlys)
}

// RunSome runs the claims any of onlys names (ids or prefixes; none:
// every claim), in the suite's order, each once.
func RunSome(ctx *Context, onlys []string) ([]Result, error) {
	picks := func(only string, cl Claim) bool {
		only = strings.TrimSuffix(only, ".")
		return cl.ID == only || strings.HasPrefix(cl.ID, only+".")
	}
	for _, only := range onlys {
		if !slices.ContainsFunc(Claims(), func(cl Claim) bool { return picks(only, cl) }) {
			var groups []string
			for _, cl := range Claims() {
				parts := strings.SplitN(cl.ID, ".", 3)
				if g := strings.Join(parts[:min(2, len(parts))], "."); !slices.Contains(groups, g) {
					groups = append(groups, g)
				}
			}
			return nil, fmt.Errorf("--only %q matches no claim (groups: %s; archsim validate --json lists every id)", only, strings.Join(groups, ", "))
		}
	}
	var selected []Claim
	for _, cl := range Claims() {
		if len(onlys) == 0 || slices.ContainsFunc(onlys, func(o string) bool { return picks(o, cl) }) {
			selected = append(selected, cl)
		}
	}
	out := make([]Result, len(selected))
	measure := func(i int) {
		cl := selected[i]
		r := cl.run(ctx)
		r.ID, r.Source, r.Expected, r.Tolerance = cl.ID, cl.Source, cl.Expected, cl.Tolerance
		if r.Note == "" {
			r.Note = cl.Note
		}
		out[i] = r
	}
	for _, cl := range selected {
		if cl.early != nil && (!cl.full || ctx.Full) && (!cl.long || ctx.Long) {
			go cl.early(ctx)
		}
	}
	ctx.prefetch(selected)
	for i, cl := range selected {
		if ctx.Status != nil {
			ctx.Status(i+1, len(selected), cl.ID)
		}
		measure(i)
	}
	return out, nil
}
