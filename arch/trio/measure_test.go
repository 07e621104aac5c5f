package trio

import (
	"archsim/arch"
	"archsim/arch/trio/lower"
	"archsim/arch/trio/spec"
	"archsim/harness"
)

// runOptions is a latency measurement through the harness.
type runOptions struct {
	Packets int
	Load    float64
	Seed    int64
}

// measure runs the latency harness on lowered microcode and returns the
// PFE's run result.
func measure(c *spec.Config, m *lower.Microcode, o runOptions) (*RunResult, error) {
	comp := &arch.Compiled{Arch: "trio", Chip: c.Name, Program: m.Prog, Fits: true, Impl: m}
	ms, err := harness.Measure(NewTarget(Trio, c), comp, o.Seed, harness.Sim{Packets: o.Packets, Load: o.Load})
	if err != nil {
		return nil, err
	}
	return RunResultOf(ms), nil
}

// saturate runs the harness's rate probe alone (n packets at once) and
// returns the saturation figures (frame: the mean frame for the line rate,
// threadNs: a packet's thread time for the threads-needed estimate).
func saturate(c *spec.Config, m *lower.Microcode, n int, seed int64, frame, threadNs float64) (*Saturation, error) {
	comp := &arch.Compiled{Arch: "trio", Chip: c.Name, Program: m.Prog, Fits: true, Impl: m}
	probe, err := harness.RateProbe(NewTarget(Trio, c), comp, seed, n)
	if err != nil {
		return nil, err
	}
	return saturation(probe, frame, threadNs), nil
}
