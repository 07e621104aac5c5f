package experiments

import (
	"archsim/components/link"
	"path/filepath"
	"strings"
	"testing"
)

// A leaf-spine: two leaves with two hosts each, two spines, every leaf
// joined to every spine. Hosts take their leaf's first ports, links the
// next ones; a host on the other leaf is reached over the first spine
// (the earlier link breaks the tie), a local host directly.
func TestLeafSpinePlan(t *testing.T) {
	topo := &Topology{
		Switches: []TopoSwitch{{Name: "leaf0", Hosts: 2}, {Name: "leaf1", Hosts: 2}, {Name: "spine0"}, {Name: "spine1"}},
		Links: []TopoLink{
			{Between: []string{"leaf0", "spine0"}}, {Between: []string{"leaf0", "spine1"}},
			{Between: []string{"leaf1", "spine0"}}, {Between: []string{"leaf1", "spine1"}},
		},
	}
	if err := topo.validate(4); err != nil {
		t.Fatal(err)
	}
	p := newPlan(topo)
	if got := p.ports; got[0] != 4 || got[1] != 4 || got[2] != 2 || got[3] != 2 {
		t.Fatalf("ports in use %v, want [4 4 2 2]", got)
	}
	// leaf0: hosts 0, 1 on ports 0, 1; spine0 on 2, spine1 on 3.
	want := map[int][]int{
		0: {0, 1, 2, 2}, // leaf0 -> host 2, 3 over spine0
		1: {2, 2, 0, 1}, // leaf1 -> hosts 0, 1 over spine0 (its port 2)
		2: {0, 0, 1, 1}, // spine0: leaf0 on port 0, leaf1 on port 1
		3: {0, 0, 1, 1},
	}
	for si, w := range want {
		for h, port := range w {
			if p.routes[si][h] != port {
				t.Errorf("switch %s, host %d: port %d, want %d", topo.Switches[si].Name, h, p.routes[si][h], port)
			}
		}
	}
}

// Two switches in a row, on the ideal switch, on Tofino running ndp.p4
// (routes installed by the control plane from the program's routes
// section) and mixed: every flow crosses the link and is delivered whole,
// and every packet is accounted for.
func TestLineTopologyDelivers(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "line.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(res.Runs))
	}
	for _, r := range res.Runs {
		if !r.ConservationOK || r.Dropped != 0 || r.InFlight != 0 {
			t.Errorf("%s: conservation %v, %d dropped, %d in flight", r.Variant, r.ConservationOK, r.Dropped, r.InFlight)
		}
		// Each flow is 200 packets: all arrive (whole or, after a trim,
		// retransmitted), so each flow's goodput is 200 payloads.
		for i, g := range r.GoodputGbps {
			if want := 200 * 1500 * 8 / 100e-6 / 1e9; g < want*0.99 {
				t.Errorf("%s: flow %d goodput %.2f Gb/s, want %.2f (all 200 packets)", r.Variant, i, g, want)
			}
		}
	}
}

// A lossy link's corrupted frames are drops in the run's ledger, with
// the link as their reason, not packets in flight at the end.
func TestLossyLinkInTheLedger(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "line.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s.Topology.Links[0].Loss = &link.CorruptionConfig{Rate: 0.05}
	res, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		lost := 0
		for _, d := range r.DropReasons {
			if d.Reason == "link left-right: frame lost" {
				lost = d.Packets
			}
		}
		if !r.ConservationOK || lost == 0 || r.Dropped < lost {
			t.Errorf("%s: conservation %v, %d dropped (%d by the link), %d in flight", r.Variant, r.ConservationOK, r.Dropped, lost, r.InFlight)
		}
	}
}

