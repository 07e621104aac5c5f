package workers

import (
	"reflect"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// fakeSwitch aggregates Trio-ML packets in Go: a block's result goes to
// every worker delayPs after its last source arrived; with timeoutPs > 0,
// a block still missing sources timeoutPs after its first arrival is sent
// as a degraded partial result. (The real aggregators are the trio-ml and
// switchml programs; experiments/aggregation runs them.)
type fakeSwitch struct {
	*sim.ComponentBase
	engine    sim.Engine
	proto     TrioML
	n         int
	delayPs   int64
	timeoutPs int64
	workers   []sim.Handler
	blocks    map[[2]int]*fakeBlock
	arrivals  []int64 // per worker
}

type fakeBlock struct {
	sum  []int32
	srcs map[int]bool
	done bool
}

func newFake(engine sim.Engine, n int, delayPs, timeoutPs int64) *fakeSwitch {
	return &fakeSwitch{ComponentBase: sim.NewComponentBase("Fake"), engine: engine, proto: TrioML{Port: 12000, ResultPort: 12001, Job: 1},
		n: n, delayPs: delayPs, timeoutPs: timeoutPs, blocks: map[[2]int]*fakeBlock{}, arrivals: make([]int64, n)}
}

func (f *fakeSwitch) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (f *fakeSwitch) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

func (f *fakeSwitch) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := packet.SecToPs(ev.T)
	if ev.Kind == packet.KindLocal { // timeout of block ev.Pkt's key
		key := [2]int{int(ev.Pkt.ID >> 32), int(ev.Pkt.ID & 0xffffffff)}
		if b := f.blocks[key]; !b.done {
			f.send(key, b, now, true)
		}
		return nil
	}
	b := ev.Pkt.Head
	at := l4At + udpLen
	h := b[at:]
	w, blk, gen := int(h[6]), int(be32(h[1:])), int(be16(h[8:]))
	f.arrivals[w]++
	key := [2]int{gen, blk}
	fb := f.blocks[key]
	if fb == nil {
		fb = &fakeBlock{srcs: map[int]bool{}}
		f.blocks[key] = fb
		if f.timeoutPs > 0 {
			packet.Schedule(f.engine, f, now+f.timeoutPs, packet.KindLocal, &packet.Packet{ID: uint64(gen)<<32 | uint64(blk)}, 0)
		}
	}
	if fb.done {
		return nil
	}
	n := int(be16(h[10:]) & 0xfff)
	if fb.sum == nil {
		fb.sum = make([]int32, n)
	}
	for i := 0; i < n; i++ {
		fb.sum[i] += int32(be32(h[TrioMLHeaderLen+4*i:]))
	}
	fb.srcs[w] = true
	if len(fb.srcs) == f.n {
		f.send(key, fb, now, false)
	}
	return nil
}

