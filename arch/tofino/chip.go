package tofino

import (
	"errors"
	"fmt"
	"strings"

	"archsim/arch"
	"archsim/arch/tofino/compiler"
	"archsim/arch/tofino/spec"
	"archsim/programs"
)

// Chip is a Tofino-family architecture name: the one model with a set of
// config files.
type Chip struct{ arch.ChipInfo }

// The Tofino family.
var (
	Tofino1 = &Chip{arch.ChipInfo{ArchName: "tofino", Description: "Intel Tofino 1: 4 pipes x 12 MAU stages, 16 x 100G per pipe", ConfigFiles: []string{"tofino.yaml"}}}
	Tofino2 = &Chip{arch.ChipInfo{ArchName: "tofino2", Description: "Intel Tofino 2: 20 stages, ghost thread (ingress queue visibility)", ConfigFiles: []string{"tofino.yaml", "tofino2.yaml"}}}
)

// Knobs are the common what-ifs.
func (c *Chip) Knobs() []arch.Knob {
	return []arch.Knob{
		{Name: arch.KnobStages, Key: "tofino.mau.stages", Doc: "MAU stages"},
		{Name: arch.KnobSALUsPerStage, Key: "tofino.mau.meter_alus", Doc: "stateful (meter) ALUs per stage"},
		{Name: arch.KnobClockMHz, Key: "tofino.clock_mhz", Doc: "MAU clock in MHz"},
	}
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

// Config is a Tofino-family chip description (configs/tofino.yaml): the
// chip the compiler places for and the model simulates.
type Config = spec.Config

// LoadArch loads a Tofino-family chip by name with key=value overrides.
func LoadArch(name string, sets ...string) (*Config, error) {
	for _, c := range []*Chip{Tofino1, Tofino2} {
		if c.ArchName == name {
			t, err := c.Load(arch.Overrides{Sets: sets})
			if err != nil {
				return nil, err
			}
			return t.(*Target).cfg, nil
		}
	}
	return nil, fmt.Errorf("unknown Tofino architecture %q", name)
}

// Target is a Tofino-family chip with its configuration.
type Target struct {
	chip *Chip
	cfg  *Config
}

// NewTarget wraps a loaded configuration as a target of a chip.
func NewTarget(c *Chip, cfg *Config) *Target { return &Target{chip: c, cfg: cfg} }

// Arch is the name the chip was loaded as.
func (t *Target) Arch() string { return t.chip.ArchName }

// Name is the chip's name.
func (t *Target) Name() string { return t.cfg.Name }

// ClockMHz is the MAU clock.
func (t *Target) ClockMHz() float64 { return t.cfg.ClockMHz }

// Config is the chip's configuration.
func (t *Target) Config() *Config { return t.cfg }

// Compile places the program: a rule it breaks makes it not fit.
func (t *Target) Compile(prog *programs.Program) (*arch.Compiled, error) {
	if prog == nil {
		return nil, fmt.Errorf("%s runs a data-plane program: give one", t.cfg.Name)
	}
	c := &arch.Compiled{Arch: t.chip.ArchName, Chip: t.cfg.Name, Program: prog}
	place, err := compiler.Place(t.cfg, prog)
	if err != nil {
		var pe *compiler.PlacementError
		if !errors.As(err, &pe) {
			return nil, err
		}
		c.Rule, c.Pos, c.Err = string(pe.Rule), pe.Pos, err
		c.Refusal = fmt.Sprintf("%s does not fit %s: %s", prog.Name, t.cfg.Name, oneLine(err.Error()))
		c.Structure = "-"
		return c, nil
	}
	c.Fits, c.Impl = true, place
	c.Structure = fmt.Sprintf("%d of %d MAU stages", place.StagesUsed, t.cfg.MAU.Stages)
	c.Resources = resourceTable(place)
	c.Units = unitListing(place)
	return c, nil
}

// Placed is the placement of a compiled program (nil if it does not
// fit).
func Placed(c *arch.Compiled) *compiler.Placement {
	p, _ := c.Impl.(*compiler.Placement)
	return p
}

// Build assembles a switch running the placed program.
func (t *Target) Build(s arch.BuildSpec) (arch.Switch, error) {
	place := Placed(s.Compiled)
	if place == nil {
		return nil, fmt.Errorf("%s: the program was not placed", t.cfg.Name)
	}
	if s.Unpaced {
		return nil, fmt.Errorf("%s: a pipeline's packet rate follows from its clock; it has no rate probe", t.cfg.Name)
	}
	name := s.Name
	if name == "" {
		name = "Tofino"
	}
	b := MakeBuilder().WithEngine(s.Engine).WithConfig(t.cfg).WithPlacement(place).WithSeed(s.Seed).WithThreadStats(s.ThreadStats)
	if s.Net != nil {
		b = b.WithFraming(s.Net.Framing)
	}
	return b.Build(name), nil
}

// resourceTable lists the resources in bf-p4c's columns, against the whole
// chip.
func resourceTable(p *compiler.Placement) []arch.Resource {
	c, u, n := p.Chip, p.Totals, float64(p.Chip.MAU.Stages)
	return []arch.Resource{
		{Name: "Stages", Used: float64(p.StagesUsed), Capacity: n, Unit: "stages"},
		{Name: "SRAM", Used: float64(u.SRAM), Capacity: n * float64(c.MAU.SRAMBlocks), Unit: "blocks"},
		{Name: "TCAM", Used: float64(u.TCAM), Capacity: n * float64(c.MAU.TCAMBlocks), Unit: "blocks"},
		{Name: "Hash bits", Used: float64(u.HashBits), Capacity: n * float64(c.MAU.HashBits), Unit: "bits"},
		{Name: "VLIW actions", Used: float64(u.VLIW), Capacity: n * float64(c.MAU.VLIWRows), Unit: "rows"},
		{Name: "Exact+Ternary match crossbar", Used: float64(u.ExactXbar + u.TernaryXbar), Capacity: n * float64(c.MAU.ExactXbarBytes+c.MAU.TernaryXbarBytes), Unit: "bytes"},
		{Name: "Stateful+Meter ALUs", Used: float64(u.MeterALU), Capacity: n * float64(c.MAU.MeterALUs), Unit: "ALUs"},
	}
}

// unitListing lists each used MAU stage's logical tables and objects.
func unitListing(p *compiler.Placement) []arch.Unit {
	var out []arch.Unit
	for _, st := range p.Stages {
		if len(st.LTs[spec.Ingress])+len(st.LTs[spec.Egress]) == 0 {
			continue
		}
		u := arch.Unit{Name: fmt.Sprintf("stage %d", st.Index)}
		for g := range st.LTs {
			for _, lt := range sortedLTs(st.LTs[g]) {
				u.Items = append(u.Items, spec.Gress(g).String()+" "+lt.Name)
			}
		}
		u.Items = append(u.Items, st.Objects...)
		out = append(out, u)
	}
	return out
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// FrontPorts are the chip's front-panel ports, pipe by pipe (what a
// Switch built from the target gives hosts and links).
func (t *Target) FrontPorts() []int { return frontPorts(t.cfg) }

// RecircPortOf is the recirculation port of a port's pipe.
func (t *Target) RecircPortOf(port int) int { return t.cfg.RecircPort(t.cfg.PipeOf(port)) }
