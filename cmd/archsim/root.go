package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"archsim/arch"
	"archsim/engine"
	"archsim/harness"
	"archsim/job"
	"archsim/programs"
	"archsim/sonic"
	"archsim/sonic/orch"
)

// options are the flags of the main job.
type options struct {
	arch    string
	program string
	json    bool
	config  string
	sets    []string
	params  []string
	packets int
	load    float64
	seed    int64
	noSim   bool
	sonic   string
	pcap    pcapFlags
}

func newRootCmd(out io.Writer) *cobra.Command {
	o := &options{}
	root := &cobra.Command{
		Use:   "archsim --arch tofino --program ndp",
		Short: "Cycle-approximate models of switch ASICs: placement, latency, validation",
		Long: `archsim places a data-plane program on a modelled switch ASIC, reports the
placement stage by stage with resource use as a percentage of the chip, and
measures per-packet pipeline latency by simulating packets on the Akita engine.

  archsim --arch tofino --program ndp          place and measure a built-in program
  archsim --arch tofino --program my.yaml      your own program (format: README)
  archsim list                                 architectures, programs, scenarios
  archsim validate                             check the model against the papers`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			defer func() {
				if err != nil {
					o.pcap.discard()
				}
			}()
			if o.program == "" && o.sonic != "" {
				o.program = orch.Program
			}
			if o.program == "" {
				return &exitError{code: 2, msg: "missing --program (try: archsim --arch tofino --program ndp; archsim list shows the programs)"}
			}
			return runMain(cmd, o, out)
		},
	}
	f := root.Flags()
	f.StringVar(&o.arch, "arch", "tofino", "architecture: "+arch.Names())
	f.StringVar(&o.program, "program", "", "built-in program name or a program .yaml file")
	f.BoolVar(&o.json, "json", false, "print one JSON object instead of tables")
	f.StringVar(&o.config, "config", "", "YAML file overriding chip parameters (same keys as configs/<arch>.yaml)")
	f.StringArrayVar(&o.sets, "set", nil, "override one chip parameter, e.g. --set tofino.mau.stages=10 (repeatable)")
	f.StringArrayVar(&o.params, "param", nil, "override a program constant, e.g. --param PORTS=256 (repeatable)")
	f.Int("stages", 0, "MAU stages (same as --set tofino.mau.stages=N)")
	f.Int("salus-per-stage", 0, "stateful ALUs per stage (same as --set tofino.mau.meter_alus=N)")
	f.Float64("clock-mhz", 0, "MAU clock in MHz (same as --set tofino.clock_mhz=X)")
	f.IntVar(&o.packets, "packets", 3000, "packets simulated to measure latency (1..100000000; see --max-memory)")
	f.Float64Var(&o.load, "load", 0.5, "offered load per ingress port, fraction of line rate (0,1]")
	f.Int64Var(&o.seed, "seed", 1, "random seed (same seed, same output)")
	f.BoolVar(&o.noSim, "no-sim", false, "place only; skip the latency simulation")
	o.pcap.add(f, "the latency run")
	f.StringVar(&o.sonic, "sonic-config", "", "SONiC CONFIG_DB JSON (file or configs/sonic name) programming the sonic-l3 program and the traffic manager")
	root.PersistentFlags().StringVar(&prof.cpuFile, "cpuprofile", "", "write a Go CPU profile of the command to this file (go tool pprof)")
	root.PersistentFlags().StringVar(&prof.memFile, "memprofile", "", "write a Go allocation profile of the command to this file (go tool pprof)")
	root.PersistentFlags().StringVar(&tieBreak, "tie-break", "fifo", "order of events due at the same simulated time: fifo (the default, which every result and golden uses: first scheduled, first handled, as htsim), akita (Akita's serial engine's heap order) or random[:SEED] (a seeded random order); the last two are what-ifs for how much a result depends on it")
	addLimitFlags(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := finiteFlags(cmd); err != nil {
			return err
		}
		limits := limitsOf(cmd)
		if limits.events < 1 || limits.events > 1e15 {
			return &exitError{code: 2, msg: fmt.Sprintf("--max-events %g: must be 1..1e15", limits.events)}
		}
		// Runs are estimated against --max-events before they start; a
		// run that still passes it (a program that makes packets without
		// end) stops there with an error.
		engine.SetEventLimit(int64(limits.events))
		order, seed, err := engine.ParseOrder(tieBreak)
		if err != nil {
			return &exitError{code: 2, msg: "--" + oneLine(err.Error())}
		}
		engine.SetDefaultOrder(order, seed)
		if cmd == root && o.noSim && cmd.Flags().Changed("tie-break") {
			return &exitError{code: 2, msg: "--tie-break is the latency simulation's, and --no-sim skips it"}
		}
		switch cmd.Name() {
		case "list", "show", "merge":
			// Nothing is simulated: the simulations' flags would be
			// ignored (merge checks the shards' own order).
			for _, f := range []string{"tie-break", "max-events", "max-memory"} {
				if cmd.Flags().Changed(f) {
					return &exitError{code: 2, msg: fmt.Sprintf("--%s is for commands that simulate, and %s simulates nothing", f, cmd.Name())}
				}
			}
		}
		if order != engine.FIFOOrder {
			fmt.Fprintf(cmd.ErrOrStderr(), "archsim: same-time events in %s order (--tie-break %s), not the default fifo order: results differ from the default runs'\n", order, tieBreak)
		}
		return prof.start()
	}
	root.AddCommand(newListCmd(out), newValidateCmd(out), newShowCmd(out), newRunCmd(out), newBenchCmd(out), newCompareCmd(out), newAggregateCmd(out))
	root.AddCommand(newMergeCmd(out))
	return root
}

