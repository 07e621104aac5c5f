package tcp

import (
	"math"
	"testing"
)

// cubicC is C = bic_scale*10/1024 for Linux's default bic_scale 41.
const cubicC = 410.0 / 1024

// ackClock drives a Cubic with synthetic ACKs: every RTT, cwnd ACKs of one
// segment each, evenly spaced, all with RTT rttUs. It returns the cwnd
// after each RTT as (seconds since t0Ps, cwnd).
func ackClock(c *Cubic, w *Window, t0Ps int64, rttUs int64, rounds int, each func(tSec float64, cwnd int)) int64 {
	now := t0Ps
	rtt := rttUs * 1e6
	for r := 0; r < rounds; r++ {
		n := w.Cwnd
		for i := 0; i < n; i++ {
			now += rtt / int64(n)
			c.PktsAcked(w, AckSample{NowPs: now, RTTUs: rttUs, SndUna: now, SndNxt: now})
			c.CongAvoid(w, now, 1, true)
		}
		if each != nil {
			each(float64(now-t0Ps)/1e12, w.Cwnd)
		}
	}
	return now
}

// lossAt puts a Cubic that has seen RTT rttUs into the state right after a
// loss at cwnd wmax (ssthresh = cwnd = β·wmax), at time nowPs.
func lossAt(p CubicParams, wmax int, rttUs int64, nowPs int64) (*Cubic, *Window) {
	c := NewCubic(p)
	c.Init(0, 0)
	w := &Window{Cwnd: wmax, Ssthresh: wmax}
	c.PktsAcked(w, AckSample{NowPs: nowPs, RTTUs: rttUs})
	w.Ssthresh = c.Ssthresh(w)
	w.Cwnd = w.Ssthresh
	return c, w
}

// TestCubicClosedForm checks the window after a loss at W_max = 1000
// against W(t) = C(t-K)^3 + W_max, K = cbrt(W_max(1-β)/C), over two K.
// Tolerance: 3 segments (0.3 % of W_max; measured worst 1.5). Linux's arithmetic makes cwnd approximate:
// time in jiffies (1 ms) and 1/1024 s, the target taken one delay_min
// ahead and reached within about an RTT, cnt rounded down, and the
// increase capped at 1.5x per RTT.
func TestCubicClosedForm(t *testing.T) {
	const wmax = 1000
	const rttUs = 100_000
	p := DefaultCubicParams()
	c, w := lossAt(p, wmax, rttUs, 1e12)
	beta := float64(p.Beta) / 1024
	if want := int(wmax * beta); w.Cwnd != want {
		t.Fatalf("cwnd after loss %d, want floor(β·W_max) = %d", w.Cwnd, want)
	}
	k := math.Cbrt(wmax * (1 - beta) / cubicC)
	worst := 0.0
	first := true
	ackClock(c, w, 1e12, rttUs, int(2*k/0.1), func(ts float64, cwnd int) {
		if first {
			first = false
			if got := c.K(); math.Abs(got-k) > 2.0/1024 {
				t.Errorf("K = %.4f s, closed form %.4f s", got, k)
			}
		}
		want := cubicC*math.Pow(ts-k, 3) + wmax
		worst = max(worst, math.Abs(float64(cwnd)-want))
		if math.Abs(float64(cwnd)-want) > 3 {
			t.Fatalf("t=%.2f s: cwnd %d, closed form %.1f", ts, cwnd, want)
		}
	})
	t.Logf("K = %.3f s, worst |cwnd - W(t)| = %.1f segments", k, worst)
}

