// Package controlplane models a switch's control-plane CPU: a host CPU
// behind a PCIe-like channel to the chip, running the driver's operations
// one at a time in simulated time. A register read costs CPU time, then the
// request crosses the channel, samples the cell the chip holds when it
// arrives, and the value crosses back (the CPU waits for it); a register
// write or a batch of table entries costs CPU time and takes effect when it
// reaches the chip (the CPU goes on meanwhile: posted writes). Costs and
// the channel's latency come from configs/controlplane.yaml. A controller
// loop (Loop) sleeps, wakes up after the configured wake-up latency and
// runs its body, so its period is the sleep plus what the body's
// operations cost, as measured (LoopStats).
//
// It works on any arch.Switch through its control API (Chip below, which
// Chip satisfies; table entry adds and deletes need
// EntryWriter, which EntryWriter satisfies). Events: two per
// register read (the sample at the chip, the value back at the CPU), one
// or two per write (it takes effect; done), one per table batch, one per
// loop iteration.
package controlplane

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
	"archsim/programs"
)

// Chip is the control API of the switch the CPU drives (arch.ControlPlane
// has it; declared here so the component does not depend on arch).
type Chip interface {
	Program() *programs.Program
	WriteTable(name string, entries []*programs.Entry) error
	ReadRegister(name string, index int) (int64, error)
	WriteRegister(name string, index int, v int64) error
}

// EntryWriter is a switch that adds and deletes single table entries (a
// driver's entry operations; arch.EntryWriter).
type EntryWriter interface {
	AddEntries(table string, entries []*programs.Entry) error
	DeleteEntries(table string, entries []*programs.Entry) error
}

// kindRun is the CPU's only event kind: run a pending step (Port: its id).
const kindRun = packet.KindLocal

// CPU is the switch's control-plane CPU.
type CPU struct {
	*sim.ComponentBase
	engine sim.Engine
	cfg    *Config
	sw     Chip
	// freePs is when the CPU has finished every operation issued so far.
	freePs  int64
	pending map[int]func()
	nextID  int
	err     error
	Stats   Stats
}

// Err is the first error an operation met when it reached the chip (a
// table that filled up), or nil.
func (c *CPU) Err() error { return c.err }

// Stats is what the CPU did.
type Stats struct {
	RegisterReads  int
	RegisterWrites int
	EntryAdds      int
	EntryModifies  int
	EntryDeletes   int
	Batches        int
	Computes       int
	// BusyPs is CPU time spent on operations (including waiting for read
	// responses), not sleeping.
	BusyPs int64
}

// LoopStats is a controller loop's measured behaviour: iterations and the
// period between the starts of successive bodies.
type LoopStats struct {
	Name          string
	Iterations    int
	PeriodSumPs   int64
	MinPeriodPs   int64
	MaxPeriodPs   int64
	lastStartPs   int64
	stopped       bool
	untilPs       int64
	sleepPs       int64
	body          func(next func())
	cpu           *CPU
	periodSamples int
}

// MeanPeriodPs is the mean time between the starts of successive bodies
// (0 before the second iteration).
func (l *LoopStats) MeanPeriodPs() float64 {
	if l.periodSamples == 0 {
		return 0
	}
	return float64(l.PeriodSumPs) / float64(l.periodSamples)
}

// Builder builds a CPU (Akita builder style).
type Builder struct {
	engine sim.Engine
	cfg    *Config
	sw     Chip
}

// MakeBuilder returns a builder; the config defaults to
// configs/controlplane.yaml.
func MakeBuilder() Builder { return Builder{} }

// WithEngine sets the engine.
func (b Builder) WithEngine(e sim.Engine) Builder { b.engine = e; return b }

// WithConfig sets the CPU's costs.
func (b Builder) WithConfig(c *Config) Builder { b.cfg = c; return b }

// WithSwitch sets the switch whose control API the CPU drives.
func (b Builder) WithSwitch(sw Chip) Builder { b.sw = sw; return b }

// Build constructs the CPU.
func (b Builder) Build(name string) (*CPU, error) {
	if b.engine == nil || b.sw == nil {
		return nil, fmt.Errorf("controlplane: %s needs an engine and a switch", name)
	}
	if b.cfg == nil {
		c, err := LoadConfig()
		if err != nil {
			return nil, err
		}
		b.cfg = c
	}
	if b.sw.Program() == nil {
		return nil, fmt.Errorf("controlplane: %s: the switch runs no program, so there is nothing to control", name)
	}
	return &CPU{ComponentBase: sim.NewComponentBase(name), engine: b.engine, cfg: b.cfg, sw: b.sw, pending: map[int]func(){}}, nil
}

