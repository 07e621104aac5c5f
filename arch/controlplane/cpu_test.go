package controlplane

import (
	"os"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/components/packet"
	"archsim/engine"
	"archsim/programs"
)

const us = int64(1_000_000) // ps

// probe runs functions at given times (the data plane changing a
// register, a test looking at the chip's state).
type probe struct {
	*sim.ComponentBase
	fs map[int]func()
	n  int
}

func (p *probe) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (p *probe) NotifyPortFree(sim.VTimeInSec, sim.Port) {}
func (p *probe) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	p.fs[ev.Port]()
	return nil
}

func (p *probe) at(e sim.Engine, ps int64, f func()) {
	p.n++
	p.fs[p.n] = f
	packet.Schedule(e, p, ps, packet.KindLocal, nil, p.n)
}

type rig struct {
	e     *engine.Serial
	cpu   *CPU
	state *programs.State
	ctl   *arch.StateControl
	pr    *probe
}

func newRig(t *testing.T, prog *programs.Program, sets ...string) *rig {
	t.Helper()
	cfg, err := LoadConfig(sets...)
	if err != nil {
		t.Fatal(err)
	}
	e := engine.NewSerial()
	st := programs.NewState(prog)
	ctl := &arch.StateControl{Prog: prog, States: []*programs.State{st}}
	cpu, err := MakeBuilder().WithEngine(e).WithConfig(cfg).WithSwitch(ctl).Build("CPU")
	if err != nil {
		t.Fatal(err)
	}
	return &rig{e: e, cpu: cpu, state: st, ctl: ctl, pr: &probe{ComponentBase: sim.NewComponentBase("Probe"), fs: map[int]func(){}}}
}

