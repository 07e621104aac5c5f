package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/components/link"
	"archsim/components/packet"
	"archsim/components/stats"
	"archsim/programs"
)

// The chip seam, proved with a chip the rest of the code has never heard
// of: a fixed-latency switch written here, registered, and used by the
// main job, compare, list and a scenario without any change to cmd/ or
// experiments/.

// fixedChip forwards every packet after a fixed latency, then at line rate
// per output port: to its destination host in a network (the network's
// routes), back out of its ingress port in the latency harness. It runs no
// program (it accepts one and does not execute it).
type fixedChip struct{ latencyPs int64 }

func (c *fixedChip) Name() string       { return "fixed" }
func (c *fixedChip) Doc() string        { return "test chip: fixed 500 ns forwarding" }
func (c *fixedChip) Files() []string    { return nil }
func (c *fixedChip) Knobs() []arch.Knob { return nil }
func (c *fixedChip) Load(o arch.Overrides) (arch.Target, error) {
	if o.File != "" || len(o.Sets) > 0 || len(o.Knobs) > 0 {
		return nil, fmt.Errorf("the fixed chip has no configuration")
	}
	return &fixedTarget{c}, nil
}

type fixedTarget struct{ c *fixedChip }

func (t *fixedTarget) Arch() string      { return "fixed" }
func (t *fixedTarget) Name() string      { return "Fixed 500 ns" }
func (t *fixedTarget) ClockMHz() float64 { return 0 }

func (t *fixedTarget) Compile(prog *programs.Program) (*arch.Compiled, error) {
	return &arch.Compiled{Arch: "fixed", Chip: t.Name(), Program: prog, Fits: true, Structure: "fixed latency (program not executed)"}, nil
}

func (t *fixedTarget) Build(s arch.BuildSpec) (arch.Switch, error) {
	ports := 64
	var route func(*packet.Packet) int
	if s.Net != nil {
		ports, route = s.Net.Ports, s.Net.Route
	}
	name := s.Name
	if name == "" {
		name = "Fixed"
	}
	return &fixedSwitch{ComponentBase: sim.NewComponentBase(name), engine: s.Engine, latencyPs: t.c.latencyPs,
		route: route, out: make([]link.End, ports), busy: make([]int64, ports)}, nil
}

func (t *fixedTarget) Report(c *arch.Compiled, m *arch.Measurement, _ int64) arch.Report {
	return &arch.CompiledReport{C: c, M: m}
}

func (t *fixedTarget) Summary(c *arch.Compiled, m *arch.Measurement) arch.Summary {
	s := arch.Summary{Arch: "fixed", Chip: t.Name(), Fits: true, Structure: c.Structure, RateNote: "not measured", Timers: "none", StatefulNote: "none"}
	if m != nil {
		lat := m.Latency.Switch.(*fixedSwitch).lat.Summarize(1000)
		s.LatencyMeanNs, s.LatencyP99Ns = lat.Mean, lat.P99
	}
	return s
}

type fixedSwitch struct {
	*sim.ComponentBase
	arch.NoControl
	engine    sim.Engine
	latencyPs int64
	route     func(*packet.Packet) int
	out       []link.End
	busy      []int64
	delivered int
	lat       stats.Samples
}

func (f *fixedSwitch) FrontPorts() []int {
	ps := make([]int, len(f.out))
	for i := range ps {
		ps[i] = i
	}
	return ps
}
func (f *fixedSwitch) IngressGbps(int) (float64, error)        { return 100, nil }
func (f *fixedSwitch) IngressHandler(int) sim.Handler          { return f }
func (f *fixedSwitch) Attach(port int, to link.End)            { f.out[port] = to }
func (f *fixedSwitch) SetDeadline(int64)                       {}
func (f *fixedSwitch) OnDrop(func(*packet.Packet, string))     {}
func (f *fixedSwitch) Counters() arch.Counters                 { return arch.Counters{Delivered: f.delivered} }
func (f *fixedSwitch) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (f *fixedSwitch) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// Handle forwards an arriving packet: after the fixed latency, when its
// output port's wire is free.
func (f *fixedSwitch) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := packet.SecToPs(ev.T)
	port := ev.Port
	if f.route != nil {
		port = f.route(ev.Pkt)
	}
	if port < 0 || port >= len(f.out) {
		return fmt.Errorf("fixed: no port %d", port)
	}
	start := max(now+f.latencyPs, f.busy[port])
	f.busy[port] = start + packet.SerializationPs(ev.Pkt.Len, 100)
	f.lat.Add(start - now)
	f.delivered++
	if f.out[port].To != nil {
		f.out[port].Deliver(f.engine, ev.Pkt, f.busy[port])
	}
	return nil
}

