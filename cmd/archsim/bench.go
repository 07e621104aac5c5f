package main

import (
	"archsim/internal/tables"
	"bytes"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"archsim/arch"
	"archsim/experiments"
	"archsim/experiments/aggregation"
	"archsim/harness"
	"archsim/job"
)

// benchRow is one timed workload. Wall times vary from machine to machine;
// events and packets are deterministic.
type benchRow struct {
	Workload        string  `json:"workload"`
	WallS           float64 `json:"wall_s"`
	SimulatedUs     float64 `json:"simulated_us"`
	Packets         int     `json:"packets"`
	Events          int64   `json:"events"`
	EventsPerPacket float64 `json:"events_per_packet"`
	PacketsPerSec   float64 `json:"packets_per_s"`
}

func newBenchCmd(out io.Writer) *cobra.Command {
	var asJSON bool
	var packets int
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Time the simulator on its heaviest standard workloads (wall time, events, events per packet, packets per second)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if packets < 1 {
				return &exitError{code: 2, msg: fmt.Sprintf("--packets %d: must be ≥ 1", packets)}
			}
			var rows []benchRow
			for _, v := range []string{"Tofino", "Ideal"} {
				row, err := benchFig6(v)
				if err != nil {
					return &exitError{code: 1, msg: oneLine(err.Error())}
				}
				rows = append(rows, row)
			}
			row, err := benchPipeline("tofino", "ndp pipeline latency, load 0.5", packets)
			if err != nil {
				return &exitError{code: 1, msg: oneLine(err.Error())}
			}
			rows = append(rows, row)
			row, err = benchPipeline("trio", "ndp on a Trio 5 PFE, load 0.5", packets)
			if err != nil {
				return &exitError{code: 1, msg: oneLine(err.Error())}
			}
			rows = append(rows, row)
			row, err = benchTrioML()
			if err != nil {
				return &exitError{code: 1, msg: oneLine(err.Error())}
			}
			rows = append(rows, row)
			if asJSON {
				return writeJSON(out, rows)
			}
			var buf bytes.Buffer
			fmt.Fprintf(&buf, "%s/%s, %d cores, %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
			t := tables.New(&buf, "Workload", "Wall s", "Simulated us", "Packets", "Events", "Events/packet", "Packets/s (wall)")
			for _, r := range rows {
				t.Row(r.Workload, fmt.Sprintf("%.2f", r.WallS), fmt.Sprintf("%.0f", r.SimulatedUs), fmt.Sprint(r.Packets),
					fmt.Sprint(r.Events), fmt.Sprintf("%.1f", r.EventsPerPacket), fmt.Sprintf("%.0f", r.PacketsPerSec))
			}
			t.Render()
			_, err = out.Write(buf.Bytes())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rows as JSON")
	cmd.Flags().IntVar(&packets, "packets", 20000, "packets for the pipeline-latency workload")
	return cmd
}

// benchFig6 times the 64-sender point of trim-fig6 for one variant: 64 NDP
// senders at line rate for 500 us through a 64-port switch.
func benchFig6(variant string) (benchRow, error) {
	s, err := experiments.Load("trim-fig6")
	if err != nil {
		return benchRow{}, err
	}
	s.Sweep.Values = []string{"64"}
	var keep []experiments.Variant
	for _, v := range s.Variants {
		if v.Name == variant {
			keep = append(keep, v)
		}
	}
	s.Variants = keep
	start := time.Now()
	res, err := s.Execute(experiments.Options{Jobs: 1})
	if err != nil {
		return benchRow{}, err
	}
	wall := time.Since(start).Seconds()
	r := res.Runs[0]
	return benchRow{Workload: "trim-fig6, 64 senders, " + variant, WallS: wall, SimulatedUs: s.DurationUs, Packets: r.DataSent,
		Events: r.Events, EventsPerPacket: r.EventsPerPacket, PacketsPerSec: float64(r.DataSent) / wall}, nil
}

// benchPipeline times the main job's latency simulation of ndp on a chip.
func benchPipeline(chip, workload string, packets int) (benchRow, error) {
	t, err := job.Load(chip, arch.Overrides{})
	if err != nil {
		return benchRow{}, err
	}
	c, err := job.Compile(t, "ndp", nil)
	if err != nil {
		return benchRow{}, err
	}
	start := time.Now()
	m, err := harness.Measure(t, c, 1, harness.Sim{Packets: packets, Load: 0.5})
	if err != nil {
		return benchRow{}, err
	}
	wall := time.Since(start).Seconds()
	run := m.Latency
	return benchRow{Workload: workload, WallS: wall, SimulatedUs: run.SimulatedNs / 1000, Packets: run.Offered,
		Events: run.Events, EventsPerPacket: float64(run.Events) / float64(run.Offered), PacketsPerSec: float64(run.Offered) / wall}, nil
}

// benchTrioML times a Trio-ML job: four workers stream 256 blocks of 1024
// gradients through one Trio 5 PFE with window 64 (the hosts' events are
// included).
func benchTrioML() (benchRow, error) {
	p, err := aggregation.LoadParams(nil)
	if err != nil {
		return benchRow{}, err
	}
	wc := p.Workers(0, 0, 1)
	wc.Workers, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, 256*1024, 64, 1, 0
	start := time.Now()
	r, err := aggregation.Run(aggregation.Setup{Switch: "trio", Workers: wc, Seed: 1})
	if err != nil {
		return benchRow{}, err
	}
	wall := time.Since(start).Seconds()
	return benchRow{Workload: "trio-ml job: 4 workers x 256 blocks of 1024 gradients, one Trio 5 PFE", WallS: wall, SimulatedUs: r.SimulatedMs * 1000,
		Packets: r.Sent, Events: r.Events, EventsPerPacket: float64(r.Events) / float64(r.Sent), PacketsPerSec: float64(r.Sent) / wall}, nil
}
