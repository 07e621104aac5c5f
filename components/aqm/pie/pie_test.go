package pie

import (
	"math"
	"math/rand"
	"strings"
	"testing"
)

const ms = int64(1e9) // picoseconds per millisecond
const us = int64(1e6) // picoseconds per microsecond

// base is RFC 8033's defaults with no burst allowance, for hand-computed
// steps.
func base() Params {
	return Params{Flavour: "test", DelayRefPs: 15 * ms, TUpdatePs: 15 * ms, Alpha: 0.125, Beta: 1.25,
		Scaling: ScalingRFC, CapDropAdjustment: true, Decay: 0.98, ClampToOne: true, Burst: BurstNone,
		SafeguardProb: 0.2, MeanPktBytes: 1500, ECNThreshold: 0.1}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
		t.Fatalf("%s = %.15g, want %.15g", what, got, want)
	}
}

// fixed is a Uniform that always returns v.
type fixed float64

func (f fixed) Float64() float64 { return float64(f) }

// RFC 8033 §4.2: p = alpha*(qdelay-ref) + beta*(qdelay-qdelay_old), scaled
// by the table at the current drop_prob, added to drop_prob.
func TestUpdateRFCFormulaTwoSteps(t *testing.T) {
	c := MustNew(base())
	c.Update(30 * ms)
	// 0.125*0.015 + 1.25*0.030 = 0.039375; drop_prob 0 < 1e-6: /2048.
	near(t, "prob after step 1", c.Prob(), 0.039375/2048)
	c.Update(30 * ms)
	// 0.125*0.015 + 0 = 0.001875; drop_prob 1.92e-5 in [1e-5, 1e-4): /128.
	near(t, "prob after step 2", c.Prob(), 0.039375/2048+0.001875/128)
	if c.Updates() != 2 || c.QDelayPs() != 30*ms {
		t.Fatalf("updates %d qdelay %d", c.Updates(), c.QDelayPs())
	}
}

// The scaling tables, one decade at a time: the update applied at each
// drop_prob is p divided by the table's factor.
func TestScalingTables(t *testing.T) {
	cases := []struct {
		scaling string
		prob    float64
		div     float64
	}{
		{ScalingRFC, 5e-7, 2048}, {ScalingRFC, 5e-6, 512}, {ScalingRFC, 5e-5, 128}, {ScalingRFC, 5e-4, 32},
		{ScalingRFC, 5e-3, 8}, {ScalingRFC, 5e-2, 2}, {ScalingRFC, 0.5, 1},
		{ScalingNS3v31, 5e-7, 32}, {ScalingNS3v31, 5e-4, 32}, {ScalingNS3v31, 5e-3, 8}, {ScalingNS3v31, 5e-2, 2},
		{ScalingNS3v31, 0.5, 0.5}, {ScalingNS3v31, 5, 0.125}, {ScalingNS3v31, 50, 0.03125},
		{ScalingNone, 5e-7, 1}, {ScalingNone, 0.5, 1},
	}
	for _, k := range cases {
		p := base()
		p.Scaling, p.CapDropAdjustment, p.ClampToOne = k.scaling, false, false
		c := MustNew(p)
		// qdelay = qdelay_old = 16 ms: p = 0.125 * 0.001 = 1.25e-4.
		c.s = state{prob: k.prob, qdelayOld: 16 * ms}
		c.Update(16 * ms)
		near(t, k.scaling+" update", c.Prob()-k.prob, 1.25e-4/k.div)
	}
}

// RFC 8033 §5.5: once drop_prob >= 0.1 an update is at most 0.02.
func TestCapDropAdjustment(t *testing.T) {
	p := base()
	c := MustNew(p)
	// beta*(qdelay-old) = 1.25*0.08 = 0.1, alpha term 0.125*(0.095-0.015) = 0.01.
	c.s = state{prob: 0.5, qdelayOld: 15 * ms}
	c.Update(95 * ms)
	near(t, "capped", c.Prob(), 0.52)
	p.CapDropAdjustment = false
	c = MustNew(p)
	c.s = state{prob: 0.5, qdelayOld: 15 * ms}
	c.Update(95 * ms)
	near(t, "uncapped", c.Prob(), 0.5+0.11)
	// Below 0.1 the cap does not apply: 0.11/2.
	c = MustNew(base())
	c.s = state{prob: 0.05, qdelayOld: 15 * ms}
	c.Update(95 * ms)
	near(t, "below 0.1", c.Prob(), 0.05+0.055)
	// A negative update is never capped.
	c = MustNew(base())
	c.s = state{prob: 0.5, qdelayOld: 95 * ms}
	c.Update(15 * ms)
	near(t, "negative", c.Prob(), 0.5-0.1)
}

