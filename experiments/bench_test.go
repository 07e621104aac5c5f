package experiments

import "testing"

// BenchmarkFig6Tofino64 runs the heaviest Fig. 6 point: 64 NDP senders at
// line rate for 500 us through the Tofino model running ndp (about 126 000
// data packets). It reports wall time, Akita events per data packet and
// simulated data packets per second of wall time.
func BenchmarkFig6Tofino64(b *testing.B) { benchFig6(b, 1) }

// BenchmarkFig6Ideal64 is the same point through the ideal switch (variant 0).
func BenchmarkFig6Ideal64(b *testing.B) { benchFig6(b, 0) }

func benchFig6(b *testing.B, variant int) { benchScenario(b, "trim-fig6", variant, 64) }

// BenchmarkHtsimIncast2MTofino is htsim's own incast (63 senders, 2 MiB
// NDP flows each, one switch) through the Tofino model running ndp.p4 on
// every packet: the issue-12 yardstick against htsim.
func BenchmarkHtsimIncast2MTofino(b *testing.B) { benchScenario(b, "htsim-incast-2m", 1, 63) }

// BenchmarkHtsimIncast2MIdeal is the same incast through the ideal switch.
func BenchmarkHtsimIncast2MIdeal(b *testing.B) { benchScenario(b, "htsim-incast-2m", 0, 63) }

func benchScenario(b *testing.B, name string, variant, senders int) {
	s, err := Load(name)
	if err != nil {
		b.Fatal(err)
	}
	spec := runSpec{variant: s.Variants[variant], senders: senders, params: map[string]string{}, seed: s.Seed}
	var events, pkts int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := s.runOne(spec)
		if err != nil {
			b.Fatal(err)
		}
		events += r.Events
		pkts += int64(r.DataSent)
	}
	b.ReportMetric(float64(events)/float64(pkts), "events/packet")
	b.ReportMetric(float64(pkts)/b.Elapsed().Seconds(), "packets/s")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
