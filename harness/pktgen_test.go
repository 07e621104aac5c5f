package harness

import (
	"testing"

	"archsim/arch"
	"archsim/arch/tofino"
	"archsim/programs"
)

const withPktgen = twoPorts + `pktgen:
  - name: tick
    trigger: periodic
    port: 68
    timer_ns: 1000
    length: 64
    headers:
      eth: {etype: 0x0800}
      ip: {ttl: 64, src: 10.1.2.3, dst: 10.0.0.1}
`

// A periodic application is a source of its own in the split of the
// packets: with a packet generator it is listed with its share of
// triggers (and no arrivals); without one its packets arrive every timer
// period on its port.
func TestGeneratePktgenShare(t *testing.T) {
	p := smallProgram(t, withPktgen)
	rate := func(int) (float64, error) { return 100, nil }
	gen, err := GenerateWith(p, rate, 9, 0.5, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(gen.Arrivals) != 6 || len(gen.Pktgen) != 1 {
		t.Fatalf("%d arrivals, %d pktgen runs; want 6 and 1", len(gen.Arrivals), len(gen.Pktgen))
	}
	if r := gen.Pktgen[0]; r.App.Name != "tick" || r.Triggers != 3 || r.UntilPs != 3_000_000 || gen.LastArrivalPs < r.UntilPs {
		t.Errorf("run %+v, last arrival %d", r, gen.LastArrivalPs)
	}
	off, err := Generate(p, rate, 9, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	var ticks []int64
	for i, a := range off.Arrivals {
		if i < 6 && a.AtPs != gen.Arrivals[i].AtPs {
			t.Errorf("arrival %d: the traffic ports' trains must not depend on the generator", i)
		}
		if a.Port == 68 {
			ticks = append(ticks, a.AtPs)
			if a.Pkt.Len != 64 || a.Pkt.Flow != 1*4096+68 {
				t.Errorf("tick: %d B, flow %d", a.Pkt.Len, a.Pkt.Flow)
			}
		}
	}
	if len(ticks) != 3 || ticks[1]-ticks[0] != 1_000_000 || ticks[2]-ticks[1] != 1_000_000 {
		t.Errorf("ticks at %v, want 3 every 1 us", ticks)
	}
}

// The Tofino main job's sampling packets come from the pipe's packet
// generator: pie-dp's application makes its share of packets (every 117 us,
// after the enable) and they are part of the offered packets.
func TestTofinoRunsPktgen(t *testing.T) {
	prog, err := programs.Resolve("pie-dp", nil)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := tofino.Tofino1.Load(arch.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tgt.Compile(prog)
	if err != nil || !c.Fits {
		t.Fatalf("compile: %v %v", err, c.Refusal)
	}
	m, err := Measure(tgt, c, 1, Sim{Packets: 50, Load: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	sw := m.Latency.Switch.(*tofino.Switch)
	app := sw.PktGen(0).App("pie-sampling")
	if app == nil || app.ID != 0 || app.Stats.Packets != 10 || app.Stats.Triggers != 10 {
		t.Fatalf("app %+v", app)
	}
	if m.Latency.Offered != 50 || sw.Counters().Delivered != 50 {
		t.Errorf("offered %d, delivered %d; want 50 (40 data + 10 generated)", m.Latency.Offered, sw.Counters().Delivered)
	}
	if m.Latency.LastArrivalPs != 10*117_000_000 {
		t.Errorf("last arrival %d ps, want the 10th trigger at 1.17 ms", m.Latency.LastArrivalPs)
	}
}