// knobFlags are the main job's shortcut flags and the chip knob each sets.
var knobFlags = []struct{ flag, knob string }{
	{"stages", arch.KnobStages},
	{"salus-per-stage", arch.KnobSALUsPerStage},
	{"clock-mhz", arch.KnobClockMHz},
}

// overrides collects --config, the knob flags a user set and --set.
func overrides(cmd *cobra.Command, userFile string, sets []string) arch.Overrides {
	o := arch.Overrides{File: userFile, Sets: sets}
	if cmd == nil {
		return o
	}
	for _, kf := range knobFlags {
		if f := cmd.Flags().Lookup(kf.flag); f != nil && f.Changed {
			o.Knobs = append(o.Knobs, arch.KnobValue{Knob: kf.knob, Value: f.Value.String(), Origin: "--" + kf.flag})
		}
	}
	return o
}

// loadTarget loads a registered chip with the user's overrides.
func loadTarget(cmd *cobra.Command, name, userFile string, sets []string) (arch.Target, error) {
	chip, err := arch.Lookup(name)
	if err != nil {
		return nil, &exitError{code: 2, msg: fmt.Sprintf("--arch %q: unknown architecture (available: %s)", name, arch.Names())}
	}
	t, err := chip.Load(overrides(cmd, userFile, sets))
	if err != nil {
		return nil, &exitError{code: 2, msg: oneLine(err.Error())}
	}
	return t, nil
}

