// Package spec is the description of a Tofino-family chip: the numbers
// of its hardware, decoded from configs/tofino.yaml (tofino2.yaml over it
// for Tofino 2), which gives every value's source (bf-p4c [BFP4C], bf-asm
// [BFASM], tofino-model [MODEL], the drivers [DRV], the trimming paper
// [TRIM]): the pipes and their ports, the MAU stage budgets and
// table-layout rules, the stateful and action ALU limits, the pipeline
// timing in clock cycles, the traffic manager's buffer (tm.Config), the
// what-if features and what the platform reports to SONiC. It also holds
// the structure those numbers describe: the device-port address map and
// the two threads (ingress, egress) of every pipe.
//
// It is a leaf package so that both halves of the tool chain read one
// datasheet: the placement compiler (arch/tofino/compiler) checks a program
// against the budgets and derives each thread's MAU pipeline length from
// the latencies, and the timing model (arch/tofino) builds pipes, ports and
// the traffic manager from the same numbers. Giving the compiler config
// types of its own for the chip's to embed (as tm.Config is embedded) would
// cut through sections rather than between blocks: the compiler reads the
// MAU, stateful ALU, action ALU, latency and feature sections and the
// traffic manager's queues per port, and the model reads the latency
// section too (parser, deparser) and the same ingress queue visibility.
package spec

import (
	"fmt"
	"strings"

	"archsim/arch/tofino/tm"
	"archsim/components/packet"
	"archsim/configs"
)

// Config is a Tofino-family chip description, decoded from configs/*.yaml.
// Field meanings and sources are in the YAML files.
type Config struct {
	Name              string    `mapstructure:"name"`
	ClockMHz          float64   `mapstructure:"clock_mhz"`
	Pipes             int       `mapstructure:"pipes"`
	FrontPortsPerPipe int       `mapstructure:"front_ports_per_pipe"`
	PortGbps          float64   `mapstructure:"port_gbps"`
	DevPortPipeStride int       `mapstructure:"dev_port_pipe_stride"`
	RecircLocalPort   int       `mapstructure:"recirc_local_port"`
	RecircGbps        float64   `mapstructure:"recirc_gbps"`
	RecircLatencyNs   float64   `mapstructure:"recirc_latency_ns"`
	PktgenLocalPort   int       `mapstructure:"pktgen_local_port"`
	PacketsPerCycle   int       `mapstructure:"packets_per_cycle"`
	Arbitration       string    `mapstructure:"arbitration"`
	Pktgen            Pktgen    `mapstructure:"pktgen"`
	MAU               MAU       `mapstructure:"mau"`
	SALU              SALU      `mapstructure:"salu"`
	ALU               ALU       `mapstructure:"alu"`
	Latency           Latency   `mapstructure:"latency"`
	Parser            Parser    `mapstructure:"parser"`
	TM                tm.Config `mapstructure:"tm"`
	PHV               PHV       `mapstructure:"phv"`
	Features          Features  `mapstructure:"features"`
	SONiC             SONiC     `mapstructure:"sonic"`
}

// SONiC is what the switch reports to SONiC (STATE_DB SWITCH_CAPABILITY)
// and the platform's trim-size limits.
type SONiC struct {
	TrimmingCapable bool     `mapstructure:"trimming_capable"`
	DSCPModes       []string `mapstructure:"dscp_modes"`
	QueueModes      []string `mapstructure:"queue_modes"`
	TrafficClasses  int      `mapstructure:"traffic_classes"`
	MinTrimSize     int      `mapstructure:"min_trim_size"`
	MaxTrimSize     int      `mapstructure:"max_trim_size"`
}

// Pktgen holds the packet generator's limits (one generator per pipe).
type Pktgen struct {
	Apps                int     `mapstructure:"apps"`
	BufferBytes         int     `mapstructure:"buffer_bytes"`
	FirstLocalPort      int     `mapstructure:"first_local_port"`
	LastLocalPort       int     `mapstructure:"last_local_port"`
	PortGbps            float64 `mapstructure:"port_gbps"`
	MinBufferBytes      int     `mapstructure:"min_buffer_bytes"`
	OffsetAlign         int     `mapstructure:"offset_align"`
	MaxBatches          int     `mapstructure:"max_batches"`
	MaxPacketsPerBatch  int     `mapstructure:"max_packets_per_batch"`
	PortDownSingleBatch bool    `mapstructure:"port_down_single_batch"`
}

