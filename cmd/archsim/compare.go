package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"archsim/arch/tofino"
	"archsim/programs"
)

// compareRow is one architecture's result for `archsim compare`.
type compareRow struct {
	Arch          string  `json:"arch"`
	Chip          string  `json:"chip"`
	Fits          bool    `json:"fits"`
	Why           string  `json:"why,omitempty"` // the rule and message when it does not fit
	Structure     string  `json:"structure"`     // stages used / instructions
	StagesUsed    int     `json:"stages_used,omitempty"`
	StagesTotal   int     `json:"stages_total,omitempty"`
	StaticInstr   int     `json:"static_instructions,omitempty"`
	InstrPerPkt   float64 `json:"instructions_per_packet,omitempty"`
	LatencyMeanNs float64 `json:"latency_mean_ns"` // ingress + egress processing
	LatencyP99Ns  float64 `json:"latency_p99_ns"`
	RateMpps      float64 `json:"rate_mpps"`     // packets per second the chip processes
	RateNote      string  `json:"rate_note"`     // how the rate was obtained
	Timers        string  `json:"timers"`        // periodic processing without packets
	StatefulNote  string  `json:"stateful_note"` // how state is reached
	Recirculates  bool    `json:"recirculates,omitempty"`
}

func newCompareCmd(out io.Writer) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "compare --program P",
		Short: "Run one program on Tofino and Trio and put the results side by side",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.program == "" {
				return &exitError{code: 2, msg: "missing --program"}
			}
			if o.packets < 1 {
				return &exitError{code: 2, msg: fmt.Sprintf("--packets %d: must be ≥ 1", o.packets)}
			}
			if o.load <= 0 || o.load > 1 {
				return &exitError{code: 2, msg: fmt.Sprintf("--load %g: must be in (0, 1]", o.load)}
			}
			params, err := parseParams(o.params)
			if err != nil {
				return err
			}
			prog, err := programs.Resolve(o.program, params)
			if err != nil {
				return &exitError{code: 2, msg: oneLine(err.Error())}
			}
			rows := []compareRow{}
			tr, err := compareTofino(o, prog)
			if err != nil {
				return err
			}
			rows = append(rows, tr)
			prog2, _ := programs.Resolve(o.program, params) // a fresh copy: runs must not share table state
			rr, err := compareTrio(o, prog2)
			if err != nil {
				return err
			}
			rows = append(rows, rr)
			if o.json {
				return writeJSON(out, map[string]any{"program": prog.Name, "results": rows})
			}
			var buf bytes.Buffer
			fmt.Fprintf(&buf, "%s on Tofino and Trio\n\n", prog.Name)
			t := newTable(&buf, "", rows[0].Arch, rows[1].Arch)
			line := func(name string, f func(compareRow) string) { appendRow(t, name, f(rows[0]), f(rows[1])) }
			line("Chip", func(r compareRow) string { return r.Chip })
			line("Runs the program", func(r compareRow) string {
				if r.Fits {
					return "yes"
				}
				return "no: " + r.Why
			})
			line("Structure", func(r compareRow) string { return r.Structure })
			line("Latency mean / p99 (ns)", func(r compareRow) string {
				if !r.Fits {
					return "-"
				}
				return fmt.Sprintf("%.0f / %.0f", r.LatencyMeanNs, r.LatencyP99Ns)
			})
			line("Packet rate (Mpps)", func(r compareRow) string {
				if !r.Fits {
					return "-"
				}
				return fmt.Sprintf("%.0f (%s)", r.RateMpps, r.RateNote)
			})
			line("State", func(r compareRow) string { return r.StatefulNote })
			line("Timers", func(r compareRow) string { return r.Timers })
			_ = t.Render()
			_, err = out.Write(buf.Bytes())
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.program, "program", "", "built-in program name or a program .yaml file")
	f.BoolVar(&o.json, "json", false, "print JSON")
	f.StringArrayVar(&o.params, "param", nil, "override a program constant (repeatable)")
	f.IntVar(&o.packets, "packets", 3000, "packets simulated on each chip")
	f.Float64Var(&o.load, "load", 0.5, "offered load per port, fraction of line rate (0,1]")
	f.Int64Var(&o.seed, "seed", 1, "random seed")
	return cmd
}

