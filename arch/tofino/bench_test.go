package tofino

import (
	"testing"

	"archsim/arch/tofino/compiler"
	"archsim/programs"
)

// BenchmarkMeasureNDP times the latency simulation of ndp (10 000 packets
// through one Tofino model on the serial Akita engine) and reports events
// per packet and simulated packets per wall-clock second.
func BenchmarkMeasureNDP(b *testing.B) {
	c := chip(b)
	prog, err := programs.Resolve("ndp", nil)
	if err != nil {
		b.Fatal(err)
	}
	p, err := compiler.Place(c, prog)
	if err != nil {
		b.Fatal(err)
	}
	const packets = 10000
	var events int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := measure(c, p, runOptions{Packets: packets, Load: 0.5, Seed: int64(i)})
		if err != nil {
			b.Fatal(err)
		}
		events += r.Events
	}
	b.ReportMetric(float64(events)/float64(b.N*packets), "events/packet")
	b.ReportMetric(float64(b.N*packets)/b.Elapsed().Seconds(), "packets/s")
}