// MAU holds per-stage budgets and table-layout rules.
type MAU struct {
	Stages             int     `mapstructure:"stages"`
	LogicalTables      int     `mapstructure:"logical_tables"`
	TernaryTables      int     `mapstructure:"ternary_tables"`
	SRAMBlocks         int     `mapstructure:"sram_blocks"`
	SRAMDepth          int     `mapstructure:"sram_depth"`
	SRAMWidthBits      int     `mapstructure:"sram_width_bits"`
	MapRAMs            int     `mapstructure:"map_rams"`
	TCAMBlocks         int     `mapstructure:"tcam_blocks"`
	TCAMDepth          int     `mapstructure:"tcam_depth"`
	TCAMWidthBits      int     `mapstructure:"tcam_width_bits"`
	MeterALUs          int     `mapstructure:"meter_alus"`
	StatsALUs          int     `mapstructure:"stats_alus"`
	ExactXbarBytes     int     `mapstructure:"exact_xbar_bytes"`
	TernaryXbarBytes   int     `mapstructure:"ternary_xbar_bytes"`
	HashBits           int     `mapstructure:"hash_bits"`
	HashDistUnits      int     `mapstructure:"hash_dist_units"`
	Gateways           int     `mapstructure:"gateways"`
	VLIWRows           int     `mapstructure:"vliw_rows"`
	ExactMinWays       int     `mapstructure:"exact_min_ways"`
	ExactMaxPack       int     `mapstructure:"exact_max_pack"`
	ExactMaxPackPerRAM int     `mapstructure:"exact_max_pack_per_ram"`
	GhostBits          int     `mapstructure:"ghost_bits"`
	VersionBits        int     `mapstructure:"version_bits"`
	HashIndexBits      int     `mapstructure:"hash_index_bits"`
	ImmediateBits      int     `mapstructure:"immediate_bits"`
	RangeEntryFraction float64 `mapstructure:"range_entry_fraction"`
	RangeMaxLines      int     `mapstructure:"range_max_lines"`
	RangeMaxNibbles    int     `mapstructure:"range_max_nibbles"`
	GatewayBytes       int     `mapstructure:"gateway_bytes"`
	GatewayHashBits    int     `mapstructure:"gateway_hash_bits"`
	// PayloadGateway: a one-constant-entry exact table with no action-data
	// RAM may become a payload gateway instead of a hash table.
	PayloadGateway bool `mapstructure:"payload_gateway"`
}

// SALU holds the stateful ALU (register action) limits.
type SALU struct {
	MaxWidth           int `mapstructure:"max_width"`
	MaxPairWidth       int `mapstructure:"max_pair_width"`
	ActionsPerRegister int `mapstructure:"actions_per_register"`
	Comparators        int `mapstructure:"comparators"`
	PHVInputs          int `mapstructure:"phv_inputs"`
	PHVInputBits       int `mapstructure:"phv_input_bits"`
	ConstMin           int `mapstructure:"const_min"`
	ConstMax           int `mapstructure:"const_max"`
	RegfileRows        int `mapstructure:"regfile_rows"`
	OpsPerAssignment   int `mapstructure:"ops_per_assignment"`
}

// ALU holds the VLIW action ALU limits.
type ALU struct {
	Multiply string `mapstructure:"multiply"` // "pow2_constant" or "any"
	Shift    string `mapstructure:"shift"`    // "constant" or "any"
}

// Latency holds pipeline timing in MAU clock cycles.
type Latency struct {
	StageBase             int `mapstructure:"stage_base"`
	TCAMExtra             int `mapstructure:"tcam_extra"`
	StatefulExtra         int `mapstructure:"stateful_extra"`
	MeterExtra            int `mapstructure:"meter_extra"`
	ActionDep             int `mapstructure:"action_dep"`
	Concurrent            int `mapstructure:"concurrent"`
	CornerTurnStage       int `mapstructure:"corner_turn_stage"`
	CornerTurn            int `mapstructure:"corner_turn"`
	MinEgressMAU          int `mapstructure:"min_egress_mau"`
	ParserBase            int `mapstructure:"parser_base"`
	ParserPerState        int `mapstructure:"parser_per_state"`
	ParserWindowBytes     int `mapstructure:"parser_window_bytes"`
	DeparserBase          int `mapstructure:"deparser_base"`
	DeparserBytesPerCycle int `mapstructure:"deparser_bytes_per_cycle"`
}

