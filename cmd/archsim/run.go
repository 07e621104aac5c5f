package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"archsim/experiments"
	"archsim/internal/tables"
	"archsim/sonic/orch"
)

func newRunCmd(out io.Writer) *cobra.Command {
	var scenario, outDir, shard, sonicCfg, variant, records string
	var asJSON, noFiles, quiet bool
	var seed int64
	var jobs int
	var pf pcapFlags
	cmd := &cobra.Command{
		Use:   "run --scenario NAME",
		Short: "Run a network scenario (configs/scenarios/NAME.yaml): summary table, CSV and PNG plots",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var res *experiments.Result
			defer func() {
				if err != nil {
					if res != nil { // the runs finished, the command did not
						res.DiscardOutputs()
					}
					pf.discard()
				}
			}()
			if scenario == "" {
				return &exitError{code: 2, msg: "missing --scenario (archsim list shows the scenarios)"}
			}
			sc, err := experiments.Load(scenario)
			if err != nil {
				return &exitError{code: 2, msg: oneLine(err.Error())}
			}
			if variant != "" {
				if err := sc.KeepVariant(variant); err != nil {
					return &exitError{code: 2, msg: "--variant: " + err.Error()}
				}
			}
			opt := experiments.Options{Seed: seed, Jobs: jobs, SonicConfig: sonicCfg, Records: records}
			if err := pf.unused(); err != nil {
				return err
			}
			if err := pf.check(); err != nil {
				return err
			}
			opt.Pcap, opt.PcapMaxBytes = pf.dir, pf.maxBytes()
			if sonicCfg != "" {
				// Checked against the default chip before anything runs.
				t, err := loadTarget(nil, "tofino", "", nil)
				if err != nil {
					return err
				}
				chip, _ := orch.ChipOf(t)
				if _, err := orch.LoadConfig(sonicCfg, chip); err != nil {
					return &exitError{code: 2, msg: oneLine(err.Error())}
				}
				if !sc.HasSonicVariant() {
					return &exitError{code: 2, msg: fmt.Sprintf("--sonic-config: scenario %s has no variant running %s", sc.Name, orch.Program)}
				}
			}
			if shard != "" {
				i, n, ok := parseShard(shard)
				if !ok {
					return &exitError{code: 2, msg: fmt.Sprintf("--shard %q: expected i/n with 0 <= i < n <= %d", shard, experiments.MaxShards)}
				}
				opt.Shard, opt.Shards = i, n
			}
			if jobs < 0 || jobs > maxJobs {
				return &exitError{code: 2, msg: fmt.Sprintf("--jobs %d: must be 0..%d", jobs, maxJobs)}
			}
			if err := checkScenario(cmd, sc, opt); err != nil {
				return err
			}
			if noFiles && shard == "" && cmd.Flags().Changed("out") {
				return &exitError{code: 2, msg: "--out names where the files go, and --no-files writes none (with --shard it takes the shard file)"}
			}
			if !noFiles || shard != "" {
				dir := outDir
				if dir == "" {
					dir = filepath.Join("results", sc.Name)
				}
				if err := checkOutDir("--out", dir); err != nil {
					return err
				}
			}
			if records != "" {
				if err := checkOutDir("--records", records); err != nil {
					return err
				}
			}
			if err := sc.Preflight(opt); err != nil {
				return &exitError{code: 2, msg: oneLine(err.Error())}
			}
			if all, err := sc.Jobs(opt); err == nil && len(all) > 1 {
				batchGC() // several runs in one process (gc.go)
			}
			pg := startProgress(cmd, quiet)
			opt.Progress = pg.Writer()
			pg.Status("%s: running", sc.Name)
			res, err = sc.Execute(opt)
			pg.Stop()
			if err != nil {
				return &exitError{code: 1, msg: oneLine(err.Error())}
			}
			for _, w := range res.PcapWarnings() {
				fmt.Fprintln(cmd.ErrOrStderr(), "archsim: "+w)
			}
			var files []string
			if !noFiles {
				if outDir == "" {
					outDir = filepath.Join("results", sc.Name)
				}
				if files, err = res.WriteFiles(outDir); err != nil {
					return &exitError{code: 1, msg: oneLine(err.Error())}
				}
			}
			if shard != "" { // archsim merge rebuilds the whole run from the shard files
				dir := outDir
				if dir == "" {
					dir = filepath.Join("results", sc.Name)
				}
				path, err := res.WriteShard(dir)
				if err != nil {
					return &exitError{code: 1, msg: oneLine(err.Error())}
				}
				files = append(files, path)
			}
			return printScenario(out, res, files, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&scenario, "scenario", "", "scenario name or file (.yaml, .yml, or a path with a /)")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	f.StringVar(&outDir, "out", "", "directory for CSV and PNG files (default results/<scenario>)")
	f.BoolVar(&noFiles, "no-files", false, "do not write CSV/PNG files")
	f.Int64Var(&seed, "seed", 0, "random seed (0: the scenario's)")
	f.IntVar(&jobs, "jobs", 0, "simulations in parallel, 0..1024 (0: one per core; more than the runs or the cores is clamped to them)")
	f.StringVar(&shard, "shard", "", "run only shard i/n of the runs (for batch engines); also writes shard-i-of-n.json for archsim merge")
	f.BoolVar(&quiet, "quiet", false, "no progress on stderr (there is none when stderr is not a terminal)")
	f.StringVar(&variant, "variant", "", "run only this variant of the scenario")
	f.StringVar(&records, "records", "", "write every packet's events (sent, dropped, header, delivered) as CSV into this directory, one file per run (the summaries never keep them)")
	pf.add(f, "one directory per run, <variant>[-<var>=<value>]; limit per run")
	f.StringVar(&sonicCfg, "sonic-config", "", "SONiC CONFIG_DB (file or configs/sonic name) for the scenario's sonic-l3 variants")
	return cmd
}

func parseShard(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, false
	}
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || n < 1 || n > experiments.MaxShards || i < 0 || i >= n {
		return 0, 0, false
	}
	return i, n, true
}

