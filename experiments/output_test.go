package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"archsim/components/flowgen"

	"gonum.org/v1/plot"
)

func TestAxisLabels(t *testing.T) {
	for key, want := range map[string]string{
		"mean_goodput_gbps":          "Mean goodput (Gb/s)",
		"max_dod_queue_pkts":         "Max deflect-on-drop queue (packets)",
		"T0_NS":                      "T0 (ns)",
		"senders":                    "Senders (hosts)",
		"sonic_non_trim_queue_drops": "SONiC drops on non-trim queues (packets)",
		"first_deflect_us":           "First deflect (µs)",
	} {
		if got := axisLabel(key); got != want {
			t.Errorf("axisLabel(%q) = %q, want %q", key, got, want)
		}
	}
	// Every metric a sweep plot may use gets a label other than its key.
	for k := range metricNames() {
		if axisLabel(k) == k {
			t.Errorf("metric %q has no readable label", k)
		}
	}
}

// TestArrivalsBinned: a few arrivals are dots; tens of thousands become
// rates in time bins, with the bin width in the label.
func TestArrivalsBinned(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{100, "Sequence number"}, {20 * maxScatter, "packets/µs"}} {
		run := &Run{Variant: "V"}
		for i := 0; i < c.n; i++ {
			run.Arrivals = append(run.Arrivals, Arrival{Flow: 1, Seq: i, AtUs: float64(i) * 0.01, Trimmed: i%3 == 0})
		}
		r := &Result{Runs: []*Run{run}}
		pl := plot.New()
		if err := r.plotArrivals(pl); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(pl.Y.Label.Text, c.want) {
			t.Errorf("%d arrivals: y label %q, want %q in it", c.n, pl.Y.Label.Text, c.want)
		}
	}
}

// WriteFiles writes its files as a set: when one cannot be written (here
// a plot's name is taken by a directory) none of the others is left, and
// the directory it made is removed; a run's queue CSV says which sweep
// value each row belongs to.
func TestWriteFilesAllOrNothing(t *testing.T) {
	s := loadText(t, `scenario: tiny
doc: two short runs with a queue plot
source: test
seed: 1
duration_us: 20
hosts: 4
link: {gbps: 100, prop_ns: 500}
workload: {kind: cbr, mss: 1564, rate_gbps: 100, flow_packets: 0}
pattern: {kind: pairs, flows: [[1, 0]], starts_us: [0]}
trace_queue: 0
sweep: {var: DATA_QUEUE_CELLS, values: ["188", "376"]}
variants:
  - {name: Tofino, chip: tofino, program: ndp}
plots:
  - {kind: queue, title: q, file: q.png}
`)
	res, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(filepath.Join(dir, "q.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := res.WriteFiles(dir); err == nil {
		t.Fatal("no error writing over a directory")
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("after a failed write %s holds %d entries, want only the q.png directory", dir, len(left))
	}
	os.Remove(filepath.Join(dir, "q.png"))
	os.Remove(dir)
	files, err := res.WriteFiles(dir)
	if err != nil || len(files) != 4 {
		t.Fatalf("%v, %v", files, err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "q.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "variant,sweep_value,time_us,packets\n") || !strings.Contains(string(data), "Tofino,376,") {
		t.Errorf("q.csv does not name the sweep value: %.80s", data)
	}
}

// A Protego run with nothing to summarise (no frame recovered, no flow
// finished) leaves those CSV cells empty, as its JSON has null: a 0 would
// read as measured.
func TestProtegoEmptySummariesCSV(t *testing.T) {
	r := &Result{Runs: []*Run{{Variant: "P", ProtegoRun: &ProtegoRun{FCTUs: &flowgen.Summary{}}}}}
	rows := r.protegoRunRows()
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"recovery_us_p50", "recovery_us_max", "recovery_us_mean", "recovery_us_p90", "fct_us_p50", "fct_us_p9999"} {
		i, ok := col[h]
		if !ok {
			t.Fatalf("no column %s in %v", h, rows[0])
		}
		if v := rows[1][i]; v != "" {
			t.Errorf("%s = %q with no samples, want empty", h, v)
		}
	}
}
