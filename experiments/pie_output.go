package experiments

import (
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
)

// aqmRows is the drop_prob and queueing-delay time series of every run.
func (r *Result) aqmRows() [][]string {
	rows := [][]string{{"variant", "sweep_value", "time_s", "drop_prob", "queue_delay_us"}}
	for _, run := range r.Runs {
		if run.PIERun == nil {
			continue
		}
		for _, a := range run.Trace {
			rows = append(rows, []string{run.Variant, run.Value, f2s(a.AtS), f2s(a.DropProb), f2s(a.QueueDelayUs)})
		}
	}
	return rows
}

// plotAQM draws drop_prob (y "drop_prob") or the bottleneck's queueing
// delay (y "queue_delay_us") over time, one line per run.
func (r *Result) plotAQM(pl *plot.Plot, y string) error {
	pl.X.Label.Text = "Time (s)"
	if y == "drop_prob" {
		pl.Y.Label.Text = "Drop probability"
		pl.Y.Min, pl.Y.Max = 0, 1.05
	} else {
		pl.Y.Label.Text = "Queueing delay at the bottleneck (us)"
		pl.Y.Min = 0
	}
	for i, run := range r.Runs {
		if run.PIERun == nil || len(run.Trace) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(run.Trace))
		for j, a := range run.Trace {
			pts[j].X = a.AtS
			if y == "drop_prob" {
				pts[j].Y = a.DropProb
			} else {
				pts[j].Y = a.QueueDelayUs
			}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		label := run.Variant
		if run.Value != "" {
			label += " " + run.Value
		}
		pl.Add(line)
		pl.Legend.Add(label, line)
	}
	return nil
}

// aqmRunRows is runs.csv of a PIE scenario: what the bottleneck's AQM did
// (the keys of the runs' JSON; rise_s and fall_s empty when never reached).
func (r *Result) aqmRunRows() [][]string {
	rows := [][]string{{"variant", "sweep_value", "senders", "rise_s", "fall_s", "updates", "final_drop_prob", "max_drop_prob",
		"queue_delay_us_p50", "queue_delay_us_p90", "queue_delay_us_p99", "aqm_drops", "tail_drops", "packets_sent",
		"total_goodput_gbps", "cp_update_period_us", "simulated_s", "startup_s", "events",
		"queue_delay_us_n", "queue_delay_us_mean", "queue_delay_us_max",
		"data_sent", "delivered_full", "dropped", "in_flight_at_end", "conservation_ok"}}
	opt := func(x *float64) string {
		if x == nil {
			return ""
		}
		return f2s(*x)
	}
	for _, run := range r.Runs {
		p := run.PIERun
		if p == nil {
			continue
		}
		q := p.QueueDelayUs
		qv := func(x float64) string { // empty when no packet left the queue
			if q.N == 0 {
				return ""
			}
			return f2s(x)
		}
		rows = append(rows, []string{run.Variant, run.Value, strconv.Itoa(run.Senders), opt(p.RiseS), opt(p.FallS),
			strconv.Itoa(p.Updates), f2s(p.FinalDropProb), f2s(p.MaxDropProb), qv(q.P50), qv(q.P90), qv(q.P99),
			strconv.Itoa(p.AQMDrops), strconv.Itoa(p.TailDrops), strconv.Itoa(p.PacketsSent), f2s(p.TotalGoodputGbps),
			opt(p.CPPeriodUs), f2s(p.SimulatedS), f2s(p.StartupS), strconv.FormatInt(run.Events, 10),
			strconv.Itoa(q.N), qv(q.Mean), qv(q.Max),
			strconv.Itoa(run.DataSent), strconv.Itoa(run.DeliveredFull), strconv.Itoa(run.Dropped), strconv.Itoa(run.InFlight),
			strconv.FormatBool(run.ConservationOK)})
	}
	return rows
}

// delayCDFRows is one variant's queueing-delay CDF per sweep value.
func (r *Result) delayCDFRows(variant string) [][]string {
	rows := [][]string{{"variant", "sweep_value", "fraction", "queue_delay_us"}}
	for _, run := range r.Runs {
		if run.Variant != variant || run.PIERun == nil {
			continue
		}
		for k, d := range run.DelayCDF {
			rows = append(rows, []string{run.Variant, run.Value, f2s(float64(k) / 100), f2s(d)})
		}
	}
	return rows
}

// plotDelayCDF draws one variant's queueing-delay CDF, a line per sweep
// value (the PIE paper's Fig. 6, right).
func (r *Result) plotDelayCDF(pl *plot.Plot, variant string) error {
	pl.X.Label.Text = "Queueing delay at the bottleneck (us)"
	pl.Y.Label.Text = "CDF"
	pl.Y.Min, pl.Y.Max = 0, 1
	i := 0
	for _, run := range r.Runs {
		if run.Variant != variant || run.PIERun == nil || len(run.DelayCDF) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(run.DelayCDF))
		for k, d := range run.DelayCDF {
			pts[k].X, pts[k].Y = d, float64(k)/100
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		label := variant
		if run.Value != "" {
			label = run.Sweep + " " + run.Value
		}
		pl.Add(line)
		pl.Legend.Add(label, line)
		i++
	}
	return nil
}
