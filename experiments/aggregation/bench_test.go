package aggregation

import "testing"

// BenchmarkTrioMLJob: four workers stream 256 blocks of 1024 gradients
// each through one Trio 5 PFE (window 64); reports events and wall time
// per gradient packet.
func BenchmarkTrioMLJob(b *testing.B) {
	p, err := LoadParams(nil)
	if err != nil {
		b.Fatal(err)
	}
	var events int64
	var pkts int
	for i := 0; i < b.N; i++ {
		wc := p.Workers(0, 0, 1)
		wc.Workers, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, 256*1024, 64, 1, 0
		r, err := Run(Setup{Switch: "trio", Workers: wc, Seed: 1})
		if err != nil || !r.Done {
			b.Fatal(err)
		}
		events += r.Events
		pkts += r.Sent
	}
	b.ReportMetric(float64(events)/float64(pkts), "events/packet")
	b.ReportMetric(float64(pkts)/b.Elapsed().Seconds(), "packets/s")
}

// BenchmarkSwitchMLJob: the same gradients through switchml on the Tofino
// model (64 per packet).
func BenchmarkSwitchMLJob(b *testing.B) {
	p, err := LoadParams(nil)
	if err != nil {
		b.Fatal(err)
	}
	var events int64
	var pkts int
	for i := 0; i < b.N; i++ {
		wc := p.Workers(0, 0, 1)
		wc.Workers, wc.PerPacket, wc.Gradients, wc.Window, wc.Iterations, wc.ComputePs = 4, 64, 64*1024, 64, 1, 0
		r, err := Run(Setup{Switch: "tofino", Workers: wc, Pool: 64, Seed: 1})
		if err != nil || !r.Done {
			b.Fatal(err)
		}
		events += r.Events
		pkts += r.Sent
	}
	b.ReportMetric(float64(events)/float64(pkts), "events/packet")
	b.ReportMetric(float64(pkts)/b.Elapsed().Seconds(), "packets/s")
}
