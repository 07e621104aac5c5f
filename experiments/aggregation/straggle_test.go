package aggregation

import (
	"math"
	"os"
	"testing"
)

// One sleep on a short job (60 ms of compute, 16 blocks per worker, the
// config's 10 ms scan timeout). SwitchML waits for the sleeper: its extra
// time is the sleep. Trio-ML gives up on the sleeper after a scan timeout,
// but the sleeper wakes behind the others and computes its next iteration
// in full, and the others lose a scan timeout per iteration until it has
// caught up: they pay the whole lag. Only a sleep longer than an iteration
// plus two partial waits lets the sleeper skip a whole iteration (it
// already holds that iteration's partial result): Trio-ML saves one
// typical iteration, no more.
func TestSingleStraggleCost(t *testing.T) {
	p := params(t)
	p.Training.Gradients, p.Training.ComputeMs, p.Training.Iterations = 16*1024, 60, 14
	typ, pts, err := SingleStraggle(p, []float64{0.75, 1.75}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range pts {
		t.Logf("sleep %.2f x %.2f ms = %.2f ms: SwitchML +%.2f ms, Trio-ML +%.2f ms (%d degraded results), Trio-ML with resync +%.2f ms", pt.Fraction, typ, pt.SleepMs, pt.SwitchMLExtraMs, pt.TrioExtraMs, pt.TrioDegraded, pt.TrioResyncExtraMs)
		if math.Abs(pt.SwitchMLExtraMs-pt.SleepMs) > 0.05*pt.SleepMs {
			t.Errorf("sleep %.2f ms: SwitchML extra %.2f ms, want the sleep (within 5 %%)", pt.SleepMs, pt.SwitchMLExtraMs)
		}
		want := pt.SleepMs // the lag, paid in scan timeouts
		if pt.Fraction > 1.5 {
			want -= typ // one iteration skipped
		}
		if pt.TrioDegraded == 0 || math.Abs(pt.TrioExtraMs-want) > 0.1*want {
			t.Errorf("sleep %.2f ms: Trio-ML extra %.2f ms with %d degraded results, want partial results and %.2f ms (within 10 %%)", pt.SleepMs, pt.TrioExtraMs, pt.TrioDegraded, want)
		}
		if pt.TrioResyncExtraMs > pt.TrioExtraMs+1 {
			t.Errorf("sleep %.2f ms: Trio-ML with resync lost %.2f ms, more than without (%.2f ms)", pt.SleepMs, pt.TrioResyncExtraMs, pt.TrioExtraMs)
		}
	}
}

// The full-size single-straggle experiment (the claim's setup: 120 ms of
// compute, a 1 MB slice, 20 iterations), for the README's numbers:
// ARCHSIM_LONG=1 go test ./experiments/aggregation -run TestSingleStraggleFull -v
func TestSingleStraggleFull(t *testing.T) {
	if os.Getenv("ARCHSIM_LONG") == "" {
		t.Skip("ARCHSIM_LONG not set")
	}
	p := params(t)
	typ, pts, err := SingleStraggle(p, []float64{0.5, 1, 1.25, 1.5, 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range pts {
		t.Logf("sleep %.2f x %.2f ms = %.2f ms: SwitchML +%.2f ms, Trio-ML +%.2f ms (%d degraded results), Trio-ML with resync +%.2f ms", pt.Fraction, typ, pt.SleepMs, pt.SwitchMLExtraMs, pt.TrioExtraMs, pt.TrioDegraded, pt.TrioResyncExtraMs)
	}
}

// The resync what-if under the claim's Slow Worker Pattern (p = 16 %, the
// paper's 100 iterations), for the README's numbers:
// ARCHSIM_LONG=1 go test ./experiments/aggregation -run TestStragglerResyncFull -v
func TestStragglerResyncFull(t *testing.T) {
	if os.Getenv("ARCHSIM_LONG") == "" {
		t.Skip("ARCHSIM_LONG not set")
	}
	p := params(t)
	p.Training.Iterations = p.Straggler.Iterations
	r, err := StragglerResync(p, p.Straggler.Probability, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("p = %.2f, %d sleeps: typical %.2f ms, Trio-ML %.2f ms, with resync %.2f ms", r.Probability, r.Sleeps, r.TypicalMs, r.TrioMs, r.TrioResyncMs)
}

// Resync on a short job with the pattern: the job finishes with correct
// results, and no slower than without it.
func TestStragglerResyncShort(t *testing.T) {
	p := params(t)
	p.Training.Gradients, p.Training.ComputeMs, p.Training.Iterations = 16*1024, 60, 12
	r, err := StragglerResync(p, 0.3, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sleeps: typical %.2f ms, Trio-ML %.2f ms, with resync %.2f ms", r.Sleeps, r.TypicalMs, r.TrioMs, r.TrioResyncMs)
	if r.Sleeps == 0 || r.TrioMs <= r.TypicalMs {
		t.Errorf("%d sleeps, Trio-ML %.2f ms vs typical %.2f ms: want sleeps that cost time", r.Sleeps, r.TrioMs, r.TypicalMs)
	}
}

// The Slow Worker Pattern's own bound on the speed-up (no network): as
// the workers draw it, about 1 + 3 × 0.16 × 1.25 = 1.6 typical
// iterations (a little less: two sleepers in one iteration overlap); with
// every server deciding at every point, far more than the paper's 1.8.
// The draw of the claim's run (seed 1, 100 iterations) is checked against
// its measured SwitchML/typical, 200.4 / 120.4 = 1.66.
func TestPatternSlowdown(t *testing.T) {
	p := params(t)
	one := PatternSlowdown(p, 0.16, false, 100000, 1)
	every := PatternSlowdown(p, 0.16, true, 100000, 1)
	t.Logf("p = 0.16: one server per point x %.3f, every server x %.3f; the claim's draw x %.3f", one, every, PatternSlowdown(p, 0.16, false, 100, 1))
	if one < 1.5 || one > 1.6 {
		t.Errorf("one server per point: x %.3f, want 1.5..1.6", one)
	}
	if every < 2.5 {
		t.Errorf("every server at every point: x %.3f, want > 2.5", every)
	}
	// The same draw as the workers package's (seed 1, the claim's run).
	if claim := PatternSlowdown(p, 0.16, false, 100, 1); math.Abs(claim-200.43/120.42) > 0.02 {
		t.Errorf("the claim's draw: x %.3f, want SwitchML/typical as measured, 200.43 / 120.42 = %.3f", claim, 200.43/120.42)
	}
}