// TestCubicBetaAndFastConvergence checks ssthresh = floor(cwnd·717/1024)
// (at least 2) and W_max: the cwnd at the loss, or (1+β)/2 of it when
// cwnd did not get back to the previous W_max (fast convergence).
func TestCubicBetaAndFastConvergence(t *testing.T) {
	p := DefaultCubicParams()
	for _, cw := range []int{2, 3, 10, 100, 1000, 123457} {
		c := NewCubic(p)
		w := &Window{Cwnd: cw}
		if got, want := c.Ssthresh(w), max(cw*717/1024, 2); got != want {
			t.Errorf("cwnd %d: ssthresh %d, want %d", cw, got, want)
		}
		if c.WMax() != cw {
			t.Errorf("cwnd %d: first loss W_max %d", cw, c.WMax())
		}
	}
	c := NewCubic(p)
	c.Ssthresh(&Window{Cwnd: 1000})
	c.Ssthresh(&Window{Cwnd: 900})
	if want := 900 * (1024 + 717) / 2048; c.WMax() != want {
		t.Errorf("fast convergence: W_max %d, want %d", c.WMax(), want)
	}
	c.Ssthresh(&Window{Cwnd: 950}) // above the reduced W_max: no reduction
	if c.WMax() != 950 {
		t.Errorf("cwnd above W_max: W_max %d, want 950", c.WMax())
	}
	p.FastConvergence = false
	c = NewCubic(p)
	c.Ssthresh(&Window{Cwnd: 1000})
	c.Ssthresh(&Window{Cwnd: 900})
	if c.WMax() != 900 {
		t.Errorf("without fast convergence: W_max %d, want 900", c.WMax())
	}
}

// TestCubicConvexWithoutWMax checks the epoch after a loss with cwnd at
// or above W_max: K = 0 and the window grows convexly from cwnd.
func TestCubicConvexWithoutWMax(t *testing.T) {
	c, w := lossAt(DefaultCubicParams(), 1000, 100_000, 1e12)
	c.lastMaxCwnd = 500 // pretend the last W_max was below the new start
	var pts []int
	ackClock(c, w, 1e12, 100_000, 60, func(_ float64, cwnd int) { pts = append(pts, cwnd) })
	if c.K() != 0 {
		t.Fatalf("K = %g, want 0", c.K())
	}
	// Increments per 2 s grow (convex).
	d1, d2 := pts[19]-pts[0], pts[59]-pts[40]
	if !(d2 > 2*d1) || d1 < 0 {
		t.Errorf("not convex: +%d in the first 2 s, +%d in the last 2 s", d1, d2)
	}
}

// TestCubicTCPFriendly checks that at a small RTT and a low W_max the
// Reno-emulated window (0.53 segments per RTT for β = 0.7: Linux's
// beta_scale, 3(1-β)/(1+β) of RFC 8312) sets the pace, far above the
// cubic curve, and that without it cwnd follows the (nearly flat) curve.
func TestCubicTCPFriendly(t *testing.T) {
	const rttUs = 1000
	const rounds = 200
	p := DefaultCubicParams()
	c, w := lossAt(p, 20, rttUs, 1e12)
	start := w.Cwnd
	ackClock(c, w, 1e12, rttUs, rounds, nil)
	reno := float64(start) + rounds*8.0/15
	k := math.Cbrt(20 * (1 - 717.0/1024) / cubicC)
	cub := cubicC*math.Pow(rounds*rttUs/1e6-k, 3) + 20
	if math.Abs(float64(w.Cwnd)-reno) > 0.05*reno {
		t.Errorf("cwnd %d after %d RTTs, Reno emulation %.1f", w.Cwnd, rounds, reno)
	}
	if c.RenoCwnd() < w.Cwnd-1 {
		t.Errorf("Reno estimate %d below cwnd %d", c.RenoCwnd(), w.Cwnd)
	}
	t.Logf("after %d RTTs: cwnd %d, Reno emulation %.1f, cubic curve %.1f", rounds, w.Cwnd, reno, cub)
	p.TCPFriendliness = false
	c, w = lossAt(p, 20, rttUs, 1e12)
	ackClock(c, w, 1e12, rttUs, rounds, nil)
	if float64(w.Cwnd) > cub+2 || float64(w.Cwnd) > reno/2 {
		t.Errorf("without TCP friendliness cwnd %d, cubic curve %.1f (Reno would be %.1f)", w.Cwnd, cub, reno)
	}
}

