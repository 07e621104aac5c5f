package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"archsim/arch"
	"archsim/experiments"
	"archsim/experiments/aggregation"
	"archsim/harness"
	"archsim/internal/tables"
	"archsim/job"
	"archsim/programs"
)

// benchRow is one timed workload. Wall times, allocations and memory vary
// from machine to machine (and run to run); events, packets and hops are
// deterministic.
type benchRow struct {
	Workload        string  `json:"workload"`
	WallS           float64 `json:"wall_s"`
	SimulatedUs     float64 `json:"simulated_us"`
	Packets         int     `json:"packets"` // data packets sent by hosts (offered, for the pipeline rows)
	Events          int64   `json:"events"`
	EventsPerPacket float64 `json:"events_per_packet"`
	PacketsPerSec   float64 `json:"packets_per_s"`
	// SwitchHops are packets the switches sent out of a port: data,
	// trimmed headers, ACK, NACK and PULL alike (htsim's unit of work).
	SwitchHops   int     `json:"switch_hops"`
	HopsPerSec   float64 `json:"hops_per_s"`
	EventsPerHop float64 `json:"events_per_hop"`
	AllocsPerHop float64 `json:"allocs_per_hop"`
	// PeakRSSMB is the peak resident memory of the process that ran the
	// row (each row runs in its own process unless --in-process).
	PeakRSSMB float64 `json:"peak_rss_mb"`
}

// benchWorkload is one row's simulation; it returns the row without the
// timing and memory fields, which benchOne fills.
type benchWorkload struct {
	id   string
	name string
	run  func(packets int) (benchRow, error)
}

func benchWorkloads() []benchWorkload {
	var ws []benchWorkload
	for _, size := range []string{"512k", "2m"} {
		for _, v := range []string{"Ideal", "Tofino"} {
			sc, v := "htsim-incast-"+size, v
			ws = append(ws, benchWorkload{id: sc + "/" + v, name: "htsim incast 63->1, " + size + "B flows, " + v,
				run: func(int) (benchRow, error) { return benchScenario(sc, v, "64") }})
		}
	}
	for _, v := range []string{"Tofino", "Ideal"} {
		v := v
		ws = append(ws, benchWorkload{id: "trim-fig6/" + v, name: "trim-fig6, 64 senders, " + v,
			run: func(int) (benchRow, error) { return benchScenario("trim-fig6", v, "64") }})
	}
	for _, v := range []string{"PIE_DP", "ns3-rfc"} {
		v := v
		ws = append(ws, benchWorkload{id: "pie-risefall/" + v, name: "PIE rise/fall (100 Gb/s UDP into 10 Gb/s, ~25 M packets), " + v,
			run: func(int) (benchRow, error) { return benchScenario("pie-risefall", v, "") }})
	}
	for _, v := range []string{"Protego", "ProtegoNB", "Protego-trio"} {
		v := v
		ws = append(ws, benchWorkload{id: "protego-10M/" + v, name: "Protego stress test, 10^7 MTU frames at 100 Gb/s through both switches, 1e-3 loss, " + v,
			run: func(int) (benchRow, error) { return benchProtego(v, float64(benchFrames)) }})
	}
	ws = append(ws,
		benchWorkload{id: "pipeline/tofino", name: "ndp pipeline latency, load 0.5",
			run: func(n int) (benchRow, error) { return benchPipeline("tofino", n) }},
		benchWorkload{id: "pipeline/trio", name: "ndp on a Trio 5 PFE, load 0.5",
			run: func(n int) (benchRow, error) { return benchPipeline("trio", n) }},
		benchWorkload{id: "trio-ml", name: "trio-ml job: 4 workers x 256 blocks of 1024 gradients, one Trio 5 PFE",
			run: func(int) (benchRow, error) { return benchTrioML() }},
		benchWorkload{id: "trim-fig6/sweep", name: "trim-fig6, the full sweep (15 sender counts x Ideal, Tofino, Tofino-paper), parallel runs",
			run: func(int) (benchRow, error) { return benchSweep("trim-fig6") }},
		benchWorkload{id: "aggregate-compare/p0.16", name: "one point of aggregate --compare (p = 0.16): Trio-ML and SwitchML-256, with and without stragglers, two runs at a time",
			run: func(int) (benchRow, error) { return benchComparePoint(0.16) }},
	)
	return ws
}

