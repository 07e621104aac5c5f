package trio

import (
	"errors"
	"fmt"
	"strings"

	"archsim/arch"
	"archsim/arch/trio/lower"
	"archsim/arch/trio/spec"
	"archsim/programs"
)

// Chip is a Trio generation: the PFE model with a set of config files.
type Chip struct{ arch.ChipInfo }

// The Trio family.
var (
	Trio  = &Chip{arch.ChipInfo{ArchName: "trio", Description: "Juniper Trio 5 PFE (the Trio paper's MX480 testbed): run-to-completion PPE threads, shared memory with RMW engines", ConfigFiles: []string{"trio5.yaml"}}}
	Trio5 = &Chip{arch.ChipInfo{ArchName: "trio5", Description: "same as trio", ConfigFiles: []string{"trio5.yaml"}}}
	Trio6 = &Chip{arch.ChipInfo{ArchName: "trio6", Description: "Juniper Trio 6 slice: 1.2 GHz, 80 PPEs x 20 threads, 800 Gb/s", ConfigFiles: []string{"trio5.yaml", "trio6.yaml"}}}
)

// Knobs are the common what-ifs.
func (c *Chip) Knobs() []arch.Knob {
	return []arch.Knob{{Name: arch.KnobClockMHz, Key: "trio.clock_mhz", Doc: "PPE clock in MHz"}}
}

// Load merges the chip's config files with the overrides.
func (c *Chip) Load(o arch.Overrides) (arch.Target, error) {
	l, err := arch.LoadConfig(c, o)
	if err != nil {
		return nil, err
	}
	cfg, err := spec.LoadConfig(l)
	if err != nil {
		return nil, err
	}
	return &Target{chip: c, cfg: cfg}, nil
}

// LoadArch loads a Trio generation by name with key=value overrides:
// LoadArch("trio") is the Trio 5 PFE.
func LoadArch(name string, sets ...string) (*spec.Config, error) {
	for _, c := range []*Chip{Trio, Trio5, Trio6} {
		if c.ArchName == name {
			t, err := c.Load(arch.Overrides{Sets: sets})
			if err != nil {
				return nil, err
			}
			return t.(*Target).cfg, nil
		}
	}
	return nil, fmt.Errorf("unknown Trio architecture %q", name)
}

// Target is a Trio PFE with its configuration.
type Target struct {
	chip *Chip
	cfg  *spec.Config
}

// NewTarget wraps a loaded configuration as a target of a chip.
func NewTarget(c *Chip, cfg *spec.Config) *Target { return &Target{chip: c, cfg: cfg} }

// Arch is the name the chip was loaded as.
func (t *Target) Arch() string { return t.chip.ArchName }

// Name is the chip's name.
func (t *Target) Name() string { return t.cfg.Name }

// ClockMHz is the PPE clock.
func (t *Target) ClockMHz() float64 { return t.cfg.ClockMHz }

// Config is the PFE's configuration.
func (t *Target) Config() *spec.Config { return t.cfg }

// ProbesRate: a PFE's packet rate is measured at saturation.
func (t *Target) ProbesRate() bool { return true }

// Compile lowers the program to micro-instructions: a rule it breaks makes
// it not run.
func (t *Target) Compile(prog *programs.Program) (*arch.Compiled, error) {
	if prog == nil {
		return nil, fmt.Errorf("%s runs a data-plane program: give one", t.cfg.Name)
	}
	c := &arch.Compiled{Arch: t.chip.ArchName, Chip: t.cfg.Name, Program: prog}
	mc, err := lower.Lower(t.cfg, prog)
	if err != nil {
		var le *lower.LoweringError
		if !errors.As(err, &le) {
			return nil, err
		}
		c.Rule, c.Pos, c.Err = le.Rule, le.Pos, err
		c.Refusal = fmt.Sprintf("%s does not run on %s: %s", prog.Name, t.cfg.Name, oneLine(err.Error()))
		c.Structure = "-"
		return c, nil
	}
	c.Fits, c.Impl = true, mc
	c.Structure = fmt.Sprintf("%d micro-instructions", mc.StaticInstr)
	c.Resources = []arch.Resource{
		{Name: "Local memory", Used: float64(mc.LMEMBytes), Capacity: float64(t.cfg.LMEMBytes), Unit: "bytes"},
		{Name: "Registers", Used: float64(mc.RegistersUsed), Capacity: float64(t.cfg.Registers), Unit: "registers"},
		{Name: "Call depth", Used: float64(mc.CallDepth), Capacity: float64(t.cfg.Instr.CallDepth), Unit: "calls"},
		{Name: "SRAM", Used: float64(mc.SRAMBytes), Capacity: float64(t.cfg.SMem.SRAMBytes), Unit: "bytes"},
		{Name: "DRAM", Used: float64(mc.DRAMBytes), Capacity: float64(t.cfg.SMem.DRAMBytes), Unit: "bytes"},
	}
	for _, b := range mc.Blocks {
		c.Units = append(c.Units, arch.Unit{Name: b.Name, Items: []string{fmt.Sprintf("%d instructions", b.Instr)}})
	}
	return c, nil
}

