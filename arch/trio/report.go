package trio

import (
	"archsim/arch"

	"archsim/arch/trio/lower"
	"archsim/arch/trio/spec"
	"archsim/components/stats"
)

// Report is the main job's result for a Trio PFE (its JSON keys are a
// contract, documented in the README).
type Report struct {
	arch.ReportHead
	Instructions *InstrReport      `json:"instructions,omitempty"`
	XTXNSites    map[string]int    `json:"xtxn_sites,omitempty"`
	XTXNPerPkt   map[string]XTXNPP `json:"xtxn_per_packet,omitempty"`
	Memory       *MemReport        `json:"memory,omitempty"`
	NonAtomic    []string          `json:"non_atomic_register_actions,omitempty"`
	Notes        []string          `json:"notes,omitempty"`
	Latency      *LatencyReport    `json:"latency,omitempty"`
	Rate         *Saturation       `json:"rate,omitempty"`
	Simulation   *SimReport        `json:"simulation,omitempty"`
	Timers       *TimerSummary     `json:"timers,omitempty"`
	ClockMHz     float64           `json:"clock_mhz"`
	Seed         int64             `json:"seed"`
}

// JSON is the object --json prints.
func (r *Report) JSON() any { return r }

// XTXNPP is the mean transactions per packet by kind, per gress.
type XTXNPP = map[string]float64

// InstrReport is the instruction counts.
type InstrReport struct {
	Static    int                      `json:"static"`
	Blocks    []lower.Block            `json:"blocks"`
	PerPacket map[string]stats.Summary `json:"per_packet,omitempty"` // ingress, egress
	CallDepth int                      `json:"call_depth"`
}

// MemReport is the local and shared memory use.
type MemReport struct {
	HeadBytes     int                `json:"head_bytes"`
	LMEMBytes     int                `json:"lmem_bytes"`
	LMEMCapacity  int                `json:"lmem_capacity"`
	RegistersUsed int                `json:"registers_used"`
	MetadataBits  int                `json:"metadata_bits"`
	SRAMBytes     int64              `json:"sram_bytes"`
	DRAMBytes     int64              `json:"dram_bytes"`
	Objects       []*lower.MemObject `json:"objects"`
}

// LatencyReport is the measured per-packet time in the PFE: from arrival
// at the dispatcher to release by the reorder engine, per gress.
type LatencyReport struct {
	IngressNs   stats.Summary `json:"ingress_ns"`
	EgressNs    stats.Summary `json:"egress_ns"`
	WaitNs      stats.Summary `json:"wait_for_thread_ns"`
	ThreadNs    float64       `json:"thread_ns_per_packet"`
	EndToEndNs  stats.Summary `json:"end_to_end_ns"`
	InstrPerPkt float64       `json:"instructions_per_packet"`
}

// SimReport is the latency run's bookkeeping.
type SimReport struct {
	Offered     int          `json:"offered"`
	Delivered   int          `json:"delivered"`
	Drops       []DropCount  `json:"drops"`
	Events      int64        `json:"events"`
	EventsPerPk float64      `json:"events_per_packet"`
	SimulatedNs float64      `json:"simulated_ns"`
	PortsBeyond *PortsBeyond `json:"ports_beyond_pfe,omitempty"`
}

// NewReport builds the report of a lowered program and, if run is set, its
// measurements.
func NewReport(head arch.ReportHead, cfg *spec.Config, mc *lower.Microcode, run *RunResult, seed int64) *Report {
	r := &Report{ReportHead: head, ClockMHz: cfg.ClockMHz, Seed: seed, XTXNSites: mc.XTXNSites, NonAtomic: mc.NonAtomic, Notes: mc.Notes}
	r.Instructions = &InstrReport{Static: mc.StaticInstr, Blocks: mc.Blocks, CallDepth: mc.CallDepth}
	r.Memory = &MemReport{HeadBytes: mc.HeadBytes, LMEMBytes: mc.LMEMBytes, LMEMCapacity: cfg.LMEMBytes, RegistersUsed: mc.RegistersUsed,
		MetadataBits: mc.MetaBits, SRAMBytes: mc.SRAMBytes, DRAMBytes: mc.DRAMBytes, Objects: mc.Memory}
	if run != nil {
		r.Instructions.PerPacket = map[string]stats.Summary{"ingress": run.Ingress.Instructions}
		r.XTXNPerPkt = map[string]XTXNPP{"ingress": run.Ingress.XTXNPerPacket}
		if run.Egress.Packets > 0 {
			r.Instructions.PerPacket["egress"] = run.Egress.Instructions
			r.XTXNPerPkt["egress"] = run.Egress.XTXNPerPacket
		}
		r.Latency = &LatencyReport{IngressNs: run.Ingress.LatencyNs, EgressNs: run.Egress.LatencyNs, WaitNs: run.Ingress.WaitNs,
			ThreadNs: run.Ingress.ThreadNs + run.Egress.ThreadNs, EndToEndNs: run.EndToEndNs,
			InstrPerPkt: run.Ingress.Instructions.Mean + run.Egress.Instructions.Mean}
		r.Rate = run.Saturation
		r.Timers = run.Timers
		r.Simulation = &SimReport{Offered: run.Offered, Delivered: run.Delivered, Drops: run.Drops, Events: run.Events, SimulatedNs: run.SimulatedNs,
			PortsBeyond: run.PortsBeyond}
		if run.Offered > 0 {
			r.Simulation.EventsPerPk = float64(run.Events) / float64(run.Offered)
		}
	}
	return r
}

// FailedReport is the report of a program the PFE cannot run.
func FailedReport(head arch.ReportHead, cfg *spec.Config) *Report {
	return &Report{ReportHead: head, ClockMHz: cfg.ClockMHz}
}