func (f *fakeSwitch) send(key [2]int, b *fakeBlock, now int64, degraded bool) {
	b.done = true
	for w, h := range f.workers {
		pkt := f.proto.Packet(0, key[0], key[1], 0, b.sum)
		hd := pkt.Head
		udp := hd[l4At:]
		udp[0], udp[1] = byte(f.proto.Port>>8), byte(f.proto.Port)
		udp[2], udp[3] = byte(f.proto.ResultPort>>8), byte(f.proto.ResultPort)
		hd[l4At+udpLen+7] = byte(len(b.srcs))
		if degraded {
			hd[l4At+udpLen+5] |= 0x14
		}
		packet.Schedule(f.engine, h, now+f.delayPs, packet.KindArrive, pkt, w)
	}
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
func be16(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }

func baseConfig() Config {
	return Config{Workers: 3, Gradients: 64 * 10, PerPacket: 64, Window: 4, ComputePs: 1e9, Iterations: 2, StartGen: 1,
		CorePerPktPs: 1e6, NICGbps: 100, PropPs: 5e5, DelayPoints: 3, SlowMin: 0.5, SlowMax: 2, TypicalIterPs: 1e10, Seed: 7}
}

func runJob(t *testing.T, c Config, delayPs, timeoutPs int64) (*Job, *fakeSwitch, sim.Engine) {
	t.Helper()
	engine := sim.NewSerialEngine()
	f := newFake(engine, c.Workers, delayPs, timeoutPs)
	j, err := MakeBuilder().WithEngine(engine).WithConfig(c).WithProtocol(f.proto).WithUplinks(func(int) sim.Handler { return f }, func(w int) int { return w }).Build("Job")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range j.Workers {
		f.workers = append(f.workers, w)
	}
	j.Start(0)
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
	return j, f, engine
}

// The window bounds the blocks a worker has out: with a switch that never
// answers (one source missing forever), each worker sends exactly Window.
func TestWindowBoundsOutstandingBlocks(t *testing.T) {
	c := baseConfig()
	engine := sim.NewSerialEngine()
	f := newFake(engine, c.Workers+1, 0, 0) // waits for a worker that does not exist
	j, err := MakeBuilder().WithEngine(engine).WithConfig(c).WithProtocol(f.proto).WithUplinks(func(int) sim.Handler { return f }, func(w int) int { return w }).Build("Job")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range j.Workers {
		f.workers = append(f.workers, w)
	}
	j.Start(0)
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
	for w, n := range f.arrivals[:c.Workers] {
		if n != int64(c.Window) {
			t.Errorf("worker %d sent %d blocks, want the window (%d)", w, n, c.Window)
		}
	}
	if j.Done() {
		t.Error("job finished without results")
	}
}

// Without stragglers an iteration is the compute time plus the
// aggregation: 10 blocks through a window of 4 take three round trips
// (4 + 4 + 2 blocks), each round trip being the core's time, the wire
// both ways and the switch's delay. Derived by hand below.
func TestIterationIsComputePlusAggregation(t *testing.T) {
	c := baseConfig()
	j, _, _ := runJob(t, c, 2e6, 0)
	if !j.Done() || j.Stats.Wrong != 0 || j.Stats.Results != 3*2*10 {
		t.Fatalf("done %v, wrong %d, results %d", j.Done(), j.Stats.Wrong, j.Stats.Results)
	}
	ser := packet.SerializationPs(l4At+udpLen+TrioMLHeaderLen+64*4, c.NICGbps)
	// One block's round trip: core 1 µs, NIC, wire, switch 2 µs, wire, core 1 µs.
	rtt := c.CorePerPktPs + ser + c.PropPs + 2e6 + c.PropPs + c.CorePerPktPs
	first := j.Stats.IterEndPs[0][0]
	// Within a round, block k leaves k core slots after the first and
	// results come back in order; the lower bound is three round trips.
	lo, hi := c.ComputePs+3*rtt, c.ComputePs+3*rtt+3*4*(c.CorePerPktPs+ser)
	if first < lo || first > hi {
		t.Errorf("first iteration ends at %d ps, want within [%d, %d]", first, lo, hi)
	}
	// The second iteration takes as long as the first.
	if d := j.Stats.IterEndPs[0][1] - 2*first; d < -1e6 || d > 1e6 {
		t.Errorf("second iteration differs from the first by %d ps", d)
	}
}

// The Slow Worker Pattern is drawn from the seed alone: same seed, same
// sleeps; p = 0 none; p = 1 one sleep per delay point, each within
// [0.5, 2] x the typical iteration time.
func TestSlowWorkerPattern(t *testing.T) {
	c := baseConfig()
	c.Iterations = 50
	draw := func(p float64, seed int64) []Sleep {
		c.StraggleProb, c.Seed = p, seed
		j, err := MakeBuilder().WithEngine(sim.NewSerialEngine()).WithConfig(c).WithProtocol(TrioML{}).WithUplinks(func(int) sim.Handler { return nil }, func(w int) int { return w }).Build("Job")
		if err != nil {
			t.Fatal(err)
		}
		return j.Stats.Slept
	}
	if s := draw(0, 1); len(s) != 0 {
		t.Errorf("p = 0: %d sleeps", len(s))
	}
	all := draw(1, 1)
	if len(all) != 50*3 {
		t.Errorf("p = 1: %d sleeps, want 150", len(all))
	}
	for _, s := range all {
		if s.Ps < c.TypicalIterPs/2 || s.Ps > 2*c.TypicalIterPs {
			t.Fatalf("sleep %d ps outside [0.5, 2] x %d", s.Ps, c.TypicalIterPs)
		}
	}
	if !reflect.DeepEqual(draw(0.16, 3), draw(0.16, 3)) {
		t.Error("same seed, different sleeps")
	}
	if n := len(draw(0.16, 3)); n < 10 || n > 40 {
		t.Errorf("p = 0.16 over 150 delay points: %d sleeps, want about 24", n)
	}
	// An injected sleep is added to the pattern's, and reported.
	c.Injected = []Sleep{{Worker: 2, Iteration: 7, Ps: 12345}}
	if got := draw(0, 1); !reflect.DeepEqual(got, c.Injected) {
		t.Errorf("injected sleep: slept %v, want %v", got, c.Injected)
	}
}

// With a switch that waits for every source (SwitchML's rule), a
// straggler delays everyone; with a timeout the others get degraded
// results and go on, and the straggler, holding every result when it
// wakes, catches up without sending.
func TestStragglerWaitVersusTimeout(t *testing.T) {
	c := baseConfig()
	c.Iterations = 4
	c.StraggleProb = 1
	c.DelayPoints = 1
	wait, _, _ := runJob(t, c, 1e6, 0)
	tmo, _, _ := runJob(t, c, 1e6, 2e8) // 200 µs timeout
	if !wait.Done() || !tmo.Done() {
		t.Fatal("a job did not finish")
	}
	var slept int64
	for _, s := range wait.Stats.Slept {
		slept += s.Ps
	}
	w, m := wait.MeanIterationPs(0), tmo.MeanIterationPs(0)
	// Waiting: every iteration absorbs its sleep.
	if w < float64(c.ComputePs)+float64(slept)/4 {
		t.Errorf("waiting switch: mean iteration %.0f ps, less than compute + mean sleep", w)
	}
	if tmo.Stats.Degraded == 0 || wait.Stats.Degraded != 0 {
		t.Errorf("degraded results: timeout %d (want > 0), wait %d (want 0)", tmo.Stats.Degraded, wait.Stats.Degraded)
	}
	if m >= 0.75*w {
		t.Errorf("timeout switch: mean iteration %.0f ps, want well under the waiting switch's %.0f", m, w)
	}
	// Waiting, every worker ends each iteration together: the median
	// worker's mean is the makespan mean; with the timeout the last
	// worker (a straggler) ends after the median one.
	if mw := wait.MedianWorkerIterationPs(0); mw < w-1e6 || mw > w+1e6 {
		t.Errorf("waiting switch: median worker %.0f ps, makespan mean %.0f ps", mw, w)
	}
	if mt := tmo.MedianWorkerIterationPs(0); mt <= 0 || mt > m {
		t.Errorf("timeout switch: median worker %.0f ps, want in (0, %.0f]", mt, m)
	}
	if tmo.Stats.Wrong != 0 || wait.Stats.Wrong != 0 {
		t.Errorf("wrong full results: %d, %d", tmo.Stats.Wrong, wait.Stats.Wrong)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, mut := range []func(*Config){
		func(c *Config) { c.Workers = 0 },
		func(c *Config) { c.Workers = 33 },
		func(c *Config) { c.Window = 0 },
		func(c *Config) { c.PerPacket = 0 },
		func(c *Config) { c.StraggleProb = 1.5 },
		func(c *Config) { c.NICGbps = 0 },
		func(c *Config) { c.StraggleProb = 0.1; c.SlowMax = 0.1 },
		func(c *Config) { c.Injected = []Sleep{{Worker: c.Workers, Iteration: 0, Ps: 1}} },
		func(c *Config) { c.Injected = []Sleep{{Worker: 0, Iteration: c.Iterations, Ps: 1}} },
		func(c *Config) { c.Injected = []Sleep{{Worker: 0, Iteration: 0, Ps: -1}} },
	} {
		c := baseConfig()
		mut(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestCheckFindsAWrongSum: a result's values are checked one by one
// against the workers' sums, wherever the wrong one sits (the first, the
// last of a group of 13, the first of the next, in the short tail), and
// a short result is wrong.
func TestCheckFindsAWrongSum(t *testing.T) {
	c := baseConfig()
	c.Gradients, c.PerPacket = 1024+10, 1024 // block 1 holds 10 values: a tail shorter than 13
	engine := sim.NewSerialEngine()
	f := newFake(engine, c.Workers, 0, 0)
	j, err := MakeBuilder().WithEngine(engine).WithConfig(c).WithProtocol(f.proto).WithUplinks(func(int) sim.Handler { return f }, func(w int) int { return w }).Build("Job")
	if err != nil {
		t.Fatal(err)
	}
	w := j.Workers[0]
	right := func(gen, b int) Result {
		n := c.BlockGradients(b)
		r := Result{Gen: gen, Block: b, Values: make([]int32, n)}
		for i := range r.Values {
			for s := 0; s < c.Workers; s++ {
				r.Values[i] += Gradient(s, gen, b, i)
			}
		}
		return r
	}
	for _, b := range []int{0, 1} {
		r := right(3, b)
		if !w.check(r) {
			t.Fatalf("block %d: the right sums were refused", b)
		}
		for _, i := range []int{0, 12, 13, 1022, 1023, 5, 9} {
			if i >= len(r.Values) {
				continue
			}
			r := right(3, b)
			r.Values[i]++
			if w.check(r) {
				t.Errorf("block %d: a wrong value %d was accepted", b, i)
			}
		}
		r.Values = r.Values[:len(r.Values)-1]
		if w.check(r) {
			t.Errorf("block %d: a short result was accepted", b)
		}
	}
}
