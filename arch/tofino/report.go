package tofino

import (
	"fmt"
	"sort"

	"archsim/arch"
	"archsim/arch/tofino/compiler"
	"archsim/arch/tofino/spec"
	"archsim/components/stats"
)

// Report is what `archsim --arch tofino --program P` prints, as one JSON
// object. Its keys are a contract (README "Output"): keep them stable.
type Report struct {
	arch.ReportHead
	StagesUsed  int                 `json:"stages_used"`
	StagesTotal int                 `json:"stages_total"`
	Resources   compiler.Percent    `json:"resources"`
	Units       compiler.Resources  `json:"resource_units"`
	Capacity    compiler.Resources  `json:"resource_capacity_per_stage"`
	PerStage    []StageReport       `json:"per_stage"`
	MAUCycles   ThreadCycles        `json:"mau_cycles"`
	PHV         *compiler.PHVUse    `json:"phv,omitempty"`    // PHV containers per thread and width (nil: not placed)
	Parser      *compiler.ParserUse `json:"parser,omitempty"` // parser TCAM rows (a lower bound) of each gress's parser (nil: not placed)
	Latency     *LatencyReport      `json:"latency,omitempty"`
	Simulation  *RunResult          `json:"simulation,omitempty"`
	ClockMHz    float64             `json:"clock_mhz"`
	Seed        int64               `json:"seed"`
	place       *compiler.Placement
}

// JSON is the object --json prints.
func (r *Report) JSON() any { return r }

// ThreadCycles is a per-thread cycle count.
type ThreadCycles struct {
	Ingress int `json:"ingress"`
	Egress  int `json:"egress"`
}

// LatencyReport is the measured per-packet latency through each pipeline
// thread (parser + MAU + deparser, including the wait for an issue slot).
type LatencyReport struct {
	IngressNs     stats.Summary `json:"ingress_ns"`
	EgressNs      stats.Summary `json:"egress_ns"`
	IngressCycles stats.Summary `json:"ingress_cycles"`
	EgressCycles  stats.Summary `json:"egress_cycles"`
}

// StageReport is one MAU stage of the placement.
type StageReport struct {
	Stage      int                `json:"stage"`
	Ingress    []LTReport         `json:"ingress"`
	Egress     []LTReport         `json:"egress"`
	Objects    []string           `json:"objects"`
	Resources  compiler.Resources `json:"resources"`
	Dependency [2]string          `json:"dependency"` // ingress, egress: what separates this stage from the previous one
	Cycles     ThreadCycles       `json:"pipeline_cycles"`
}

// LTReport is one logical table in a stage.
type LTReport struct {
	Name string   `json:"name"`
	Kind string   `json:"kind"`
	Line int      `json:"line"`
	Uses []string `json:"uses"` // register actions, meters, counters
	Why  string   `json:"why"`
}

// uses lists the stateful objects a logical table touches.
func uses(lt *compiler.LT) []string {
	out := []string{}
	for _, r := range lt.Regs {
		out = append(out, r.RA.Register.Name+"."+r.RA.Name)
	}
	for _, m := range lt.Meters {
		out = append(out, "meter "+m.Name)
	}
	for _, c := range lt.Counters {
		out = append(out, "counter "+c.Name)
	}
	return out
}

// NewReport summarizes a placement (and, if run, its measurement).
func NewReport(head arch.ReportHead, p *compiler.Placement, r *RunResult, seed int64) *Report {
	c := p.Chip
	rep := &Report{ReportHead: head,
		StagesUsed: p.StagesUsed, StagesTotal: c.MAU.Stages,
		Resources: p.Pct, Units: p.Totals,
		Capacity: compiler.Resources{SRAM: c.MAU.SRAMBlocks, MapRAM: c.MAU.MapRAMs, TCAM: c.MAU.TCAMBlocks,
			ExactXbar: c.MAU.ExactXbarBytes, TernaryXbar: c.MAU.TernaryXbarBytes, HashBits: c.MAU.HashBits,
			HashDist: c.MAU.HashDistUnits, Gateways: c.MAU.Gateways, LogicalIDs: c.MAU.LogicalTables,
			TernaryTables: c.MAU.TernaryTables, VLIW: c.MAU.VLIWRows, MeterALU: c.MAU.MeterALUs, StatsALU: c.MAU.StatsALUs},
		MAUCycles: ThreadCycles{Ingress: p.MAUCycles[spec.Ingress], Egress: p.MAUCycles[spec.Egress]},
		PHV:       p.PHV,
		Parser:    &p.Parser,
		ClockMHz:  c.ClockMHz, Seed: seed, place: p,
	}
	for _, st := range p.Stages {
		sr := StageReport{Stage: st.Index, Objects: append([]string{}, st.Objects...), Resources: st.Res,
			Ingress: []LTReport{}, Egress: []LTReport{},
			Cycles: ThreadCycles{Ingress: st.PipeLen[spec.Ingress], Egress: st.PipeLen[spec.Egress]}}
		for g := 0; g < 2; g++ {
			sr.Dependency[g] = st.Dep[g].String()
			for _, lt := range sortedLTs(st.LTs[g]) {
				kind := lt.Kind.String()
				if lt.Merged {
					kind += " (merged)"
				}
				l := LTReport{Name: lt.Name, Kind: kind, Line: lt.Pos.Line, Uses: uses(lt), Why: lt.Why}
				if g == 0 {
					sr.Ingress = append(sr.Ingress, l)
				} else {
					sr.Egress = append(sr.Egress, l)
				}
			}
		}
		rep.PerStage = append(rep.PerStage, sr)
	}
	if r != nil {
		rep.Simulation = r
		rep.Latency = &LatencyReport{
			IngressNs: r.Ingress.LatencyNs, EgressNs: r.Egress.LatencyNs,
			IngressCycles: r.Ingress.LatencyCycles, EgressCycles: r.Egress.LatencyCycles,
		}
	}
	return rep
}