// Lowered is the microcode of a compiled program (nil if it does not run).
func Lowered(c *arch.Compiled) *lower.Microcode {
	m, _ := c.Impl.(*lower.Microcode)
	return m
}

// FrontPorts is the PFE's ports, 0..ports-1.
func (t *Target) FrontPorts() []int {
	out := make([]int, t.cfg.Ports)
	for i := range out {
		out[i] = i
	}
	return out
}

// Build assembles a PFE running the lowered program.
func (t *Target) Build(s arch.BuildSpec) (arch.Switch, error) {
	mc := Lowered(s.Compiled)
	if mc == nil {
		return nil, fmt.Errorf("%s: the program was not lowered", t.cfg.Name)
	}
	name := s.Name
	if name == "" {
		name = "Trio.PFE"
	}
	return MakeBuilder().WithEngine(s.Engine).WithConfig(t.cfg).WithMicrocode(mc).WithSeed(s.Seed).WithUnpaced(s.Unpaced).WithThreadStats(s.ThreadStats).Build(name), nil
}

// Report is the main job's report of a lowered program and its measurement
// (nil: lowering only).
func (t *Target) Report(c *arch.Compiled, m *arch.Measurement, seed int64) arch.Report {
	if !c.Fits {
		return FailedReport(arch.HeadOf(c), t.cfg)
	}
	return NewReport(arch.HeadOf(c), t.cfg, Lowered(c), RunResultOf(m), seed)
}

// Summary is the chip-neutral view compare prints: the packet rate is
// measured at saturation.
func (t *Target) Summary(c *arch.Compiled, m *arch.Measurement) arch.Summary {
	r := arch.Summary{Arch: t.chip.ArchName, Chip: t.cfg.Name, Structure: c.Structure,
		StatefulNote: "shared memory: any thread, any number of accesses (RMW engines serialise per address)",
		Timers:       trioTimers(c.Program, t.cfg.Timers)}
	if !c.Fits {
		r.Why = oneLine(c.Err.Error())
		return r
	}
	mc := Lowered(c)
	r.Fits = true
	r.StaticInstr = mc.StaticInstr
	run := RunResultOf(m)
	if run == nil {
		return r
	}
	r.InstrPerPkt = run.Ingress.Instructions.Mean + run.Egress.Instructions.Mean
	r.Structure = fmt.Sprintf("%d micro-instructions; %.1f run per packet", r.StaticInstr, r.InstrPerPkt)
	r.LatencyMeanNs = run.Ingress.LatencyNs.Mean + run.Egress.LatencyNs.Mean
	r.LatencyP99Ns = run.Ingress.LatencyNs.P99 + run.Egress.LatencyNs.P99
	if run.Saturation != nil {
		r.RateMpps = run.Saturation.RateMpps
		r.RateNote = "measured at saturation, bound by " + run.Saturation.Binding
	}
	return r
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// trioTimers says what periodic work a program asks of the chip's timers.
func trioTimers(p *programs.Program, capacity int) string {
	if p == nil || len(p.Timers) == 0 {
		return fmt.Sprintf("none used (the chip's %d timers can start threads periodically)", capacity)
	}
	return fmt.Sprintf("%d of the chip's %d timers start threads periodically", len(p.Timers), capacity)
}
