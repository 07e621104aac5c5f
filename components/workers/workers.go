// Package workers models the servers of a data-parallel training job that
// aggregate their gradients in the network (Trio-ML, [TRIO] §4–§6, and
// SwitchML, NSDI'21): each iteration a worker computes for a configured
// time, then streams its gradient blocks to the aggregating switch with a
// window of outstanding blocks, and the iteration ends when it holds the
// aggregated result of every block. Stragglers are injected with the "Slow
// Worker Pattern" of [TRIO] §6.1: three delay points per iteration, at each
// of which one worker, drawn at random, sleeps with probability p for
// U(0.5, 2) × the typical iteration time.
//
// Host timing has two parts ([TRIO] §6.3 measures the whole path from a
// server's send to its receipt of the Result):
//   - the software path (DPDK and the training framework's gradient
//     conversion) delays every packet by a fixed time plus a time per
//     gradient, half on the way out and half on the way in; it is
//     pipelined (several packets are in it at once);
//   - the core that drives the NIC is occupied for a fixed time per packet
//     sent or received, which bounds a worker's packet rate.
//
// The NIC serializes frames at its line rate and the link adds its
// propagation delay.
package workers

import (
	"fmt"
	"math/rand"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
	"archsim/components/stats"
)

// Config describes the job and its hosts.
type Config struct {
	Workers    int
	Gradients  int   // model gradients aggregated per iteration
	PerPacket  int   // gradients per packet
	Window     int   // outstanding blocks per worker
	ComputePs  int64 // compute time per iteration (forward and backward pass)
	Iterations int
	StartGen   int // generation number of the first iteration (1: gen 0 is never live)

	// Host timing (see the package comment).
	StackPs        int64   // software path delay per packet, both directions together
	StackPerGradPs float64 // software path delay per gradient, both directions together
	CorePerPktPs   int64   // core occupancy per packet sent or received
	NICGbps        float64
	PropPs         int64

	// Slow Worker Pattern.
	StraggleProb  float64 // p: probability a drawn worker sleeps at a delay point
	DelayPoints   int     // per iteration ([TRIO] §6.1: three)
	TypicalIterPs int64   // the typical iteration time the sleeps scale with
	SlowMin       float64 // sleep = U(SlowMin, SlowMax) × TypicalIterPs
	SlowMax       float64
	Seed          int64
	// Injected sleeps are added to the pattern's (Sleep.Worker sleeps
	// Sleep.Ps in iteration Sleep.Iteration): one chosen straggle, for the
	// experiments that isolate what a single sleep costs.
	Injected []Sleep
	// Resync is a what-if, not the paper's (it does not say what a
	// straggler does once it wakes): a worker whose iteration's results
	// all came while it was still computing (the switch gave up on it)
	// skips the next iteration too, sending nothing and waiting for that
	// iteration's results, so that it starts the one after in step with
	// the others instead of keeping its lag.
	Resync bool
	// Stalled workers never send (a straggler that outlasts the run, for
	// measuring how long the others wait for partial results); the job
	// is done when the other workers are.
	Stalled []int
}

// Validate reports the first invalid setting.
func (c *Config) Validate() error {
	switch {
	case c.Workers < 1 || c.Workers > 32:
		return fmt.Errorf("workers: %d, want 1..32", c.Workers)
	case c.Gradients < 1:
		return fmt.Errorf("gradients: %d, want > 0", c.Gradients)
	case c.PerPacket < 1:
		return fmt.Errorf("gradients per packet: %d, want > 0", c.PerPacket)
	case c.Window < 1:
		return fmt.Errorf("window: %d, want > 0", c.Window)
	case c.Iterations < 1:
		return fmt.Errorf("iterations: %d, want > 0", c.Iterations)
	case c.ComputePs < 0 || c.StackPs < 0 || c.StackPerGradPs < 0 || c.CorePerPktPs < 0 || c.PropPs < 0:
		return fmt.Errorf("host times must be >= 0")
	case c.NICGbps <= 0:
		return fmt.Errorf("nic_gbps: %g, want > 0", c.NICGbps)
	case c.StraggleProb < 0 || c.StraggleProb > 1:
		return fmt.Errorf("straggle probability: %g, want 0..1", c.StraggleProb)
	case c.StraggleProb > 0 && (c.SlowMin < 0 || c.SlowMax < c.SlowMin || c.TypicalIterPs <= 0):
		return fmt.Errorf("slow worker pattern: need 0 <= slow_min <= slow_max and a typical iteration time > 0")
	}
	for _, s := range c.Injected {
		if s.Worker < 0 || s.Worker >= c.Workers || s.Iteration < 0 || s.Iteration >= c.Iterations || s.Ps < 0 {
			return fmt.Errorf("injected sleep (worker %d, iteration %d, %d ps): want a worker, an iteration of the job and a duration >= 0", s.Worker, s.Iteration, s.Ps)
		}
	}
	for _, w := range c.Stalled {
		if w < 0 || w >= c.Workers {
			return fmt.Errorf("stalled worker %d: the job has workers 0..%d", w, c.Workers-1)
		}
	}
	return nil
}

