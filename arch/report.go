package arch

import (
	"fmt"
	"io"
	"strings"

	"archsim/internal/tables"
	"archsim/programs"
)

// CompiledReport is the main job's report of a chip that has no report of
// its own: the compiled program's fit, resources and units, and, if it was
// simulated, what the latency harness counted.
type CompiledReport struct {
	C *Compiled
	M *Measurement
}

type compiledJSON struct {
	ReportHead
	Structure  string     `json:"structure"`
	Resources  []Resource `json:"resources"`
	Units      []Unit     `json:"units"`
	Simulation *simJSON   `json:"simulation,omitempty"`
}

type simJSON struct {
	Offered     int         `json:"offered"`
	Delivered   int         `json:"delivered"`
	Drops       []DropCount `json:"drops"`
	Events      int64       `json:"events"`
	SimulatedNs float64     `json:"simulated_ns"`
}

// JSON is the report as one object.
func (r *CompiledReport) JSON() any {
	c := r.C
	j := &compiledJSON{ReportHead: HeadOf(c), Structure: c.Structure, Resources: append([]Resource{}, c.Resources...), Units: append([]Unit{}, c.Units...)}
	if r.M != nil && r.M.Latency != nil {
		run := r.M.Latency
		cnt := run.Switch.Counters()
		j.Simulation = &simJSON{Offered: run.Offered, Delivered: cnt.Delivered, Drops: cnt.Drops, Events: run.Events, SimulatedNs: run.SimulatedNs}
	}
	return j
}

// WriteTables prints the fit, the resource table, the units and the
// simulation's counts.
func (r *CompiledReport) WriteTables(w io.Writer) {
	c := r.C
	name := "(no program)"
	if c.Program != nil {
		name = c.Program.Name
	}
	fmt.Fprintf(w, "%s on %s: %s\n", name, c.Chip, c.Structure)
	if len(c.Resources) > 0 {
		fmt.Fprintln(w, "\nResources:")
		t := tables.New(w, "Resource", "Used", "Capacity", "Unit", "Share")
		for _, res := range c.Resources {
			t.Row(res.Name, fmt.Sprintf("%g", res.Used), fmt.Sprintf("%g", res.Capacity), res.Unit, fmt.Sprintf("%.1f %%", res.Pct()))
		}
		t.Render()
	}
	if len(c.Units) > 0 {
		fmt.Fprintln(w, "\nUnits:")
		t := tables.New(w, "Unit", "Holds")
		for _, u := range c.Units {
			t.Row(u.Name, strings.Join(u.Items, ", "))
		}
		t.Render()
	}
	if r.M != nil && r.M.Latency != nil {
		run := r.M.Latency
		cnt := run.Switch.Counters()
		fmt.Fprintf(w, "\nSimulation: %d packets offered, %d delivered, %d Akita events, %.0f ns simulated\n", run.Offered, cnt.Delivered, run.Events, run.SimulatedNs)
	}
}

// NoControl is the control plane of a switch that runs no program.
type NoControl struct{}

// Program is nil: no program.
func (NoControl) Program() *programs.Program { return nil }

// WriteTable fails: there are no tables.
func (NoControl) WriteTable(name string, _ []*programs.Entry) error {
	return fmt.Errorf("table %s: the switch runs no program", name)
}

// ReadRegister fails: there are no registers.
func (NoControl) ReadRegister(name string, _ int) (int64, error) {
	return 0, fmt.Errorf("register %s: the switch runs no program", name)
}

// WriteRegister fails: there are no registers.
func (NoControl) WriteRegister(name string, _ int, _ int64) error {
	return fmt.Errorf("register %s: the switch runs no program", name)
}

// CounterValue is 0: there are no counters.
func (NoControl) CounterValue(string, int) int64 { return 0 }

// ReportHead is the first keys of every chip's main-job report (a JSON
// contract): what ran, and whether it fits or the rule it breaks. A
// family's report embeds it first.
type ReportHead struct {
	Arch        string   `json:"arch"`
	Chip        string   `json:"chip"`
	Program     string   `json:"program"`
	ProgramFile string   `json:"program_file"`
	Feasible    bool     `json:"feasible"`
	Errors      []string `json:"errors"`
	Rule        string   `json:"rule,omitempty"`
}

// HeadOf is a compiled program's report head.
func HeadOf(c *Compiled) ReportHead {
	h := ReportHead{Arch: c.Arch, Chip: c.Chip, Feasible: c.Fits, Errors: []string{}, Rule: c.Rule}
	if c.Program != nil {
		h.Program, h.ProgramFile = c.Program.Name, c.Program.File
	}
	if c.Err != nil {
		h.Errors = append(h.Errors, c.Err.Error())
	}
	return h
}
