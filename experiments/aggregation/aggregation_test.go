package aggregation

import (
	"encoding/json"
	"strings"
	"testing"

	"archsim/components/workers"
)

func params(t *testing.T) *Params {
	t.Helper()
	p, err := LoadParams(nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Trio-ML on the Trio PFE: every result equals the sum of the workers'
// gradients, and every packet is accounted for: each contribution is
// consumed by the program, each block creates one Result packet, which
// the multicast group copies to the four workers, and each copy reaches
// its worker.
func TestTrioMLAggregatesAndConserves(t *testing.T) {
	wc := params(t).Workers(0, 0, 1)
	wc.Workers, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, 40*1024+100, 8, 2, 1e8
	r, err := Run(Setup{Switch: "trio", Workers: wc, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	blocks := 41 * 2 // 40 full blocks and one of 100 gradients, two iterations
	if !r.Done || r.Wrong != 0 || r.Degraded != 0 || r.SwitchDrops != 0 {
		t.Fatalf("done %v, wrong %d, degraded %d, unexpected drops %d", r.Done, r.Wrong, r.Degraded, r.SwitchDrops)
	}
	if r.Sent != 4*blocks || r.Consumed != r.Sent {
		t.Errorf("sent %d, consumed %d, want %d each", r.Sent, r.Consumed, 4*blocks)
	}
	if r.Created != blocks || r.Copies != 4*blocks || r.Delivered != r.Copies || r.Results != r.Delivered {
		t.Errorf("results created %d (want %d), copies %d, delivered %d, received %d (want %d each)", r.Created, blocks, r.Copies, r.Delivered, r.Results, 4*blocks)
	}
}

// SwitchML on the Tofino model: every worker gets every slot's result
// once, correct; every packet but a slot's last is dropped by the program.
func TestSwitchMLAggregates(t *testing.T) {
	wc := params(t).Workers(0, 0, 1)
	wc.Workers, wc.PerPacket, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, 64, 64*100, 16, 2, 1e8
	r, err := Run(Setup{Switch: "tofino", Workers: wc, Pool: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Done || r.Wrong != 0 || r.SwitchDrops != 0 || r.Stale != 0 {
		t.Fatalf("done %v, wrong %d, unexpected drops %d, stale %d", r.Done, r.Wrong, r.SwitchDrops, r.Stale)
	}
	if r.Results != 4*200 || r.Consumed != r.Sent-200 {
		t.Errorf("results %d (want 800), consumed %d (want %d)", r.Results, r.Consumed, r.Sent-200)
	}
}

// A worker that never sends: the scan threads age its blocks out and every
// worker gets a degraded result that counts the three sources that came.
func TestStragglerGetsDegradedResults(t *testing.T) {
	wc := params(t).Workers(0, 0, 1)
	wc.Workers, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, 1024*5, 5, 1, 0
	wc.Stalled = []int{2}
	r, err := Run(Setup{Switch: "trio", Workers: wc, Seed: 1, Params: map[string]string{"TIMEOUT_NS": "1000000"}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Done || r.Degraded != 20 || r.DegradedSources[3] != 20 {
		t.Fatalf("done %v, degraded %d by sources %v, want 20 with src_cnt 3", r.Done, r.Degraded, r.DegradedSources)
	}
	if r.PartialMinMs < 1 || r.PartialMaxMs > 2.25 {
		t.Errorf("partial results after %.3f–%.3f ms, want within 1–2 scan periods (1 ms) plus the host path", r.PartialMinMs, r.PartialMaxMs)
	}
}

// Same seed, same JSON; the runs do not depend on map order.
func TestRunsAreDeterministic(t *testing.T) {
	run := func() string {
		wc := params(t).Workers(0.5, 2e8, 9)
		wc.Workers, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 3, 1024*12, 4, 3, 1e8
		r, err := Run(Setup{Switch: "trio", Workers: wc, Seed: 9, Params: map[string]string{"TIMEOUT_NS": "2000000"}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		return string(b)
	}
	if a, b := run(), run(); a != b {
		t.Fatalf("two runs differ:\n%s\n%s", a, b)
	}
}

func TestBadSetups(t *testing.T) {
	p := params(t)
	for _, c := range []struct {
		s    Setup
		want string
	}{
		{Setup{Switch: "nic"}, "switch"},
		{Setup{Switch: "tofino", Workers: p.Workers(0, 0, 1)}, "64 gradients per packet"},
		{Setup{Switch: "trio", Workers: func() (w workersConfig) { w = p.Workers(0, 0, 1); w.PerPacket = 5000; return }()}, "12 bits"},
		{Setup{Switch: "trio", Workers: func() (w workersConfig) { w = p.Workers(0, 0, 1); w.Window = 0; return }()}, "window"},
	} {
		_, err := Run(c.s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error about %q", c.s.Switch, err, c.want)
		}
	}
	if _, err := LoadParams([]string{"aggregation.host.nic_gbps=fast"}); err == nil {
		t.Error("a non-numeric nic_gbps was accepted")
	}
}

type workersConfig = workers.Config

// Hierarchical aggregation ([TRIO] §6.1's testbed): six servers on two
// first-level PFEs feeding a top-level PFE. Results are the sum over all
// six servers; each first-level PFE consumes its servers' packets and
// sends one contribution per block up; the top level consumes those and
// creates one result per block, which comes back down to every server.
func TestHierarchicalAggregation(t *testing.T) {
	wc := params(t).Workers(0, 0, 1)
	wc.Workers, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 6, 10*1024, 4, 2, 1e8
	r, err := Run(Setup{Switch: "trio", Workers: wc, Seed: 1, FirstLevel: 2, FabricPs: 200000})
	if err != nil {
		t.Fatal(err)
	}
	blocks := 10 * 2
	if !r.Done || r.Wrong != 0 || r.SwitchDrops != 0 || r.Degraded != 0 {
		t.Fatalf("done %v, wrong %d, unexpected drops %d, degraded %d", r.Done, r.Wrong, r.SwitchDrops, r.Degraded)
	}
	// Created: 2 first-level contributions + 1 top result per block.
	if r.Results != 6*blocks || r.Created != 3*blocks || r.Consumed != 6*blocks+2*blocks {
		t.Errorf("results %d (want %d), created %d (want %d), consumed %d (want %d)", r.Results, 6*blocks, r.Created, 3*blocks, r.Consumed, 8*blocks)
	}
}