// RFC 8033 §4.2: drop_prob *= 0.98 when this and the last delay are 0
// (after the update is added).
func TestDecay(t *testing.T) {
	c := MustNew(base())
	c.s = state{prob: 0.5}
	c.Update(0)
	near(t, "decayed", c.Prob(), (0.5-0.125*0.015)*0.98)
	// No decay when the previous delay was not 0.
	c = MustNew(base())
	c.s = state{prob: 0.5, qdelayOld: 1 * us}
	c.Update(0)
	near(t, "not decayed", c.Prob(), 0.5+(-0.125*0.015-1.25*1e-6))
}

// RFC 8033 §4.2 bounds drop_prob to [0, 1]; ns-3.31 only from below.
func TestBounds(t *testing.T) {
	c := MustNew(base())
	c.s = state{prob: 0.995, qdelayOld: 15 * ms}
	c.Update(95 * ms)
	near(t, "upper bound", c.Prob(), 1)
	c = MustNew(base())
	c.Update(0)
	near(t, "lower bound", c.Prob(), 0)
	p := base()
	p.ClampToOne = false
	c = MustNew(p)
	c.s = state{prob: 0.995, qdelayOld: 15 * ms}
	c.Update(95 * ms)
	near(t, "no upper bound", c.Prob(), 1.015)
}

// ns-3.31: drop_prob += 0.02 when the delay exceeds 200 ms.
func TestHighDelayBoost(t *testing.T) {
	p := base()
	p.HighDelayBoostPs = 200 * ms
	c := MustNew(p)
	c.s = state{prob: 0.5, qdelayOld: 250 * ms}
	c.Update(250 * ms)
	// alpha*(0.25-0.015) = 0.029375, capped to 0.02, then +0.02.
	near(t, "boosted", c.Prob(), 0.54)
}

// RFC 8033 §4.4: no random drop while the allowance lasts; it falls by
// t_update per update (drop_prob is still updated) and refills when
// drop_prob is 0 and both delays are below delay_ref/2.
func TestBurstAllowanceRFC(t *testing.T) {
	p := base()
	p.Burst, p.MaxBurstPs = BurstRFC, 40*ms
	c := MustNew(p)
	if c.BurstAllowancePs() != 40*ms {
		t.Fatalf("initial allowance %d", c.BurstAllowancePs())
	}
	c.s.prob, c.s.qdelayOld = 0.9, 30*ms
	if d := c.Decide(1e6, 1500, false, fixed(0)); d != Admit {
		t.Fatalf("within the allowance: %v", d)
	}
	c.Update(30 * ms) // 40 -> 25 ms, drop_prob still updated
	near(t, "updated in burst", c.Prob(), 0.9+0.125*0.015)
	c.Update(30 * ms) // 10 ms
	c.Update(30 * ms) // 0
	if c.BurstAllowancePs() != 0 {
		t.Fatalf("allowance %d, want 0", c.BurstAllowancePs())
	}
	if d := c.Decide(1e6, 1500, false, fixed(0)); d != Drop {
		t.Fatalf("after the allowance: %v", d)
	}
	// Quiet: drop_prob 0 and both delays < 7.5 ms refill it.
	c.s.prob, c.s.qdelayOld = 0, 1*ms
	c.Update(2 * ms)
	if c.BurstAllowancePs() != 40*ms {
		t.Fatalf("refill: %d", c.BurstAllowancePs())
	}
}

