// Package pie is the PIE active queue management controller (RFC 8033):
// the drop probability update every t_update from the queuing delay
// (§4.2, with the §4.2 scaling table or ns-3.31's, the §5.5 cap, the §4.2
// decay and bounds), the burst allowance (§4.4, or ns-3.31's state
// machine) and the enqueue decision (§4.1 random drop with its
// safeguards, §5.1 ECN marking). It is pure math on the delays and queue
// sizes it is given: the queue that owns it measures the delay (by
// timestamps, at dequeue) and calls Update on its timer.
//
// Two flavours come from configs/pie.yaml: "rfc" (RFC 8033) and "default"
// (PieQueueDisc as ns-3.31 ships it), the two ns-3 rows of the
// PIE-on-Tofino paper's §VII. Tune and Tofino compute that paper's Table II
// parameterisation from the RFC's tuning rules.
package pie

import "fmt"

// Decision is what PIE does with an arriving packet.
type Decision uint8

// Decisions.
const (
	Admit Decision = iota // enqueue
	Mark                  // enqueue with ECN CE set (RFC 8033 §5.1)
	Drop                  // drop early
)

func (d Decision) String() string {
	switch d {
	case Admit:
		return "admit"
	case Mark:
		return "mark"
	case Drop:
		return "drop"
	}
	return fmt.Sprintf("Decision(%d)", uint8(d))
}

// Uniform draws uniform numbers in [0, 1) (a *rand.Rand).
type Uniform interface{ Float64() float64 }

// ns-3.31's burst states (pie-queue-disc.h BurstStateT).
const (
	noBurst uint8 = iota
	inBurst
	inBurstProtecting
)

// state is everything Update and Decide change (comparable, so Quiescent
// can tell whether an idle update would change it).
type state struct {
	prob       float64
	qdelayOld  int64 // the delay of the previous update
	qdelay     int64 // the delay of the last update
	burst      int64 // burst allowance left, ps
	burstState uint8 // BurstNS3
	burstReset int   // BurstNS3: quiet updates since the allowance was spent
}

// PIE is one queue's controller.
type PIE struct {
	p          Params
	s          state
	resetLimit int // BurstNS3: quiet updates before NO_BURST
	updates    int
	// Counters of Decide's outcomes (WouldDrop: drops NoDrop suppressed).
	Drops, Marks, WouldDrop int
}

// New returns a controller with drop_prob 0; p must be valid (Validate).
func New(p Params) (*PIE, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	c := &PIE{p: p}
	if p.Burst == BurstRFC {
		c.s.burst = p.MaxBurstPs // RFC 8033 §4.4: initialised to MAX_BURST
	}
	if p.Burst == BurstNS3 {
		// ns-3.31: burstResetLimit = uint32(BURST_RESET_TIMEOUT / Tupdate).
		c.resetLimit = int(float64(p.BurstResetPs) / float64(p.TUpdatePs))
	}
	return c, nil
}

// MustNew is New for parameters known to be valid; it panics otherwise.
func MustNew(p Params) *PIE {
	c, err := New(p)
	if err != nil {
		panic(err)
	}
	return c
}

// Params returns the controller's parameters.
func (c *PIE) Params() Params { return c.p }

// Prob is the current drop probability.
func (c *PIE) Prob() float64 { return c.s.prob }

// QDelayPs is the delay the last update used (the RFC's qdelay_old for
// the next one).
func (c *PIE) QDelayPs() int64 { return c.s.qdelay }

// BurstAllowancePs is the burst allowance left.
func (c *PIE) BurstAllowancePs() int64 { return c.s.burst }

// Updates is the number of drop probability updates performed (including
// those SkipIdle accounted for).
func (c *PIE) Updates() int { return c.updates }

const psPerSec = 1e12

// scale applies the scaling table to the update p at the current
// drop_prob.
func (c *PIE) scale(p float64) float64 {
	prob := c.s.prob
	switch c.p.Scaling {
	case ScalingRFC: // RFC 8033 §4.2
		switch {
		case prob < 0.000001:
			return p / 2048
		case prob < 0.00001:
			return p / 512
		case prob < 0.0001:
			return p / 128
		case prob < 0.001:
			return p / 32
		case prob < 0.01:
			return p / 8
		case prob < 0.1:
			return p / 2
		}
		return p
	case ScalingNS3v31: // ns-3.31 pie-queue-disc.cc CalculateP
		switch {
		case prob < 0.001:
			return p / 32
		case prob < 0.01:
			return p / 8
		case prob < 0.1:
			return p / 2
		case prob < 1:
			return p / 0.5
		case prob < 10:
			return p / 0.125
		}
		return p / 0.03125
	}
	return p
}