func compareTofino(o *options, prog *programs.Program) (compareRow, error) {
	arch, _ := findArch("tofino")
	chip, err := loadChip(nil, arch, "", nil)
	if err != nil {
		return compareRow{}, err
	}
	r := compareRow{Arch: "tofino", Chip: chip.Name,
		StatefulNote: "registers are stage-local: one access per pass",
		Timers:       "none in the data plane (the packet generator injects packets; timeouts need the control plane)"}
	place, err := tofino.Place(chip, prog)
	if err != nil {
		var pe *tofino.PlacementError
		if !errors.As(err, &pe) {
			return r, &exitError{code: 2, msg: oneLine(err.Error())}
		}
		r.Why = oneLine(err.Error())
		r.Structure = "-"
		return r, nil
	}
	r.Fits = true
	r.StagesUsed, r.StagesTotal = place.StagesUsed, chip.MAU.Stages
	r.Structure = fmt.Sprintf("%d of %d MAU stages", r.StagesUsed, r.StagesTotal)
	run, err := tofino.Measure(chip, place, tofino.RunOptions{Packets: o.packets, Load: o.load, Seed: o.seed})
	if err != nil {
		return r, &exitError{code: 2, msg: oneLine(err.Error())}
	}
	r.LatencyMeanNs = run.Ingress.LatencyNs.Mean + run.Egress.LatencyNs.Mean
	r.LatencyP99Ns = run.Ingress.LatencyNs.P99 + run.Egress.LatencyNs.P99
	// A pipeline accepts packets_per_cycle packets per cycle per pipe,
	// whatever the program does (if it fits); a program that recirculates
	// spends that many passes per packet (measured: ingress passes per
	// offered packet).
	r.RateMpps = float64(chip.Pipes*chip.PacketsPerCycle) * chip.ClockMHz
	r.RateNote = "pipelines: one packet per cycle per pipe, any program that fits"
	if passes := float64(run.Ingress.Packets) / float64(max(1, run.Offered)); passes > 1.001 {
		r.Recirculates = true
		r.RateMpps /= passes
		r.RateNote = fmt.Sprintf("one pass per cycle per pipe over %.2f measured passes per packet (recirculation); the %g Gb/s recirculation ports may bind lower", passes, chip.RecircGbps)
	}
	return r, nil
}

func compareTrio(o *options, prog *programs.Program) (compareRow, error) {
	arch := findTrioArch("trio")
	rep, chip, err := trioResult(nil, &options{packets: o.packets, load: o.load, seed: o.seed}, arch, prog)
	if err != nil {
		return compareRow{}, err
	}
	r := compareRow{Arch: "trio", Chip: chip.Name,
		StatefulNote: "shared memory: any thread, any number of accesses (RMW engines serialise per address)",
		Timers:       fmt.Sprintf("%d timers start threads periodically", chip.Timers)}
	if !rep.Feasible {
		r.Why = oneLine(rep.Errors[0])
		r.Structure = "-"
		return r, nil
	}
	r.Fits = true
	r.StaticInstr = rep.Instructions.Static
	r.InstrPerPkt = rep.Latency.InstrPerPkt
	r.Structure = fmt.Sprintf("%d micro-instructions; %.1f run per packet", r.StaticInstr, r.InstrPerPkt)
	r.LatencyMeanNs = rep.Latency.IngressNs.Mean + rep.Latency.EgressNs.Mean
	r.LatencyP99Ns = rep.Latency.IngressNs.P99 + rep.Latency.EgressNs.P99
	if rep.Rate != nil {
		r.RateMpps = rep.Rate.RateMpps
		r.RateNote = "measured at saturation, bound by " + rep.Rate.Binding
	}
	return r, nil
}