// ns-3.31's burst rule: the first enqueue arms the allowance, drop_prob is
// held at 0 while it lasts, and quiet updates for BURST_RESET_TIMEOUT
// return to NO_BURST (the next enqueue re-arms).
func TestBurstAllowanceNS3(t *testing.T) {
	p := base()
	p.Burst, p.MaxBurstPs, p.BurstResetPs = BurstNS3, 30*ms, 45*ms // reset limit 3 updates
	c := MustNew(p)
	if c.BurstAllowancePs() != 0 {
		t.Fatal("ns-3.31 starts with no allowance")
	}
	c.Decide(0, 1500, false, fixed(0.5))
	if c.BurstAllowancePs() != 30*ms || c.s.burstState != inBurstProtecting {
		t.Fatalf("armed: %d state %d", c.BurstAllowancePs(), c.s.burstState)
	}
	c.Update(100 * ms)
	near(t, "held at 0", c.Prob(), 0)
	c.Update(100 * ms) // allowance 0 now; not quiet
	c.Update(100 * ms) // updated: alpha*(0.085) scaled /2048 (beta term 0)
	near(t, "after the allowance", c.Prob(), 0.125*0.085/2048)
	if c.s.burstState != inBurstProtecting {
		t.Fatal("not quiet: stays protecting")
	}
	c.s = state{burstState: inBurstProtecting}
	c.Update(0) // quiet -> IN_BURST
	if c.s.burstState != inBurst {
		t.Fatalf("state %d, want IN_BURST", c.s.burstState)
	}
	for i := 0; i < 4; i++ { // burstReset 1..4 > 3 -> NO_BURST
		c.Update(0)
	}
	if c.s.burstState != noBurst {
		t.Fatalf("state %d, want NO_BURST", c.s.burstState)
	}
	c.Decide(0, 1500, false, fixed(0.5))
	if c.BurstAllowancePs() != 30*ms {
		t.Fatal("not re-armed")
	}
}

// RFC 8033 §4.1 safeguards: no drop while qdelay_old < delay_ref/2 and
// drop_prob < 0.2, nor while the queue holds at most 2 mean packets.
func TestSafeguards(t *testing.T) {
	c := MustNew(base())
	c.s = state{prob: 0.19, qdelayOld: 7 * ms}
	if d := c.Decide(1e6, 1500, false, fixed(0)); d != Admit {
		t.Fatalf("low delay, low prob: %v", d)
	}
	c.s.prob = 0.2
	if d := c.Decide(1e6, 1500, false, fixed(0)); d != Drop {
		t.Fatalf("low delay, prob 0.2: %v", d)
	}
	c.s = state{prob: 0.1, qdelayOld: 8 * ms}
	if d := c.Decide(1e6, 1500, false, fixed(0)); d != Drop {
		t.Fatalf("delay above ref/2: %v", d)
	}
	if d := c.Decide(3000, 1500, false, fixed(0)); d != Admit {
		t.Fatalf("queue of 2 packets: %v", d)
	}
	if d := c.Decide(3001, 1500, false, fixed(0)); d != Drop {
		t.Fatalf("queue above 2 packets: %v", d)
	}
}

// RFC 8033 §4.1: drop with probability drop_prob (u < prob).
func TestRandomDrop(t *testing.T) {
	c := MustNew(base())
	c.s = state{prob: 0.3, qdelayOld: 20 * ms}
	if d := c.Decide(1e6, 1500, false, fixed(0.29)); d != Drop {
		t.Fatalf("u 0.29: %v", d)
	}
	if d := c.Decide(1e6, 1500, false, fixed(0.3)); d != Admit {
		t.Fatalf("u 0.3: %v", d)
	}
	rng := rand.New(rand.NewSource(1))
	c.Drops = 0
	for i := 0; i < 100000; i++ {
		c.Decide(1e6, 1500, false, rng)
	}
	if f := float64(c.Drops) / 100000; math.Abs(f-0.3) > 0.01 {
		t.Fatalf("drop fraction %g, want 0.3", f)
	}
}

// ns-3.31 in a byte-limited queue scales drop_prob by size/MeanPktSize.
func TestByteMode(t *testing.T) {
	p := base()
	p.ByteMode, p.MeanPktBytes = true, 1000
	c := MustNew(p)
	c.s = state{prob: 0.3, qdelayOld: 20 * ms}
	if d := c.Decide(1e6, 1500, false, fixed(0.4)); d != Drop {
		t.Fatalf("byte mode 1500 B at 0.3 -> 0.45: %v", d)
	}
	c = MustNew(base())
	c.s = state{prob: 0.3, qdelayOld: 20 * ms}
	if d := c.Decide(1e6, 1500, false, fixed(0.4)); d != Admit {
		t.Fatalf("packet mode: %v", d)
	}
}