// FailedReport is the report of a program that cannot be placed.
func FailedReport(head arch.ReportHead, c *Config) *Report {
	return &Report{ReportHead: head, StagesTotal: c.MAU.Stages, PerStage: []StageReport{}, ClockMHz: c.ClockMHz}
}

// Report is the main job's report of a compiled program and its
// measurement (nil: placement only).
func (t *Target) Report(c *arch.Compiled, m *arch.Measurement, seed int64) arch.Report {
	if !c.Fits {
		return FailedReport(arch.HeadOf(c), t.cfg)
	}
	return NewReport(arch.HeadOf(c), Placed(c), RunResultOf(m), seed)
}

// RunResultOf is the latency run's outcome, from the switch's statistics
// (nil without a measurement).
func RunResultOf(m *arch.Measurement) *RunResult {
	if m == nil || m.Latency == nil {
		return nil
	}
	run := m.Latency
	sw := run.Switch.(*Switch)
	r := &RunResult{Offered: run.Offered, Copies: sw.Copies, Delivered: sw.Delivered, Replicated: sw.Replicated, Events: run.Events,
		SimulatedNs: run.SimulatedNs}
	for g, ts := range []*ThreadSummary{&r.Ingress, &r.Egress} {
		var lat, wait stats.Samples
		for _, u := range sw.pipes {
			th := u.ingress
			if g == 1 {
				th = u.egress
			}
			ts.Packets += th.Stats.Packets
			ts.ParserDrops += th.Stats.ParserDrops
			ts.ProgramDrops += th.Stats.ProgramDrops
			lat.Merge(&th.Stats.Latency)
			wait.Merge(&th.Stats.WaitPs)
		}
		ts.LatencyNs = lat.Summarize(1000)
		ts.LatencyCycles = lat.Summarize(sw.cfg.CyclePs())
		ts.WaitNs = wait.Summarize(1000)
	}
	r.EndToEndNs = sw.E2E.Summarize(1000)
	r.Drops = sw.Drops()
	if n := sw.tm.Queued(); n > 0 {
		// Not dropped: still in a queue when the run ended (a
		// self-replenishing queue always holds one).
		r.Drops = append(r.Drops, DropCount{Reason: "still queued at the end of the run", Packets: n})
		sort.Slice(r.Drops, func(i, j int) bool { return r.Drops[i].Reason < r.Drops[j].Reason })
	}
	r.TM = sw.tm.Stats
	return r
}

// Summary is the chip-neutral view compare prints: a pipeline accepts
// packets_per_cycle packets per cycle per pipe, whatever the program does
// (if it fits); a program that recirculates spends that many passes per
// packet (measured: ingress passes per offered packet).
func (t *Target) Summary(c *arch.Compiled, m *arch.Measurement) arch.Summary {
	cfg := t.cfg
	r := arch.Summary{Arch: t.chip.ArchName, Chip: cfg.Name, Structure: c.Structure,
		StatefulNote: "registers are stage-local: one access per pass",
		Timers:       "none in the data plane (the packet generator injects packets; timeouts need the control plane)"}
	if !c.Fits {
		r.Why = oneLine(c.Err.Error())
		return r
	}
	place := Placed(c)
	r.Fits = true
	r.StagesUsed, r.StagesTotal = place.StagesUsed, cfg.MAU.Stages
	r.RateMpps = float64(cfg.Pipes*cfg.PacketsPerCycle) * cfg.ClockMHz
	r.RateNote = "pipelines: one packet per cycle per pipe, any program that fits"
	run := RunResultOf(m)
	if run == nil {
		return r
	}
	r.LatencyMeanNs = run.Ingress.LatencyNs.Mean + run.Egress.LatencyNs.Mean
	r.LatencyP99Ns = run.Ingress.LatencyNs.P99 + run.Egress.LatencyNs.P99
	if passes := float64(run.Ingress.Packets) / float64(max(1, run.Offered)); passes > 1.001 {
		r.Recirculates = true
		r.RateMpps /= passes
		r.RateNote = fmt.Sprintf("one pass per cycle per pipe over %.2f measured passes per packet (recirculation); the %g Gb/s recirculation ports may bind lower", passes, cfg.RecircGbps)
	}
	return r
}

// sortedLTs returns a stage's logical tables of a thread in program order.
func sortedLTs(lts []*compiler.LT) []*compiler.LT {
	out := append([]*compiler.LT(nil), lts...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