// printScenario prints a scenario's result: JSON, or the summary table
// and the files written.
func printScenario(out io.Writer, res *experiments.Result, files []string, asJSON bool) error {
	if asJSON {
		return writeJSON(out, res)
	}
	var buf bytes.Buffer
	renderScenario(&buf, res, files)
	_, err := out.Write(buf.Bytes())
	return err
}

func renderScenario(w io.Writer, res *experiments.Result, files []string) {
	fmt.Fprintf(w, "%s (%s)\n\n", res.Name, res.Source)
	if len(res.Runs) > 0 && res.Runs[0].PIERun != nil {
		renderAQM(w, res)
	} else if len(res.Runs) > 0 && res.Runs[0].ProtegoRun != nil {
		renderProtego(w, res)
	} else {
		renderNDP(w, res)
	}
	sonicRows := false
	for _, r := range res.Runs {
		sonicRows = sonicRows || r.Sonic != nil
	}
	if sonicRows {
		fmt.Fprintln(w, "\nSONiC trimming counters (queue drops include the trimmed originals):")
		ts := tables.New(w, "Variant", "Sweep", "Trim", "Trim sent", "Trim drop", "TX drops", "Trim queue", "Non-trim-queue drops", "Trim-queue TX")
		count := func(n *int64) string { // absent with a dynamic trim queue
			if n == nil {
				return "-"
			}
			return fmt.Sprint(*n)
		}
		for _, r := range res.Runs {
			if s := r.Sonic; s != nil {
				sw := "-"
				if r.Value != "" {
					sw = r.Sweep + "=" + r.Value
				}
				ts.Row(r.Variant, sw, fmt.Sprint(s.Trim), fmt.Sprint(s.TrimSent), fmt.Sprint(s.TrimDrop), fmt.Sprint(s.TxDrops),
					s.TrimQueue, count(s.NonTrimQueueDrops), count(s.TrimQueueTx))
			}
		}
		ts.Render()
	}
	if len(files) > 0 {
		fmt.Fprintf(w, "\nWrote %s\n", strings.Join(files, ", "))
	}
}

// renderNDP is the summary of a trimming (NDP, constant-rate) scenario.
func renderNDP(w io.Writer, res *experiments.Result) {
	t := tables.New(w, "Variant", "Sweep", "Senders", "Data sent", "Delivered", "Trimmed", "Dropped", "In flight", "Trims ingress", "Trims DoD", "Trims queue", "Trims TM", "Max DoD queue", "Goodput Gb/s mean [min..max]", "Events/pkt", "Conserved")
	for _, r := range res.Runs {
		sw := "-"
		if r.Value != "" {
			sw = r.Sweep + "=" + r.Value
		}
		t.Row(r.Variant, sw, fmt.Sprint(r.Senders), fmt.Sprint(r.DataSent), fmt.Sprint(r.DeliveredFull), fmt.Sprint(r.DeliveredTrimmed),
			fmt.Sprint(r.Dropped), fmt.Sprint(r.InFlight), fmt.Sprint(r.TrimsIngress), fmt.Sprint(r.TrimsDoD), fmt.Sprint(r.TrimsQueue), fmt.Sprint(r.TrimsTM),
			fmt.Sprint(r.MaxDoDQueue), fmt.Sprintf("%.2f [%.2f..%.2f]", r.MeanGoodputGbps, r.MinGoodputGbps, r.MaxGoodputGbps),
			fmt.Sprintf("%.1f", r.EventsPerPacket), fmt.Sprint(r.ConservationOK))
	}
	t.Render()
}

