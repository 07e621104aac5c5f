package experiments

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"archsim/configs"
)

// shorten cuts a scenario down for a test: at most the first and last sweep
// values and a shorter run.
func shorten(s *Scenario, us float64) {
	s.DurationUs = min(s.DurationUs, us)
	if s.Sweep != nil && len(s.Sweep.Values) > 2 {
		v := s.Sweep.Values
		s.Sweep.Values = []string{v[0], v[len(v)-1]}
	}
}

func TestEveryScenarioLoads(t *testing.T) {
	names := configs.Scenarios()
	if len(names) < 17 {
		t.Fatalf("only %d scenarios: %v", len(names), names)
	}
	for _, n := range names {
		s, err := Load(n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if s.Doc == "" || s.Source == "" {
			t.Errorf("%s: a scenario must say what it reproduces (doc) and from where (source)", n)
		}
		if err := s.Preflight(Options{}); err != nil {
			t.Errorf("%s: preflight: %v", n, err)
		}
	}
}

// preflightBase is a small one-switch scenario for the preflight tests.
const preflightBase = `scenario: t
doc: d
source: s
seed: 1
duration_us: 5
hosts: 4
link: {gbps: 100, prop_ns: 500}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 4, pull_rate: 0.99}
pattern: {kind: incast, senders: 2}
variants:
  - {name: T, chip: tofino, program: ndp}
`

// forty is preflightBase with 40 hosts and a Tofino 2 variant, whose 32
// front-panel ports are too few.
var forty = strings.Replace(strings.Replace(preflightBase, "hosts: 4\n", "hosts: 40\n", 1),
	"program: ndp}\n", "program: ndp}\n  - {name: T2, chip: tofino2, program: ndp}\n", 1)

// TestPreflightNamesTheKeptVariant: with --variant (KeepVariant) an error
// still names the variant by its place in the file, and its line.
func TestPreflightNamesTheKeptVariant(t *testing.T) {
	s := loadText(t, forty)
	if err := s.KeepVariant("T2"); err != nil {
		t.Fatal(err)
	}
	if err := s.Preflight(Options{}); err == nil || !strings.Contains(err.Error(), "s.yaml:12: variants[1].chip: ") {
		t.Errorf("got %v, want the error at s.yaml:12, variants[1]", err)
	}
}

// TestPreflightRefuses: what only loading the chip and the program can
// tell is refused before any run, as FILE:LINE: field: what.
func TestPreflightRefuses(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{preflightBase, ""},
		{strings.Replace(preflightBase, "{name: T, chip: tofino, program: ndp}", "{name: T, chip: tofino}", 1), "s.yaml:11: variants[0].program: missing: Tofino 1 runs a data-plane program: give one"},
		{strings.Replace(preflightBase, "{name: T, chip: tofino, program: ndp}", "{name: T, chip: trio5}", 1), "s.yaml:11: variants[0].program: missing: "},
		{strings.Replace(preflightBase, "{name: T, chip: tofino, program: ndp}", "{name: I, chip: ideal, queue_packets: 10}", 1), ""},
		{strings.Replace(preflightBase, "variants:", "trace_register: t0_reg.arm\nvariants:", 1), ""},
		{strings.Replace(preflightBase, "variants:", "trace_register: nope.arm\nvariants:", 1), "s.yaml:10: trace_register: program ndp has no register action \"nope.arm\""},
		// A chip with fewer front-panel ports than the topology needs.
		{strings.Replace(preflightBase, "hosts: 4\n", "hosts: 40\n", 1), ""},
		{forty, "s.yaml:12: variants[1].chip: Tofino 2 has 32 front-panel ports, the topology puts 40 on switch switch"},
		// What a chip would ignore: a data queue it does not have, a
		// program or constants on a chip that runs none.
		{strings.Replace(preflightBase, "program: ndp}", "program: ndp, queue_packets: 10}", 1), "s.yaml:11: variants[0].queue_packets: chip tofino has no queue_packets"},
		{strings.Replace(preflightBase, "{name: T, chip: tofino, program: ndp}", "{name: I, chip: ideal, queue_packets: 10, program: ndp}", 1), "s.yaml:11: variants[0].program: chip ideal runs no data-plane program (got ndp)"},
		{strings.Replace(preflightBase, "{name: T, chip: tofino, program: ndp}", "{name: I, chip: ideal, queue_packets: 10, params: {T0_NS: \"1\"}}", 1), "s.yaml:11: variants[0].params: chip ideal runs no data-plane program"},
		// A variant's CONFIG_DB is read before any run (it failed the run, exit 1).
		{strings.Replace(preflightBase, "{name: T, chip: tofino, program: ndp}", "{name: S, chip: tofino, program: sonic-l3, sonic_config: snappi-t23}", 1), ""},
		{strings.Replace(preflightBase, "{name: T, chip: tofino, program: ndp}", "{name: S, chip: tofino, program: sonic-l3, sonic_config: nosuchcfg}", 1), `s.yaml:11: variants[0].sonic_config: unknown SONiC config "nosuchcfg"`},
	} {
		err := loadText(t, c.body).Preflight(Options{})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.body, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: got %v, want %q", c.body, err, c.want)
		}
	}
}

