package experiments

import (
	"strings"
	"testing"

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