// A host-to-host packet across two switches arrives later than across
// one: the extra switch and link are on its path.
func TestLineTopologyAddsAHop(t *testing.T) {
	one := `scenario: one
doc: d
source: s
seed: 1
duration_us: 20
hosts: 2
link: {gbps: 100, prop_ns: 500}
workload: {kind: cbr, mss: 1000, rate_gbps: 1}
pattern: {kind: pairs, flows: [[0, 1]], packets: [1]}
variants:
  - {name: T, chip: tofino, program: ndp}
`
	two := strings.Replace(one, "hosts: 2\n", "hosts: 2\ntopology:\n  switches: [{name: a, hosts: 1}, {name: b, hosts: 1}]\n  links: [{between: [a, b], prop_ns: 2000}]\n", 1)
	arrival := func(body string) float64 {
		s := loadText(t, body)
		s.Plots = append(s.Plots, Plot{Kind: "arrivals"}) // keeps them
		res, err := s.Execute(Options{Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		a := res.Runs[0].Arrivals
		if len(a) != 1 {
			t.Fatalf("%d arrivals, want 1", len(a))
		}
		return a[0].AtUs
	}
	a1, a2 := arrival(one), arrival(two)
	// One switch: two host links (0.5 µs and one 1000-byte frame, 81.92 ns
	// at 100 Gb/s, each) and the switch's pipeline. The second switch adds
	// its pipeline, one more serialization and the 2 µs link.
	ser := func(gbps float64) float64 { return float64(1000+24) * 8 / gbps / 1000 }
	pipeline := a1 - 2*0.5 - 2*ser(100)
	if want := 2.0 + ser(100) + pipeline; a2-a1 < want-0.001 || a2-a1 > want+0.001 {
		t.Errorf("one switch %.4f µs, two %.4f µs: the second hop adds %.4f µs, want %.4f (link, frame, pipeline %.4f)", a1, a2, a2-a1, want, pipeline)
	}
	// A 10 Gb/s link between the switches: its ports serialize the frame
	// ten times slower.
	a3 := arrival(strings.Replace(two, "prop_ns: 2000}", "prop_ns: 2000, gbps: 10}", 1))
	if want := 2.0 + ser(10) + pipeline; a3-a1 < want-0.001 || a3-a1 > want+0.001 {
		t.Errorf("over a 10 Gb/s link the second hop adds %.4f µs, want %.4f", a3-a1, want)
	}
}

func TestBadTopologies(t *testing.T) {
	good := `scenario: t
doc: d
source: s
seed: 1
duration_us: 50
hosts: 4
topology:
  switches: [{name: a, hosts: 2}, {name: b, hosts: 2}]
  links: [{between: [a, b]}]
link: {gbps: 100, prop_ns: 500}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 10, pull_rate: 0.99}
pattern: {kind: incast, senders: 2}
variants:
  - {name: I, chip: ideal, switches: {b: {chip: ideal, queue_packets: 5}}}
`
	cases := []loadCase{
		{"", "", ""},
		{"{name: b, hosts: 2}", "{name: b, hosts: 1}", "the switches hold 3 hosts, the scenario has 4"},
		{"{name: b, hosts: 2}", "{name: a, hosts: 2}", "duplicate name"},
		{"links: [{between: [a, b]}]", "links: []", "do not connect every switch"},
		{"links: [{between: [a, b]}]", "links: [{between: [a, b]}, {between: [b, a], gbps: 10}]", "topology.links[1]: a second link between a and b (links[0]); one link per pair of switches"},
		{"between: [a, b]", "between: [a, c]", `between names "c", which is no switch (switches: a, b)`},
		{"between: [a, b]}", "between: [a, b], gbps: 1e-12}", "topology.links[0]: gbps must be 0 (link.gbps) or in [0.001, 3200], got 1e-12"},
		{"between: [a, b]}", "between: [a, b], prop_ns: 1e30}", "topology.links[0]: prop_ns must be in [0, 1e+06], got 1e+30"},
		{"{name: a, hosts: 2}", "{name: a, hosts: 2, host_gbps: [1e-12]}", "host_gbps[0] must be 0 (link.gbps) or in [0.001, 3200], got 1e-12"},
		{"{name: a, hosts: 2}", "{name: a, hosts: 2, host_gbps: [0, 25]}", ""},
		{"between: [a, b]", "between: [a, a]", "two different switch names"},
		{"switches: {b:", "switches: {c:", `no switch "c" in the topology`},
		{"{chip: ideal, queue_packets: 5}", "{queue_packets: 5}", "switches.b.chip: missing"},
		{"{chip: ideal, queue_packets: 5}", "{chip: nope}", `unknown architecture "nope"`},
		{"name: I, chip: ideal", "name: I, chip: nope", `unknown architecture "nope"`},
		{"name: I, chip: ideal", "name: I, chip: ideal, switch: ideal", "give chip, or the older switch/arch, not both"},
	}
	wantLoadErrors(t, good, cases)
}

// A program without a routes section cannot be routed through in a network
// of several switches: the run says so.
func TestTopologyNeedsRoutes(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "line.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s.Variants = []Variant{{Name: "SwitchML", Chip: "tofino", Program: "switchml"}}
	if _, err := s.Execute(Options{Jobs: 1}); err == nil || !strings.Contains(err.Error(), "has no routes section") {
		t.Errorf("error %v, want the missing routes section named", err)
	}
}

// Two long NDP flows crossing the link between two switches: at 100 Gb/s
// they get well over 10 Gb/s together; over a 10 Gb/s link never more than
// its rate, and a good share of it.
func TestSlowLinkIsTheBottleneck(t *testing.T) {
	run := func(gbps float64) *Result {
		s, err := Load(filepath.Join("testdata", "line.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		s.Topology.Links[0].Gbps = gbps
		s.Workload.FlowPackets = 0
		s.DurationUs = 300
		s.Pattern.Flows = [][]int{{0, 2}, {1, 3}}
		res, err := s.Execute(Options{Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	fast, slow := run(100), run(10)
	for i, r := range slow.Runs {
		sum := r.GoodputGbps[0] + r.GoodputGbps[1]
		sumFast := fast.Runs[i].GoodputGbps[0] + fast.Runs[i].GoodputGbps[1]
		if !r.ConservationOK || sum > 10 || sum < 5 || sumFast < 15 {
			t.Errorf("%s: flows get %.2f Gb/s together over a 10 Gb/s link, %.2f over a 100 Gb/s one (conservation %v)", r.Variant, sum, sumFast, r.ConservationOK)
		}
	}
}

// One flow at exactly line rate into an otherwise idle port: an output
// port drains at its line rate, so no queue builds and nothing is trimmed
// or dropped, whatever the program does to the frame's length in egress.
// (ndp.p4 carries a 3-byte in-band header through the traffic manager
// and strips it in egress; the transmitter was paced by the longer frame,
// drained at 99.8 % of line rate, and the queue grew until packets were
// trimmed on Tofino and dropped on Trio.)
func TestLineRateFlowNeverQueues(t *testing.T) {
	s := loadText(t, `scenario: line-rate-flow
doc: one line-rate flow through one port
source: test
seed: 1
duration_us: 1500
hosts: 4
link: {gbps: 100, prop_ns: 500}
workload: {kind: cbr, mss: 1564, rate_gbps: 100, flow_packets: 0}
pattern: {kind: pairs, flows: [[1, 0]], starts_us: [0]}
variants:
  - {name: Tofino, chip: tofino, program: ndp}
  - {name: Trio, chip: trio, program: ndp}
`)
	res, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		// In flight at the end: the frames on the two links and in the
		// switch, about 14 at 125 ns each.
		if r.Trims != 0 || r.Dropped != 0 || r.InFlight > 30 {
			t.Errorf("%s: %d trimmed, %d dropped, %d in flight at the end of %d sent: the port drains below line rate",
				r.Variant, r.Trims, r.Dropped, r.InFlight, r.DataSent)
		}
	}
}

// A frame egress drops still spent its slot in the port's schedule: the
// recirculation port carries "up to 100Gb/s of untrimmed packets"
// (trimming paper §3), and ndp.p4's egress mirrors each deflected packet
// as a header and drops the packet. In the 16 x 4:1 incast with the
// DoD-only design every pipe deflects about 144 full frames into its
// recirculation port, so the last header cannot leave before those frames
// have had their 125 ns each. (When a dropped frame was credited back,
// the DoD queue drained at egress's packet rate, the last header arrived
// at 6.7 us, and no congestion response of §6.3 was ever too short.)
func TestDroppedFrameSpendsItsSlot(t *testing.T) {
	s := loadText(t, `scenario: dod-only-16x4
doc: trim-fig5c's DoD-only variant
source: test
seed: 1
duration_us: 100
hosts: 64
link: {gbps: 100, prop_ns: 500, framing: htsim}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 15, flow_packets: 15, pull_rate: 0.99}
pattern: {kind: shifted, senders: 64}
variants:
  - {name: DoD, chip: tofino, program: ndp, params: {ALLOW_PESSIMISM: "0", FEEDBACK: "0"}}
plots:
  - {kind: header_cdf, file: h.png}
`)
	res, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	last := 0.0
	for _, h := range r.HeadersUs {
		last = max(last, h)
	}
	// Every pipe holds 16 of the 64 senders: a quarter of the deflections.
	perPipe := float64(r.TrimsDoD) / 4
	drain := perPipe * 1564 * 8 / 100e3 // us at 100 Gb/s, without framing
	if r.TrimsDoD < 400 || last < drain {
		t.Errorf("%d packets deflected, last header at %.1f us: four recirculation ports at 100 Gb/s need %.1f us for them", r.TrimsDoD, last, drain)
	}
}

// A switch takes no packet after the run's deadline (the hosts' NICs may
// still drain what they queued before it): a 1 us trim-fig6 run at 64
// senders trims at most what can reach the ideal switch by then, three
// 1564-byte frames per sender (the ideal switch trimmed about 50 000
// packets that arrived after the end).
func TestNothingTrimmedAfterTheDeadline(t *testing.T) {
	s := loadText(t, `scenario: short-fig6
doc: trim-fig6 at 64 senders cut to 1 us
source: test
seed: 1
duration_us: 1
hosts: 64
link: {gbps: 100, prop_ns: 500, framing: htsim}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 1000, flow_packets: 0, pull_rate: 0.99}
pattern: {kind: mod16, senders: 64}
variants:
  - {name: Ideal, chip: ideal, queue_packets: 10}
  - {name: Tofino, chip: tofino, program: ndp}
`)
	res, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Trims > 3*64 || !r.ConservationOK {
			t.Errorf("%s: %d trims in a 1 us run (conservation %v): the switch took packets after the deadline", r.Variant, r.Trims, r.ConservationOK)
		}
	}
}

// What the ideal switch delivers to one host fits that host's link: a
// cbr packet it trims becomes a 64-byte header (it became an empty frame,
// and 63 line-rate senders got about 49 000 headers through one port in
// 100 us, at 24 bytes of framing each).
func TestIdealTrimmedCBRFitsTheLink(t *testing.T) {
	s := loadText(t, `scenario: cbr-incast
doc: cbr incast on the ideal switch
source: test
seed: 1
duration_us: 100
hosts: 64
link: {gbps: 100, prop_ns: 500}
workload: {kind: cbr, mss: 1564, rate_gbps: 100, flow_packets: 0}
pattern: {kind: incast, senders: 63, receivers: 1}
variants:
  - {name: Ideal, chip: ideal, queue_packets: 10}
`)
	res, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	wire := float64(r.DeliveredFull*(1564+24)+r.DeliveredTrimmed*(64+24)) * 8 / 100e9 // seconds of the receiver's link
	if r.DeliveredTrimmed == 0 || wire > 100e-6 {
		t.Errorf("delivered %d whole and %d trimmed: %.1f us of a 100 us link", r.DeliveredFull, r.DeliveredTrimmed, wire*1e6)
	}
}

// A link without gbps runs at link.gbps at both ends, whatever the chips:
// a Tofino end left at its 100 Gb/s ports made a link with two speeds.
// Measured by the second hop's serialization in a two-switch line.
func TestLinkDefaultsToLinkRate(t *testing.T) {
	s := loadText(t, `scenario: mixed-link
doc: a Tofino and an ideal switch joined by a link without gbps
source: test
seed: 1
duration_us: 100
hosts: 4
topology:
  switches: [{name: a, hosts: 2}, {name: b, hosts: 2}]
  links: [{between: [a, b], prop_ns: 100}]
link: {gbps: 25, prop_ns: 100}
workload: {kind: cbr, mss: 1564, rate_gbps: 20, flow_packets: 0}
pattern: {kind: pairs, flows: [[0, 2], [1, 3], [2, 0], [3, 1]], starts_us: [0, 0, 0, 0]}
variants:
  - {name: Mixed, chip: tofino, program: ndp, switches: {b: {chip: ideal, queue_packets: 10}}}
`)
	res, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Runs[0]
	// Two 20 Gb/s flows share each direction of a 25 Gb/s link: each
	// direction delivers at most 25 Gb/s of frames, and the two directions
	// alike (a 100 Gb/s a-to-b end gave 18.7 Gb/s per flow one way and
	// 11.1 the other).
	if len(r.GoodputGbps) != 4 {
		t.Fatalf("%d flows", len(r.GoodputGbps))
	}
	ab, ba := r.GoodputGbps[0]+r.GoodputGbps[1], r.GoodputGbps[2]+r.GoodputGbps[3]
	if ab > 25 || ba > 25 || ab-ba > 1 || ba-ab > 1 {
		t.Errorf("goodput a to b %.2f, b to a %.2f Gb/s: want both under the 25 Gb/s link and alike", ab, ba)
	}
}

// Heads that reach a Trio PFE's dispatcher from two ports at the same
// instant are arbitrated (trio.arbitration), as on Tofino: two 30 Gb/s
// senders in lockstep into a 37 Gb/s link share it, instead of one always
// winning the last buffer room (the second flow got 7 Gb/s of the 37,
// then limited by its 10 Gb/s receiver, against 26.6 for the first).
func TestTrioArbitratesSimultaneousArrivals(t *testing.T) {
	s := loadText(t, `scenario: lockstep
doc: two lockstep senders into a narrower link
source: test
seed: 1
duration_us: 100
hosts: 4
link: {gbps: 100, prop_ns: 100}
topology:
  switches:
    - {name: A, hosts: 2}
    - {name: B, hosts: 2, host_gbps: [40, 10]}
  links:
    - {between: [A, B], gbps: 37, prop_ns: 300}
workload: {kind: cbr, mss: 1500, flow_packets: 0, rate_gbps: 30}
pattern: {kind: pairs, flows: [[0, 2], [1, 3]]}
variants:
  - {name: Trio, chip: trio, program: ndp}
`)
	res, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Runs[0].GoodputGbps
	// The second flow's receiver takes 10 Gb/s: it should get near that.
	if len(g) != 2 || g[1] < 8.5 || g[0] > 20 {
		t.Errorf("goodput %v Gb/s: want the 10 Gb/s receiver's flow near 9 and the other under 20", g)
	}
}
