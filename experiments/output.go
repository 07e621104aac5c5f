package experiments

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"archsim/components/stats"
	"archsim/internal/mkdir"
)

// WriteFiles writes runs.csv, flows.csv, the data behind every plot as
// CSV, and the scenario's plots as PNG into dir. It returns the files
// written, in order.
func (r *Result) WriteFiles(dir string) (files []string, err error) {
	made, err := mkdir.All(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot create %s: %v", dir, err)
	}
	// Each file is written under a temporary name and the set is renamed
	// into place only when every file is complete: a failure (a full
	// disk, an unwritable name) leaves none of them, and no mix of new
	// files with an earlier run's.
	var temps, finals []string
	defer func() {
		if err != nil {
			for _, t := range temps {
				os.Remove(t)
			}
			mkdir.Undo(made)
			files = nil
		}
	}()
	temp := func(name string) string {
		t := filepath.Join(dir, ".archsim-partial-"+name)
		temps, finals = append(temps, t), append(finals, filepath.Join(dir, name))
		return t
	}
	add := func(name string, rows [][]string) error {
		f, err := os.Create(temp(name))
		if err != nil {
			return err
		}
		w := csv.NewWriter(f)
		if err := w.WriteAll(rows); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if err := add("runs.csv", r.runRows()); err != nil {
		return nil, err
	}
	if err := add("flows.csv", r.flowRows()); err != nil {
		return nil, err
	}
	for _, p := range r.Scenario.Plots {
		var rows [][]string
		switch p.Kind {
		case "header_cdf":
			rows = r.cdfRows()
		case "sweep":
			rows = r.sweepRows(p.Y)
		case "modes":
			rows = r.modeRows(p.Value)
		case "arrivals":
			rows = r.arrivalRows()
		case "aqm":
			rows = r.aqmRows()
		case "delay_cdf":
			rows = r.delayCDFRows(p.Variant)
		case "queue":
			rows = [][]string{{"variant", "sweep_value", "time_us", "packets"}}
			for _, run := range r.Runs {
				for _, q := range run.Queue {
					rows = append(rows, []string{run.Variant, run.Value, f2s(q.AtUs), strconv.Itoa(q.Packets)})
				}
			}
		}
		base := p.File
		if base == "" {
			base = p.Kind + ".png"
		}
		csvName := base[:len(base)-len(filepath.Ext(base))] + ".csv"
		if err := add(csvName, rows); err != nil {
			return nil, err
		}
		if err := r.plot(p, temp(base)); err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, base), err)
		}
	}
	for i, t := range temps {
		if err := os.Rename(t, finals[i]); err != nil {
			return nil, err
		}
		temps[i] = finals[i] // taken back too if a later rename fails
	}
	return finals, nil
}

