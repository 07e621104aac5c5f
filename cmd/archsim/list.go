package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"archsim/arch"
	"archsim/configs"
	"archsim/experiments"
	"archsim/internal/tables"
	"archsim/programs"
)

func newListCmd(out io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List architectures, built-in programs and scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			type progInfo struct {
				Name   string `json:"name"`
				Source string `json:"source"`
			}
			type archInfo struct {
				Name    string   `json:"name"`
				Configs []string `json:"configs"`
				Doc     string   `json:"doc"`
				Knobs   []string `json:"knobs"`
			}
			var archs []archInfo
			for _, c := range arch.Chips() {
				a := archInfo{c.Name(), c.Files(), c.Doc(), []string{}}
				for _, k := range c.Knobs() {
					a.Knobs = append(a.Knobs, k.Name)
				}
				archs = append(archs, a)
			}
			var progs []progInfo
			for _, name := range programs.Builtins() {
				p, err := programs.Resolve(name, nil)
				if err != nil {
					return &exitError{code: 1, msg: oneLine(err.Error())}
				}
				progs = append(progs, progInfo{name, p.Source})
			}
			type scenInfo struct {
				Name   string `json:"name"`
				Source string `json:"source"`
			}
			var scen []scenInfo
			for _, name := range configs.Scenarios() {
				sc, err := experiments.Load(name)
				if err != nil {
					return &exitError{code: 1, msg: oneLine(err.Error())}
				}
				scen = append(scen, scenInfo{name, sc.Source})
			}
			if asJSON {
				return writeJSON(out, map[string]any{"architectures": archs, "programs": progs, "scenarios": scen, "sonic_configs": configs.SONiCConfigs()})
			}
			var buf bytes.Buffer
			t := tables.New(&buf, "Architecture", "Config files", "Knobs", "Description")
			for _, a := range archs {
				knobs := strings.Join(a.Knobs, ", ")
				if knobs == "" {
					knobs = "-"
				}
				t.Row(a.Name, fmt.Sprint(a.Configs), knobs, a.Doc)
			}
			t.Render()
			fmt.Fprintln(&buf)
			t = tables.New(&buf, "Program", "Source")
			for _, p := range progs {
				t.Row(p.Name, p.Source)
			}
			t.Render()
			fmt.Fprintln(&buf)
			t = tables.New(&buf, "Scenario", "Source")
			for _, s := range scen {
				t.Row(s.Name, s.Source)
			}
			t.Render()
			fmt.Fprintf(&buf, "\nSONiC configurations (--sonic-config NAME, configs/sonic): %s\n", strings.Join(configs.SONiCConfigs(), ", "))
			_, err := out.Write(buf.Bytes())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newShowCmd(out io.Writer) *cobra.Command {
	var program string
	cmd := &cobra.Command{
		Use:   "show --program NAME",
		Short: "Print a built-in program's description (a complete example of the format)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if program == "" {
				return &exitError{code: 2, msg: "missing --program (a built-in program: archsim list)"}
			}
			data, ok := programs.BuiltinSource(program)
			if !ok {
				return &exitError{code: 2, msg: fmt.Sprintf("--program %q: not a built-in program (archsim list)", program)}
			}
			_, err := out.Write(data)
			return err
		},
	}
	cmd.Flags().StringVar(&program, "program", "", "built-in program name")
	return cmd
}