// renderProtego is the summary of a Protego scenario: what reached the
// far side of the corrupting link, at what speed, with what buffers.
func renderProtego(w io.Writer, res *experiments.Result) {
	t := tables.New(w, "Variant", "Sweep", "Link loss", "Copies", "Offered", "Unrecovered", "Reordered / dup", "Effective loss [95 %]", "Gb/s",
		"Tx buf KB", "Rx buf KB", "Recovery us p50/max", "PFC pauses", "FCT us p50/p99.9", "Conserved")
	for _, r := range res.Runs {
		p := r.ProtegoRun
		if p == nil {
			continue
		}
		sw := "-"
		if r.Value != "" {
			sw = r.Sweep + "=" + r.Value
		}
		fct := "-"
		if f := p.FCTUs; f != nil && f.N > 0 {
			fct = fmt.Sprintf("%.1f / %.1f", f.P50, f.P999)
		}
		recovery := "-" // no frame was recovered
		if p.RecoveryUs.N > 0 {
			recovery = fmt.Sprintf("%.2f / %.2f", p.RecoveryUs.P50, p.RecoveryUs.Max)
		}
		gbps := fmt.Sprintf("%.2f", p.EffectiveGbps)
		switch {
		case p.GoodputGbps != nil:
			gbps = fmt.Sprintf("%.2f (TCP)", *p.GoodputGbps)
		case p.FCTUs != nil:
			gbps = "-" // flows one at a time: no receive rate (effective_gbps 0)
		}
		t.Row(r.Variant, sw, fmt.Sprintf("%.3g", p.LinkLoss), fmt.Sprint(p.Copies), fmt.Sprint(p.Offered), fmt.Sprint(p.Unrecovered),
			fmt.Sprintf("%d / %d", p.Reordered, p.Duplicates), fmt.Sprintf("%.2g [%.2g, %.2g]", p.EffectiveLoss, p.EffectiveLossCI[0], p.EffectiveLossCI[1]), gbps,
			fmt.Sprintf("%.1f", float64(p.TxBufferMaxBytes)/1000), fmt.Sprintf("%.1f", float64(p.RxBufferMaxBytes)/1000),
			recovery, fmt.Sprint(p.PFCPauses), fct, fmt.Sprint(r.ConservationOK))
	}
	t.Render()
}

// renderAQM is the summary of a PIE scenario (udp-risefall, tcp): what the
// bottleneck's AQM did.
func renderAQM(w io.Writer, res *experiments.Result) {
	t := tables.New(w, "Variant", "Sweep", "Rise s", "Fall s", "Updates", "Final drop_prob", "Goodput Gb/s", "Queue delay us p50 / p90 / p99", "AQM drops", "Tail drops", "CP period us", "Simulated s", "Conserved")
	opt := func(x *float64, f string) string {
		if x == nil {
			return "-"
		}
		return fmt.Sprintf(f, *x)
	}
	for _, r := range res.Runs {
		sw := "-"
		if r.Value != "" {
			sw = r.Sweep + "=" + r.Value
		}
		q, delay := r.QueueDelayUs, "-"
		if q.N > 0 {
			delay = fmt.Sprintf("%.0f / %.0f / %.0f", q.P50, q.P90, q.P99)
		}
		t.Row(r.Variant, sw, opt(r.RiseS, "%.3f"), opt(r.FallS, "%.3f"), fmt.Sprint(r.Updates), fmt.Sprintf("%.4f", r.FinalDropProb),
			fmt.Sprintf("%.2f", r.TotalGoodputGbps), delay, fmt.Sprint(r.AQMDrops), fmt.Sprint(r.TailDrops),
			opt(r.CPPeriodUs, "%.1f"), fmt.Sprintf("%.3f", r.SimulatedS), fmt.Sprint(r.ConservationOK))
	}
	t.Render()
}