// Blocks is the number of blocks per iteration.
func (c *Config) Blocks() int { return (c.Gradients + c.PerPacket - 1) / c.PerPacket }

// BlockGradients is the number of gradients block b carries.
func (c *Config) BlockGradients(b int) int {
	return min(c.PerPacket, c.Gradients-b*c.PerPacket)
}

// Gradient is the value worker w contributes for gradient i of block b in
// generation gen: small, distinct per worker, so sums can be checked.
func Gradient(w, gen, b, i int) int32 { return int32((w+1)*(i%13+1) + (b%7)*3 + gen%5) }

// Result is an aggregated block a switch returned.
type Result struct {
	Gen, Block int
	Slot       int  // with BySlot: the switch slot the result belongs to
	BySlot     bool // the packet names a slot, not (gen, block) (SwitchML)
	Sources    int  // sources that contributed (0: not reported)
	Degraded   bool // a partial result (stragglers left out)
	Values     []int32
}

// Protocol is how a worker talks to one aggregation program.
type Protocol interface {
	// Packet builds the packet carrying block b of generation gen from
	// worker w; seq is the block's position in the worker's stream over
	// all iterations (SwitchML picks slots and shadow sets with it).
	// grads is the caller's buffer: Packet copies what it needs.
	Packet(w, gen, b int, seq int64, grads []int32) *packet.Packet
	// Decode reads a result packet; ok is false for anything else.
	Decode(pkt *packet.Packet) (r Result, ok bool)
	// Slot is the slot a block's packet uses (SwitchML) — results that
	// name slots are matched through it.
	Slot(seq int64) int
}

// valueCounter is a Protocol that can tell how many values a result
// packet carries (Decode's len(r.Values), ok alike) without decoding them.
type valueCounter interface {
	values(pkt *packet.Packet) (n int, ok bool)
}

// decoder is a Protocol that can decode a result into the caller's buffer
// (Decode's result, its Values in vals' array when it has room).
type decoder interface {
	decode(pkt *packet.Packet, vals []int32) (Result, bool)
}

// Stats are what the workers measured.
type Stats struct {
	Sent, Results, Degraded, Stale, Wrong, Duplicates int
	// IterEndPs[w][k] is when worker w held every result of iteration k.
	IterEndPs [][]int64
	// BlockLatency: send (the packet leaves the core) to receipt of its
	// block's result (the core processed it), ps — blocks with a full
	// result only (a streaming summary: no per-packet list).
	BlockLatency stats.Samples
	// Partial: for degraded results, the time from the worker's send to
	// its receipt, ps (non-stragglers waiting for the timeout). A degraded
	// result that arrives while the worker's own packet for the block is
	// still queued at its core (a straggler's burst after a sleep: the
	// block timed out without it) is no wait and is not counted here.
	Partial stats.Samples
	// Slept: sleeps injected (worker, iteration, duration ps).
	Slept []Sleep
	// DegradedSources counts degraded results by the number of sources
	// they report (src_cnt).
	DegradedSources map[int]int
	// Gradients aggregated (full results) and first/last result times.
	AggregatedGrads int64
	FirstSendPs     int64
	LastResultPs    int64
}

// Sleep is one injected straggle.
type Sleep struct {
	Worker, Iteration int
	Ps                int64
}

// Job is the set of workers of one training job.
type Job struct {
	cfg     Config
	engine  sim.Engine
	proto   Protocol
	Workers []*Worker
	Stats   Stats
	// OnDone, when set, is called once when the last worker finishes its
	// last iteration.
	OnDone func(ps int64)
	// sleeps[k][w] is worker w's total sleep in iteration k.
	sleeps [][]int64
	// vals holds the values of the result being checked (see decoder).
	vals []int32
}

// Builder builds a job's workers (Akita style: value receiver, WithX,
// Build(name)).
type Builder struct {
	engine sim.Engine
	cfg    Config
	proto  Protocol
	uplink func(w int) sim.Handler
	port   func(w int) int
}