func parseParams(params []string) (map[string]string, error) {
	m := map[string]string{}
	for _, p := range params {
		k, v, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, &exitError{code: 2, msg: fmt.Sprintf("--param %q: expected NAME=VALUE (e.g. --param PORTS=256)", p)}
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return m, nil
}

// checkSim checks the latency simulation's flags.
func checkSim(packets int, load float64) error {
	if packets < 1 {
		return &exitError{code: 2, msg: fmt.Sprintf("--packets %d: must be ≥ 1", packets)}
	}
	if !(load > 0 && load <= 1) {
		return &exitError{code: 2, msg: fmt.Sprintf("--load %g: must be in (0, 1]", load)}
	}
	return nil
}

// saturatePackets is the size of the rate probe that finds a chip's packet
// rate (chips that measure it so).
const saturatePackets = 4000

func runMain(cmd *cobra.Command, o *options, out io.Writer) error {
	target, err := loadTarget(cmd, o.arch, o.config, o.sets)
	if err != nil {
		return err
	}
	params, err := parseParams(o.params)
	if err != nil {
		return err
	}
	prog, err := programs.Resolve(o.program, params)
	if err != nil {
		return &exitError{code: 2, msg: oneLine(err.Error())}
	}
	if err := checkSim(o.packets, o.load); err != nil {
		return err
	}
	if err := o.pcap.unused(); err != nil {
		return err
	}
	if o.noSim {
		// The latency simulation's flags would be ignored without a word.
		for _, f := range []string{"packets", "load", "pcap-max-mb", "seed"} {
			if cmd.Flags().Changed(f) {
				return &exitError{code: 2, msg: fmt.Sprintf("--%s is the latency simulation's, and --no-sim skips it", f)}
			}
		}
	}
	if !o.noSim {
		if err := checkPackets(cmd, o.packets, saturatePackets, 1, prog); err != nil {
			return err
		}
	}
	var sonicCfg *sonic.Config
	var agent *orch.Agent
	sim := &harness.Sim{Packets: o.packets, Load: o.load, RateProbe: saturatePackets, MaxEvents: int64(limitsOf(cmd).events)}
	if o.sonic != "" {
		chip, ok := orch.ChipOf(target)
		if !ok {
			return &exitError{code: 2, msg: "--sonic-config programs a Tofino switch; use --arch tofino"}
		}
		if prog.Name != orch.Program {
			return &exitError{code: 2, msg: fmt.Sprintf("--sonic-config programs the %s program, not %s", orch.Program, prog.Name)}
		}
		if sonicCfg, err = orch.LoadConfig(o.sonic, chip); err != nil {
			return &exitError{code: 2, msg: oneLine(err.Error())}
		}
		sim.Setup = func(sw arch.Switch) error {
			var err error
			if agent, err = orch.Attach(sw); err != nil {
				return err
			}
			return agent.Program(sonicCfg, 0)
		}
	}
	if o.noSim {
		sim = nil
	}
	finishPcap, discardPcap := func() error { return nil }, func() {}
	if o.pcap.dir != "" {
		if err := o.pcap.check(); err != nil {
			return err
		}
		if sim == nil {
			return &exitError{code: 2, msg: "--pcap captures the latency simulation; drop --no-sim"}
		}
		if finishPcap, discardPcap, err = o.pcap.tapMain(sim, cmd.ErrOrStderr()); err != nil {
			return err
		}
	}
	res, err := job.RunProgram(target, prog, o.seed, sim)
	if err == nil {
		err = finishPcap()
	} else {
		discardPcap()
	}
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return &exitError{code: 2, msg: oneLine(err.Error())}
	}
	if !res.Compiled.Fits {
		if o.json {
			if werr := writeJSON(out, res.Report.JSON()); werr != nil {
				return werr
			}
			return &exitError{code: 1}
		}
		return &exitError{code: 1, msg: res.Compiled.Refusal}
	}
	var sr *sonicReport
	if sonicCfg != nil {
		sr = newSonicReport(o.sonic, sonicCfg, agent)
	}
	if o.json {
		if sr == nil {
			return writeJSON(out, res.Report.JSON())
		}
		return writeJSONWith(out, res.Report.JSON(), "sonic", sr)
	}
	var buf bytes.Buffer
	res.Report.WriteTables(&buf)
	if sr != nil {
		renderSonic(&buf, sr)
	}
	_, err = out.Write(buf.Bytes())
	return err
}

func writeJSON(out io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

// writeJSONWith writes a JSON object with one more key at its end (a
// control plane's section next to the chip's report).
func writeJSONWith(out io.Writer, v any, key string, extra any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	x, err := json.MarshalIndent(extra, "  ", "  ")
	if err != nil {
		return err
	}
	k, _ := json.Marshal(key)
	if len(b) < 2 || b[len(b)-1] != '}' {
		return fmt.Errorf("internal: the report is not a JSON object")
	}
	body := bytes.TrimSuffix(b[:len(b)-1], []byte("\n"))
	var buf bytes.Buffer
	buf.Write(body)
	if len(bytes.TrimSpace(body)) > 1 {
		buf.WriteString(",")
	}
	fmt.Fprintf(&buf, "\n  %s: %s\n}\n", k, x)
	_, err = out.Write(buf.Bytes())
	return err
}

// finiteFlags refuses NaN and infinities in the number flags a user set
// (strconv reads "NaN" and "Inf"): every range check compares, and NaN
// compares false, so one would reach the simulation.
func finiteFlags(cmd *cobra.Command) error {
	var bad error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if bad != nil || !f.Changed {
			return
		}
		var vals []string
		switch f.Value.Type() {
		case "string":
			if f.Value.String() == "" {
				// An empty name is no name: it would mean the flag's
				// default (all claims, the default directory) unasked.
				bad = &exitError{code: 2, msg: fmt.Sprintf("--%s is given an empty value", f.Name)}
				return
			}
		case "stringArray", "stringSlice":
			if sv, ok := f.Value.(pflag.SliceValue); ok && (len(sv.GetSlice()) == 0 || slices.Contains(sv.GetSlice(), "")) {
				bad = &exitError{code: 2, msg: fmt.Sprintf("--%s is given an empty value", f.Name)}
				return
			}
		case "float64", "float32":
			vals = []string{f.Value.String()}
		case "float64Slice", "float32Slice":
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				vals = sv.GetSlice()
			}
		}
		for _, v := range vals {
			if x, err := strconv.ParseFloat(v, 64); err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
				bad = &exitError{code: 2, msg: fmt.Sprintf("--%s %s: must be a finite number", f.Name, f.Value.String())}
				return
			}
		}
	})
	return bad
}
