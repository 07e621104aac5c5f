package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"archsim/arch/tofino"
	"archsim/arch/trio"
	"archsim/configs"
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
		RunE: func(cmd *cobra.Command, args []string) error {
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
	f.StringVar(&o.arch, "arch", "tofino", "architecture: "+archNames())
	f.StringVar(&o.program, "program", "", "built-in program name or a program .yaml file")
	f.BoolVar(&o.json, "json", false, "print one JSON object instead of tables")
	f.StringVar(&o.config, "config", "", "YAML file overriding chip parameters (same keys as configs/<arch>.yaml)")
	f.StringArrayVar(&o.sets, "set", nil, "override one chip parameter, e.g. --set tofino.mau.stages=10 (repeatable)")
	f.StringArrayVar(&o.params, "param", nil, "override a program constant, e.g. --param PORTS=256 (repeatable)")
	f.Int("stages", 0, "MAU stages (same as --set tofino.mau.stages=N)")
	f.Int("salus-per-stage", 0, "stateful ALUs per stage (same as --set tofino.mau.meter_alus=N)")
	f.Float64("clock-mhz", 0, "MAU clock in MHz (same as --set tofino.clock_mhz=X)")
	f.IntVar(&o.packets, "packets", 3000, "packets simulated to measure latency")
	f.Float64Var(&o.load, "load", 0.5, "offered load per ingress port, fraction of line rate (0,1]")
	f.Int64Var(&o.seed, "seed", 1, "random seed (same seed, same output)")
	f.BoolVar(&o.noSim, "no-sim", false, "place only; skip the latency simulation")
	f.StringVar(&o.sonic, "sonic-config", "", "SONiC CONFIG_DB JSON (file or configs/sonic name) programming the sonic-l3 program and the traffic manager")
	root.AddCommand(newListCmd(out), newValidateCmd(out), newShowCmd(out), newRunCmd(out), newBenchCmd(out), newCompareCmd(out), newAggregateCmd(out))
	return root
}

func archNames() string {
	var names []string
	for _, a := range tofino.Archs {
		names = append(names, a.Name)
	}
	for _, a := range trio.Archs {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}

func findArch(name string) (*tofino.Arch, error) {
	for i := range tofino.Archs {
		if tofino.Archs[i].Name == name {
			return &tofino.Archs[i], nil
		}
	}
	return nil, &exitError{code: 2, msg: fmt.Sprintf("--arch %q: unknown architecture (available: %s)", name, archNames())}
}

// loadChip merges the arch's config files with --config, --set and flags.
func loadChip(cmd *cobra.Command, arch *tofino.Arch, userFile string, sets []string) (*tofino.Config, error) {
	src := configs.Source{Base: arch.Files, UserFile: userFile, Sets: sets}
	if cmd != nil {
		src.FlagSet = cmd.Flags()
		src.Flags = tofino.FlagKeys
	}
	l, err := configs.Load(src)
	if err != nil {
		return nil, &exitError{code: 2, msg: oneLine(err.Error())}
	}
	c, err := tofino.LoadConfig(l)
	if err != nil {
		return nil, &exitError{code: 2, msg: oneLine(err.Error())}
	}
	return c, nil
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

func runMain(cmd *cobra.Command, o *options, out io.Writer) error {
	if ta := findTrioArch(o.arch); ta != nil {
		return runTrio(cmd, o, out, ta)
	}
	arch, err := findArch(o.arch)
	if err != nil {
		return err
	}
	chip, err := loadChip(cmd, arch, o.config, o.sets)
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
	if o.packets < 1 {
		return &exitError{code: 2, msg: fmt.Sprintf("--packets %d: must be ≥ 1", o.packets)}
	}
	if o.load <= 0 || o.load > 1 {
		return &exitError{code: 2, msg: fmt.Sprintf("--load %g: must be in (0, 1]", o.load)}
	}
	var sonicCfg *sonic.Config
	if o.sonic != "" {
		if prog.Name != orch.Program {
			return &exitError{code: 2, msg: fmt.Sprintf("--sonic-config programs the %s program, not %s", orch.Program, prog.Name)}
		}
		if sonicCfg, err = orch.LoadConfig(o.sonic, chip); err != nil {
			return &exitError{code: 2, msg: oneLine(err.Error())}
		}
	}
	place, err := tofino.Place(chip, prog)
	if err != nil {
		rep := tofino.FailedReport(arch.Name, chip, prog.Name, prog.File, err)
		if o.json {
			if werr := writeJSON(out, rep); werr != nil {
				return werr
			}
			return &exitError{code: 1}
		}
		return &exitError{code: 1, msg: fmt.Sprintf("%s does not fit %s: %s", prog.Name, chip.Name, oneLine(err.Error()))}
	}
	var run *tofino.RunResult
	var agent *orch.Agent
	if !o.noSim {
		opt := tofino.RunOptions{Packets: o.packets, Load: o.load, Seed: o.seed}
		if sonicCfg != nil {
			opt.Setup = func(sw *tofino.Switch) error {
				var err error
				if agent, err = orch.New(sw); err != nil {
					return err
				}
				return agent.Program(sonicCfg, 0)
			}
		}
		run, err = tofino.Measure(chip, place, opt)
		if err != nil {
			return &exitError{code: 2, msg: oneLine(err.Error())}
		}
	}
	rep := tofino.NewReport(arch.Name, place, run, o.seed)
	var sr *sonicReport
	if sonicCfg != nil {
		sr = newSonicReport(o.sonic, sonicCfg, agent)
	}
	if o.json {
		return writeJSON(out, struct {
			*tofino.Report
			Sonic *sonicReport `json:"sonic,omitempty"`
		}{rep, sr})
	}
	var buf bytes.Buffer
	renderReport(&buf, rep, place)
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