// RFC 8033 §5.1: an ECN-capable packet is marked instead of dropped while
// drop_prob < mark_ecnth.
func TestECN(t *testing.T) {
	c := MustNew(base())
	c.s = state{prob: 0.09, qdelayOld: 20 * ms}
	if d := c.Decide(1e6, 1500, true, fixed(0)); d != Mark {
		t.Fatalf("ect below threshold: %v", d)
	}
	if d := c.Decide(1e6, 1500, false, fixed(0)); d != Drop {
		t.Fatalf("not ect: %v", d)
	}
	c.s.prob = 0.1
	if d := c.Decide(1e6, 1500, true, fixed(0)); d != Drop {
		t.Fatalf("ect at threshold: %v", d)
	}
	if c.Marks != 1 || c.Drops != 2 {
		t.Fatalf("marks %d drops %d", c.Marks, c.Drops)
	}
}

// NoDrop evaluates the rules but admits everything.
func TestNoDrop(t *testing.T) {
	p := base()
	p.NoDrop = true
	c := MustNew(p)
	c.s = state{prob: 1, qdelayOld: 20 * ms}
	if d := c.Decide(1e6, 1500, false, fixed(0)); d != Admit {
		t.Fatalf("no-drop: %v", d)
	}
	if c.WouldDrop != 1 || c.Drops != 0 {
		t.Fatalf("wouldDrop %d drops %d", c.WouldDrop, c.Drops)
	}
}

// Property: under a constant overload (the queue at its 500 us limit)
// drop_prob rises monotonically to 1; with the delay at 0 it decays
// monotonically to 0. Both flavours with the Tofino parameterisation.
func TestRiseAndDecayProperty(t *testing.T) {
	for _, fl := range Flavours() {
		_, tun, _, err := Tofino()
		if err != nil {
			t.Fatal(err)
		}
		p, err := LoadFlavour(fl)
		if err != nil {
			t.Fatal(err)
		}
		spec, _, _, _ := Tofino()
		p = p.WithTofino(spec, tun)
		c := MustNew(p)
		c.Decide(1e6, 1500, false, fixed(0.5)) // arms ns-3.31's allowance, as the first packet does
		prev, n := 0.0, 0
		for ; c.Prob() < 1 && n < 1e6; n++ {
			c.Update(500 * us)
			if c.Prob() < prev {
				t.Fatalf("%s: drop_prob fell under overload at update %d: %g -> %g", fl, n, prev, c.Prob())
			}
			prev = c.Prob()
		}
		if c.Prob() < 1 {
			t.Fatalf("%s: drop_prob %g after %d updates", fl, c.Prob(), n)
		}
		rise := n
		for n = 0; c.Prob() > 0 && n < 1e6; n++ {
			c.Update(0)
			if c.Prob() > prev {
				t.Fatalf("%s: drop_prob rose with no delay at update %d", fl, n)
			}
			prev = c.Prob()
		}
		if c.Prob() != 0 {
			t.Fatalf("%s: drop_prob %g after %d idle updates", fl, c.Prob(), n)
		}
		t.Logf("%s: rise %d updates (%.2f s at 117 us), fall %d updates", fl, rise, float64(rise)*117e-6, n)
	}
}

