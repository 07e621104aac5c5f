// Package job is archsim's one job runner: load a chip's config, resolve
// the program, place or lower it, build the switch, measure it with the
// latency harness, report. The main command, compare, bench, validate,
// scenarios and aggregation jobs all go through it; it knows chips only
// through the arch seam and the registry.
package job

import (
	"archsim/arch"
	_ "archsim/arch/chips" // the built-in chips
	"archsim/harness"
	"archsim/programs"
)

// Spec is one (chip, program) job.
type Spec struct {
	Arch      string // a registered chip name
	Overrides arch.Overrides
	Program   string // a built-in program name or a .yaml file
	Params    map[string]string
	// Seed is the run's seed (reported even without a simulation).
	Seed int64
	// Sim, if set, simulates the program's traffic (else compile only).
	Sim *harness.Sim
}

// Outcome is what a job produced. Compiled.Fits false means the program
// does not fit the chip (Report says why); Measurement is nil then, or
// without Sim.
type Outcome struct {
	Target      arch.Target
	Program     *programs.Program
	Compiled    *arch.Compiled
	Measurement *arch.Measurement
	Report      arch.Report
}

// Run loads the chip, resolves and compiles the program and, if it fits
// and Sim is set, measures it. Every error is bad input (unknown chip or
// program, a bad value, traffic the chip cannot take).
func Run(s Spec) (*Outcome, error) {
	t, err := Load(s.Arch, s.Overrides)
	if err != nil {
		return nil, err
	}
	prog, err := programs.Resolve(s.Program, s.Params)
	if err != nil {
		return nil, err
	}
	return RunProgram(t, prog, s.Seed, s.Sim)
}

// RunProgram compiles a resolved program for a target and, if it fits and
// sim is set, measures it with the seed.
func RunProgram(t arch.Target, prog *programs.Program, seed int64, sim *harness.Sim) (*Outcome, error) {
	c, err := t.Compile(prog)
	if err != nil {
		return nil, err
	}
	o := &Outcome{Target: t, Program: prog, Compiled: c}
	if sim != nil && c.Fits {
		if o.Measurement, err = harness.Measure(t, c, seed, *sim); err != nil {
			return nil, err
		}
	}
	o.Report = t.Report(c, o.Measurement, seed)
	return o, nil
}

// Load loads a registered chip with overrides.
func Load(name string, o arch.Overrides) (arch.Target, error) {
	chip, err := arch.Lookup(name)
	if err != nil {
		return nil, err
	}
	return chip.Load(o)
}

// Compile resolves a program (with constant overrides) and compiles it for
// a target.
func Compile(t arch.Target, program string, params map[string]string) (*arch.Compiled, error) {
	prog, err := programs.Resolve(program, params)
	if err != nil {
		return nil, err
	}
	return t.Compile(prog)
}

// Summary is the chip-neutral result compare prints.
func (o *Outcome) Summary() arch.Summary { return o.Target.Summary(o.Compiled, o.Measurement) }
