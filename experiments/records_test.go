package experiments

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
)

// With Records set, a run streams one line per packet event into its own
// file, and the run's counts match the file; without it, the run keeps no
// per-packet list its scenario's plots do not need.
func TestRecordsStreamPerPacketEvents(t *testing.T) {
	body := `scenario: rec
doc: d
source: s
seed: 1
duration_us: 50
hosts: 2
link: {gbps: 100, prop_ns: 500}
workload: {kind: cbr, mss: 1000, rate_gbps: 10}
pattern: {kind: pairs, flows: [[0, 1]], packets: [20]}
variants:
  - {name: T, chip: tofino, program: ndp}
`
	s := loadText(t, body)
	dir := t.TempDir()
	res, err := s.Execute(Options{Jobs: 1, Records: dir})
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	if run.DataSent != 20 || len(run.Arrivals) != 0 || len(run.HeadersUs) != 0 {
		t.Fatalf("sent %d, %d arrivals, %d headers kept (no plot needs them)", run.DataSent, len(run.Arrivals), len(run.HeadersUs))
	}
	f, err := os.Open(filepath.Join(dir, "packets-T.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range rows[1:] {
		if r[3] == "true" {
			count[r[2]]++
		}
	}
	if count["sent"] != run.DataSent || count["delivered"] != run.DeliveredFull || count["header"] < run.DeliveredTrimmed {
		t.Errorf("records %v, run sent %d delivered %d trimmed %d", count, run.DataSent, run.DeliveredFull, run.DeliveredTrimmed)
	}
}