// MakeBuilder returns a builder with no inputs set.
func MakeBuilder() Builder { return Builder{} }

// WithEngine sets the Akita engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the workers, the training job and the host model.
func (b Builder) WithConfig(c Config) Builder { b.cfg = c; return b }

// WithProtocol sets the aggregation protocol (Trio-ML, SwitchML).
func (b Builder) WithProtocol(p Protocol) Builder { b.proto = p; return b }

// WithUplinks sets where worker w's packets go and the switch port it sits
// on.
func (b Builder) WithUplinks(uplink func(w int) sim.Handler, port func(w int) int) Builder {
	b.uplink, b.port = uplink, port
	return b
}

// Build builds the workers (an invalid configuration is an error: it comes
// from the user).
func (b Builder) Build(name string) (*Job, error) {
	if b.engine == nil || b.proto == nil || b.uplink == nil || b.port == nil {
		panic("workers.Builder: engine, protocol and uplinks are required")
	}
	cfg, engine, uplink, port := b.cfg, b.engine, b.uplink, b.port
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	j := &Job{cfg: cfg, engine: engine, proto: b.proto}
	j.Stats.IterEndPs = make([][]int64, cfg.Workers)
	j.Stats.FirstSendPs = -1
	j.drawSleeps()
	for w := 0; w < cfg.Workers; w++ {
		wk := &Worker{ComponentBase: sim.NewComponentBase(sim.BuildNameWithIndex(name, "Worker", w)), job: j, id: w,
			port: port(w), uplink: uplink(w)}
		j.Workers = append(j.Workers, wk)
	}
	for _, w := range cfg.Stalled {
		j.Workers[w].stalled = true
	}
	return j, nil
}

// drawSleeps draws the Slow Worker Pattern for every iteration up front,
// from the seed alone, so runs on different switches see the same
// stragglers.
func (j *Job) drawSleeps() {
	c := j.cfg
	rng := rand.New(rand.NewSource(c.Seed))
	j.sleeps = make([][]int64, c.Iterations)
	for k := range j.sleeps {
		j.sleeps[k] = make([]int64, c.Workers)
		for d := 0; d < c.DelayPoints; d++ {
			w := rng.Intn(c.Workers)
			slow := rng.Float64() < c.StraggleProb
			f := c.SlowMin + rng.Float64()*(c.SlowMax-c.SlowMin)
			if slow {
				ps := int64(f * float64(c.TypicalIterPs))
				j.sleeps[k][w] += ps
				j.Stats.Slept = append(j.Stats.Slept, Sleep{Worker: w, Iteration: k, Ps: ps})
			}
		}
	}
	for _, s := range c.Injected {
		j.sleeps[s.Iteration][s.Worker] += s.Ps
		j.Stats.Slept = append(j.Stats.Slept, s)
	}
}

// Start begins the first iteration on every worker at time ps.
func (j *Job) Start(ps int64) {
	for _, w := range j.Workers {
		w.startIteration(0, ps)
	}
}

// Done reports whether every worker (but the stalled ones) finished every
// iteration.
func (j *Job) Done() bool {
	for _, w := range j.Workers {
		if w.iter < j.cfg.Iterations && !w.stalled {
			return false
		}
	}
	return true
}

// MeanIterationPs is the time to finish all iterations on every worker,
// divided by the iterations (0 if the job did not finish).
func (j *Job) MeanIterationPs(startPs int64) float64 {
	if !j.Done() {
		return 0
	}
	var end int64
	for _, e := range j.Stats.IterEndPs {
		if len(e) > 0 {
			end = max(end, e[len(e)-1])
		}
	}
	return float64(end-startPs) / float64(j.cfg.Iterations)
}

// MedianWorkerIterationPs is the median over the workers (stalled ones
// left out) of each worker's own mean iteration time: what a typical
// worker's training log shows, where MeanIterationPs is bound by the last
// worker to finish (0 if the job did not finish).
func (j *Job) MedianWorkerIterationPs(startPs int64) float64 {
	if !j.Done() {
		return 0
	}
	var per []float64
	for w, e := range j.Stats.IterEndPs {
		if len(e) > 0 && !j.Workers[w].stalled {
			per = append(per, float64(e[len(e)-1]-startPs)/float64(len(e)))
		}
	}
	if len(per) == 0 {
		return 0
	}
	return stats.Median(per)
}

