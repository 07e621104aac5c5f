package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"archsim/arch/trio"
	"archsim/components/stats"
	"archsim/configs"
	"archsim/programs"
)

func findTrioArch(name string) *trio.Arch {
	for i := range trio.Archs {
		if trio.Archs[i].Name == name {
			return &trio.Archs[i]
		}
	}
	return nil
}

// loadTrioChip merges the Trio config files with --config, --set and the
// flags that apply to Trio.
func loadTrioChip(cmd *cobra.Command, arch *trio.Arch, userFile string, sets []string) (*trio.Config, error) {
	src := configs.Source{Base: arch.Files, UserFile: userFile, Sets: sets}
	if cmd != nil {
		for _, f := range []string{"stages", "salus-per-stage"} {
			if fl := cmd.Flags().Lookup(f); fl != nil && fl.Changed {
				return nil, &exitError{code: 2, msg: fmt.Sprintf("--%s is a Tofino knob; --arch %s has no stages (use --set trio.KEY=VALUE)", f, arch.Name)}
			}
		}
		src.FlagSet = cmd.Flags()
		src.Flags = trio.FlagKeys
	}
	l, err := configs.Load(src)
	if err != nil {
		return nil, &exitError{code: 2, msg: oneLine(err.Error())}
	}
	c, err := trio.LoadConfig(l)
	if err != nil {
		return nil, &exitError{code: 2, msg: oneLine(err.Error())}
	}
	return c, nil
}

// saturatePackets is the size of the saturation run that finds the PFE's
// packet rate.
const saturatePackets = 4000

// trioResult lowers and measures a program on a Trio PFE.
func trioResult(cmd *cobra.Command, o *options, arch *trio.Arch, prog *programs.Program) (*trio.Report, *trio.Config, error) {
	chip, err := loadTrioChip(cmd, arch, o.config, o.sets)
	if err != nil {
		return nil, nil, err
	}
	mc, err := trio.Lower(chip, prog)
	if err != nil {
		var le *trio.LoweringError
		if errors.As(err, &le) {
			return trio.FailedReport(arch.Name, chip, prog.Name, prog.File, err), chip, nil
		}
		return nil, nil, &exitError{code: 2, msg: oneLine(err.Error())}
	}
	var run *trio.RunResult
	if !o.noSim {
		run, err = trio.Measure(chip, mc, trio.RunOptions{Packets: o.packets, Load: o.load, Seed: o.seed, Saturate: saturatePackets})
		if err != nil {
			return nil, nil, &exitError{code: 2, msg: oneLine(err.Error())}
		}
	}
	return trio.NewReport(arch.Name, chip, mc, run, o.seed), chip, nil
}

func runTrio(cmd *cobra.Command, o *options, out io.Writer, arch *trio.Arch) error {
	params, err := parseParams(o.params)
	if err != nil {
		return err
	}
	prog, err := programs.Resolve(o.program, params)
	if err != nil {
		return &exitError{code: 2, msg: oneLine(err.Error())}
	}
	if o.sonic != "" {
		return &exitError{code: 2, msg: "--sonic-config programs a Tofino switch; use --arch tofino"}
	}
	if o.packets < 1 {
		return &exitError{code: 2, msg: fmt.Sprintf("--packets %d: must be ≥ 1", o.packets)}
	}
	if o.load <= 0 || o.load > 1 {
		return &exitError{code: 2, msg: fmt.Sprintf("--load %g: must be in (0, 1]", o.load)}
	}
	rep, chip, err := trioResult(cmd, o, arch, prog)
	if err != nil {
		return err
	}
	if !rep.Feasible {
		if o.json {
			if err := writeJSON(out, rep); err != nil {
				return err
			}
			return &exitError{code: 1}
		}
		return &exitError{code: 1, msg: fmt.Sprintf("%s does not run on %s: %s", prog.Name, chip.Name, oneLine(rep.Errors[0]))}
	}
	if o.json {
		return writeJSON(out, rep)
	}
	var buf bytes.Buffer
	renderTrio(&buf, rep)
	_, err = out.Write(buf.Bytes())
	return err
}

func sum(s stats.Summary, unit string) string {
	return fmt.Sprintf("%.1f / %.1f / %.1f / %.1f %s", s.Min, s.Mean, s.P99, s.Max, unit)
}

