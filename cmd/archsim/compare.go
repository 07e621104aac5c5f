package main

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"archsim/arch"
	"archsim/harness"
	"archsim/internal/tables"
	"archsim/job"
	"archsim/programs"
)

// wrap breaks text into lines of at most width columns at spaces (a word
// longer than a line stays whole); the first line starts with first, the
// others with rest.
func wrap(text string, width int, first, rest string) string {
	var b strings.Builder
	prefix, col := first, 0
	for _, w := range strings.Fields(text) {
		n := utf8.RuneCountInString(w)
		if col > 0 && col+1+n > width {
			b.WriteString("\n")
			prefix, col = rest, 0
		}
		if col == 0 {
			b.WriteString(prefix)
			col = utf8.RuneCountInString(prefix)
		} else {
			b.WriteString(" ")
			col++
		}
		b.WriteString(w)
		col += n
	}
	return b.String()
}

func newCompareCmd(out io.Writer) *cobra.Command {
	o := &options{}
	var archs []string
	cmd := &cobra.Command{
		Use:   "compare --program P",
		Short: "Run one program on several chips (default Tofino and Trio) and put the results side by side",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.program == "" {
				return &exitError{code: 2, msg: "missing --program"}
			}
			if err := checkSim(o.packets, o.load); err != nil {
				return err
			}
			if len(archs) == 0 {
				return &exitError{code: 2, msg: "--arch: give at least one chip"}
			}
			for i, a := range archs {
				if slices.Contains(archs[:i], a) {
					return &exitError{code: 2, msg: fmt.Sprintf("--arch: %s is given twice", a)}
				}
				// Two names of one chip (trio and trio5): the same
				// description, so the same column twice.
				c, err := arch.Lookup(a)
				if err != nil {
					continue // loadTarget says so below
				}
				for _, b := range archs[:i] {
					if d, err := arch.Lookup(b); err == nil && reflect.TypeOf(c) == reflect.TypeOf(d) && slices.Equal(c.Files(), d.Files()) {
						return &exitError{code: 2, msg: fmt.Sprintf("--arch: %s and %s are the same chip (%s)", b, a, strings.Join(c.Files(), ", "))}
					}
				}
			}
			params, err := parseParams(o.params)
			if err != nil {
				return err
			}
			prog, err := programs.Resolve(o.program, params)
			if err != nil {
				return &exitError{code: 2, msg: oneLine(err.Error())}
			}
			if err := checkPackets(cmd, o.packets, saturatePackets, len(archs), prog); err != nil {
				return err
			}
			var rows []arch.Summary
			var name string
			for _, a := range archs {
				t, err := loadTarget(nil, a, "", nil)
				if err != nil {
					return err
				}
				// A fresh copy of the program per chip: runs must not share
				// table state.
				prog, err := programs.Resolve(o.program, params)
				if err != nil {
					return &exitError{code: 2, msg: oneLine(err.Error())}
				}
				name = prog.Name
				res, err := job.RunProgram(t, prog, o.seed, &harness.Sim{Packets: o.packets, Load: o.load, RateProbe: saturatePackets, MaxEvents: int64(limitsOf(cmd).events)})
				if err != nil {
					return &exitError{code: 2, msg: oneLine(err.Error())}
				}
				rows = append(rows, res.Summary())
			}
			// As the main command: a program no chip runs is a failed
			// comparison (exit 1), printed all the same.
			var noneRuns error
			if !slices.ContainsFunc(rows, func(r arch.Summary) bool { return r.Fits }) {
				noneRuns = &exitError{code: 1, msg: fmt.Sprintf("%s runs on none of %s", name, strings.Join(archs, ", "))}
			}
			if o.json {
				if err := writeJSON(out, map[string]any{"program": name, "results": rows}); err != nil {
					return err
				}
				return noneRuns
			}
			var buf bytes.Buffer
			var titles []string
			for _, a := range archs {
				titles = append(titles, strings.ToUpper(a[:1])+a[1:])
			}
			fmt.Fprintf(&buf, "%s on %s\n\n", name, strings.Join(titles, " and "))
			t := tables.New(&buf, append([]string{""}, archs...)...)
			line := func(label string, f func(arch.Summary) string) {
				cells := []string{label}
				for _, r := range rows {
					cells = append(cells, wrap(f(r), 48, "", ""))
				}
				t.Row(cells...)
			}
			line("Chip", func(r arch.Summary) string { return r.Chip })
			// Why a chip cannot run the program is long (a rule, the file
			// and line, the objects): a note under the table, so that the
			// table stays narrow.
			var notes []string
			line("Runs the program", func(r arch.Summary) string {
				if r.Fits {
					return "yes"
				}
				notes = append(notes, fmt.Sprintf("[%d] %s: %s", len(notes)+1, r.Arch, r.Why))
				return fmt.Sprintf("no, see [%d] below", len(notes))
			})
			line("Structure", func(r arch.Summary) string { return r.Structure })
			line("Latency mean / p99 (ns)", func(r arch.Summary) string {
				if !r.Fits {
					return "-"
				}
				return fmt.Sprintf("%.0f / %.0f", r.LatencyMeanNs, r.LatencyP99Ns)
			})
			line("Packet rate (Mpps)", func(r arch.Summary) string {
				if !r.Fits {
					return "-"
				}
				return fmt.Sprintf("%.0f (%s)", r.RateMpps, r.RateNote)
			})
			line("State", func(r arch.Summary) string { return r.StatefulNote })
			line("Timers", func(r arch.Summary) string { return r.Timers })
			t.Render()
			if len(notes) > 0 {
				fmt.Fprintln(&buf, "\nWhy a chip does not run the program:")
				for _, n := range notes {
					fmt.Fprintln(&buf, wrap(n, 100, "  ", "      "))
				}
			}
			if _, err = out.Write(buf.Bytes()); err != nil {
				return err
			}
			return noneRuns
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.program, "program", "", "built-in program name or a program .yaml file")
	f.StringSliceVar(&archs, "arch", []string{"tofino", "trio"}, "chips to compare (repeatable or comma-separated; archsim list)")
	f.BoolVar(&o.json, "json", false, "print JSON")
	f.StringArrayVar(&o.params, "param", nil, "override a program constant (repeatable)")
	f.IntVar(&o.packets, "packets", 3000, "packets simulated on each chip")
	f.Float64Var(&o.load, "load", 0.5, "offered load per port, fraction of line rate (0,1]")
	f.Int64Var(&o.seed, "seed", 1, "random seed")
	return cmd
}