// Quiescent: an idle controller at drop_prob 0 is a fixed point; one with
// drop_prob > 0 is not.
func TestQuiescent(t *testing.T) {
	c := MustNew(base())
	if !c.Quiescent() {
		t.Fatal("fresh controller not quiescent")
	}
	c.Update(30 * ms)
	if c.Quiescent() {
		t.Fatal("drop_prob > 0 yet quiescent")
	}
	for i := 0; i < 10000 && !c.Quiescent(); i++ {
		c.Update(0)
	}
	if !c.Quiescent() || c.Prob() != 0 {
		t.Fatal("never quiescent")
	}
	n := c.Updates()
	c.SkipIdle(5)
	if c.Updates() != n+5 {
		t.Fatal("SkipIdle")
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		set  func(*Params)
		want string
	}{
		{func(p *Params) { p.TUpdatePs = 0 }, "t_update"},
		{func(p *Params) { p.Alpha = -0.1 }, "alpha"},
		{func(p *Params) { p.Beta = -1 }, "beta"},
		{func(p *Params) { p.DelayRefPs = 0 }, "delay_ref"},
		{func(p *Params) { p.QueueLimitPs = 10 * ms }, "delay_ref 15000 us is above the queue limit 10000 us"},
		{func(p *Params) { p.Decay = 1.5 }, "decay"},
		{func(p *Params) { p.Scaling = "x" }, "scaling"},
		{func(p *Params) { p.Burst = BurstNS3 }, "burst_reset_timeout"},
		{func(p *Params) { p.ECNThreshold = 2 }, "ecn_threshold"},
	}
	for _, k := range cases {
		p := base()
		k.set(&p)
		_, err := New(p)
		if err == nil || !strings.Contains(err.Error(), k.want) {
			t.Fatalf("want an error naming %q, got %v", k.want, err)
		}
	}
	if _, err := New(base()); err != nil {
		t.Fatal(err)
	}
}

// The flavours load from configs/pie.yaml with their sources' values.
func TestLoadFlavours(t *testing.T) {
	r, err := LoadFlavour(FlavourRFC)
	if err != nil {
		t.Fatal(err)
	}
	if r.DelayRefPs != 15*ms || r.TUpdatePs != 15*ms || r.MaxBurstPs != 150*ms || r.Scaling != ScalingRFC || !r.ClampToOne {
		t.Fatalf("rfc: %+v", r)
	}
	d, err := LoadFlavour(FlavourDefault)
	if err != nil {
		t.Fatal(err)
	}
	if d.DelayRefPs != 20*ms || d.TUpdatePs != 30*ms || d.MaxBurstPs != 100*ms || d.Scaling != ScalingNS3v31 ||
		d.ClampToOne || d.HighDelayBoostPs != 200*ms || d.Burst != BurstNS3 || d.BurstResetPs != 1500*ms {
		t.Fatalf("default: %+v", d)
	}
	if _, err := LoadFlavour("x"); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("unknown flavour: %v", err)
	}
}

// Tofino reproduces pie-for-tofino's control-plane tuning
// (run_controlplane_pie.cpp): 7 halvings of 15 ms to 117.1875 us,
// alpha 0.1171875 and beta 157.44140625 after scaling by 15 ms / 125 us,
// and the scaled values alpha*(2^32-1)/1e6 ≈ 503.3, beta ≈ 676 205.7, whose
// nearest powers of two are the data plane's shifts 9 and 19.
func TestTofinoTuning(t *testing.T) {
	spec, tun, p, err := Tofino()
	if err != nil {
		t.Fatal(err)
	}
	if tun.Halvings != 7 {
		t.Fatalf("halvings %d", tun.Halvings)
	}
	near(t, "t_update", tun.TUpdateUs, 117.1875)
	near(t, "alpha", tun.Alpha, 0.1171875)
	near(t, "beta", tun.Beta, 157.44140625)
	// By hand: beta after 7 halvings = 1.25 + 0.125/4 * (1 + 1/2 + ... + 1/64) = 1.31201171875; x120.
	near(t, "beta by hand", tun.Beta, (1.25+0.03125*(2-1.0/64))*120)
	if math.Abs(tun.AlphaScaled-503.316) > 0.001 || math.Abs(tun.BetaScaled-676205.69) > 0.01 {
		t.Fatalf("scaled alpha %g beta %g", tun.AlphaScaled, tun.BetaScaled)
	}
	if tun.AlphaShift != 9 || tun.BetaShift != 19 {
		t.Fatalf("shifts %d %d", tun.AlphaShift, tun.BetaShift)
	}
	if p.DelayRefPs != 125*us || p.TUpdatePs != 117*us || p.QueueLimitPs != 500*us || p.Alpha != tun.Alpha || p.Beta != tun.Beta {
		t.Fatalf("tofino params %+v", p)
	}
	if spec.ProbBits != 32 {
		t.Fatalf("spec %+v", spec)
	}
}