func newBenchCmd(out io.Writer) *cobra.Command {
	var asJSON, inProcess, quiet bool
	var packets int
	var only []string
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Time the simulator on its standard workloads (wall time, events and allocations per hop, switch hops/s, peak memory)",
		Long: `Time the simulator on its standard workloads, each in its own process:
wall time, events, data packets/s, switch packet-hops/s, events and heap
allocations per hop, and peak resident memory. The htsim-incast rows are
the workload scripts/htsim-vs-archsim.sh runs on htsim too.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if packets < 1 {
				return &exitError{code: 2, msg: fmt.Sprintf("--packets %d: must be ≥ 1", packets)}
			}
			if benchFrames < 1000 || benchFrames > 1_000_000_000 {
				return &exitError{code: 2, msg: fmt.Sprintf("--frames %d: must be 1000..10^9", benchFrames)}
			}
			if err := checkPackets(cmd, packets, 0, 1, nil); err != nil {
				return err
			}
			ws := benchWorkloads()
			if len(only) > 0 {
				var keep []benchWorkload
				var ids []string
				for _, w := range ws {
					ids = append(ids, w.id)
					if slices.Contains(only, w.id) {
						keep = append(keep, w)
					}
				}
				for i, id := range only {
					if !slices.Contains(ids, id) {
						return &exitError{code: 2, msg: fmt.Sprintf("--only %q: no such workload (workloads: %v)", id, ids)}
					}
					if slices.Index(only, id) < i {
						return &exitError{code: 2, msg: fmt.Sprintf("--only %q: given twice", id)}
					}
				}
				// A size no chosen workload reads would be ignored.
				if cmd.Flags().Changed("packets") && !slices.ContainsFunc(only, usesPackets) {
					return &exitError{code: 2, msg: fmt.Sprintf("--packets sizes the pipeline/* workloads, not %s", strings.Join(only, ", "))}
				}
				if cmd.Flags().Changed("frames") && !slices.ContainsFunc(only, usesFrames) {
					return &exitError{code: 2, msg: fmt.Sprintf("--frames sizes the protego-10M/* workloads, not %s", strings.Join(only, ", "))}
				}
				ws = keep
			}
			// The pipeline rows offer --packets to ndp's ports: too few is
			// bad input, found before any workload runs.
			for _, w := range ws {
				if usesPackets(w.id) {
					if err := checkPipelinePackets(packets); err != nil {
						return &exitError{code: 2, msg: oneLine(err.Error())}
					}
					break
				}
			}
			var rows []benchRow
			pg := startProgress(cmd, quiet)
			defer pg.Stop()
			for i, w := range ws {
				var row benchRow
				var err error
				pg.Status("bench [%d/%d] %s", i+1, len(ws), w.name)
				if inProcess {
					row, err = benchOne(w, packets)
				} else {
					row, err = benchChild(w, packets)
				}
				if err != nil {
					return &exitError{code: 1, msg: oneLine(fmt.Sprintf("%s: %v", w.id, err))}
				}
				rows = append(rows, row)
				pg.Line("bench [%d/%d] %s: %.2f s", i+1, len(ws), w.name, row.WallS)
			}
			pg.Stop()
			if asJSON {
				return writeJSON(out, rows)
			}
			var buf bytes.Buffer
			fmt.Fprintf(&buf, "%s/%s, %d cores, %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
			t := tables.New(&buf, "Workload", "Wall s", "Simulated us", "Data pkts", "Data pkts/s", "Switch hops", "Hops/s", "Events/hop", "Allocs/hop", "Peak MB")
			for _, r := range rows {
				t.Row(r.Workload, fmt.Sprintf("%.3f", r.WallS), fmt.Sprintf("%.0f", r.SimulatedUs), fmt.Sprint(r.Packets),
					fmt.Sprintf("%.0f", r.PacketsPerSec), fmt.Sprint(r.SwitchHops), fmt.Sprintf("%.0f", r.HopsPerSec),
					fmt.Sprintf("%.2f", r.EventsPerHop), fmt.Sprintf("%.2f", r.AllocsPerHop), fmt.Sprintf("%.1f", r.PeakRSSMB))
			}
			t.Render()
			_, err := out.Write(buf.Bytes())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rows as JSON")
	cmd.Flags().IntVar(&packets, "packets", 20000, "packets for the pipeline-latency workloads")
	cmd.Flags().IntVar(&benchFrames, "frames", 10_000_000, "frames for the Protego stress workloads (protego-10M/*)")
	cmd.Flags().StringSliceVar(&only, "only", nil, "run only these workloads (repeatable or comma-separated; e.g. htsim-incast-2m/Ideal, trim-fig6/Tofino, pipeline/trio, trio-ml)")
	cmd.Flags().BoolVar(&quiet, "quiet", false, "no progress on stderr (there is none when stderr is not a terminal)")
	cmd.Flags().BoolVar(&inProcess, "in-process", false, "run every workload in this process (peak memory is then the process's peak so far)")
	return cmd
}

// benchChild runs one workload in a child process (this executable with
// bench --only ID --in-process --json) so its peak memory is its own.
func benchChild(w benchWorkload, packets int) (benchRow, error) {
	self, err := os.Executable()
	if err != nil {
		return benchRow{}, err
	}
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "--only", w.id, "--in-process", "--json", "--tie-break", tieBreak}
	if usesPackets(w.id) {
		args = append(args, "--packets", fmt.Sprint(packets))
	}
	if usesFrames(w.id) {
		args = append(args, "--frames", fmt.Sprint(benchFrames))
	}
	c := exec.Command(self, args...)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		// The child said what went wrong in archsim's own words.
		msg := strings.TrimPrefix(string(bytes.TrimSpace(stderr.Bytes())), "archsim: ")
		msg = strings.TrimPrefix(msg, w.id+": ")
		if msg == "" {
			msg = err.Error()
		}
		return benchRow{}, errors.New(msg)
	}
	var rows []benchRow
	if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil || len(rows) != 1 {
		return benchRow{}, fmt.Errorf("child output: %v", err)
	}
	row := rows[0]
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		row.PeakRSSMB = float64(ru.Maxrss) / 1024 // Linux: KiB
	}
	return row, nil
}

// benchOne runs one workload in this process and fills in the timing,
// allocation and memory fields.
func benchOne(w benchWorkload, packets int) (benchRow, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	row, err := w.run(packets)
	if err != nil {
		return row, err
	}
	row.WallS = time.Since(start).Seconds()
	runtime.ReadMemStats(&after)
	row.Workload = w.name
	row.PacketsPerSec = float64(row.Packets) / row.WallS
	if row.Packets > 0 {
		row.EventsPerPacket = float64(row.Events) / float64(row.Packets)
	}
	if row.SwitchHops > 0 {
		row.HopsPerSec = float64(row.SwitchHops) / row.WallS
		row.EventsPerHop = float64(row.Events) / float64(row.SwitchHops)
		row.AllocsPerHop = float64(after.Mallocs-before.Mallocs) / float64(row.SwitchHops)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		row.PeakRSSMB = float64(ru.Maxrss) / 1024
	}
	return row, nil
}

// benchScenario runs one variant of a scenario at one sweep value (if it
// sweeps).
func benchScenario(name, variant, value string) (benchRow, error) {
	s, err := experiments.Load(name)
	if err != nil {
		return benchRow{}, err
	}
	if s.Sweep != nil {
		s.Sweep.Values = []string{value}
	}
	if err := s.KeepVariant(variant); err != nil {
		return benchRow{}, err
	}
	res, err := s.Execute(experiments.Options{Jobs: 1})
	if err != nil {
		return benchRow{}, err
	}
	r := res.Runs[0]
	if r.PIERun != nil { // a PIE run ends when drop_prob is back at 0
		return benchRow{SimulatedUs: r.SimulatedS * 1e6, Packets: r.PacketsSent, Events: r.Events, SwitchHops: r.SwitchHops}, nil
	}
	return benchRow{SimulatedUs: s.DurationUs, Packets: r.DataSent, Events: r.Events, SwitchHops: r.SwitchHops}, nil
}

// usesPackets and usesFrames say which workloads --packets and --frames
// size.
func usesPackets(id string) bool { return strings.HasPrefix(id, "pipeline/") }
func usesFrames(id string) bool  { return strings.HasPrefix(id, "protego-10M/") }

// benchFrames is how many frames the Protego rows send (bench --frames).
var benchFrames = 10_000_000

// benchProtego runs protego-speed's variant for as long as frames frames
// take at 100 Gb/s (1518-byte frames: 123.36 ns each on the wire).
func benchProtego(variant string, frames float64) (benchRow, error) {
	s, err := experiments.Load("protego-speed")
	if err != nil {
		return benchRow{}, err
	}
	if err := s.KeepVariant(variant); err != nil {
		return benchRow{}, err
	}
	s.DurationUs = frames * float64(1518+24) * 8 / 100e3
	res, err := s.Execute(experiments.Options{Jobs: 1})
	if err != nil {
		return benchRow{}, err
	}
	r := res.Runs[0]
	return benchRow{SimulatedUs: s.DurationUs, Packets: r.DataSent, Events: r.Events, SwitchHops: r.SwitchHops}, nil
}

// benchPipeline runs the main job's latency simulation of ndp on a chip;
// every offered packet is one switch hop.
// checkPipelinePackets checks that --packets covers ndp's traffic: at
// least one packet per ingress port (what the pipeline rows measure).
func checkPipelinePackets(packets int) error {
	prog, err := programs.Resolve("ndp", nil)
	if err != nil {
		return err
	}
	anyRate := func(int) (float64, error) { return 100, nil }
	_, err = harness.Generate(prog, anyRate, packets, 0.5, 1)
	return err
}

func benchPipeline(chip string, packets int) (benchRow, error) {
	t, err := job.Load(chip, arch.Overrides{})
	if err != nil {
		return benchRow{}, err
	}
	c, err := job.Compile(t, "ndp", nil)
	if err != nil {
		return benchRow{}, err
	}
	m, err := harness.Measure(t, c, 1, harness.Sim{Packets: packets, Load: 0.5})
	if err != nil {
		return benchRow{}, err
	}
	run := m.Latency
	return benchRow{SimulatedUs: run.SimulatedNs / 1000, Packets: run.Offered, Events: run.Events, SwitchHops: run.Offered}, nil
}

// benchTrioML runs a Trio-ML job: four workers stream 256 blocks of 1024
// gradients through one Trio 5 PFE with window 64 (the hosts' events are
// included). A hop is a packet into the PFE (a gradient packet).
func benchTrioML() (benchRow, error) {
	p, err := aggregation.LoadParams(nil)
	if err != nil {
		return benchRow{}, err
	}
	wc := p.Workers(0, 0, 1)
	wc.Workers, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, 256*1024, 64, 1, 0
	r, err := aggregation.Run(aggregation.Setup{Switch: "trio", Workers: wc, Seed: 1})
	if err != nil {
		return benchRow{}, err
	}
	return benchRow{SimulatedUs: r.SimulatedMs * 1000, Packets: r.Sent, Events: r.Events, SwitchHops: r.Sent}, nil
}

// benchComparePoint runs one point of aggregate --compare at prob with
// configs/aggregation.yaml's job (what "archsim aggregate --compare
// --probs PROB" runs: four jobs, two at a time). Packets and hops are the
// gradient packets the workers sent.
func benchComparePoint(prob float64) (benchRow, error) {
	p, err := aggregation.LoadParams(nil)
	if err != nil {
		return benchRow{}, err
	}
	pts, err := aggregation.StragglerSweepWith(p, []float64{prob}, 1, nil)
	if err != nil {
		return benchRow{}, err
	}
	pt := pts[0]
	return benchRow{SimulatedUs: pt.SwitchMLMs * float64(p.Training.Iterations) * 1000, Packets: pt.Sent, Events: pt.Events, SwitchHops: pt.Sent}, nil
}

// benchSweep runs a whole scenario, every variant at every sweep value, as
// "archsim run --scenario NAME --no-files" does (its runs in parallel, one
// per core): the row sums the runs' packets, events and hops, and its
// simulated time is one run's.
func benchSweep(name string) (benchRow, error) {
	s, err := experiments.Load(name)
	if err != nil {
		return benchRow{}, err
	}
	res, err := s.Execute(experiments.Options{})
	if err != nil {
		return benchRow{}, err
	}
	row := benchRow{SimulatedUs: s.DurationUs}
	for _, r := range res.Runs {
		row.Packets += r.DataSent
		row.Events += r.Events
		row.SwitchHops += r.SwitchHops
	}
	return row, nil
}