// Config is the CPU's configuration.
func (c *CPU) Config() *Config { return c.cfg }

// NotifyRecv is unused: steps are scheduled events.
func (c *CPU) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (c *CPU) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// Handle runs a pending step.
func (c *CPU) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	f := c.pending[ev.Port]
	delete(c.pending, ev.Port)
	if f != nil {
		f()
	}
	return nil
}

func (c *CPU) at(ps int64, f func()) {
	c.nextID++
	c.pending[c.nextID] = f
	packet.Schedule(c.engine, c, ps, kindRun, nil, c.nextID)
}

// NowPs is the current simulated time.
func (c *CPU) NowPs() int64 { return packet.SecToPs(c.engine.CurrentTime()) }

// start is when an operation issued now begins: when the CPU is free.
func (c *CPU) start() int64 { return max(c.NowPs(), c.freePs) }

// FreePs is when the CPU will have finished every operation issued so far.
func (c *CPU) FreePs() int64 { return max(c.NowPs(), c.freePs) }

func (c *CPU) busy(from, to int64) {
	c.Stats.BusyPs += to - from
	c.freePs = to
}

func (c *CPU) checkRegister(name string, index int) error {
	p := c.sw.Program()
	r := p.Register(name)
	if r == nil {
		return fmt.Errorf("%s: program %s has no register %s", c.Name(), p.Name, name)
	}
	if index < 0 || index >= r.Size {
		return fmt.Errorf("%s: register %s: index %d out of range 0..%d", c.Name(), name, index, r.Size-1)
	}
	return nil
}

// ReadRegister reads a register cell: after the read's CPU cost the
// request crosses the channel, takes the value the chip holds when it
// arrives, and f gets it one crossing later (the CPU waits meanwhile).
func (c *CPU) ReadRegister(name string, index int, f func(v int64)) error {
	if err := c.checkRegister(name, index); err != nil {
		return err
	}
	s := c.start()
	lat := c.cfg.PCIeLatencyNs * 1000
	sample := s + c.cfg.RegisterReadNs*1000 + lat
	back := sample + lat
	c.busy(s, back)
	c.Stats.RegisterReads++
	c.at(sample, func() {
		v, err := c.sw.ReadRegister(name, index)
		if err != nil {
			panic(err) // checked above
		}
		c.at(back, func() {
			if f != nil {
				f(v)
			}
		})
	})
	return nil
}

// WriteRegister writes a register cell: after the write's CPU cost the CPU
// goes on, and the value takes effect when it reaches the chip one crossing
// later; done (if set) runs then.
func (c *CPU) WriteRegister(name string, index int, v int64, done func()) error {
	if err := c.checkRegister(name, index); err != nil {
		return err
	}
	s := c.start()
	issued := s + c.cfg.RegisterWriteNs*1000
	c.busy(s, issued)
	c.Stats.RegisterWrites++
	c.at(issued+c.cfg.PCIeLatencyNs*1000, func() {
		if err := c.sw.WriteRegister(name, index, v); err != nil {
			panic(err) // checked above
		}
		if done != nil {
			done()
		}
	})
	return nil
}

// Compute spends CPU time (the controller's own computation); done runs
// when it is over.
func (c *CPU) Compute(ns int64, done func()) error {
	if ns < 0 {
		return fmt.Errorf("%s: compute time %d ns is negative", c.Name(), ns)
	}
	s := c.start()
	c.busy(s, s+ns*1000)
	c.Stats.Computes++
	if done != nil {
		c.at(s+ns*1000, done)
	}
	return nil
}

// tableOp is a table write kind: its per-entry cost and what it does.
type tableOp int

const (
	opAdd tableOp = iota
	opModify
	opDelete
)

func (c *CPU) entryWriter(table string, es []*programs.Entry) (EntryWriter, error) {
	p := c.sw.Program()
	t := p.Table(table)
	if t == nil {
		return nil, fmt.Errorf("%s: program %s has no table %s", c.Name(), p.Name, table)
	}
	if t.Const {
		return nil, fmt.Errorf("%s: table %s is const: its entries are part of the program (%s)", c.Name(), table, t.Pos)
	}
	if len(es) > t.Size {
		return nil, fmt.Errorf("%s: %d entries for table %s of size %d", c.Name(), len(es), table, t.Size)
	}
	ew, ok := c.sw.(EntryWriter)
	if !ok {
		return nil, fmt.Errorf("%s: the switch cannot add or delete single table entries", c.Name())
	}
	return ew, nil
}

