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
	if r.Copies != r.Results || r.Delivered != r.Results || r.Created != 0 {
		t.Errorf("switch copies %d, delivered %d, created %d: want the 800 results multicast and delivered, none created", r.Copies, r.Delivered, r.Created)
	}
	if r.Program != "switchml" || r.Passes != r.Sent+200 {
		t.Errorf("program %s, %d aggregation passes, want switchml and %d (one per packet, one harvest per slot)", r.Program, r.Passes, r.Sent+200)
	}
}

// SwitchML-256 on the Tofino model (one pipe, by recirculation): every
// worker gets every block's result exactly once, exact; every contribution
// makes four passes through the pipe and is consumed, but a slot's last,
// which makes seven more harvest passes and is multicast.
func TestSwitchML256Aggregates(t *testing.T) {
	wc := params(t).Workers(0, 0, 1)
	wc.Workers, wc.PerPacket, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, 256, 256*60+100, 16, 2, 1e8
	r, err := Run(Setup{Switch: "tofino", Workers: wc, Pool: 16, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	blocks := 61 * 2 // 60 full blocks and one of 100 gradients, two iterations
	if !r.Done || r.Wrong != 0 || r.SwitchDrops != 0 || r.Stale != 0 || r.Duplicates != 0 {
		t.Fatalf("done %v, wrong %d, unexpected drops %d, stale %d, duplicates %d", r.Done, r.Wrong, r.SwitchDrops, r.Stale, r.Duplicates)
	}
	if r.Program != "switchml-256" || r.GradsPerPacket != 256 {
		t.Errorf("program %s with %d gradients per packet", r.Program, r.GradsPerPacket)
	}
	if r.Sent != 4*blocks || r.Results != 4*blocks || r.Consumed != r.Sent-blocks {
		t.Errorf("sent %d (want %d), results %d (want %d), consumed %d (want %d)", r.Sent, 4*blocks, r.Results, 4*blocks, r.Consumed, r.Sent-blocks)
	}
	if want := 4*r.Sent + 7*blocks; r.Passes != want {
		t.Errorf("%d aggregation passes, want %d (4 per packet, 7 harvest passes per slot)", r.Passes, want)
	}
}

// The pool limit follows the program: 2048 slots for switchml-256 (its
// cells hold four sections per slot), 8192 for switchml.
func TestSwitchML256PoolFollowsProgram(t *testing.T) {
	wc := params(t).Workers(0, 0, 1)
	wc.Workers, wc.PerPacket, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 2, 256, 256*4, 4, 1, 0
	if _, err := Run(Setup{Switch: "tofino", Workers: wc, Pool: 2049, Seed: 1}); err == nil || !strings.Contains(err.Error(), "switchml-256 pool: 2049 slots, the program has 2048") {
		t.Errorf("pool of 2049 slots for switchml-256: %v", err)
	}
	r, err := Run(Setup{Switch: "tofino", Workers: wc, Pool: 2048, Seed: 1})
	if err != nil || !r.Done || r.Wrong != 0 {
		t.Fatalf("pool of 2048 slots: %v %+v", err, r)
	}
	wc.PerPacket = 64
	if _, err := Run(Setup{Switch: "tofino", Workers: wc, Pool: 8192, Seed: 1}); err != nil {
		t.Errorf("pool of 8192 slots for switchml: %v", err)
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
		{Setup{Switch: "tofino", Workers: p.Workers(0, 0, 1)}, "or 256 (switchml-256) gradients per packet"},
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

// A stalled server below a first-level PFE: that PFE's scan threads send
// its partial contribution up (two servers, marked degraded) before the
// top level, scanning with twice the period, gives up; every server gets
// a degraded result counting the five servers that sent.
func TestHierarchicalStraggler(t *testing.T) {
	wc := params(t).Workers(0, 0, 1)
	wc.Workers, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 6, 4*1024, 4, 1, 0
	wc.Stalled = []int{1}
	r, err := Run(Setup{Switch: "trio", Workers: wc, Seed: 1, FirstLevel: 2, FabricPs: 200000, Params: map[string]string{"TIMEOUT_NS": "1000000"}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Done || r.Degraded != 6*4 || r.DegradedSources[5] != 6*4 || r.Wrong != 0 {
		t.Fatalf("done %v, degraded %d by sources %v, wrong %d; want 24 degraded results counting 5 sources", r.Done, r.Degraded, r.DegradedSources, r.Wrong)
	}
	if r.PartialMaxMs > 2.25 {
		t.Errorf("partial results after up to %.2f ms, want within two first-level periods (2 ms) plus the host path", r.PartialMaxMs)
	}
}

// The window sweep's points are ordered as asked, and a larger window
// carries more throughput (window 8 against window 1, same blocks).
func TestWindowSweepSmall(t *testing.T) {
	pts, err := WindowSweep(params(t), 256, []int{1, 8}, 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 || pts[0].Window != 1 || pts[1].Window != 8 {
		t.Fatalf("points %+v", pts)
	}
	if pts[1].ThroughputGbps <= 2*pts[0].ThroughputGbps || pts[1].LatencyUs < pts[0].LatencyUs {
		t.Errorf("window 1: %.2f Gb/s %.1f µs; window 8: %.2f Gb/s %.1f µs — want more throughput and no less latency", pts[0].ThroughputGbps, pts[0].LatencyUs, pts[1].ThroughputGbps, pts[1].LatencyUs)
	}
}