func renderTrio(w io.Writer, r *trio.Report) {
	fmt.Fprintf(w, "%s on %s (%s, %.0f MHz): lowered to %d micro-instructions (static)\n\n", r.Program, r.Chip, r.ProgramFile, r.ClockMHz, r.Instructions.Static)
	fmt.Fprintln(w, "Micro-instructions by block (static):")
	t := newTable(w, "Block", "Instructions")
	for _, b := range r.Instructions.Blocks {
		appendRow(t, b.Name, fmt.Sprint(b.Instr))
	}
	_ = t.Render()
	fmt.Fprintln(w, "\nExternal transactions (static sites):")
	t = newTable(w, "Kind", "Sites")
	for _, k := range sortedKeys(r.XTXNSites) {
		appendRow(t, k, fmt.Sprint(r.XTXNSites[k]))
	}
	_ = t.Render()
	m := r.Memory
	fmt.Fprintf(w, "\nLocal storage per thread: %d B of %d B local memory (head %d B), %d of 32 registers (%d metadata bits)\n",
		m.LMEMBytes, m.LMEMCapacity, m.HeadBytes, m.RegistersUsed, m.MetadataBits)
	fmt.Fprintf(w, "Shared memory: %d B in on-chip SRAM, %d B in DRAM\n", m.SRAMBytes, m.DRAMBytes)
	if len(m.Objects) > 0 {
		t = newTable(w, "Object", "Kind", "Bytes", "Entry B", "Memory")
		for _, o := range m.Objects {
			appendRow(t, o.Name, o.Kind, fmt.Sprint(o.Bytes), fmt.Sprint(o.EntryBytes), o.Memory)
		}
		_ = t.Render()
	}
	if len(r.NonAtomic) > 0 {
		fmt.Fprintf(w, "Not atomic across threads (read, compute, write): %s\n", strings.Join(r.NonAtomic, ", "))
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "Note:", n)
	}
	if r.Latency == nil {
		return
	}
	s := r.Simulation
	fmt.Fprintf(w, "\nMeasured (%d packets offered, %d delivered; dispatch to reorder release):\n", s.Offered, s.Delivered)
	t = newTable(w, "Gress", "Latency ns min / mean / p99 / max", "Instructions per packet", "Transactions per packet")
	for _, g := range []string{"ingress", "egress"} {
		in, ok := r.Instructions.PerPacket[g]
		if !ok {
			continue
		}
		lat := r.Latency.IngressNs
		if g == "egress" {
			lat = r.Latency.EgressNs
		}
		var xs []string
		for _, k := range sortedKeys(r.XTXNPerPkt[g]) {
			xs = append(xs, fmt.Sprintf("%s %.2f", k, r.XTXNPerPkt[g][k]))
		}
		appendRow(t, g, sum(lat, ""), fmt.Sprintf("%.1f (max %.0f)", in.Mean, in.Max), strings.Join(xs, ", "))
	}
	_ = t.Render()
	if len(s.Drops) > 0 {
		var ds []string
		for _, d := range s.Drops {
			ds = append(ds, fmt.Sprintf("%s: %d", d.Reason, d.Packets))
		}
		fmt.Fprintf(w, "Dropped: %s\n", strings.Join(ds, ", "))
	}
	if tm := r.Timers; tm != nil {
		fmt.Fprintf(w, "Timer threads: %d runs, %.0f ns mean (p99 %.0f), %.0f instructions each\n", tm.Runs, tm.DurationNs.Mean, tm.DurationNs.P99, tm.Instructions.Mean)
	}
	if rt := r.Rate; rt != nil {
		fmt.Fprintf(w, "\nPacket rate (%d packets offered at once):\n", rt.Packets)
		t = newTable(w, "Sustainable Mpps", "Line rate Mpps", "Sustains line rate", "Binding limit", "PPE issue", "Threads", "RMW engines", "Threads for line rate")
		appendRow(t, fmt.Sprintf("%.1f", rt.RateMpps), fmt.Sprintf("%.1f", rt.LineMpps), fmt.Sprint(rt.Sustains), rt.Binding,
			fmt.Sprintf("%.0f %%", 100*rt.PPEIssue), fmt.Sprintf("%.0f %%", 100*rt.Threads), fmt.Sprintf("%.0f %%", 100*rt.RMWEngines),
			fmt.Sprintf("%.0f of %d", rt.ThreadsFor, rt.Available))
		_ = t.Render()
	}
	fmt.Fprintf(w, "Simulation: %d Akita events, %.1f events per offered packet, %.0f ns simulated, seed %d\n", s.Events, s.EventsPerPk, s.SimulatedNs, r.Seed)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