// AddEntries adds entries to a table, in batches of batch_entries: each
// batch costs the batch overhead plus one entry add per entry of CPU time
// and takes effect when it reaches the chip; done (if set) runs when the
// last batch has. An entry whose exact key the table holds replaces it.
func (c *CPU) AddEntries(table string, es []*programs.Entry, done func()) error {
	return c.tableWrite(table, es, opAdd, done)
}

// ModifyEntries rewrites entries of a table (by key) at the modify cost.
func (c *CPU) ModifyEntries(table string, es []*programs.Entry, done func()) error {
	return c.tableWrite(table, es, opModify, done)
}

// DeleteEntries deletes entries (by key) from a table at the delete cost.
func (c *CPU) DeleteEntries(table string, es []*programs.Entry, done func()) error {
	return c.tableWrite(table, es, opDelete, done)
}

func (c *CPU) tableWrite(table string, es []*programs.Entry, op tableOp, done func()) error {
	ew, err := c.entryWriter(table, es)
	if err != nil {
		return err
	}
	per := map[tableOp]int64{opAdd: c.cfg.EntryAddNs, opModify: c.cfg.EntryModifyNs, opDelete: c.cfg.EntryDeleteNs}[op]
	lat := c.cfg.PCIeLatencyNs * 1000
	n := c.cfg.BatchEntries
	if len(es) == 0 {
		if done != nil {
			c.at(c.start(), done)
		}
		return nil
	}
	for lo := 0; lo < len(es); lo += n {
		batch := es[lo:min(lo+n, len(es))]
		s := c.start()
		issued := s + (c.cfg.BatchOverheadNs+int64(len(batch))*per)*1000
		c.busy(s, issued)
		c.Stats.Batches++
		switch op {
		case opAdd:
			c.Stats.EntryAdds += len(batch)
		case opModify:
			c.Stats.EntryModifies += len(batch)
		case opDelete:
			c.Stats.EntryDeletes += len(batch)
		}
		last := lo+n >= len(es)
		c.at(issued+lat, func() {
			var err error
			if op == opDelete {
				err = ew.DeleteEntries(table, batch)
			} else {
				err = ew.AddEntries(table, batch)
			}
			if err != nil && c.err == nil {
				c.err = fmt.Errorf("%s: %v", c.Name(), err)
			}
			if last && done != nil {
				done()
			}
		})
	}
	return nil
}

// Loop runs a controller loop, as a control program's main loop does:
// sleep sleepPs, wake up (the configured wake-up latency later), run body;
// body issues its operations and calls next when it is done, which starts
// the next sleep. No body starts after untilPs. The returned statistics
// measure the period between the starts of successive bodies.
func (c *CPU) Loop(name string, sleepPs, untilPs int64, body func(next func())) (*LoopStats, error) {
	if sleepPs < 0 || body == nil {
		return nil, fmt.Errorf("%s: loop %s: want a sleep ≥ 0 and a body", c.Name(), name)
	}
	l := &LoopStats{Name: name, untilPs: untilPs, sleepPs: sleepPs, body: body, cpu: c, lastStartPs: -1}
	l.sleep()
	return l, nil
}

// Stop ends the loop: no further body starts.
func (l *LoopStats) Stop() { l.stopped = true }

func (l *LoopStats) sleep() {
	c := l.cpu
	wake := c.NowPs() + l.sleepPs + c.cfg.SleepWakeupNs*1000
	if l.stopped || wake > l.untilPs {
		return
	}
	c.at(wake, l.run)
}

func (l *LoopStats) run() {
	if l.stopped {
		return
	}
	now := l.cpu.NowPs()
	if l.lastStartPs >= 0 {
		p := now - l.lastStartPs
		l.PeriodSumPs += p
		l.periodSamples++
		if l.periodSamples == 1 || p < l.MinPeriodPs {
			l.MinPeriodPs = p
		}
		l.MaxPeriodPs = max(l.MaxPeriodPs, p)
	}
	l.lastStartPs = now
	l.Iterations++
	called := false
	l.body(func() {
		if called {
			return
		}
		called = true
		// The next sleep starts when the CPU has finished the body's
		// operations (those still running when next is called).
		c := l.cpu
		if free := c.FreePs(); free > c.NowPs() {
			c.at(free, l.sleep)
			return
		}
		l.sleep()
	})
}