func small(t *testing.T) *programs.Program {
	t.Helper()
	data, err := os.ReadFile("../../programs/testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := programs.Load(data, "small.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A read samples the cell when the request reaches the chip (CPU cost +
// one crossing) and returns one crossing later; a write issued behind it
// waits for the CPU, costs its CPU time and takes effect one crossing after
// that. Defaults: read 2 us, write 1 us, crossing 1 us.
func TestReadWriteTiming(t *testing.T) {
	r := newRig(t, small(t))
	reg := r.state.Regs[r.ctl.Prog.Register("r").Index]
	r.pr.at(r.e, 3*us-1, func() { reg.Set(1, 5) }) // just before the read arrives
	r.pr.at(r.e, 3*us+1, func() { reg.Set(1, 7) }) // just after
	var got int64 = -1
	var gotAt int64
	if err := r.cpu.ReadRegister("r", 1, func(v int64) { got, gotAt = v, r.cpu.NowPs() }); err != nil {
		t.Fatal(err)
	}
	var doneAt int64
	if err := r.cpu.WriteRegister("r", 2, 42, func() { doneAt = r.cpu.NowPs() }); err != nil {
		t.Fatal(err)
	}
	r.pr.at(r.e, 6*us-1, func() {
		if reg.Get(2) != 0 {
			t.Errorf("the write took effect before it reached the chip")
		}
	})
	if err := r.e.Run(); err != nil {
		t.Fatal(err)
	}
	if got != 5 || gotAt != 4*us {
		t.Errorf("read %d at %d ps, want 5 (the value when the request arrived at 3 us) at 4 us", got, gotAt)
	}
	// The write starts when the read's response is back (4 us), leaves
	// the CPU at 5 us and lands at 6 us.
	if reg.Get(2) != 42 || doneAt != 6*us {
		t.Errorf("write: cell %d, done at %d ps; want 42 at 6 us", reg.Get(2), doneAt)
	}
	st := r.cpu.Stats
	if st.RegisterReads != 1 || st.RegisterWrites != 1 || st.BusyPs != 5*us {
		t.Errorf("stats %+v, want 1 read, 1 write, 5 us busy", st)
	}
}

// Costs come from the config: doubling the crossing moves the sample and
// the answer.
func TestLatencyFromConfig(t *testing.T) {
	r := newRig(t, small(t), "controlplane.pcie_latency_ns=3000", "controlplane.register_read_ns=500")
	var at int64
	if err := r.cpu.ReadRegister("r", 0, func(int64) { at = r.cpu.NowPs() }); err != nil {
		t.Fatal(err)
	}
	if err := r.e.Run(); err != nil {
		t.Fatal(err)
	}
	if want := int64(6500_000); at != want {
		t.Errorf("read back at %d ps, want %d (0.5 us + 2 x 3 us)", at, want)
	}
}

// Entry adds go in batches: each costs the overhead plus one add per
// entry and lands one crossing after it leaves the CPU.
func TestEntryBatches(t *testing.T) {
	p := small(t)
	r := newRig(t, p, "controlplane.batch_entries=2", "controlplane.entry_add_ns=10000", "controlplane.batch_overhead_ns=50000")
	tb := p.Table("t")
	var es []*programs.Entry
	for i := 0; i < 5; i++ {
		e, err := tb.NewEntry([]programs.Match{{Value: int64(0x0b000000 + i)}}, "fwd", []int64{int64(i)}, 0)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	var doneAt int64
	if err := r.cpu.AddEntries("t", es, func() { doneAt = r.cpu.NowPs() }); err != nil {
		t.Fatal(err)
	}
	ts := r.state.Tables[tb.Index]
	// Batch 1 leaves the CPU at 70 us and lands at 71; batch 2 leaves at
	// 140, lands at 141; batch 3 (one entry) leaves at 200, lands at 201.
	for _, c := range []struct {
		at   int64
		want int
	}{{71*us - 1, 1}, {71*us + 1, 3}, {141*us + 1, 5}, {201*us + 1, 6}} {
		c := c
		r.pr.at(r.e, c.at, func() {
			if got := ts.Len(); got != c.want {
				t.Errorf("at %d ps the table holds %d entries, want %d", c.at, got, c.want)
			}
		})
	}
	if err := r.e.Run(); err != nil {
		t.Fatal(err)
	}
	if doneAt != 201*us || r.cpu.Stats.Batches != 3 || r.cpu.Stats.EntryAdds != 5 || r.cpu.Stats.BusyPs != 200*us {
		t.Errorf("done at %d ps, stats %+v", doneAt, r.cpu.Stats)
	}
	if e := ts.Lookup([]int64{0x0b000004}); e == nil || e.Call.Args[0] != 4 {
		t.Errorf("entry 4 not installed: %v", e)
	}
	if err := r.cpu.DeleteEntries("t", es[:2], nil); err != nil {
		t.Fatal(err)
	}
	if err := r.e.Run(); err != nil {
		t.Fatal(err)
	}
	if ts.Len() != 4 || r.cpu.Stats.EntryDeletes != 2 || r.cpu.Err() != nil {
		t.Errorf("after deleting 2: %d entries, stats %+v, err %v", ts.Len(), r.cpu.Stats, r.cpu.Err())
	}
}

// pieLoop is PIE_CP's controller loop (run_controlplane_pie.cpp): sleep,
// read the delay register, write drop_prob and its duplicate, wait for the
// writes (sessionCompleteOperations), repeat.
func pieLoop(t *testing.T, r *rig, until int64) *LoopStats {
	t.Helper()
	l, err := r.cpu.Loop("pie", 117*us, until, func(next func()) {
		if err := r.cpu.ReadRegister("r", 0, func(v int64) {
			_ = r.cpu.WriteRegister("r", 1, v+1, nil)
			_ = r.cpu.WriteRegister("r", 2, v+1, next)
		}); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The loop's period emerges from the sleep and the operations' costs:
// 117 + 1 (wake-up) + 4 (read) + 1 + 1 (writes) + 1 (the last write
// landing) = 125 us with the defaults (the PIE paper's ~125 us, §VI.B);
// a slower read makes it longer by exactly the difference.
func TestLoopPeriodEmerges(t *testing.T) {
	r := newRig(t, small(t))
	l := pieLoop(t, r, 10_000*us)
	if err := r.e.Run(); err != nil {
		t.Fatal(err)
	}
	if l.Iterations < 70 || l.MeanPeriodPs() != float64(125*us) || l.MaxPeriodPs != 125*us || l.MinPeriodPs != 125*us {
		t.Errorf("%d iterations, period mean %.0f max %d min %d ps; want 125 us", l.Iterations, l.MeanPeriodPs(), l.MaxPeriodPs, l.MinPeriodPs)
	}
	if st := r.cpu.Stats; st.RegisterReads != l.Iterations || st.RegisterWrites != 2*l.Iterations {
		t.Errorf("stats %+v for %d iterations", st, l.Iterations)
	}
	r = newRig(t, small(t), "controlplane.register_read_ns=12000")
	l = pieLoop(t, r, 2_000*us)
	if err := r.e.Run(); err != nil {
		t.Fatal(err)
	}
	if l.MeanPeriodPs() != float64(135*us) {
		t.Errorf("with a 12 us read: period %.0f ps, want 135 us", l.MeanPeriodPs())
	}
}

// noEntries is a control plane without single-entry writes.
type noEntries struct{ arch.ControlPlane }

// Bad input is a one-line error naming what is missing.
func TestBadInput(t *testing.T) {
	r := newRig(t, small(t))
	cases := []struct {
		err  error
		want string
	}{
		{r.cpu.ReadRegister("nope", 0, nil), "program small has no register nope"},
		{r.cpu.WriteRegister("r", 4, 1, nil), "register r: index 4 out of range 0..3"},
		{r.cpu.AddEntries("nope", nil, nil), "program small has no table nope"},
		{r.cpu.Compute(-1, nil), "negative"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) || strings.Contains(c.err.Error(), "\n") {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
	if _, err := LoadConfig("controlplane.batch_entries=0"); err == nil || !strings.Contains(err.Error(), "controlplane.batch_entries") {
		t.Errorf("batch_entries=0: %v", err)
	}
	cpu, err := MakeBuilder().WithEngine(r.e).WithSwitch(noEntries{r.ctl}).Build("CPU2")
	if err != nil {
		t.Fatal(err)
	}
	if err := cpu.AddEntries("t", nil, nil); err == nil || !strings.Contains(err.Error(), "cannot add or delete single table entries") {
		t.Errorf("no entry writer: %v", err)
	}
	if _, err := MakeBuilder().WithEngine(r.e).WithSwitch(arch.NoControl{}).Build("CPU3"); err == nil || !strings.Contains(err.Error(), "runs no program") {
		t.Errorf("no program: %v", err)
	}
}