// Parser is what a gress's parser holds.
type Parser struct {
	TCAMRows int `mapstructure:"tcam_rows"` // match rows of the parse graph's states
}

// PHV describes the packet header vector: its containers of each size
// ([BFP4C] phv/phv_spec.cpp).
type PHV struct {
	B8                  PHVSize `mapstructure:"b8"`
	B16                 PHVSize `mapstructure:"b16"`
	B32                 PHVSize `mapstructure:"b32"`
	TagalongCollections int     `mapstructure:"tagalong_collections"` // tagalong containers go to a thread in collections
}

// PHVBits are the container widths, smallest first; PHV.Size(i) describes
// the containers of width PHVBits[i].
var PHVBits = [3]int{8, 16, 32}

// Size returns the containers of width PHVBits[i].
func (p *PHV) Size(i int) PHVSize { return [3]PHVSize{p.B8, p.B16, p.B32}[i] }

// PHVSize describes the PHV containers of one width.
type PHVSize struct {
	Containers            int `mapstructure:"containers"`              // MAU-visible containers (normal, mocha and dark)
	Dark                  int `mapstructure:"dark"`                    // of which the parser and deparser cannot reach
	MAUGroup              int `mapstructure:"mau_group"`               // containers per MAU group
	IngressOnlyGroups     int `mapstructure:"ingress_only_groups"`     // the first groups, wired to ingress
	EgressOnlyGroups      int `mapstructure:"egress_only_groups"`      // the next groups, wired to egress
	ThreadGroup           int `mapstructure:"thread_group"`            // the other containers go to a thread this many at a time
	Tagalong              int `mapstructure:"tagalong"`                // tagalong (parser-to-deparser only) containers
	TagalongPerCollection int `mapstructure:"tagalong_per_collection"` // tagalong containers per collection
}

// IngressOnly is the number of containers wired to ingress.
func (s PHVSize) IngressOnly() int { return s.IngressOnlyGroups * s.MAUGroup }

// EgressOnly is the number of containers wired to egress.
func (s PHVSize) EgressOnly() int { return s.EgressOnlyGroups * s.MAUGroup }

// SharedGroups is the number of thread groups either thread may take:
// the parser-visible containers not wired to a thread.
func (s PHVSize) SharedGroups() int {
	return (s.Containers - s.Dark - s.IngressOnly() - s.EgressOnly()) / s.ThreadGroup
}

// Features are what-if knobs.
type Features struct {
	IngressQueueVisibility bool `mapstructure:"ingress_queue_visibility"`
	EarlyReadLateWrite     bool `mapstructure:"early_read_late_write"`
}

// ArbitrationPolicy is the chip's arbitration of simultaneous arrivals
// (validated by LoadConfig).
func (c *Config) ArbitrationPolicy() packet.Arbitration {
	a, _ := packet.ParseArbitration(c.Arbitration)
	return a
}

