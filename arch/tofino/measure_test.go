package tofino

import (
	"archsim/arch"
	"archsim/arch/tofino/compiler"
	"archsim/harness"
)

// runOptions is a latency measurement through the harness.
type runOptions struct {
	Packets int
	Load    float64
	Seed    int64
}

// measure runs the latency harness on a placed program and returns the
// switch's run result.
func measure(c *Config, p *compiler.Placement, o runOptions) (*RunResult, error) {
	comp := &arch.Compiled{Arch: "tofino", Chip: c.Name, Program: p.Prog, Fits: true, Impl: p}
	m, err := harness.Measure(NewTarget(Tofino1, c), comp, o.Seed, harness.Sim{Packets: o.Packets, Load: o.Load})
	if err != nil {
		return nil, err
	}
	return RunResultOf(m), nil
}
