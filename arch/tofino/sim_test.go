package tofino

import (
	"archsim/arch"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"archsim/arch/tofino/compiler"
	"archsim/arch/tofino/spec"
	"archsim/configs"
	"archsim/programs"
)

// chip is Tofino 1 (configs/tofino.yaml) with key=value overrides.
func chip(t testing.TB, sets ...string) *Config {
	t.Helper()
	l, err := configs.Load(configs.Source{Base: []string{"tofino.yaml"}, Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	c, err := spec.LoadConfig(l)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// variant is the compiler tests' base program with ingress code appended
// to its control flow.
func variant(t testing.TB, ingress string) *programs.Program {
	t.Helper()
	s := strings.Replace(programSource(t), "#INGRESS", indent(ingress), 1)
	s = strings.Replace(s, "#EGRESS", indent(""), 1)
	s = strings.Replace(s, "#EXTRA", "", 1)
	p, err := programs.Load([]byte(s), "base.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func indent(code string) string {
	lines := strings.Split(strings.TrimSpace(code), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

func withTraffic(t *testing.T, ingress, traffic string) *programs.Program {
	t.Helper()
	// Replace the base traffic with the test's.
	src := strings.Split(programSource(t), "traffic:")[0] + "traffic:\n" + traffic
	src = strings.Replace(src, "#INGRESS", indent(ingress), 1)
	src = strings.Replace(src, "#EGRESS", "", 1)
	q, err := programs.Load([]byte(src), "base.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// programSource is the base program the compiler's tests splice code
// into (compiler/testdata/base.yaml).
func programSource(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile("compiler/testdata/base.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestMeasuredLatencyIsDerived pushes packets through the Akita pipeline at
// a load with no contention and checks each thread's latency against the
// model's parts: parser (base + per state + 32-byte windows), the MAU
// length from the placement, and the deparser.
func TestMeasuredLatencyIsDerived(t *testing.T) {
	c := chip(t)
	prog := variant(t, "meta.a = ip.src")
	p, err := compiler.Place(c, prog)
	if err != nil {
		t.Fatal(err)
	}
	r, err := measure(c, p, runOptions{Packets: 200, Load: 0.1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Offered != 200 || r.Delivered != 200 || r.Ingress.Packets != 200 || r.Egress.Packets != 200 {
		t.Fatalf("offered %d delivered %d ingress %d egress %d", r.Offered, r.Delivered, r.Ingress.Packets, r.Egress.Packets)
	}
	L := c.Latency
	// One parse state extracting 24 bytes; the deparser emits 24 bytes
	// (ingress adds no bridged metadata here).
	parser := L.ParserBase + L.ParserPerState*1 + ceilDiv(24, L.ParserWindowBytes)
	deparser := L.DeparserBase + ceilDiv(24, L.DeparserBytesPerCycle)
	fixed := float64(parser + p.MAUCycles[spec.Ingress] + deparser)
	got := r.Ingress.LatencyCycles
	// Arrivals are not aligned to the clock: up to one cycle of wait.
	if got.Min < fixed || got.Max > fixed+1.0001 {
		t.Fatalf("ingress latency %.2f..%.2f cycles, want %.0f..%.0f", got.Min, got.Max, fixed, fixed+1)
	}
	efixed := float64(parser + p.MAUCycles[spec.Egress] + deparser)
	if e := r.Egress.LatencyCycles; e.Min < efixed || e.Max > efixed+1.0001 {
		t.Fatalf("egress latency %.2f..%.2f cycles, want %.0f..%.0f", e.Min, e.Max, efixed, efixed+1)
	}
}

// TestLatencyTracksPlacementAndClock: a longer dependency chain costs more
// measured latency, and a slower clock more nanoseconds for the same cycles.
func TestLatencyTracksPlacementAndClock(t *testing.T) {
	c := chip(t)
	measure := func(c *Config, ingress string) *RunResult {
		p, err := compiler.Place(c, variant(t, ingress))
		if err != nil {
			t.Fatal(err)
		}
		r, err := measure(c, p, runOptions{Packets: 100, Load: 0.1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	short := measure(c, "meta.a = ip.src")
	long := measure(c, "meta.a = ip.src\nt2.apply()\nif std.egress_port == 1 {\n  meta.b = 1\n}")
	if long.Ingress.LatencyNs.Mean <= short.Ingress.LatencyNs.Mean {
		t.Fatalf("long chain %.1f ns, short %.1f ns", long.Ingress.LatencyNs.Mean, short.Ingress.LatencyNs.Mean)
	}
	slow := measure(chip(t, "tofino.clock_mhz=625"), "meta.a = ip.src")
	ratio := slow.Ingress.LatencyNs.Min / short.Ingress.LatencyNs.Min
	if ratio < 1.95 || ratio > 2.05 {
		t.Fatalf("halving the clock scaled latency by %.3f, want 2", ratio)
	}
}

// TestIssueSlotContention: sixteen 100G ports of 64-byte packets offer about
// 2.4 Gpps to one pipe that accepts 1.25 G packets per second, so packets
// wait for issue slots; one port does not.
func TestIssueSlotContention(t *testing.T) {
	c := chip(t)
	run := func(ports string) *RunResult {
		prog := withTraffic(t, "meta.a = ip.src", "  - ports: ["+ports+"]\n    sizes: [64]\n    headers:\n      eth: {etype: 0x0800}\n      ip: {ttl: 64, dst: 10.0.0.1}\n")
		p, err := compiler.Place(c, prog)
		if err != nil {
			t.Fatal(err)
		}
		r, err := measure(c, p, runOptions{Packets: 3200, Load: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one := run("0")
	all := run("0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15")
	if one.Ingress.WaitNs.Max > c.CyclePs()/1000+0.001 {
		t.Fatalf("one port waited up to %.2f ns", one.Ingress.WaitNs.Max)
	}
	if all.Ingress.WaitNs.P99 < 10 {
		t.Fatalf("16 ports of 64-byte packets: p99 wait %.2f ns, expected queueing at the pipe", all.Ingress.WaitNs.P99)
	}
}

// TestConservation: every packet, offered or created by the switch
// (mirror and multicast copies), is delivered, dropped for a counted
// reason, or consumed by replication, exactly once.
func TestConservation(t *testing.T) {
	c := chip(t)
	for _, name := range []string{"ndp", "pie-dp", "protego-receiver", "switchml", "switchml-256"} {
		prog, err := programs.Resolve(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := compiler.Place(c, prog)
		if err != nil {
			t.Fatal(err)
		}
		r, err := measure(c, p, runOptions{Packets: 1000, Load: 0.5, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		dropped := 0
		for _, d := range r.Drops {
			dropped += d.Packets
		}
		if r.Delivered+dropped+r.Replicated != r.Offered+r.Copies {
			t.Errorf("%s: offered %d + copies %d != delivered %d + dropped %d + replicated %d", name, r.Offered, r.Copies, r.Delivered, dropped, r.Replicated)
		}
	}
}

func TestMeasureDeterministic(t *testing.T) {
	c := chip(t)
	prog, err := programs.Resolve("ndp", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compiler.Place(c, prog)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := 0; i < 2; i++ {
		r, err := measure(c, p, runOptions{Packets: 500, Load: 0.9, Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(NewReport(arch.ReportHead{Arch: "tofino"}, p, r, 11))
		out = append(out, string(b))
	}
	if out[0] != out[1] {
		t.Fatal("same seed gave different results")
	}
}