// LoadConfig decodes and validates a Tofino config.
func LoadConfig(l *configs.Loaded) (*Config, error) {
	c := &Config{}
	if err := l.Decode("tofino", c); err != nil {
		return nil, err
	}
	if err := c.validate(l); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Config) validate(l *configs.Loaded) error {
	checks := []configs.Range{
		configs.In("clock_mhz", c.ClockMHz, 1, 10000),
		configs.In("pipes", float64(c.Pipes), 1, 16),
		configs.In("front_ports_per_pipe", float64(c.FrontPortsPerPipe), 1, 64),
		configs.In("port_gbps", c.PortGbps, 0.001, 3200),
		configs.In("dev_port_pipe_stride", float64(c.DevPortPipeStride), float64(c.FrontPortsPerPipe), 4096).From("front_ports_per_pipe", ""),
		configs.In("recirc_local_port", float64(c.RecircLocalPort), float64(c.FrontPortsPerPipe), float64(c.DevPortPipeStride-2)).From("front_ports_per_pipe", "dev_port_pipe_stride"),
		configs.In("recirc_gbps", c.RecircGbps, 0.001, 3200),
		configs.In("recirc_latency_ns", c.RecircLatencyNs, 0, 1e9),
		configs.In("pktgen_local_port", float64(c.PktgenLocalPort), 0, float64(c.DevPortPipeStride-1)).From("", "dev_port_pipe_stride"),
		configs.In("packets_per_cycle", float64(c.PacketsPerCycle), 1, 8),
		configs.In("pktgen.apps", float64(c.Pktgen.Apps), 0, 1024),
		configs.In("pktgen.buffer_bytes", float64(c.Pktgen.BufferBytes), 0, 1<<30),
		configs.In("pktgen.first_local_port", float64(c.Pktgen.FirstLocalPort), 0, float64(c.DevPortPipeStride-1)).From("", "dev_port_pipe_stride"),
		configs.In("pktgen.last_local_port", float64(c.Pktgen.LastLocalPort), float64(c.Pktgen.FirstLocalPort), float64(c.DevPortPipeStride-1)).From("pktgen.first_local_port", "dev_port_pipe_stride"),
		configs.In("pktgen.port_gbps", c.Pktgen.PortGbps, 0.001, 3200),
		configs.In("pktgen.min_buffer_bytes", float64(c.Pktgen.MinBufferBytes), 0, 16384),
		configs.In("pktgen.offset_align", float64(c.Pktgen.OffsetAlign), 1, 4096),
		configs.In("pktgen.max_batches", float64(c.Pktgen.MaxBatches), 1, 1<<32),
		configs.In("pktgen.max_packets_per_batch", float64(c.Pktgen.MaxPacketsPerBatch), 1, 1<<32),
		configs.In("mau.stages", float64(c.MAU.Stages), 1, 64),
		configs.In("mau.logical_tables", float64(c.MAU.LogicalTables), 1, 256),
		configs.In("mau.ternary_tables", float64(c.MAU.TernaryTables), 0, 256),
		configs.In("mau.sram_blocks", float64(c.MAU.SRAMBlocks), 0, 4096),
		configs.In("mau.sram_depth", float64(c.MAU.SRAMDepth), 1, 1<<20),
		configs.In("mau.sram_width_bits", float64(c.MAU.SRAMWidthBits), 8, 4096),
		configs.In("mau.map_rams", float64(c.MAU.MapRAMs), 0, 4096),
		configs.In("mau.tcam_blocks", float64(c.MAU.TCAMBlocks), 0, 4096),
		configs.In("mau.tcam_depth", float64(c.MAU.TCAMDepth), 1, 1<<20),
		configs.In("mau.tcam_width_bits", float64(c.MAU.TCAMWidthBits), 1, 4096),
		configs.In("mau.meter_alus", float64(c.MAU.MeterALUs), 0, 64),
		configs.In("mau.stats_alus", float64(c.MAU.StatsALUs), 0, 64),
		configs.In("mau.exact_xbar_bytes", float64(c.MAU.ExactXbarBytes), 1, 4096),
		configs.In("mau.ternary_xbar_bytes", float64(c.MAU.TernaryXbarBytes), 0, 4096),
		configs.In("mau.hash_bits", float64(c.MAU.HashBits), 0, 1<<16),
		configs.In("mau.hash_dist_units", float64(c.MAU.HashDistUnits), 0, 256),
		configs.In("mau.gateways", float64(c.MAU.Gateways), 0, 256),
		configs.In("mau.vliw_rows", float64(c.MAU.VLIWRows), 1, 4096),
		configs.In("mau.exact_min_ways", float64(c.MAU.ExactMinWays), 1, 64),
		configs.In("mau.exact_max_pack", float64(c.MAU.ExactMaxPack), 1, 64),
		configs.In("mau.exact_max_pack_per_ram", float64(c.MAU.ExactMaxPackPerRAM), 1, 64),
		configs.In("mau.ghost_bits", float64(c.MAU.GhostBits), 0, 64),
		configs.In("mau.version_bits", float64(c.MAU.VersionBits), 0, 64),
		configs.In("mau.hash_index_bits", float64(c.MAU.HashIndexBits), 1, 64),
		configs.In("mau.immediate_bits", float64(c.MAU.ImmediateBits), 0, 1024),
		configs.In("mau.range_entry_fraction", c.MAU.RangeEntryFraction, 0, 1),
		configs.In("mau.range_max_lines", float64(c.MAU.RangeMaxLines), 1, 64),
		configs.In("mau.range_max_nibbles", float64(c.MAU.RangeMaxNibbles), 1, 64),
		configs.In("mau.gateway_bytes", float64(c.MAU.GatewayBytes), 1, 64),
		configs.In("mau.gateway_hash_bits", float64(c.MAU.GatewayHashBits), 0, 64),
		configs.In("salu.max_width", float64(c.SALU.MaxWidth), 1, 128),
		configs.In("salu.max_pair_width", float64(c.SALU.MaxPairWidth), 2, 256),
		configs.In("salu.actions_per_register", float64(c.SALU.ActionsPerRegister), 1, 64),
		configs.In("salu.comparators", float64(c.SALU.Comparators), 0, 64),
		configs.In("salu.phv_inputs", float64(c.SALU.PHVInputs), 0, 64),
		configs.In("salu.phv_input_bits", float64(c.SALU.PHVInputBits), 1, 128),
		configs.In("salu.const_min", float64(c.SALU.ConstMin), -1<<20, 0),
		configs.In("salu.const_max", float64(c.SALU.ConstMax), 0, 1<<20),
		configs.In("salu.regfile_rows", float64(c.SALU.RegfileRows), 0, 64),
		configs.In("salu.ops_per_assignment", float64(c.SALU.OpsPerAssignment), 1, 64),
		configs.In("latency.stage_base", float64(c.Latency.StageBase), 1, 10000),
		configs.In("latency.tcam_extra", float64(c.Latency.TCAMExtra), 0, 10000),
		configs.In("latency.stateful_extra", float64(c.Latency.StatefulExtra), 0, 10000),
		configs.In("latency.meter_extra", float64(c.Latency.MeterExtra), 0, 10000),
		configs.In("latency.action_dep", float64(c.Latency.ActionDep), 1, 10000),
		configs.In("latency.concurrent", float64(c.Latency.Concurrent), 1, 10000),
		configs.In("latency.corner_turn_stage", float64(c.Latency.CornerTurnStage), 0, 64),
		configs.In("latency.corner_turn", float64(c.Latency.CornerTurn), 0, 10000),
		configs.In("latency.min_egress_mau", float64(c.Latency.MinEgressMAU), 0, 100000),
		configs.In("latency.parser_base", float64(c.Latency.ParserBase), 0, 10000),
		configs.In("latency.parser_per_state", float64(c.Latency.ParserPerState), 0, 10000),
		configs.In("latency.parser_window_bytes", float64(c.Latency.ParserWindowBytes), 1, 10000),
		configs.In("parser.tcam_rows", float64(c.Parser.TCAMRows), 1, 1<<20),
		configs.In("latency.deparser_base", float64(c.Latency.DeparserBase), 0, 10000),
		configs.In("latency.deparser_bytes_per_cycle", float64(c.Latency.DeparserBytesPerCycle), 1, 10000),
		configs.In("phv.tagalong_collections", float64(c.PHV.TagalongCollections), 0, 1024),
		configs.In("tm.buffer_bytes", float64(c.TM.BufferBytes), float64(c.TM.CellBytes), 1<<40).From("tm.cell_bytes", ""),
		configs.In("tm.cell_bytes", float64(c.TM.CellBytes), 1, 65536),
		configs.In("tm.queues_per_port", float64(c.TM.QueuesPerPort), 1, 1024),
		configs.In("tm.queue_limit_bytes", float64(c.TM.QueueLimitBytes), 1, 1<<40),
		configs.In("tm.dwrr_quantum_bytes", float64(c.TM.DWRRQuantumBytes), 64, 1<<20),
		configs.In("sonic.traffic_classes", float64(c.SONiC.TrafficClasses), 1, 256),
		configs.In("sonic.min_trim_size", float64(c.SONiC.MinTrimSize), 1, 16383),
		configs.In("sonic.max_trim_size", float64(c.SONiC.MaxTrimSize), float64(c.SONiC.MinTrimSize), 16383).From("sonic.min_trim_size", ""),
	}
	for i, name := range []string{"b8", "b16", "b32"} {
		s := c.PHV.Size(i)
		k := "phv." + name + "."
		checks = append(checks,
			configs.In(k+"containers", float64(s.Containers), 0, 4096),
			configs.In(k+"dark", float64(s.Dark), 0, float64(s.Containers)).From("", k+"containers"),
			configs.In(k+"mau_group", float64(s.MAUGroup), 1, 4096),
			configs.In(k+"ingress_only_groups", float64(s.IngressOnlyGroups), 0, 64),
			configs.In(k+"egress_only_groups", float64(s.EgressOnlyGroups), 0, 64),
			configs.In(k+"thread_group", float64(s.ThreadGroup), 1, 4096),
			configs.In(k+"tagalong", float64(s.Tagalong), 0, 4096),
			configs.In(k+"tagalong_per_collection", float64(s.TagalongPerCollection), 0, 4096))
	}
	if err := l.CheckRanges("tofino", checks); err != nil {
		return err
	}
	if _, err := packet.ParseArbitration(c.Arbitration); err != nil {
		return fmt.Errorf("%s: tofino.arbitration: %v", l.Origin("tofino.arbitration"), err)
	}
	if strings.TrimSpace(c.Name) == "" {
		return fmt.Errorf("%s: tofino.name: must not be empty (reports name the chip by it)", l.Origin("tofino.name"))
	}
	for i, name := range []string{"b8", "b16", "b32"} {
		s := c.PHV.Size(i)
		if s.IngressOnly()+s.EgressOnly() > s.Containers-s.Dark {
			return fmt.Errorf("%s: tofino.phv.%s: %d thread-only groups of %d exceed the %d parser-visible containers",
				l.Origin("tofino.phv."+name), name, s.IngressOnlyGroups+s.EgressOnlyGroups, s.MAUGroup, s.Containers-s.Dark)
		}
		if s.Tagalong > 0 && s.TagalongPerCollection == 0 {
			return fmt.Errorf("%s: tofino.phv.%s: tagalong containers need tagalong_per_collection > 0", l.Origin("tofino.phv."+name), name)
		}
	}
	for _, ml := range []struct {
		key  string
		list []string
	}{{"sonic.dscp_modes", c.SONiC.DSCPModes}, {"sonic.queue_modes", c.SONiC.QueueModes}} {
		key := ml.key
		allowed := map[string]bool{"DSCP_VALUE": key == "sonic.dscp_modes", "FROM_TC": key == "sonic.dscp_modes",
			"STATIC": key == "sonic.queue_modes", "DYNAMIC": key == "sonic.queue_modes"}
		for _, m := range ml.list {
			if !allowed[m] {
				return fmt.Errorf("%s: tofino.%s: unknown mode %q", l.Origin("tofino."+key), key, m)
			}
		}
	}
	switch c.ALU.Multiply {
	case "pow2_constant", "any":
	default:
		return fmt.Errorf("%s: tofino.alu.multiply must be pow2_constant or any, got %q", l.Origin("tofino.alu.multiply"), c.ALU.Multiply)
	}
	switch c.ALU.Shift {
	case "constant", "any":
	default:
		return fmt.Errorf("%s: tofino.alu.shift must be constant or any, got %q", l.Origin("tofino.alu.shift"), c.ALU.Shift)
	}
	return nil
}

