// Package spec describes one Trio packet forwarding engine (PFE) as the
// tool chain and the timing model both see it: the clock and ports, the
// PPEs and their threads ([TRIO] §2.2), a thread's packet head, local
// memory and registers, the micro-instruction's limits and timing, the
// external transactions' sizes and the shared memory ([TRIO] §2.3), and
// the hash and filter units. Field meanings and sources are in
// configs/trio5.yaml.
//
// It is a leaf package of its own, rather than lowering-specific types
// that the PFE's Config embeds, because the hardware does not split along
// that line: the lowering compiler (arch/trio/lower) reads nearly every
// part — instruction limits, registers, local memory, timers, the largest
// and smallest transactions, the shared memory's sizes and engine speed —
// while the same YAML sections (xtxn, smem) also hold what only the PFE
// (arch/trio) times with: chunk sizes, latencies, engine queues. Types
// embedded for the lowering would cut those sections, and LoadConfig's one
// table of range checks, in two. Both lower and the PFE import spec; of
// the Trio packages spec imports only arch/trio/smem, for the shared
// memory's own Config.
package spec

import (
	"fmt"
	"strings"

	"archsim/arch/trio/smem"
	"archsim/components/packet"
	"archsim/configs"
)

// Config is one PFE. Field meanings and sources are in configs/trio5.yaml.
type Config struct {
	Name             string      `mapstructure:"name"`
	ClockMHz         float64     `mapstructure:"clock_mhz"`
	Ports            int         `mapstructure:"ports"`
	PortGbps         float64     `mapstructure:"port_gbps"`
	Arbitration      string      `mapstructure:"arbitration"`
	QueueLimitBytes  int64       `mapstructure:"queue_limit_bytes"`
	Output           Output      `mapstructure:"output"`
	PPEs             int         `mapstructure:"ppes"`
	ThreadsPerPPE    int         `mapstructure:"threads_per_ppe"`
	HeadBytes        int         `mapstructure:"head_bytes"`
	LMEMBytes        int         `mapstructure:"lmem_bytes"`
	Registers        int         `mapstructure:"registers"`
	RegisterBits     int         `mapstructure:"register_bits"`
	Instr            Instr       `mapstructure:"instr"`
	XTXN             XTXN        `mapstructure:"xtxn"`
	SMem             smem.Config `mapstructure:"smem"`
	Lookup           Lookup      `mapstructure:"lookup"`
	DispatchNs       float64     `mapstructure:"dispatch_ns"`
	DispatchPerCycle int         `mapstructure:"dispatch_per_cycle"`
	ReorderNs        float64     `mapstructure:"reorder_ns"`
	ReorderCreated   string      `mapstructure:"reorder_created"`
	Timers           int         `mapstructure:"timers"`
}

// Output is the output ports' queues (see configs/trio5.yaml).
type Output struct {
	QueuesPerPort int `mapstructure:"queues_per_port"`
	CellBytes     int `mapstructure:"cell_bytes"`
	TxFIFOBytes   int `mapstructure:"tx_fifo_bytes"`
}

// Instr is the micro-instruction's limits and timing.
type Instr struct {
	Cycles        int `mapstructure:"cycles"`
	RegisterReads int `mapstructure:"register_reads"`
	LMEMReads     int `mapstructure:"lmem_reads"`
	Writes        int `mapstructure:"writes"`
	CondALUs      int `mapstructure:"cond_alus"`
	CallDepth     int `mapstructure:"call_depth"`
	XTXNPerInstr  int `mapstructure:"xtxn_per_instr"`
}

// XTXN is the external transactions' sizes.
type XTXN struct {
	MinBytes       int `mapstructure:"min_bytes"`
	MaxBytes       int `mapstructure:"max_bytes"`
	TailChunkBytes int `mapstructure:"tail_chunk_bytes"`
	// ResultChunkBytes is what one iteration of a created packet's tail
	// loop copies from the shared memory to the packet buffer.
	ResultChunkBytes int `mapstructure:"result_chunk_bytes"`
}

// Lookup is the hash and filter units.
type Lookup struct {
	HashCycles      int     `mapstructure:"hash_cycles"`
	FilterLatencyNs float64 `mapstructure:"filter_latency_ns"`
}

// ArbitrationPolicy is how heads that reach the dispatcher from several
// ports at one instant are ordered.
func (c *Config) ArbitrationPolicy() packet.Arbitration {
	a, _ := packet.ParseArbitration(c.Arbitration)
	return a
}