// Worker is one server.
type Worker struct {
	*sim.ComponentBase
	job    *Job
	id     int
	port   int
	uplink sim.Handler

	stalled  bool
	behind   bool // Resync: the last iteration's results came before its compute ended
	iter     int  // current iteration (== Iterations: finished)
	startPs  int64
	sending  bool // computing is over: blocks are being streamed
	next     int  // next block to consider sending
	have     []bool
	haveN    int
	sentAt   []int64 // per block of this iteration (-1: not sent)
	seq      int64   // blocks sent over all iterations
	seqOf    []int64 // per block of this iteration: its seq
	bySlot   map[int]int
	early    map[int][]bool // results that came for a later iteration
	coreFree int64
	nicFree  int64
	grads    []int32 // send's buffer of gradients (Protocol.Packet copies them)
}

const (
	evComputeDone = packet.KindLocal + iota
	evResult
)

// NotifyRecv is unused (see packet.Event).
func (w *Worker) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (w *Worker) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

func (w *Worker) startIteration(k int, now int64) {
	c := &w.job.cfg
	w.iter, w.startPs, w.sending, w.next, w.haveN = k, now, false, 0, 0
	if k >= c.Iterations {
		return
	}
	n := c.Blocks()
	w.have = make([]bool, n)
	w.sentAt = make([]int64, n)
	w.seqOf = make([]int64, n)
	for i := range w.sentAt {
		w.sentAt[i] = -1
	}
	w.bySlot = map[int]int{}
	gen := c.StartGen + k
	if e := w.early[gen]; e != nil {
		for b, ok := range e {
			if ok {
				w.have[b] = true
				w.haveN++
			}
		}
		delete(w.early, gen)
	}
	if w.stalled {
		return
	}
	if w.behind {
		// Resync: skip this iteration (send nothing, wait for its results).
		w.behind = false
		w.sending, w.next = true, n
		w.maybeDone(now)
		return
	}
	if w.haveN == n {
		// A straggler that fell behind already holds this iteration's
		// aggregated result (the switch gave up on it and sent the
		// partial results to every worker, [TRIO] §5): it applies them
		// and joins the others without computing or sending.
		w.sending = true
		w.maybeDone(now)
		return
	}
	packet.Schedule(w.job.engine, w, now+c.ComputePs+w.job.sleeps[k][w.id], evComputeDone, nil, 0)
}

// Handle processes the worker's events.
func (w *Worker) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := ev.AtPs()
	switch {
	case ev.Kind == packet.KindArrive:
		w.arrive(ev.Pkt, now)
	case ev.Kind == evComputeDone:
		w.behind = w.job.cfg.Resync && w.haveN == w.job.cfg.Blocks()
		w.sending = true
		w.fill(now)
		w.maybeDone(now)
	case ev.Kind == evResult:
		w.result(ev.Pkt, now)
	}
	return nil
}

// arrive passes a received packet through the software path and the core.
func (w *Worker) arrive(pkt *packet.Packet, now int64) {
	c := &w.job.cfg
	var n int
	if v, ok := w.job.proto.(valueCounter); ok {
		if n, ok = v.values(pkt); !ok {
			return
		}
	} else {
		r, ok := w.job.proto.Decode(pkt)
		if !ok {
			return
		}
		n = len(r.Values)
	}
	lat := w.stackPs(n) / 2
	done := max(now+lat, w.coreFree) + c.CorePerPktPs
	w.coreFree = done
	packet.Schedule(w.job.engine, w, done, evResult, pkt, 0)
}

func (w *Worker) stackPs(grads int) int64 {
	c := &w.job.cfg
	return c.StackPs + int64(c.StackPerGradPs*float64(grads)+0.5)
}

// result records an aggregated block the core has processed.
func (w *Worker) result(pkt *packet.Packet, now int64) {
	j := w.job
	c := &j.cfg
	var r Result
	if d, ok := j.proto.(decoder); ok {
		// The values are read before the next result comes (check).
		r, _ = d.decode(pkt, j.vals)
		if cap(r.Values) > cap(j.vals) {
			j.vals = r.Values
		}
	} else {
		r, _ = j.proto.Decode(pkt)
	}
	j.Stats.Results++
	gen := c.StartGen + w.iter
	if r.BySlot {
		b, ok := w.bySlot[r.Slot]
		if !ok || w.iter >= c.Iterations {
			j.Stats.Stale++
			return
		}
		delete(w.bySlot, r.Slot)
		r.Gen, r.Block = gen, b
	}
	if w.iter >= c.Iterations || r.Gen < gen || r.Block < 0 || r.Block >= c.Blocks() {
		j.Stats.Stale++
		return
	}
	if r.Gen > gen {
		if w.early == nil {
			w.early = map[int][]bool{}
		}
		if w.early[r.Gen] == nil {
			w.early[r.Gen] = make([]bool, c.Blocks())
		}
		w.early[r.Gen][r.Block] = true
		return
	}
	if w.have[r.Block] {
		j.Stats.Duplicates++
		return
	}
	w.have[r.Block] = true
	w.haveN++
	j.Stats.LastResultPs = max(j.Stats.LastResultPs, now)
	if r.Degraded {
		j.Stats.Degraded++
		if j.Stats.DegradedSources == nil {
			j.Stats.DegradedSources = map[int]int{}
		}
		j.Stats.DegradedSources[r.Sources]++
		if at := w.sentAt[r.Block]; at >= 0 && now >= at {
			j.Stats.Partial.Add(now - at)
		}
	} else {
		if at := w.sentAt[r.Block]; at >= 0 {
			j.Stats.BlockLatency.Add(now - at)
		}
		j.Stats.AggregatedGrads += int64(c.BlockGradients(r.Block))
		if !w.check(r) {
			j.Stats.Wrong++
		}
	}
	w.fill(now)
	w.maybeDone(now)
}