// CyclePs returns the MAU clock period in picoseconds.
func (c *Config) CyclePs() float64 { return 1e6 / c.ClockMHz }

// CyclesToPs converts a cycle count to picoseconds (rounded).
func (c *Config) CyclesToPs(cycles int64) int64 {
	return int64(float64(cycles)*c.CyclePs() + 0.5)
}

// DevPort returns the device port id of a pipe-local port.
func (c *Config) DevPort(pipe, local int) int { return pipe*c.DevPortPipeStride + local }

// PipeOf returns the pipe of a device port.
func (c *Config) PipeOf(devPort int) int { return devPort / c.DevPortPipeStride }

// IsPktgenPort reports whether a device port is a packet-generator port
// of its pipe.
func (c *Config) IsPktgenPort(dp int) bool {
	if dp < 0 || c.PipeOf(dp) >= c.Pipes {
		return false
	}
	local := dp % c.DevPortPipeStride
	return local >= c.Pktgen.FirstLocalPort && local <= c.Pktgen.LastLocalPort
}

// RecircPort returns the device id of a pipe's recirculation port.
func (c *Config) RecircPort(pipe int) int { return c.DevPort(pipe, c.RecircLocalPort) }

// Gress is a thread of a pipe: ingress or egress. Each pipe runs both,
// sharing the pipe's stateful memory; the compiler places each thread's
// logical tables and the model runs each as a component of its own.
type Gress int

// Gresses.
const (
	Ingress Gress = iota
	Egress
)

func (g Gress) String() string { return [...]string{"ingress", "egress"}[g] }