// TestConservationEveryScenario runs every scenario (shortened) and checks
// that each data packet a host sent has exactly one fate: delivered whole,
// delivered as a trimmed header, dropped with a reason, or still queued or
// on a wire when the run ends; none is delivered twice or both whole and
// trimmed.
func TestConservationEveryScenario(t *testing.T) {
	us := 80.0
	if testing.Short() {
		us = 30
	}
	for _, n := range configs.Scenarios() {
		s, err := Load(n)
		if err != nil {
			t.Fatal(err)
		}
		if k := s.Workload.Kind; k == "udp-risefall" || k == "tcp" {
			continue // no data-packet ledger: pie_test.go checks these
		}
		shorten(s, us)
		r, err := s.Execute(Options{})
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		for _, run := range r.Runs {
			label := n + " " + run.Variant + " " + run.Value
			if run.DataSent == 0 {
				t.Errorf("%s: no data sent", label)
			}
			if !run.ConservationOK && !unordered(n, run) {
				t.Errorf("%s: conservation broken: sent %d, whole %d, trimmed %d, dropped %d, in flight %d", label,
					run.DataSent, run.DeliveredFull, run.DeliveredTrimmed, run.Dropped, run.InFlight)
			}
			dropped := 0
			for _, d := range run.DropReasons {
				if d.Reason == "" {
					t.Errorf("%s: a drop without a reason", label)
				}
				dropped += d.Packets
			}
			if dropped != run.Dropped {
				t.Errorf("%s: drop reasons add to %d, dropped %d", label, dropped, run.Dropped)
			}
		}
	}
}

// unordered reports a run of a variant that isolates Protego losing its
// order (README: Protego on Trio, minimum-size frames): its ledger must
// still balance, every frame delivered once or unrecovered; only the
// order may break.
func unordered(scenario string, run *Run) bool {
	if scenario != "protego-trio-small" || run.Variant != "Protego-trio" {
		return false
	}
	p := run.ProtegoRun
	return p != nil && p.Delivered+p.Unrecovered == p.Offered && p.Duplicates == 0
}

// TestFig6FullPoint runs the heaviest Fig. 6 point end to end and checks its
// accounting and the mechanisms it must exercise.
func TestFig6FullPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("500 us with 64 senders")
	}
	s, err := Load("trim-fig6")
	if err != nil {
		t.Fatal(err)
	}
	s.Sweep.Values = []string{"64"}
	r, err := s.Execute(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ideal, tof := r.Find("Ideal", "64"), r.Find("Tofino", "64")
	for _, run := range []*Run{ideal, tof} {
		if !run.ConservationOK || run.DataSent < 60000 {
			t.Errorf("%s: sent %d, conservation %v", run.Variant, run.DataSent, run.ConservationOK)
		}
		if len(run.GoodputGbps) != 64 {
			t.Errorf("%s: %d flows", run.Variant, len(run.GoodputGbps))
		}
		// 16 receivers at 100 Gb/s share 64 flows: no flow can beat its
		// port's line rate, and together they cannot exceed 16 ports.
		total := 0.0
		for _, g := range run.GoodputGbps {
			total += g
		}
		if total > 1600 || run.MaxGoodputGbps > 100 {
			t.Errorf("%s: goodput %.0f Gb/s total, %.1f max: beyond line rate", run.Variant, total, run.MaxGoodputGbps)
		}
	}
	if tof.TrimsIngress == 0 || tof.TrimsDoD == 0 || tof.MaxDoDQueue == 0 || len(tof.Modes) == 0 {
		t.Errorf("64:16 incast must trim at ingress and on drop and arm pessimistic mode: %d, %d, queue %d, %d arms",
			tof.TrimsIngress, tof.TrimsDoD, tof.MaxDoDQueue, len(tof.Modes))
	}
	if ideal.TrimsQueue == 0 {
		t.Error("the ideal switch must trim a 4:1 overload")
	}
}

func summary(t *testing.T, r *Result) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// shortFig6 is trim-fig6 cut to 60 us at 18 and 32 senders.
func shortFig6(t *testing.T) *Scenario {
	t.Helper()
	s, err := Load("trim-fig6")
	if err != nil {
		t.Fatal(err)
	}
	s.DurationUs = 60
	s.Sweep.Values = []string{"18", "32"}
	return s
}