func f2s(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func (r *Result) runRows() [][]string {
	if len(r.Runs) > 0 && r.Runs[0].PIERun != nil {
		return r.aqmRunRows()
	}
	if len(r.Runs) > 0 && r.Runs[0].ProtegoRun != nil {
		return r.protegoRunRows()
	}
	rows := [][]string{{"variant", "sweep_value", "senders", "data_sent", "delivered_full", "delivered_trimmed", "dropped",
		"in_flight_at_end", "trims_ingress", "trims_dod", "trims_queue", "trims_tm", "trims", "max_dod_queue_pkts",
		"mean_goodput_gbps", "min_goodput_gbps", "max_goodput_gbps", "events", "events_per_packet", "conservation_ok"}}
	for _, run := range r.Runs {
		rows = append(rows, []string{run.Variant, run.Value, strconv.Itoa(run.Senders), strconv.Itoa(run.DataSent),
			strconv.Itoa(run.DeliveredFull), strconv.Itoa(run.DeliveredTrimmed), strconv.Itoa(run.Dropped), strconv.Itoa(run.InFlight),
			strconv.Itoa(run.TrimsIngress), strconv.Itoa(run.TrimsDoD), strconv.Itoa(run.TrimsQueue), strconv.Itoa(run.TrimsTM), strconv.Itoa(run.Trims),
			strconv.Itoa(run.MaxDoDQueue), f2s(run.MeanGoodputGbps), f2s(run.MinGoodputGbps), f2s(run.MaxGoodputGbps),
			strconv.FormatInt(run.Events, 10), f2s(run.EventsPerPacket), strconv.FormatBool(run.ConservationOK)})
	}
	return rows
}

func (r *Result) flowRows() [][]string {
	rows := [][]string{{"variant", "sweep_value", "flow", "src_host", "dst_host", "goodput_gbps"}}
	for _, run := range r.Runs {
		for i, g := range run.GoodputGbps {
			rows = append(rows, []string{run.Variant, run.Value, strconv.Itoa(i), strconv.Itoa(run.FlowSrc[i]), strconv.Itoa(run.FlowDst[i]), f2s(g)})
		}
	}
	return rows
}

// cdf returns sorted header arrival times and their cumulative fraction.
func cdf(xs []float64) ([]float64, []float64) { return stats.CDF(xs) }

func (r *Result) cdfRows() [][]string {
	rows := [][]string{{"variant", "sweep_value", "header_arrival_us", "cdf"}}
	for _, run := range r.Runs {
		xs, ys := cdf(run.HeadersUs)
		for i := range xs {
			rows = append(rows, []string{run.Variant, run.Value, f2s(xs[i]), f2s(ys[i])})
		}
	}
	return rows
}

// metric returns a run's value of a sweep plot's y: any numeric key of the
// run's JSON summary, or "sonic_" + a key of its SONiC counters.
func (run *Run) metric(y string) (float64, bool) {
	v, ok := runMetrics(run)[y]
	return v, ok
}

// runMetrics flattens a run's numeric JSON keys.
func runMetrics(run *Run) map[string]float64 {
	b, _ := json.Marshal(run)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	out := map[string]float64{}
	for k, v := range m {
		if x, ok := v.(float64); ok {
			out[k] = x
		}
	}
	for _, nested := range []string{"sonic", "queue_delay_us"} {
		if sm, ok := m[nested].(map[string]any); ok {
			for k, v := range sm {
				if x, ok := v.(float64); ok {
					out[nested+"_"+k] = x
				}
			}
		}
	}
	return out
}

// metricNames is every y a sweep plot may use.
func metricNames() map[string]bool {
	names := map[string]bool{}
	zero := 0.0
	var count int64
	for k := range runMetrics(&Run{Sonic: &SonicRun{NonTrimQueueDrops: &count, TrimQueueTx: &count}, PIERun: &PIERun{RiseS: &zero, FallS: &zero, CPPeriodUs: &zero, QueueDelayUs: Quantiles{N: 1}}}) {
		names[k] = true
	}
	return names
}

func (r *Result) sweepRows(y string) [][]string {
	rows := [][]string{{"variant", "sweep_value", y}}
	for _, run := range r.Runs {
		v, ok := run.metric(y)
		cell := "" // a run with nothing to summarise (no samples)
		if ok {
			cell = f2s(v)
		}
		rows = append(rows, []string{run.Variant, run.Value, cell})
	}
	return rows
}

func (r *Result) modeRows(value string) [][]string {
	rows := [][]string{{"variant", "sweep_value", "time_us", "pipe", "port_index"}}
	for _, run := range r.Runs {
		if value != "" && run.Value != value {
			continue
		}
		for _, m := range run.Modes {
			rows = append(rows, []string{run.Variant, run.Value, f2s(m.AtUs), strconv.Itoa(m.Pipe), strconv.FormatInt(m.Index, 10)})
		}
	}
	return rows
}

// modeWindow is a time span during which a port was in the armed mode.
type modeWindow struct {
	port     int64
	from, to float64
}

// modeWindows merges the windows [arm, arm + w] of pipe 0's arms per port
// (ports in order).
func modeWindows(modes []ModeEvent, w, endUs float64) []modeWindow {
	byPort := map[int64][]float64{}
	for _, m := range modes {
		if m.Pipe == 0 {
			byPort[m.Index] = append(byPort[m.Index], m.AtUs)
		}
	}
	ports := make([]int64, 0, len(byPort))
	for p := range byPort {
		ports = append(ports, p)
	}
	slices.Sort(ports)
	var out []modeWindow
	for _, p := range ports {
		var cur *modeWindow
		for _, t := range byPort[p] { // in simulation order
			end := math.Min(t+w, endUs)
			if cur != nil && t <= cur.to {
				cur.to = math.Max(cur.to, end)
				continue
			}
			out = append(out, modeWindow{port: p, from: t, to: end})
			cur = &out[len(out)-1]
		}
	}
	return out
}

func (r *Result) arrivalRows() [][]string {
	rows := [][]string{{"variant", "sweep_value", "flow", "seq", "time_us", "trimmed", "ndp_flags"}}
	for _, run := range r.Runs {
		for _, a := range run.Arrivals {
			rows = append(rows, []string{run.Variant, run.Value, strconv.Itoa(a.Flow), strconv.Itoa(a.Seq), f2s(a.AtUs), strconv.FormatBool(a.Trimmed), strconv.Itoa(int(a.Flags))})
		}
	}
	return rows
}

// variantNames lists the variants in scenario order.
func (r *Result) variantNames() []string {
	var out []string
	for _, v := range r.Scenario.Variants {
		out = append(out, v.Name)
	}
	return out
}

func (r *Result) plot(p Plot, path string) error {
	pl := plot.New()
	pl.Title.Text = p.Title
	if pl.Title.Text == "" {
		pl.Title.Text = r.Name
	}
	switch p.Kind {
	case "header_cdf":
		pl.X.Label.Text = "Header receive time (µs)"
		pl.Y.Label.Text = "Fraction of headers received (CDF)"
		for i, name := range r.variantNames() {
			for _, run := range r.Runs {
				if run.Variant != name || len(run.HeadersUs) == 0 {
					continue
				}
				xs, ys := cdf(run.HeadersUs)
				pts := make(plotter.XYs, len(xs))
				for k := range xs {
					pts[k].X, pts[k].Y = xs[k], ys[k]
				}
				line, err := plotter.NewLine(pts)
				if err != nil {
					return err
				}
				line.Color = plotutil.Color(i)
				line.Dashes = plotutil.Dashes(i)
				line.Width = vg.Points(1.5)
				label := name
				if run.Value != "" {
					label += ", " + r.Scenario.Sweep.Var + "=" + run.Value
				}
				pl.Add(line)
				pl.Legend.Add(label, line)
			}
		}
	case "sweep":
		pl.X.Label.Text = axisLabel(r.Scenario.Sweep.Var)
		pl.Y.Label.Text = axisLabel(p.Y)
		pl.Y.Min = 0
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range r.Scenario.Sweep.Values {
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
		for i, name := range r.variantNames() {
			var pts plotter.XYs
			for _, run := range r.Runs {
				if run.Variant != name {
					continue
				}
				y, ok := run.metric(p.Y)
				if !ok {
					continue // nothing to summarise in this run: no point
				}
				if run.Value == "" { // run once (no program constants): a flat line
					pts = append(pts, plotter.XY{X: lo, Y: y}, plotter.XY{X: hi, Y: y})
					continue
				}
				x, err := strconv.ParseFloat(run.Value, 64)
				if err != nil {
					continue
				}
				pts = append(pts, plotter.XY{X: x, Y: y})
			}
			if len(pts) == 0 {
				continue
			}
			line, points, err := plotter.NewLinePoints(pts)
			if err != nil {
				return err
			}
			line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
			line.Width = vg.Points(1.5)
			points.Shape = plotutil.Shape(i)
			pl.Add(line, points)
			pl.Legend.Add(name, line, points)
		}
	case "modes":
		pl.X.Label.Text = "Time (µs)"
		pl.Y.Label.Text = "Egress port index (pessimistic mode armed, pipe 0)"
		k := 0
		for _, run := range r.Runs {
			if len(run.Modes) == 0 || (p.Value != "" && run.Value != p.Value) {
				continue
			}
			label := strings.TrimSpace(run.Variant + " " + run.Value)
			if p.WindowUs > 0 {
				first := true
				for _, seg := range modeWindows(run.Modes, p.WindowUs, r.Scenario.DurationUs) {
					line, err := plotter.NewLine(plotter.XYs{{X: seg.from, Y: float64(seg.port)}, {X: seg.to, Y: float64(seg.port)}})
					if err != nil {
						return err
					}
					line.Color = plotutil.Color(k)
					line.Width = vg.Points(3)
					pl.Add(line)
					if first {
						pl.Legend.Add(label, line)
						first = false
					}
				}
				k++
				continue
			}
			var pts plotter.XYs
			for _, m := range run.Modes {
				if m.Pipe == 0 {
					pts = append(pts, plotter.XY{X: m.AtUs, Y: float64(m.Index)})
				}
			}
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return err
			}
			sc.Color = plotutil.Color(k)
			sc.Radius = vg.Points(1.5)
			pl.Add(sc)
			pl.Legend.Add(label, sc)
			k++
		}
	case "queue":
		pl.X.Label.Text = "Time (µs)"
		pl.Y.Label.Text = "Data queue depth (packets)"
		for i, run := range r.Runs {
			if len(run.Queue) == 0 {
				continue
			}
			pts := make(plotter.XYs, len(run.Queue))
			for j, q := range run.Queue {
				pts[j].X, pts[j].Y = q.AtUs, float64(q.Packets)
			}
			line, err := plotter.NewLine(pts)
			if err != nil {
				return err
			}
			line.Color = plotutil.Color(i)
			line.StepStyle = plotter.PostStep // a depth holds until the next change
			label := run.Variant
			if run.Value != "" {
				label += ", " + r.Scenario.Sweep.Var + "=" + run.Value
			}
			pl.Add(line)
			pl.Legend.Add(label, line)
		}
	case "aqm":
		if err := r.plotAQM(pl, p.Y); err != nil {
			return err
		}
	case "delay_cdf":
		if err := r.plotDelayCDF(pl, p.Variant); err != nil {
			return err
		}
	case "arrivals":
		if err := r.plotArrivals(pl); err != nil {
			return err
		}
	}
	return savePlot(pl, path)
}

// Figure layout (assumed: a page-width figure at screen resolution).
const (
	plotWidth  = 9 * vg.Inch
	plotHeight = 5 * vg.Inch
	// maxScatter is the most arrivals of a kind drawn one dot each; more
	// merge into a line, so arrivals are binned into rates instead.
	maxScatter = 2000
	// arrivalBins is the number of time bins of a binned arrivals plot.
	arrivalBins = 100
)

var arrivalColors = []color.Color{color.RGBA{0, 0, 200, 255}, color.RGBA{200, 0, 0, 255}}

// plotArrivals draws flow 1's arrivals at its receiver: data packets and
// trimmed headers as dots (sequence number over time), or, when there are
// too many to tell apart, as arrival rates in time bins.
func (r *Result) plotArrivals(pl *plot.Plot) error {
	type series struct {
		label string
		pts   plotter.XYs
	}
	var all []series
	n, endUs := 0, 0.0
	for _, run := range r.Runs {
		var full, trimmed plotter.XYs
		for _, a := range run.Arrivals {
			if a.Flow != 1 {
				continue
			}
			pt := plotter.XY{X: a.AtUs, Y: float64(a.Seq)}
			if a.Trimmed {
				trimmed = append(trimmed, pt)
			} else {
				full = append(full, pt)
			}
			endUs = math.Max(endUs, a.AtUs)
		}
		all = append(all, series{run.Variant + " data", full}, series{run.Variant + " trimmed headers", trimmed})
		n = max(n, len(full), len(trimmed))
	}
	pl.X.Label.Text = "Arrival time (µs)"
	if n <= maxScatter {
		pl.Y.Label.Text = "Sequence number (flow 1)"
		for j, s := range all {
			if len(s.pts) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(s.pts)
			if err != nil {
				return err
			}
			sc.Radius = vg.Points(1.5)
			sc.Color = arrivalColors[j%2]
			if j%2 == 1 {
				sc.Shape = draw.CrossGlyph{}
			}
			pl.Add(sc)
			pl.Legend.Add(s.label, sc)
		}
		return nil
	}
	bin := endUs / arrivalBins
	if bin <= 0 {
		bin = 1
	}
	pl.Y.Label.Text = fmt.Sprintf("Flow 1 arrivals (packets/µs, %s µs bins)", strconv.FormatFloat(bin, 'g', 3, 64))
	pl.Y.Min = 0
	for j, s := range all {
		if len(s.pts) == 0 {
			continue
		}
		counts := make([]float64, arrivalBins)
		for _, p := range s.pts {
			counts[min(int(p.X/bin), arrivalBins-1)]++
		}
		pts := make(plotter.XYs, arrivalBins)
		for k, c := range counts {
			pts[k] = plotter.XY{X: (float64(k) + 0.5) * bin, Y: c / bin}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color = arrivalColors[j%2]
		line.Width = vg.Points(1.5)
		if j%2 == 1 {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		pl.Add(line)
		pl.Legend.Add(s.label, line)
	}
	return nil
}

// savePlot writes the plot as a PNG with its legend in a column right of
// the axes, where it cannot cover a curve.
func savePlot(pl *plot.Plot, path string) error {
	img := vgimg.New(plotWidth, plotHeight)
	dc := draw.New(img)
	leg := pl.Legend
	pl.Legend = plot.NewLegend()
	pad := vg.Points(8)
	lw := leg.Rectangle(dc).Size().X
	if lw > 0 {
		lw += 2 * pad
	}
	pl.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	if lw > 0 {
		leg.Top, leg.Left = true, false
		titleH := pl.Title.TextStyle.Height(pl.Title.Text) + pl.Title.Padding
		leg.Draw(draw.Crop(dc, plotWidth-lw+pad, -pad, 0, -titleH-pad))
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// unitWords are the units a key's last word may name, as axis labels
// write them.
var unitWords = map[string]string{"gbps": "Gb/s", "pkts": "packets", "packets": "packets", "us": "µs", "ns": "ns",
	"ms": "ms", "pct": "%", "bytes": "bytes", "mhz": "MHz"}

// axisLabels are the keys whose label needs more than the generic rule.
var axisLabels = map[string]string{
	"senders":                    "Senders (hosts)",
	"trims":                      "Trimmed packets",
	"trims_ingress":              "Trimmed at ingress (packets)",
	"trims_dod":                  "Trimmed by deflect-on-drop (packets)",
	"trims_queue":                "Trimmed in the output queue (packets)",
	"trims_tm":                   "Trimmed by the traffic manager (packets)",
	"max_dod_queue_pkts":         "Max deflect-on-drop queue (packets)",
	"dropped":                    "Dropped (packets)",
	"data_sent":                  "Data sent (packets)",
	"delivered_full":             "Delivered whole (packets)",
	"delivered_trimmed":          "Delivered trimmed (packets)",
	"in_flight_at_end":           "In flight at the end (packets)",
	"events_per_packet":          "Simulation events per packet",
	"sonic_trim_packets":         "SONiC trimmed (packets)",
	"sonic_trim_sent":            "SONiC trim sent (packets)",
	"sonic_trim_drop":            "SONiC trim drops (packets)",
	"sonic_tx_drops":             "SONiC queue drops (packets)",
	"sonic_non_trim_queue_drops": "SONiC drops on non-trim queues (packets)",
	"sonic_trim_queue_tx":        "SONiC trim-queue transmits (packets)",
}

// axisLabel turns a run key or sweep variable into an axis label with
// its unit: mean_goodput_gbps is "Mean goodput (Gb/s)", T0_NS "T0 (ns)".
func axisLabel(key string) string {
	if l, ok := axisLabels[key]; ok {
		return l
	}
	words := strings.Split(key, "_")
	unit := ""
	if u, ok := unitWords[strings.ToLower(words[len(words)-1])]; ok && len(words) > 1 {
		unit, words = u, words[:len(words)-1]
	}
	text := strings.Join(words, " ")
	if key != strings.ToUpper(key) { // a program constant keeps its case
		text = strings.ToLower(text)
		if text != "" {
			text = strings.ToUpper(text[:1]) + text[1:]
		}
	}
	if unit != "" {
		text += " (" + unit + ")"
	}
	return text
}