// check compares a full result with the sum of every worker's gradients.
// Gradient i of a block depends on i only through i mod 13, so the sums
// are the 13 values of sumGradients (the same int32 arithmetic).
func (w *Worker) check(r Result) bool {
	c := &w.job.cfg
	n := c.BlockGradients(r.Block)
	if len(r.Values) < n {
		return false
	}
	want := sumGradients(c.Workers, r.Gen, r.Block)
	// Value i must be want[i mod 13]: compared 13 at a time (no division
	// per value; a result carries 1 024).
	vals := r.Values[:n]
	for len(vals) >= len(want) {
		if [13]int32(vals) != want {
			return false
		}
		vals = vals[len(want):]
	}
	for k, v := range vals {
		if v != want[k] {
			return false
		}
	}
	return true
}

// sumGradients is, for i mod 13 = 0..12, the sum over workers of
// Gradient(s, gen, b, i).
func sumGradients(workers, gen, b int) (sum [13]int32) {
	for k := range sum {
		for s := 0; s < workers; s++ {
			sum[k] += Gradient(s, gen, b, k)
		}
	}
	return sum
}

// fill sends blocks while the window allows: block b goes once block
// b - Window has its result (its slot is free again).
func (w *Worker) fill(now int64) {
	j := w.job
	c := &j.cfg
	if !w.sending || w.iter >= c.Iterations {
		return
	}
	for w.next < c.Blocks() {
		b := w.next
		if w.have[b] {
			w.next++ // the result came already (a straggler's partial result)
			continue
		}
		if b >= c.Window && !w.have[b-c.Window] {
			return
		}
		w.next++
		w.send(b, now)
	}
}

func (w *Worker) send(b int, now int64) {
	j := w.job
	c := &j.cfg
	gen := c.StartGen + w.iter
	n := c.BlockGradients(b)
	grads := w.grads[:0]
	var g [13]int32 // Gradient(w.id, gen, b, i) depends on i mod 13
	for k := range g {
		g[k] = Gradient(w.id, gen, b, k)
	}
	for i := 0; i < n; i++ {
		grads = append(grads, g[i%13])
	}
	w.grads = grads
	pkt := j.proto.Packet(w.id, gen, b, w.seq, grads)
	w.seqOf[b] = w.seq
	if slot := j.proto.Slot(w.seq); slot >= 0 {
		w.bySlot[slot] = b
	}
	w.seq++
	start := max(now, w.coreFree)
	w.coreFree = start + c.CorePerPktPs
	if j.Stats.FirstSendPs < 0 {
		j.Stats.FirstSendPs = w.coreFree
	}
	w.sentAt[b] = w.coreFree
	depart := max(w.coreFree+w.stackPs(n)/2, w.nicFree) + packet.SerializationPs(pkt.Len, c.NICGbps)
	w.nicFree = depart
	pkt.BornPs = w.coreFree
	pkt.InPort = w.port
	j.Stats.Sent++
	packet.Schedule(j.engine, w.uplink, depart+c.PropPs, packet.KindArrive, pkt, w.port)
}

func (w *Worker) maybeDone(now int64) {
	c := &w.job.cfg
	if !w.sending || w.iter >= c.Iterations || w.haveN < c.Blocks() {
		return
	}
	w.job.Stats.IterEndPs[w.id] = append(w.job.Stats.IterEndPs[w.id], now)
	w.startIteration(w.iter+1, now)
	if w.job.OnDone != nil && w.job.Done() {
		w.job.OnDone(now)
	}
}