// Update is one drop probability update (every t_update) with the current
// queuing delay qdelayPs.
func (c *PIE) Update(qdelayPs int64) {
	c.updates++
	c.s = c.next(c.s, qdelayPs)
}

// next computes the state after an update with delay q.
func (c *PIE) next(s state, q int64) state {
	p := c.p
	old := s.qdelayOld
	var prob float64
	if p.Burst == BurstNS3 && s.burst > 0 {
		// ns-3.31: no update while the burst allowance lasts.
		prob = 0
	} else {
		// RFC 8033 §4.2: p = alpha*(qdelay - ref) + beta*(qdelay - qdelay_old).
		d := p.Alpha*float64(q-p.DelayRefPs)/psPerSec + p.Beta*float64(q-old)/psPerSec
		d = c.scale(d)
		// RFC 8033 §5.5 cap drop adjustment.
		if p.CapDropAdjustment && s.prob >= 0.1 && d > 0.02 {
			d = 0.02
		}
		prob = s.prob + d
	}
	if q == 0 && old == 0 {
		// RFC 8033 §4.2: exponential decay once the queue is gone.
		prob *= p.Decay
	} else if p.HighDelayBoostPs > 0 && q > p.HighDelayBoostPs {
		prob += 0.02 // ns-3.31: qDelay > 0.2 s
	}
	if prob < 0 {
		prob = 0
	}
	if p.ClampToOne && prob > 1 {
		prob = 1
	}
	s.prob = prob
	ref2 := p.DelayRefPs / 2
	quiet := q < ref2 && old < ref2 && prob == 0
	switch p.Burst {
	case BurstRFC: // RFC 8033 §4.4
		s.burst = max(0, s.burst-p.TUpdatePs)
		if quiet {
			s.burst = p.MaxBurstPs
		}
	case BurstNS3: // ns-3.31 CalculateP
		s.burst = max(0, s.burst-p.TUpdatePs)
		if quiet && s.burst == 0 {
			switch s.burstState {
			case inBurstProtecting:
				s.burstState, s.burstReset = inBurst, 0
			case inBurst:
				s.burstReset++
				if s.burstReset > c.resetLimit {
					s.burstState, s.burstReset = noBurst, 0
				}
			}
		} else if s.burstState == inBurst {
			s.burstReset = 0
		}
	}
	s.qdelayOld, s.qdelay = q, q
	return s
}

// Quiescent reports whether an update with delay 0 would change nothing
// but the update count: the queue's timer may stop while its queue is
// empty (see SkipIdle).
func (c *PIE) Quiescent() bool { return c.next(c.s, 0) == c.s }

// SkipIdle accounts n updates a queue skipped while it was empty and the
// controller Quiescent (each would have changed nothing).
func (c *PIE) SkipIdle(n int) { c.updates += n }

// Decide is the enqueue decision for a packet of pktBytes arriving at a
// queue holding queueBytes (RFC 8033 §4.1; §5.1 for ect, an ECN-capable
// packet). u supplies the random number when one is needed.
func (c *PIE) Decide(queueBytes int64, pktBytes int, ect bool, u Uniform) Decision {
	d := c.decide(queueBytes, pktBytes, ect, u)
	switch {
	case d == Drop && c.p.NoDrop:
		c.WouldDrop++
		return Admit
	case d == Drop:
		c.Drops++
	case d == Mark:
		c.Marks++
	}
	return d
}

func (c *PIE) decide(queueBytes int64, pktBytes int, ect bool, u Uniform) Decision {
	p := c.p
	switch p.Burst {
	case BurstRFC:
		if c.s.burst > 0 {
			return Admit // §4.4: bursts bypass the random drop
		}
	case BurstNS3:
		if c.s.burst > 0 {
			return Admit
		}
		if c.s.burstState == noBurst {
			c.s.burstState = inBurstProtecting
			c.s.burst = p.MaxBurstPs
		}
	}
	prob := c.s.prob
	if p.ByteMode {
		prob = prob * float64(pktBytes) / float64(p.MeanPktBytes)
	}
	// §4.1 safeguards: no drop while the delay is low and drop_prob
	// small, nor when the queue holds at most two packets.
	if c.s.qdelayOld < p.DelayRefPs/2 && c.s.prob < p.SafeguardProb {
		return Admit
	}
	if queueBytes <= 2*int64(p.MeanPktBytes) {
		return Admit
	}
	if u.Float64() >= prob {
		return Admit
	}
	if ect && c.s.prob < p.ECNThreshold {
		return Mark // §5.1
	}
	return Drop
}
