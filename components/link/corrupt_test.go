package link

import (
	"math"
	"testing"

	"archsim/components/packet"
)

// run passes n frames through k and returns the lost count and the mean
// length of the runs of consecutive losses.
func run(k *Corruption, n int) (lost int64, meanRun float64) {
	pkt := &packet.Packet{Len: 1518}
	runs, inRun := 0, false
	for i := 0; i < n; i++ {
		if k.pass(pkt, int64(i)) {
			inRun = false
			continue
		}
		if !inRun {
			runs++
		}
		inRun = true
	}
	if runs > 0 {
		meanRun = float64(k.Lost) / float64(runs)
	}
	return k.Lost, meanRun
}

// within3Sigma checks a binomial count against its expectation.
func within3Sigma(t *testing.T, what string, got int64, n int, p float64) {
	t.Helper()
	mean := float64(n) * p
	sd := math.Sqrt(mean * (1 - p))
	if math.Abs(float64(got)-mean) > 3*sd+1 {
		t.Errorf("%s: %d lost of %d, expected %.0f ± %.0f (3σ)", what, got, n, mean, 3*sd)
	}
}

func TestIIDRate(t *testing.T) {
	for _, p := range []float64{1e-2, 1e-3} {
		k := NewCorruption(CorruptionConfig{Rate: p}, 7)
		n := 2_000_000
		lost, _ := run(k, n)
		within3Sigma(t, "iid", lost, n, p)
		if k.Frames != int64(n) || k.LostBytes != lost*1518 {
			t.Errorf("counters: frames %d lost bytes %d", k.Frames, k.LostBytes)
		}
	}
}

// TestGilbertRateAndBursts: the chain's long-run loss rate is the
// configured one and losses come in runs of about Burst frames (bad_loss
// 1), unlike i.i.d. losses, whose runs average 1/(1-p) frames.
func TestGilbertRateAndBursts(t *testing.T) {
	k := NewCorruption(CorruptionConfig{Model: "gilbert", Rate: 1e-3, Burst: 4}, 11)
	n := 4_000_000
	lost, mean := run(k, n)
	// Losses are correlated, so the count's spread is about Burst times
	// the binomial one (≈ 1000 bursts: ±4 % per σ): allow 12 %.
	if got := float64(lost) / float64(n); math.Abs(got-1e-3) > 0.12e-3 {
		t.Errorf("gilbert rate %.3g, want 1e-3 ± 12%%", got)
	}
	if mean < 3.5 || mean > 4.5 {
		t.Errorf("gilbert mean burst %.2f frames, want ≈ 4", mean)
	}
	_, iidMean := run(NewCorruption(CorruptionConfig{Rate: 1e-3}, 11), n)
	if iidMean > 1.01 {
		t.Errorf("iid mean run %.3f, want ≈ 1", iidMean)
	}
	if k.MaxConsecutive() < 8 {
		t.Errorf("gilbert longest run %d frames, expected bursts well above the mean", k.MaxConsecutive())
	}
}

func TestCorruptionDeterministic(t *testing.T) {
	a := NewCorruption(CorruptionConfig{Model: "gilbert", Rate: 1e-2, Burst: 2}, 3)
	b := NewCorruption(CorruptionConfig{Model: "gilbert", Rate: 1e-2, Burst: 2}, 3)
	la, _ := run(a, 100000)
	lb, _ := run(b, 100000)
	if la != lb || la == 0 {
		t.Errorf("same seed lost %d and %d frames", la, lb)
	}
}

func TestCorruptionConfigErrors(t *testing.T) {
	for _, c := range []CorruptionConfig{
		{Rate: 1}, {Rate: -0.1}, {Model: "burst"}, {Rate: 1e-3, Burst: 2},
		{Model: "gilbert", Rate: 1e-3, Burst: 0.5}, {Model: "gilbert", Rate: 1e-3, Burst: 2, BadLoss: 1.5},
		{Model: "gilbert", Rate: 0.6, Burst: 1, BadLoss: 0.5},
	} {
		if c.Validate() == nil {
			t.Errorf("%+v: accepted", c)
		}
	}
	for _, c := range []CorruptionConfig{{}, {Rate: 1e-6}, {Model: "gilbert", Rate: 1e-2, Burst: 3}} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
