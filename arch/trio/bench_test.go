package trio

import (
	"testing"

	"archsim/arch/trio/lower"
	"archsim/programs"
)

// BenchmarkPFENDP times the PFE simulation of ndp (10 000 packets at half
// line rate on a Trio 5 PFE) and reports events per packet and simulated
// packets per second of wall time.
func BenchmarkPFENDP(b *testing.B) {
	c := chipT(b)
	p, err := programs.Resolve("ndp", nil)
	if err != nil {
		b.Fatal(err)
	}
	m, err := lower.Lower(c, p)
	if err != nil {
		b.Fatal(err)
	}
	const packets = 10000
	var events int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := measure(c, m, runOptions{Packets: packets, Load: 0.5, Seed: int64(i)})
		if err != nil {
			b.Fatal(err)
		}
		events += r.Events
	}
	b.ReportMetric(float64(events)/float64(b.N*packets), "events/packet")
	b.ReportMetric(float64(b.N*packets)/b.Elapsed().Seconds(), "packets/s")
}
