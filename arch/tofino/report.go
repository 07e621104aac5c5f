package tofino

import (
	"archsim/components/stats"
)

// Report is what `archsim --arch tofino --program P` prints, as one JSON
// object. Its keys are a contract (README "Output"): keep them stable.
type Report struct {
	Arch        string         `json:"arch"`
	Chip        string         `json:"chip"`
	Program     string         `json:"program"`
	ProgramFile string         `json:"program_file"`
	Feasible    bool           `json:"feasible"`
	Errors      []string       `json:"errors"`
	Rule        string         `json:"rule,omitempty"`
	StagesUsed  int            `json:"stages_used"`
	StagesTotal int            `json:"stages_total"`
	Resources   Percent        `json:"resources"`
	Units       Resources      `json:"resource_units"`
	Capacity    Resources      `json:"resource_capacity_per_stage"`
	PerStage    []StageReport  `json:"per_stage"`
	MAUCycles   ThreadCycles   `json:"mau_cycles"`
	Latency     *LatencyReport `json:"latency,omitempty"`
	Simulation  *RunResult     `json:"simulation,omitempty"`
	ClockMHz    float64        `json:"clock_mhz"`
	Seed        int64          `json:"seed"`
}

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
	Stage      int          `json:"stage"`
	Ingress    []LTReport   `json:"ingress"`
	Egress     []LTReport   `json:"egress"`
	Objects    []string     `json:"objects"`
	Resources  Resources    `json:"resources"`
	Dependency [2]string    `json:"dependency"` // ingress, egress: what separates this stage from the previous one
	Cycles     ThreadCycles `json:"pipeline_cycles"`
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
func uses(lt *LT) []string {
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
func NewReport(arch string, p *Placement, r *RunResult, seed int64) *Report {
	c := p.Chip
	rep := &Report{
		Arch: arch, Chip: c.Name, Program: p.Prog.Name, ProgramFile: p.Prog.File,
		Feasible: true, Errors: []string{},
		StagesUsed: p.StagesUsed, StagesTotal: c.MAU.Stages,
		Resources: p.Pct, Units: p.Totals,
		Capacity: Resources{SRAM: c.MAU.SRAMBlocks, MapRAM: c.MAU.MapRAMs, TCAM: c.MAU.TCAMBlocks,
			ExactXbar: c.MAU.ExactXbarBytes, TernaryXbar: c.MAU.TernaryXbarBytes, HashBits: c.MAU.HashBits,
			HashDist: c.MAU.HashDistUnits, Gateways: c.MAU.Gateways, LogicalIDs: c.MAU.LogicalTables,
			TernaryTables: c.MAU.TernaryTables, VLIW: c.MAU.VLIWRows, MeterALU: c.MAU.MeterALUs, StatsALU: c.MAU.StatsALUs},
		MAUCycles: ThreadCycles{Ingress: p.MAUCycles[Ingress], Egress: p.MAUCycles[Egress]},
		ClockMHz:  c.ClockMHz, Seed: seed,
	}
	for _, st := range p.Stages {
		sr := StageReport{Stage: st.Index, Objects: append([]string{}, st.Objects...), Resources: st.Res,
			Ingress: []LTReport{}, Egress: []LTReport{},
			Cycles: ThreadCycles{Ingress: st.PipeLen[Ingress], Egress: st.PipeLen[Egress]}}
		for g := 0; g < 2; g++ {
			sr.Dependency[g] = st.Dep[g].String()
			for _, lt := range sortedLTs(st.LTs[g]) {
				kind := lt.Kind.String()
				if lt.merged {
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
func FailedReport(arch string, c *Config, progName, file string, err error) *Report {
	rep := &Report{Arch: arch, Chip: c.Name, Program: progName, ProgramFile: file, Feasible: false,
		Errors: []string{err.Error()}, StagesTotal: c.MAU.Stages, PerStage: []StageReport{}, ClockMHz: c.ClockMHz}
	if pe, ok := err.(*PlacementError); ok {
		rep.Rule = string(pe.Rule)
	}
	return rep
}