func TestANewChipNeedsOnlyItsPackageAndARegistryLine(t *testing.T) {
	arch.Register(&fixedChip{latencyPs: 500_000})
	defer arch.Unregister("fixed")

	out, msg, code := run(t, "list")
	if code != 0 || !strings.Contains(out, "test chip: fixed 500 ns forwarding") {
		t.Fatalf("list: exit %d (%s), fixed chip not listed", code, msg)
	}

	out, msg, code = run(t, "--arch", "fixed", "--program", "ndp", "--json", "--packets", "200")
	if code != 0 {
		t.Fatalf("main job: exit %d: %s", code, msg)
	}
	var rep struct {
		Chip       string `json:"chip"`
		Feasible   bool   `json:"feasible"`
		Simulation struct {
			Offered, Delivered int
		} `json:"simulation"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Chip != "Fixed 500 ns" || !rep.Feasible || rep.Simulation.Offered != 200 || rep.Simulation.Delivered != 200 {
		t.Errorf("main job report %+v", rep)
	}

	out, msg, code = run(t, "compare", "--program", "ndp", "--arch", "tofino,fixed", "--json", "--packets", "300")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, msg)
	}
	var cmp struct {
		Results []arch.Summary `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil {
		t.Fatal(err)
	}
	if len(cmp.Results) != 2 || cmp.Results[0].Arch != "tofino" || cmp.Results[1].Arch != "fixed" {
		t.Fatalf("compare rows %+v", cmp.Results)
	}
	// One packet per ingress port at a time (load 0.5): nothing queues,
	// every packet sees exactly the fixed latency.
	if f := cmp.Results[1]; !f.Fits || f.LatencyMeanNs != 500 || f.LatencyP99Ns != 500 {
		t.Errorf("fixed chip in compare: %+v, want 500 ns mean and p99", f)
	}
	if out, _, _ := run(t, "compare", "--program", "ndp", "--arch", "tofino,fixed"); !strings.Contains(out, "ndp on Tofino and Fixed") {
		t.Errorf("compare table title: %q", strings.SplitN(out, "\n", 2)[0])
	}

	scen := `scenario: fixed-line
doc: NDP hosts across two fixed-latency switches and across an ideal and a fixed one
source: test
seed: 1
duration_us: 100
hosts: 4
topology:
  switches: [{name: a, hosts: 2}, {name: b, hosts: 2}]
  links: [{between: [a, b], prop_ns: 500}]
link: {gbps: 100, prop_ns: 500}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 10, flow_packets: 50, pull_rate: 0.99}
pattern: {kind: pairs, flows: [[0, 2], [3, 1]]}
variants:
  - {name: Fixed, chip: fixed}
  - {name: Mixed, chip: fixed, switches: {b: {chip: ideal, queue_packets: 10}}}
`
	p := filepath.Join(t.TempDir(), "fixed-line.yaml")
	if err := os.WriteFile(p, []byte(scen), 0o644); err != nil {
		t.Fatal(err)
	}
	out, msg, code = run(t, "run", "--scenario", p, "--json", "--no-files", "--quiet")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, msg)
	}
	var res struct {
		Runs []struct {
			Variant        string `json:"variant"`
			DataSent       int    `json:"data_sent"`
			DeliveredFull  int    `json:"delivered_full"`
			ConservationOK bool   `json:"conservation_ok"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	for _, r := range res.Runs {
		if !r.ConservationOK || r.DeliveredFull != 100 || r.DataSent != 100 {
			t.Errorf("%s: sent %d, delivered %d whole, conservation %v; want 100, 100, true", r.Variant, r.DataSent, r.DeliveredFull, r.ConservationOK)
		}
	}
}