// LoadConfig decodes and validates a Trio config.
func LoadConfig(l *configs.Loaded) (*Config, error) {
	c := &Config{}
	if err := l.Decode("trio", c); err != nil {
		return nil, err
	}
	if err := l.CheckRanges("trio", []configs.Range{
		configs.In("clock_mhz", c.ClockMHz, 1, 10000),
		configs.In("ports", float64(c.Ports), 1, 256),
		configs.In("port_gbps", c.PortGbps, 0.001, 3200),
		configs.In("queue_limit_bytes", float64(c.QueueLimitBytes), 0, 1<<40),
		configs.In("output.queues_per_port", float64(c.Output.QueuesPerPort), 1, 32),
		configs.In("output.cell_bytes", float64(c.Output.CellBytes), 1, 1<<16),
		configs.In("output.tx_fifo_bytes", float64(c.Output.TxFIFOBytes), 64, 1<<20),
		configs.In("ppes", float64(c.PPEs), 1, 4096),
		configs.In("threads_per_ppe", float64(c.ThreadsPerPPE), 1, 1024),
		configs.In("head_bytes", float64(c.HeadBytes), 64, 4096),
		configs.In("lmem_bytes", float64(c.LMEMBytes), float64(c.HeadBytes), 1<<20).From("head_bytes", ""),
		configs.In("registers", float64(c.Registers), 1, 1024),
		configs.In("register_bits", float64(c.RegisterBits), 8, 128),
		configs.In("instr.cycles", float64(c.Instr.Cycles), 1, 1000),
		configs.In("instr.register_reads", float64(c.Instr.RegisterReads), 1, 64),
		configs.In("instr.lmem_reads", float64(c.Instr.LMEMReads), 1, 64),
		configs.In("instr.writes", float64(c.Instr.Writes), 1, 64),
		configs.In("instr.cond_alus", float64(c.Instr.CondALUs), 1, 64),
		configs.In("instr.call_depth", float64(c.Instr.CallDepth), 1, 64),
		configs.In("instr.xtxn_per_instr", float64(c.Instr.XTXNPerInstr), 1, 16),
		configs.In("xtxn.min_bytes", float64(c.XTXN.MinBytes), 1, 4096),
		configs.In("xtxn.max_bytes", float64(c.XTXN.MaxBytes), float64(c.XTXN.MinBytes), 4096).From("xtxn.min_bytes", ""),
		configs.In("xtxn.tail_chunk_bytes", float64(c.XTXN.TailChunkBytes), 1, 4096),
		configs.In("xtxn.result_chunk_bytes", float64(c.XTXN.ResultChunkBytes), 1, 4096),
		configs.In("smem.rmw_engines", float64(c.SMem.RMWEngines), 1, 1024),
		configs.In("smem.bytes_per_cycle", float64(c.SMem.BytesPerCycle), 1, 1024),
		configs.In("smem.add_cycles", float64(c.SMem.AddCycles), 1, 1000),
		configs.In("smem.sram_latency_ns", c.SMem.SRAMLatencyNs, 0, 1e6),
		configs.In("smem.dram_latency_ns", c.SMem.DRAMLatencyNs, 0, 1e6),
		configs.In("smem.sram_bytes", float64(c.SMem.SRAMBytes), 0, 1<<40),
		configs.In("smem.dram_bytes", float64(c.SMem.DRAMBytes), 0, 1<<50),
		configs.In("smem.engine_queue", float64(c.SMem.EngineQueue), 1, 1<<20),
		configs.In("lookup.hash_cycles", float64(c.Lookup.HashCycles), 0, 1000),
		configs.In("lookup.filter_latency_ns", c.Lookup.FilterLatencyNs, 0, 1e6),
		configs.In("dispatch_ns", c.DispatchNs, 0, 1e6),
		configs.In("dispatch_per_cycle", float64(c.DispatchPerCycle), 1, 64),
		configs.In("reorder_ns", c.ReorderNs, 0, 1e6),
		configs.In("timers", float64(c.Timers), 0, 1<<16),
	}); err != nil {
		return nil, err
	}
	if _, err := packet.ParseArbitration(c.Arbitration); err != nil {
		return nil, fmt.Errorf("%s: trio.arbitration: %v", l.Origin("trio.arbitration"), err)
	}
	if strings.TrimSpace(c.Name) == "" {
		return nil, fmt.Errorf("%s: trio.name: must not be empty (reports name the chip by it)", l.Origin("trio.name"))
	}
	if c.ReorderCreated != ReorderOneFlow && c.ReorderCreated != ReorderOwnFlow {
		return nil, fmt.Errorf("%s: trio.reorder_created: %q is not %s or %s",
			l.Origin("trio.reorder_created"), c.ReorderCreated, ReorderOneFlow, ReorderOwnFlow)
	}
	return c, nil
}

// The reorder engine's treatment of packets a switch created (emit(), a
// kept frame sent again, a timer thread's packet), which carry no flow of
// their own, when they arrive at a PFE (trio.reorder_created).
const (
	ReorderOneFlow = "one_flow" // one flow: released in arrival order
	ReorderOwnFlow = "own_flow" // each its own flow: released when its thread ends
)

// CyclePs is one clock cycle in picoseconds.
func (c *Config) CyclePs() float64 { return 1e6 / c.ClockMHz }

// CyclesToPs converts cycles to picoseconds.
func (c *Config) CyclesToPs(n int64) int64 { return int64(float64(n)*c.CyclePs() + 0.5) }
