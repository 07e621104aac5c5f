package experiments

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/arch/controlplane"
	"archsim/components/aqm/pie"
	"archsim/programs"
)

// controlLoop is a control-plane program running on the CPU beside the
// bottleneck switch.
type controlLoop interface {
	updates() int
	periodUs() float64
	failed() error
}

// delayRegUnitPs is what the controller takes one unit of the PIE
// programs' 16-bit delay register to be. The register holds bits [25:10]
// of a nanosecond difference (1.024 us units); pie-for-tofino's
// controller, like the paper's §VI.A ("microsecond resolution"), reads them
// as microseconds, and so does this one.
const delayRegUnitPs = 1000 * 1000

// pieCP is PIE_CP's controller (PIE paper §VI.B; pie-for-tofino
// run_controlplane_pie.cpp): a loop on the switch CPU that sleeps t_update,
// reads the queueing delay the egress stored in delay_reg, computes RFC
// 8033's drop_prob update (scaling, cap, decay) and writes drop_prob_reg and
// its duplicate. Its period is t_update plus what the operations cost.
type pieCP struct {
	cpu   *controlplane.CPU
	pie   *pie.PIE
	loop  *controlplane.LoopStats
	count int
	err   error
}

func (c *pieCP) updates() int { return c.count }

func (c *pieCP) failed() error {
	if c.err != nil {
		return c.err
	}
	return c.cpu.Err()
}

func (c *pieCP) periodUs() float64 { return c.loop.MeanPeriodPs() / 1e6 }

// startControl starts a variant's control-plane program on a CPU beside
// sw. ready runs when its start-up work is done (at once for a program
// without any): PIE_TABLE's fill must be installed before traffic starts.
func startControl(name string, sw arch.Switch, eng sim.Engine, deadline int64, ready func()) (controlLoop, error) {
	if name == "" {
		ready()
		return nil, nil
	}
	cp, ok := sw.(arch.ControlPlane)
	if !ok {
		return nil, fmt.Errorf("%s has no control plane", sw.Name())
	}
	cpu, err := controlplane.MakeBuilder().WithEngine(eng).WithSwitch(cp).Build(sw.Name() + ".CPU")
	if err != nil {
		return nil, err
	}
	spec, tuning, params, err := pie.Tofino()
	if err != nil {
		return nil, err
	}
	switch name {
	case "pie-cp":
		c := &pieCP{cpu: cpu}
		if c.pie, err = pie.New(params); err != nil {
			return nil, err
		}
		sleep := int64(math.Round(spec.TUpdateUs * 1e6))
		c.loop, err = cpu.Loop("pie-cp", sleep, deadline, func(next func()) {
			err := cpu.ReadRegister("delay_reg", 0, func(v int64) {
				c.pie.Update(v * delayRegUnitPs)
				c.count++
				p := int64(math.Round(math.Min(math.Max(c.pie.Prob(), 0), 1) * controlplane.MaxProb))
				_ = cpu.WriteRegister("drop_prob_reg", 0, p, nil)
				_ = cpu.WriteRegister("drop_prob_reg_duplicate", 0, p, next)
			})
			if err != nil && c.err == nil {
				c.err = err
			}
		})
		if err != nil {
			return nil, err
		}
		ready()
		return c, nil
	case "pie-table", "pie-table-p4t":
		// pie-table-p4t fills the table as pie-for-tofino's
		// pie_table_fill.py does: each range stands for hi + lo/2 (an
		// operator-precedence slip for the midpoint), which makes most
		// updates about 1.5 times larger.
		rep := controlplane.Midpoint
		if name == "pie-table-p4t" {
			rep = controlplane.PieForTofino
		}
		_, err := controlplane.FillPieTable(cpu, controlplane.PieTable{Alpha: tuning.AlphaScaled, Beta: tuning.BetaScaled, Representative: rep}, ready)
		if err != nil {
			return nil, err
		}
		return nil, nil
	}
	return nil, fmt.Errorf("unknown control-plane program %q", name)
}

// controlNeeds is what each control-plane program reads and writes in the
// switch's program.
var controlNeeds = map[string]struct{ registers, tables []string }{
	"pie-cp":        {registers: []string{"delay_reg", "drop_prob_reg", "drop_prob_reg_duplicate"}},
	"pie-table":     {tables: []string{"alpha_range", "beta_range", "compute_drop_probability_update"}},
	"pie-table-p4t": {tables: []string{"alpha_range", "beta_range", "compute_drop_probability_update"}},
}

// aqmFits checks a variant's aqm section against the bottleneck switch's
// program before any run: the drop-probability register, the update
// actions, and what its control-plane program touches.
func aqmFits(a *VariantAQM, prog *programs.Program) error {
	if a.Register != "" && prog.Register(a.Register) == nil {
		return fmt.Errorf("register: program %s has no register %q", prog.Name, a.Register)
	}
	for _, u := range a.Updates {
		reg, act, ok := cutDot(u)
		r := prog.Register(reg)
		if !ok || r == nil || !slices.ContainsFunc(r.Actions, func(x *programs.RegisterAction) bool { return x.Name == act }) {
			return fmt.Errorf("updates: %q is not a register action of program %s", u, prog.Name)
		}
	}
	need := controlNeeds[a.Control]
	for _, r := range need.registers {
		if prog.Register(r) == nil {
			return fmt.Errorf("control %s: program %s has no register %s (it reads or writes %s)", a.Control, prog.Name, r, strings.Join(need.registers, ", "))
		}
	}
	for _, t := range need.tables {
		if prog.Table(t) == nil {
			return fmt.Errorf("control %s: program %s has no table %s (it reads or writes %s)", a.Control, prog.Name, t, strings.Join(need.tables, ", "))
		}
	}
	return nil
}
