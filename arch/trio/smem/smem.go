// Package smem models the Trio PFE's shared memory system ([TRIO] §2.3):
// banks interleaved every 64 bytes, each behind a read-modify-write
// engine that serialises its requests (8 B per cycle, an add in
// add_cycles), reached over the crossbar (half the memory latency each
// way), with a bounded request queue per engine whose fullness
// back-pressures the sender.
//
// The memory is a component of its own that PPE threads send
// transactions to. A transaction is a direct call (Serve), not an Akita
// message: it would cost two more events per transaction without adding
// behaviour, since every engine is a FIFO whose timeline is known when the
// request is sent (the same choice as packet hand-offs,
// components/packet/event.go).
package smem

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"
)

// Config is the shared memory's hardware (configs/trio5.yaml trio.smem,
// sources there).
type Config struct {
	RMWEngines    int     `mapstructure:"rmw_engines"`
	BytesPerCycle int     `mapstructure:"bytes_per_cycle"`
	AddCycles     int     `mapstructure:"add_cycles"`
	SRAMLatencyNs float64 `mapstructure:"sram_latency_ns"`
	DRAMLatencyNs float64 `mapstructure:"dram_latency_ns"`
	SRAMBytes     int64   `mapstructure:"sram_bytes"`
	DRAMBytes     int64   `mapstructure:"dram_bytes"`
	EngineQueue   int     `mapstructure:"engine_queue"`
}

// Transaction is one external transaction on the shared memory.
type Transaction struct {
	Bank      int   // the RMW engine of its address (-1: none: only the round trip, e.g. a filter lookup)
	Cycles    int   // engine cycles the operation takes
	LatencyPs int64 // round trip over the crossbar
}

// RMWEngine is one bank's read-modify-write engine.
type RMWEngine struct {
	freeAt int64 // when it has served every request so far (ps)
	BusyPs int64 // time it has spent serving
}

// Memory is the shared memory: its banks' RMW engines.
type Memory struct {
	*sim.ComponentBase
	cfg     Config
	cyclePs float64
	Engines []RMWEngine
	// BusyPs is the engines' total busy time; MaxBacklogPs the longest
	// wait a request had at its engine.
	BusyPs       int64
	MaxBacklogPs int64
}

// Builder builds the shared memory (Akita style).
type Builder struct {
	cfg      Config
	clockMHz float64
}

// MakeBuilder returns a builder with no inputs set.
func MakeBuilder() Builder { return Builder{} }

// WithConfig sets the banks and latencies.
func (b Builder) WithConfig(c Config) Builder { b.cfg = c; return b }

// WithClockMHz sets the engines' clock.
func (b Builder) WithClockMHz(mhz float64) Builder { b.clockMHz = mhz; return b }

// Build constructs the memory.
func (b Builder) Build(name string) *Memory {
	if b.cfg.RMWEngines < 1 || b.clockMHz <= 0 {
		panic("smem.Builder: engines and clock are required")
	}
	return &Memory{ComponentBase: sim.NewComponentBase(name), cfg: b.cfg, cyclePs: 1e6 / b.clockMHz,
		Engines: make([]RMWEngine, b.cfg.RMWEngines)}
}

// Handle: the memory receives no events (transactions are calls).
func (m *Memory) Handle(e sim.Event) error {
	return fmt.Errorf("%s: unexpected event %T", m.Name(), e)
}

// NotifyRecv is unused.
func (m *Memory) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (m *Memory) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// Serve takes a transaction sent at now. It returns when the reply is
// back and when the request found room in its engine's queue (at most
// engine_queue operations ahead of it; later than now means the sender was
// back-pressured).
func (m *Memory) Serve(t Transaction, now int64) (reply, room int64) {
	return m.ServeBusy(t.Bank, m.CyclesPs(t.Cycles), t.LatencyPs, now)
}

// CyclesPs is the time an engine spends on an operation of cycles.
func (m *Memory) CyclesPs(cycles int) int64 { return int64(float64(cycles)*m.cyclePs + 0.5) }

// ServeBusy is Serve for a transaction on bank (-1: none) that occupies
// its engine busy ps (CyclesPs of its cycles), with round trip latency ps.
func (m *Memory) ServeBusy(bank int, busy, latency, now int64) (reply, room int64) {
	half := latency / 2
	if bank < 0 {
		return now + latency, now
	}
	e := &m.Engines[bank]
	at := now + half
	room = now
	if backlog := e.freeAt - at; backlog > int64(m.cfg.EngineQueue)*busy {
		room = now + backlog - int64(m.cfg.EngineQueue)*busy
	}
	start := max(at, e.freeAt)
	e.freeAt = start + busy
	e.BusyPs += busy
	m.BusyPs += busy
	m.MaxBacklogPs = max(m.MaxBacklogPs, e.freeAt-at)
	return start + busy + half, room
}

// ServeN serves n identical transactions sent at now, one after the
// other (ServeBusy n times), and returns the latest room any found.
func (m *Memory) ServeN(bank int, busy, latency, now int64, n int) (room int64) {
	if n <= 1 || bank < 0 || busy < 0 {
		room = now
		for range n {
			if _, r := m.ServeBusy(bank, busy, latency, now); r > room {
				room = r
			}
		}
		return room
	}
	// n requests arriving together (ServeBusy n times, in closed form):
	// the first starts at max(arrival, freeAt), the others follow it back
	// to back; the last one sees the longest backlog.
	e := &m.Engines[bank]
	at := now + latency/2
	start := max(at, e.freeAt)
	before := start + int64(n-1)*busy // the engine's freeAt when the last request comes
	room = now
	if backlog, q := before-at, int64(m.cfg.EngineQueue)*busy; backlog > q {
		room = now + backlog - q
	}
	total := int64(n) * busy
	e.freeAt = start + total
	e.BusyPs += total
	m.BusyPs += total
	m.MaxBacklogPs = max(m.MaxBacklogPs, e.freeAt-at)
	return room
}

// Bank is the RMW engine of an address (64-byte interleave across the
// engines); DRAM addresses follow the SRAM's.
func (m *Memory) Bank(addr int64, dram bool) int {
	if dram {
		addr += m.cfg.SRAMBytes
	}
	return int((addr / 64) % int64(m.cfg.RMWEngines))
}

// LatencyPs is the round trip to SRAM or DRAM.
func (m *Memory) LatencyPs(dram bool) int64 {
	if dram {
		return nsToPs(m.cfg.DRAMLatencyNs)
	}
	return nsToPs(m.cfg.SRAMLatencyNs)
}

// Hottest is the busiest engine's busy time.
func (m *Memory) Hottest() int64 {
	var h int64
	for _, e := range m.Engines {
		h = max(h, e.BusyPs)
	}
	return h
}

func nsToPs(ns float64) int64 { return int64(ns*1000 + 0.5) }