// TestDeterministic checks that the same seed reproduces the same summary
// byte for byte, whatever the number of parallel jobs.
func TestDeterministic(t *testing.T) {
	load := func() *Scenario { return shortFig6(t) }
	a, err := load().Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := load().Execute(Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(summary(t, a), summary(t, b)) {
		t.Error("same seed, different jobs: summaries differ")
	}
	c, err := load().Execute(Options{Jobs: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range c.Runs {
		if run.Seed != 7 {
			t.Errorf("--seed 7 not applied: run seed %d", run.Seed)
		}
	}
}

func TestShards(t *testing.T) {
	s, err := Load("trim-fig5a")
	if err != nil {
		t.Fatal(err)
	}
	s.DurationUs = 20
	all, err := s.Execute(Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := 0; i < 2; i++ {
		part, err := s.Execute(Options{Shard: i, Shards: 2})
		if err != nil {
			t.Fatal(err)
		}
		n += len(part.Runs)
	}
	if n != len(all.Runs) {
		t.Errorf("shards hold %d runs, the whole scenario %d", n, len(all.Runs))
	}
}

func TestBadScenarios(t *testing.T) {
	good := `scenario: t
doc: d
source: s
seed: 1
duration_us: 50
hosts: 4
link: {gbps: 100, prop_ns: 500}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 10, pull_rate: 0.99}
pattern: {kind: incast, senders: 2}
variants:
  - {name: Ideal, switch: ideal, queue_packets: 10}
`
	cases := []loadCase{
		{"", "", ""},
		{"seed: 1", "seed: 1\nbogus: 3", "s.yaml:5: bogus: unknown field (allowed: aqm, doc, duration_us,"},
		{"duration_us: 50", "duration_us: -1", "s.yaml:5: duration_us: got -1 (allowed: 0 < duration_us ≤ 1e6)"},
		{"gbps: 100,", "gbps: 1e-12,", "s.yaml:7: link.gbps: got 1e-12 (allowed: 0.001 ≤ gbps ≤ 1600)"},
		{"hosts: 4", "hosts: 65", "s.yaml:6: hosts: got 65 (allowed: 1..64)"},
		{"kind: ndp", "kind: rdma", "s.yaml:8: workload.kind: got \"rdma\" (allowed: ndp, cbr, udp-risefall, tcp, protego-stress, protego-fct, protego-bulk)"},
		{"window: 10", "window: 0", "s.yaml:8: workload.window: got 0 (allowed: 1..100000 packets)"},
		{"kind: incast, senders: 2", "kind: mod16, senders: 2, receivers: 1", "pattern.receivers: given for pattern mod16 (allowed: with kind incast only"},
		{"variants:", "plots: [{kind: queue, file: q.png}]\nvariants:", "plots[0].kind: queue draws the queue trace_queue or trace_dod_pipe names, and the scenario traces none"},
		{"variants:", "plots: [{kind: sweep, y: trims}]\nvariants:", "s.yaml:10: plots[0].kind: sweep draws a run key over the sweep's values, and the scenario has no sweep section"},
		{"variants:", "plots: [{kind: header_cdf, y: trims}]\nvariants:", "s.yaml:10: plots[0].y: not read by kind header_cdf (its keys besides kind, title and file: none)"},
		{"variants:", "plots: [{kind: header_cdf, variant: Ideal}]\nvariants:", "plots[0].variant: not read by kind header_cdf"},
		{"variants:", "sweep: {var: senders, values: [\"1\"]}\nplots: [{kind: sweep, y: trims, window_us: 5}]\nvariants:", "plots[0].window_us: not read by kind sweep (its keys besides kind, title and file: y)"},
		{"variants:", "sweep: {var: senders, values: [\"1\"]}\nplots: [{kind: sweep, y: trims}]\nvariants:", ""},
		{"variants:", "plots: [{kind: aqm, y: drop_prob, file: a.png}]\nvariants:", "plots[0].kind: aqm draws what udp-risefall and tcp runs record (workload.kind is ndp)"},
		{"variants:", "aqm: {switch: switch, host: 0, sample_us: 10}\nvariants:", "s.yaml:10: aqm: only the udp-risefall and tcp workloads have a bottleneck AQM (workload.kind is ndp)"},
		{"variants:", "protego: {link: 0, target_loss: 1e-8}\nvariants:", "s.yaml:10: protego: only the protego-* workloads have a protected link"},
		{"queue_packets: 10}", "queue_packets: 10, protego: {mode: nb}}", "s.yaml:11: variants[0].protego: only the protego-* workloads"},
		{"kind: incast, senders: 2", "kind: pairs, flows: [[0, 1]]}\nsweep: {var: senders, values: [\"1\", \"2\"]", "sweep.var: senders does not change a run whose pattern lists its flows"},
		{"pull_rate: 0.99}", "pull_rate: 0.99, frame_bytes: 1514}", "s.yaml:8: workload.frame_bytes: not used by kind ndp (its keys: mss, ctrl, window, flow_packets, pull_rate, ctrl_dscp)"},
		{"kind: incast", "kind: ring", "s.yaml:9: pattern.kind: got \"ring\""},
		{"switch: ideal, queue_packets: 10", "switch: ideal, queue_packets: 0", "s.yaml:11: variants[0].queue_packets: got 0"},
		{"switch: ideal, queue_packets: 10", "chip: ideal, queue_packets: 0", "s.yaml:11: variants[0].queue_packets: got 0 (allowed: 1..100000, or omitted for the chip's)"},
		{"switch: ideal, queue_packets: 10", "chip: ideal, queue_packets: 100001", "s.yaml:11: variants[0].queue_packets: got 100001 (allowed: 1..100000, or omitted for the chip's)"},
		{"switch: ideal, queue_packets: 10", "chip: ideal", ""},
		{"switch: ideal, queue_packets: 10", "switch: cisco", "s.yaml:11: variants[0].switch: got \"cisco\" (allowed: tofino, ideal"},
		{"{name: Ideal, switch: ideal, queue_packets: 10}", "{name: T, switch: tofino}", "variants[0].program: missing (a tofino variant needs a program)"},
		{"  - {name: Ideal, switch: ideal, queue_packets: 10}", "  - {name: a b, switch: ideal, queue_packets: 10}\n  - {name: a_b, switch: ideal, queue_packets: 10}", "variants[1].name: \"a b\" and \"a_b\" name the same files (a_b); rename one"},
		{"variants:", "sweep: {var: senders, values: [\"9\"]}\nvariants:", "senders value \"9\" must be 1..4"},
		{"variants:", "sweep: {var: senders, values: [\"3\", \"03\"]}\nvariants:", "sweep.values[1]: \"03\" is also sweep.values[0] (each value runs once)"},
		{"variants:", "sweep: {var: T0_NS, values: [\"1000\", \" 1000\"]}\nvariants:", "sweep.values[1]: \" 1000\" is also sweep.values[0]"},
		{"variants:", "sweep: {var: T0_NS, values: [\"1000\", \"0x3e8\"]}\nvariants:", "sweep.values[1]: \"0x3e8\" is also sweep.values[0]"},
		{"variants:", "sweep: {var: T0_NS, values: [\"10\", \"010\"]}\nvariants:\n  - {name: T, chip: tofino, program: ndp}", ""},
		{"variants:", "sweep: {var: T0_NS, values: [\"1000\"]}\nvariants:\n  - {name: T, chip: tofino, program: ndp, params: {T0_NS: \"777\"}}", "variants[0].params.T0_NS: the sweep sets T0_NS at each of its values, so this one would never be used"},
		{"variants:", "sweep: {var: T1_NS, values: [\"1000\"], derived: {T0_NS: \"x / 4\"}}\nvariants:\n  - {name: T, chip: tofino, program: ndp, params: {T0_NS: \"777\"}}", "variants[0].params.T0_NS: the sweep sets T0_NS"},
		{"variants:", "trace_queue: 9\nvariants:", "trace_queue: host 9 out of range"},
		{"duration_us: 50", "duration_us: fifty", "s.yaml:5: duration_us: expected a number, got the text \"fifty\""},
		{"seed: 1", "seed: 18446744073709551615", "s.yaml:4: seed: expected an integer, got the integer \"18446744073709551615\" (out of the integer's range)"},
		{"kind: incast, senders: 2", "kind: pairs, flows: [[0, 7]]", "pattern.flows[0]: want [src, dst] hosts in 0..3"},
		{"kind: incast, senders: 2", "kind: mod16, senders: 4", ""},
		{"kind: incast, senders: 2", "kind: shifted, senders: 4", "pattern shifted with 4 senders needs more than 4 hosts"},
		{"hosts: 4", "hosts: 8", ""},
		{"duration_us: 50\n", "", "s.yaml:1: duration_us: missing (allowed: 0 < duration_us ≤ 1e6)"},
		{"{name: Ideal, switch: ideal, queue_packets: 10}", "{name: T, switch: tofino, program: nope}", "s.yaml:11: variants[0].program: unknown program \"nope\" (allowed: "},
		{"{name: Ideal, switch: ideal, queue_packets: 10}", "{name: T, switch: ideal, queue_packets: 10, colour: red}", "s.yaml:11: variants[0].colour: unknown field (allowed: aqm, arch, chip, name, params, program, protego, queue_packets, set, sonic_config, switch, switches)"},
		{"link: {gbps: 100, prop_ns: 500}", "link: {gbps: 100, prop_ns: [500]}", "s.yaml:7: link.prop_ns: expected a number, got a list"},
		{"seed: 1", "seed: 1\nseed: 2", "s.yaml:5: seed: given twice (first at line 4)"},
		{"hosts: 4", "hosts: 4\n  x: [", "s.yaml:7: not valid YAML"},
		{"window: 10", "window: 1000000", "workload.window: got 1000000 (allowed: 1..100000 packets)"},
		{"prop_ns: 500}", "prop_ns: 500, framing: htsim}", ""},
		{"kind: incast, senders: 2", "kind: mod16-apart, senders: 2", "pattern mod16-apart with 2 senders needs more than 4 hosts"},
		{"hosts: 4\nlink: {gbps: 100, prop_ns: 500}\nworkload: {kind: ndp, mss: 1564, ctrl: 64, window: 10, pull_rate: 0.99}\npattern: {kind: incast, senders: 2}",
			"hosts: 64\nlink: {gbps: 100, prop_ns: 500}\nworkload: {kind: ndp, mss: 1564, ctrl: 64, window: 10, pull_rate: 0.99}\npattern: {kind: mod16-apart, senders: 33}",
			"pattern mod16-apart with 33 senders: at most 32 (its receivers are hosts 32..47)"},
		{"hosts: 4\nlink: {gbps: 100, prop_ns: 500}\nworkload: {kind: ndp, mss: 1564, ctrl: 64, window: 10, pull_rate: 0.99}\npattern: {kind: incast, senders: 2}",
			"hosts: 64\nlink: {gbps: 100, prop_ns: 500}\nworkload: {kind: ndp, mss: 1564, ctrl: 64, window: 10, pull_rate: 0.99}\npattern: {kind: mod16-apart, senders: 32}", ""},
		{"prop_ns: 500}", "prop_ns: 500, framing: jumbo}", `s.yaml:7: link.framing: got "jumbo" (allowed: ethernet, htsim)`},
		{"prop_ns: 500}\nworkload: {kind: ndp", "prop_ns: 500, framing: htsim}\nworkload: {kind: cbr, rate_gbps: 10", "link.framing: htsim framing models htsim's NDP packets: workload.kind must be ndp, got \"cbr\""},
		{"prop_ns: 500}\nworkload: {kind: ndp, mss: 1564", "prop_ns: 500, framing: htsim}\nworkload: {kind: ndp, mss: 64", "workload.mss: got 64 (allowed with htsim framing: > 64, htsim's NDP header)"},
		{"{name: Ideal, switch: ideal, queue_packets: 10}\n", "{name: Ideal, switch: ideal, queue_packets: 10}\n  - {name: T, chip: trio5, program: ndp}\n", ""},
		// yaml.v3 would truncate a decimal for an integer, and NaN passes
		// every range check.
		{"hosts: 4", "hosts: 4.5", "s.yaml:6: hosts: got 4.5 (allowed: an integer)"},
		// YAML reads 010 as octal 8.
		{"hosts: 4", "hosts: 010", "s.yaml:6: 010 has a leading zero, which YAML reads as octal; write 10 (or 0o10 for octal)"},
		{"hosts: 4", "hosts: 4.0", ""},
		{"kind: incast, senders: 2", "kind: incast, senders: 2.5", "s.yaml:9: pattern.senders: got 2.5 (allowed: an integer)"},
		{"queue_packets: 10}", "queue_packets: 10.5}", "s.yaml:11: variants[0].queue_packets: got 10.5 (allowed: an integer)"},
		{"prop_ns: 500}", "prop_ns: .nan}", "s.yaml:7: link.prop_ns: got .nan (allowed: a finite number)"},
		{"duration_us: 50", "duration_us: .inf", "s.yaml:5: duration_us: got .inf (allowed: a finite number)"},
		{"pull_rate: 0.99", "pull_rate: .NaN", "s.yaml:8: workload.pull_rate: got .NaN (allowed: a finite number)"},
		{"variants:", "sweep: {values: [\"1\"]}\nvariants:", "sweep.var: missing (allowed: senders, or a program constant such as T0_NS)"},
		{"variants:", "sweep: {var: senders, values: [\"2\"], derived: {T1_NS: \"x\"}}\nvariants:", "sweep.derived: derived constants follow a swept program constant, not senders"},
		{"variants:", "sweep: {var: T0_NS, values: [\"2\"], derived: {T1_NS: \"0x10\"}}\nvariants:", "sweep.derived.T1_NS: \"0x10\" does not use x, the swept value"},
		{"kind: incast, senders: 2", "kind: pairs, flows: []", "pattern.flows: got [] (allowed: a list of [src, dst] hosts, one per flow)"},
		{"kind: incast, senders: 2", "kind: pairs, flows: [[0, 1], [2, 1]], starts_us: [0]", "pattern.starts_us: 1 values for 2 flows"},
		{"kind: incast, senders: 2", "kind: pairs, flows: [[0, 1], [2, 1]], packets: [1, 2, 3]", "pattern.packets: 3 values for 2 flows"},
		{"kind: incast, senders: 2", "kind: pairs, flows: [[0, 1], [2, 1]], starts_us: [0, 5], packets: [0, 3]", ""},
		{"kind: incast, senders: 2", "kind: incast, senders: 2, starts_us: [0, 20]", "pattern.starts_us: given for pattern incast (allowed: with kind pairs only)"},
		{"variants:", "sweep: {var: senders, values: [\"1\", \"2\", \"1\"]}\nvariants:", "sweep.values[2]: \"1\" is also sweep.values[0]"},
		{"switch: ideal, queue_packets: 10", "switch: ideal, queue_packets: 1", "s.yaml:11: variants[0].queue_packets: got 1 (the ideal switch's data queue, 1 x (mss - ctrl) = 1500 B, must hold one 1564-byte frame: at least 2)"},
		{"switch: ideal, queue_packets: 10", "switch: ideal, queue_packets: 2", ""},
		{"ctrl: 64", "ctrl: 1564", "s.yaml:8: workload.ctrl: got 1564 (allowed: 64..mss-1 = 1563"},
		// Output names stay inside the output directory and do not clobber.
		{"scenario: t", "scenario: ../t", "s.yaml:1: scenario: got \"../t\" (allowed: a name of letters"},
		{"variants:", "plots: [{kind: header_cdf, file: ../x.png}]\nvariants:", "plots[0].file: got \"../x.png\" (allowed: a file name ending in .png"},
		{"variants:", "plots: [{kind: header_cdf, file: sub/x.png}]\nvariants:", "plots[0].file: got \"sub/x.png\""},
		{"variants:", "plots: [{kind: header_cdf, file: x.svg}]\nvariants:", "plots[0].file: got \"x.svg\""},
		{"variants:", "plots: [{kind: header_cdf, file: Runs.png}]\nvariants:", "plots[0].file: got \"Runs.png\" (its data would overwrite runs.csv, which every run writes)"},
		{"variants:", "plots: [{kind: header_cdf}, {kind: header_cdf}]\nvariants:", "plots[1].file: \"header_cdf.png\" is also plots[0]'s file"},
		{"variants:", "plots: [{kind: header_cdf, file: a.png}, {kind: header_cdf, file: b.png}]\nvariants:", ""},
	}
	wantLoadErrors(t, good, cases)
	// htsim framing on a chip that does not model it.
	htsim := strings.Replace(good, "prop_ns: 500}", "prop_ns: 500, framing: htsim}", 1)
	wantLoadErrors(t, htsim, []loadCase{
		{"{name: Ideal, switch: ideal, queue_packets: 10}\n", "{name: Ideal, switch: ideal, queue_packets: 10}\n  - {name: T, chip: trio5, program: ndp}\n",
			"variants[1]: link.framing htsim is modelled on ideal and Tofino switches only, not on trio5"},
	})
	if _, err := Load("no-such-scenario"); err == nil || !strings.Contains(err.Error(), "unknown scenario") {
		t.Errorf("unknown scenario: %v", err)
	}
}

// TestUnknownProgramInVariant: a tofino variant naming a program that does
// not exist is an error from Execute, not a panic.
func TestUnknownProgramInVariant(t *testing.T) {
	s, err := Load("trim-modes")
	if err != nil {
		t.Fatal(err)
	}
	s.Variants[0].Program = "no-such-program"
	if _, err := s.Execute(Options{}); err == nil || !strings.Contains(err.Error(), "no-such-program") {
		t.Errorf("error %v", err)
	}
}

func TestModeWindowsMerge(t *testing.T) {
	modes := []ModeEvent{{AtUs: 1, Pipe: 0, Index: 2}, {AtUs: 4, Pipe: 0, Index: 2}, {AtUs: 20, Pipe: 0, Index: 2},
		{AtUs: 2, Pipe: 1, Index: 2}, {AtUs: 3, Pipe: 0, Index: 0}, {AtUs: 498, Pipe: 0, Index: 0}}
	got := modeWindows(modes, 6, 500)
	want := []modeWindow{{0, 3, 9}, {0, 498, 500}, {2, 1, 10}, {2, 20, 26}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("window %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

// loadCase edits a good scenario (the first from becomes to) and names the
// error Load must give ("": it must load).
type loadCase struct{ from, to, want string }

// wantLoadErrors loads each edited scenario: a good one must load, a bad
// one fail with one line naming the file and containing the wanted text.
func wantLoadErrors(t *testing.T, good string, cases []loadCase) {
	t.Helper()
	dir := t.TempDir()
	for i, c := range cases {
		body := strings.Replace(good, c.from, c.to, 1)
		p := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p)
		if c.want == "" {
			if err != nil {
				t.Fatalf("case %d: a good scenario fails: %v", i, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "s.yaml") || strings.Contains(err.Error(), "\n") {
			t.Errorf("case %d: error %v, want one line naming the file and containing %q", i, err, c.want)
		}
	}
}

// TestJobKeyNamesTheRun checks that a run depends only on its job
// (scenario, seed, variant, sweep value): the scenario cut to one variant
// at one sweep value makes the same run, under the same key, as the whole
// scenario. archsim validate shares runs between claims on this.
func TestJobKeyNamesTheRun(t *testing.T) {
	load := func() *Scenario { return shortFig6(t) }
	whole := load()
	all, err := whole.Jobs(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := whole.Execute(Options{})
	if err != nil {
		t.Fatal(err)
	}
	cut := load()
	cut.Sweep.Values = []string{"32"}
	cut.Variants = cut.Variants[1:2] // Tofino
	jobs, err := cut.Jobs(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 {
		t.Fatalf("the cut scenario has %d jobs, want 1", len(jobs))
	}
	k := slices.IndexFunc(all, func(j Job) bool { return j.Key() == jobs[0].Key() })
	if k < 0 {
		t.Fatalf("key %q is not among the whole scenario's", jobs[0].Key())
	}
	runs, err := RunJobs(jobs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(runs[0])
	want, _ := json.Marshal(res.Runs[k])
	if runs[0].Variant != "Tofino" || runs[0].Value != "32" || !bytes.Equal(got, want) {
		t.Errorf("the cut scenario's run (%s at %s) differs from the whole scenario's run under its key", runs[0].Variant, runs[0].Value)
	}
	if c := cut.Collect(runs); c.Find("Tofino", "32") != runs[0] {
		t.Error("Collect lost the run")
	}
}

// TestMod16Apart: sender i sends to host 32 + i % 16, so no receiver sends
// and, at 18 senders, hosts 32 and 33 receive two flows each.
func TestMod16Apart(t *testing.T) {
	s, err := Load("trim-fig6-apart")
	if err != nil {
		t.Fatal(err)
	}
	flows, err := s.flows(18)
	if err != nil {
		t.Fatal(err)
	}
	per := map[int]int{}
	for i, f := range flows {
		if f.Src != i || f.Dst != 32+i%16 {
			t.Fatalf("flow %d: %d -> %d, want %d -> %d", i, f.Src, f.Dst, i, 32+i%16)
		}
		per[f.Dst]++
	}
	if len(flows) != 18 || per[32] != 2 || per[33] != 2 || per[34] != 1 {
		t.Errorf("%d flows, receivers %v: want 18, two each at hosts 32 and 33", len(flows), per)
	}
}

// loadText loads a scenario given as YAML text (written to a temporary
// file, as a user's --scenario path would be).
// loadEdited loads built-in scenario name with old replaced by new (once)
// and returns what Load says.
func loadEdited(t *testing.T, name, old, new string) (*Scenario, error) {
	t.Helper()
	data, err := configs.Read("scenarios/" + name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(data), old, new, 1)
	if src == string(data) {
		t.Fatalf("%s.yaml changed: %q not found", name, old)
	}
	p := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(p)
}

func loadText(t *testing.T, body string) *Scenario {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJobInputsShareRuns checks the runs two scenarios have in common:
// trim-fig8-32 and trim-fig9-one-pipe-32 differ only in name, text, plots
// and their other variants and sweep values, so their Tofino runs at one
// T0 have equal inputs, and the run made for one, adopted by the other,
// is byte for byte the run the other makes itself (archsim validate makes
// it once). Anything the run depends on (the seed, the sweep point, the
// variant, the duration, a plot kind that makes the run keep records)
// gives other inputs.
func TestJobInputsShareRuns(t *testing.T) {
	job := func(name, variant, value string, edit func(*Scenario)) Job {
		t.Helper()
		s, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		s.DurationUs = 40
		if edit != nil {
			edit(s)
		}
		jobs, err := s.Jobs(Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			if j.spec.variant.Name == variant && j.spec.value == value {
				return j
			}
		}
		t.Fatalf("%s has no run %s at %s", name, variant, value)
		return Job{}
	}
	a := job("trim-fig8-32", "Tofino", "3000", nil)
	b := job("trim-fig9-one-pipe-32", "Tofino", "3000", nil)
	if a.Inputs() == "" || a.Inputs() != b.Inputs() {
		t.Fatalf("inputs %q and %q, want equal and not empty", a.Inputs(), b.Inputs())
	}
	runs, err := RunJobs([]Job{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	adopted := b.Adopt(runs[0])
	got, _ := json.Marshal(adopted)
	want, _ := json.Marshal(runs[1])
	if !bytes.Equal(got, want) {
		t.Errorf("trim-fig8-32's run adopted by trim-fig9-one-pipe-32:\n%s\nthe run it makes itself:\n%s", got, want)
	}
	if runs[0].Scenario != "trim-fig8-32" || adopted == runs[0] {
		t.Error("Adopt changed the run it was given")
	}
	if a.Adopt(runs[0]) != runs[0] {
		t.Error("Adopt copied a run of the job's own scenario")
	}

	others := map[string]Job{
		"another sweep value": job("trim-fig9-one-pipe-32", "Tofino", "6000", nil),
		"another variant":     job("trim-fig9-one-pipe-32", "Tofino-paper", "3000", nil),
		"another seed":        job("trim-fig9-one-pipe-32", "Tofino", "3000", func(s *Scenario) { s.Seed++ }),
		"another duration":    job("trim-fig9-one-pipe-32", "Tofino", "3000", func(s *Scenario) { s.DurationUs = 41 }),
		"a plot that keeps headers": job("trim-fig9-one-pipe-32", "Tofino", "3000", func(s *Scenario) {
			s.Plots = append(s.Plots, Plot{Kind: "header_cdf"})
		}),
	}
	for _, what := range slices.Sorted(maps.Keys(others)) {
		if others[what].Inputs() == a.Inputs() {
			t.Errorf("%s: same inputs", what)
		}
	}
	rec := job("trim-fig9-one-pipe-32", "Tofino", "3000", nil)
	rec.spec.records = t.TempDir()
	if rec.Inputs() != "" {
		t.Error("a job that writes records has inputs; it must never share its run")
	}
}

// TestJobInputsCoverTheRun: Job.Inputs hashes every exported field of the
// scenario (through encoding/json) and names runSpec's fields one by one.
// A new unexported Scenario field or a new runSpec field must be weighed
// there (does the run depend on it?) before this list is changed.
func TestJobInputsCoverTheRun(t *testing.T) {
	fields := func(v any) []string {
		var out []string
		ty := reflect.TypeOf(v)
		for i := range ty.NumField() {
			f := ty.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				out = append(out, f.Name)
			}
		}
		return out
	}
	// variantAt only places errors (KeepVariant): no run depends on it.
	if got, want := fields(Scenario{}), []string{"file", "ix", "checked", "variantAt"}; !slices.Equal(got, want) {
		t.Errorf("Scenario's fields encoding/json skips: %v, want %v (Job.Inputs)", got, want)
	}
	// The types inside a scenario and a variant: every field hashed.
	seen := map[reflect.Type]bool{}
	var walk func(ty reflect.Type, top bool)
	walk = func(ty reflect.Type, top bool) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			if top && slices.Contains([]string{"file", "ix", "checked", "variantAt"}, f.Name) {
				continue
			}
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				t.Errorf("%s.%s: encoding/json skips it, so Job.Inputs does not see it", ty.Name(), f.Name)
			}
			walk(f.Type, false)
		}
	}
	walk(reflect.TypeOf(Scenario{}), true)
	walk(reflect.TypeOf(Variant{}), false)
	// out is not an input: runOne sets it to collect the run's files.
	if got, want := fields(runSpec{}), []string{"variant", "senders", "value", "params", "sweepParams", "seed", "sonicOverride", "records", "pcap", "pcapMax", "out"}; !slices.Equal(got, want) {
		t.Errorf("runSpec's fields: %v, want %v (Job.Inputs)", got, want)
	}
}

// The ideal switch's data queue is checked however it is sized: by a
// variant's set: as by queue_packets (both at once would leave one
// ignored: refused), and PIE settings are checked even under the default
// composite discipline, which does not read them.
func TestIdealQueueSetChecked(t *testing.T) {
	const from = "{name: Ideal, switch: ideal, queue_packets: 10}"
	for _, c := range []struct{ to, want string }{
		{"{name: Ideal, chip: ideal, set: [ideal.queue_packets=1]}", "variants[0].set: got 1 (the ideal switch's data queue"},
		{"{name: Ideal, chip: ideal, queue_packets: 10, set: [ideal.queue_packets=1]}", "variants[0].queue_packets: give queue_packets or set: [ideal.queue_packets=...], not both"},
		{"{name: Ideal, chip: ideal, set: [ideal.pie.t_update_us=0]}", "ideal.pie.t_update_us = 0: pie: t_update must be > 0"},
		{"{name: Ideal, chip: ideal, set: [ideal.pie.alpha=abc]}", `ideal.pie.alpha: want auto or a number, got "abc"`},
		{"{name: Ideal, chip: ideal, set: [ideal.pie.t_update_us=1e300]}", "ideal.pie.t_update_us = 1e+300: out of range"},
		{"{name: Ideal, chip: ideal, set: [ideal.queue.limit_us=-1]}", "ideal.queue.limit_us = -1 is out of range"},
		{"{name: Ideal, chip: ideal, set: [ideal.queue_packets=2]}", ""},
	} {
		s, err := loadEdited(t, "trim-fig5a", from, c.to)
		if err == nil {
			err = s.Preflight(Options{})
		}
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.to, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.to, err, c.want)
		}
	}
}