// TestSlowStartAndHyStartDelay checks slow start (cwnd + acked) and
// HyStart's delay detection: after a round whose minimum RTT exceeds
// delay_min by clamp(delay_min/8, 4 ms, 16 ms), ssthresh = cwnd.
func TestSlowStartAndHyStartDelay(t *testing.T) {
	p := DefaultCubicParams()
	p.HyStartDetect = HyStartDelay
	c := NewCubic(p)
	c.Init(0, 0)
	w := &Window{Cwnd: 10, Ssthresh: InfiniteSsthresh}
	now := int64(1e12)
	seq := int64(0)
	ack := func(rttUs int64) {
		now += 10e6
		seq++
		c.PktsAcked(w, AckSample{NowPs: now, RTTUs: rttUs, SndUna: seq, SndNxt: seq + int64(w.Cwnd)})
		c.CongAvoid(w, now, 1, true)
	}
	for w.Cwnd < 40 {
		ack(10_000)
	}
	if w.Ssthresh != InfiniteSsthresh || c.HyStartFound() {
		t.Fatalf("HyStart fired at a constant RTT (cwnd %d)", w.Cwnd)
	}
	// A new round (snd_una passes end_seq), then delayed samples: the
	// threshold is 10 ms + max(10/8 ms, 4 ms) = 14 ms.
	seq += 100
	for i := 0; i < 20 && !c.HyStartFound(); i++ {
		ack(13_900)
	}
	if c.HyStartFound() {
		t.Fatal("HyStart fired below the delay threshold")
	}
	seq += 100
	for i := 0; i < 20 && !c.HyStartFound(); i++ {
		ack(14_100)
	}
	if !c.HyStartFound() || w.Ssthresh != w.Cwnd {
		t.Fatalf("HyStart delay detection: found %v, ssthresh %d cwnd %d", c.HyStartFound(), w.Ssthresh, w.Cwnd)
	}
}

// TestHyStartAckTrain checks the ACK-train detection: closely spaced ACKs
// (under 2 ms apart) spanning more than delay_min/2 since the round
// started end slow start; a shorter train does not.
func TestHyStartAckTrain(t *testing.T) {
	p := DefaultCubicParams()
	p.HyStartDetect = HyStartAckTrain
	c := NewCubic(p)
	c.Init(0, 0)
	w := &Window{Cwnd: 32, Ssthresh: InfiniteSsthresh}
	// delay_min = 10 ms, no pacing rate: threshold 5 ms.
	now := int64(1e12)
	c.PktsAcked(w, AckSample{NowPs: now, RTTUs: 10_000, SndUna: 1, SndNxt: 100})
	start := now
	for now-start < 4.9e9 {
		now += 0.5e9
		c.PktsAcked(w, AckSample{NowPs: now, RTTUs: 10_000, SndUna: 2, SndNxt: 100})
	}
	if c.HyStartFound() {
		t.Fatal("ACK train shorter than delay_min/2 ended slow start")
	}
	for i := 0; i < 4; i++ {
		now += 0.5e9
		c.PktsAcked(w, AckSample{NowPs: now, RTTUs: 10_000, SndUna: 2, SndNxt: 100})
	}
	if !c.HyStartFound() || w.Ssthresh != 32 {
		t.Fatalf("ACK train over delay_min/2: found %v ssthresh %d", c.HyStartFound(), w.Ssthresh)
	}
}

func TestCbrt(t *testing.T) {
	for _, a := range []uint64{0, 1, 7, 8, 9, 26, 27, 1 << 40, 1<<63 + 12345, math.MaxUint64} {
		x := cbrt64(a)
		if x*x*x > a || (x+1 <= 2642245 && (x+1)*(x+1)*(x+1) <= a) {
			t.Errorf("cbrt64(%d) = %d", a, x)
		}
	}
}
