package link

import (
	"fmt"
	"math"
	"math/rand"

	"archsim/components/packet"
)

// Corruption is a link's loss process: the receiving MAC discards a frame
// whose bits were corrupted on the wire (a failed FCS check), so the frame
// uses the sender's port and the wire but never reaches the far end. Two
// processes are modelled, each from its own seeded generator:
//
//   - iid: every frame is lost with probability Rate (the Bernoulli model
//     of the Protego paper's §4 testbed, where a variable optical
//     attenuator sets the loss rate);
//   - gilbert: a two-state Gilbert–Elliott chain advanced once per frame.
//     In the bad state a frame is lost with probability BadLoss, in the
//     good state with GoodLoss; the bad state lasts Burst frames on
//     average, and the chain is tuned so its stationary loss rate is Rate.
//     (The Protego paper's App. B.2 measures how many consecutive frames a
//     corrupting link loses; §4.1 suspects its 25G link was not i.i.d.)
type Corruption struct {
	model    string
	rate     float64
	rng      *rand.Rand
	bad      bool
	pBad     float64 // good -> bad, per frame
	pGood    float64 // bad -> good, per frame
	lossBad  float64
	lossGood float64

	// Frames and Bytes count what entered the wire; Lost and LostBytes what
	// the far end's MAC discarded.
	Frames, Bytes   int64
	Lost, LostBytes int64
	maxRun, run     int64
	onLoss          func(pkt *packet.Packet, atPs int64)
}

// CorruptionConfig describes a loss process (see Corruption).
type CorruptionConfig struct {
	Model    string  `yaml:"model"`     // "iid" (default) or "gilbert"
	Rate     float64 `yaml:"rate"`      // long-run fraction of frames lost, in [0, 1)
	Burst    float64 `yaml:"burst"`     // gilbert: mean frames per bad-state visit (>= 1)
	BadLoss  float64 `yaml:"bad_loss"`  // gilbert: loss probability in the bad state (0: 1)
	GoodLoss float64 `yaml:"good_loss"` // gilbert: loss probability in the good state
}

// Validate checks a loss process: one error naming the bad field.
func (c CorruptionConfig) Validate() error {
	if !(c.Rate >= 0 && c.Rate < 1) {
		return fmt.Errorf("rate must be in [0, 1), got %g", c.Rate)
	}
	switch c.Model {
	case "", "iid":
		if c.Burst != 0 || c.BadLoss != 0 || c.GoodLoss != 0 {
			return fmt.Errorf("burst, bad_loss and good_loss belong to model gilbert (model is iid)")
		}
	case "gilbert":
		bad := c.badLoss()
		switch {
		case !(c.Burst >= 1):
			return fmt.Errorf("burst must be >= 1 frame, got %g", c.Burst)
		case !(bad > 0 && bad <= 1):
			return fmt.Errorf("bad_loss must be in (0, 1], got %g", c.BadLoss)
		case !(c.GoodLoss >= 0 && c.GoodLoss < bad):
			return fmt.Errorf("good_loss must be in [0, bad_loss), got %g", c.GoodLoss)
		case c.Rate > 0 && !(c.Rate > c.GoodLoss && c.Rate < bad):
			return fmt.Errorf("rate %g must lie between good_loss %g and bad_loss %g", c.Rate, c.GoodLoss, bad)
		}
		if piBad := (c.Rate - c.GoodLoss) / (bad - c.GoodLoss); c.Rate > 0 && piBad/(1-piBad)/c.Burst > 1 {
			return fmt.Errorf("rate %g with burst %g needs more than one bad visit per frame", c.Rate, c.Burst)
		}
	default:
		return fmt.Errorf("model must be iid or gilbert, got %q", c.Model)
	}
	return nil
}

func (c CorruptionConfig) badLoss() float64 {
	if c.BadLoss == 0 {
		return 1
	}
	return c.BadLoss
}

// NewCorruption returns the loss process of c (which must be valid) drawing
// from its own generator seeded with seed.
func NewCorruption(c CorruptionConfig, seed int64) *Corruption {
	k := &Corruption{model: c.Model, rate: c.Rate, rng: rand.New(rand.NewSource(seed))}
	if k.model == "" {
		k.model = "iid"
	}
	if k.model == "gilbert" && c.Rate > 0 {
		k.lossBad, k.lossGood = c.badLoss(), c.GoodLoss
		piBad := (c.Rate - c.GoodLoss) / (k.lossBad - c.GoodLoss)
		k.pGood = 1 / c.Burst
		k.pBad = k.pGood * piBad / (1 - piBad)
	}
	return k
}

// OnLoss calls f for every frame the process corrupts (at the time its
// last bit would have arrived).
func (k *Corruption) OnLoss(f func(pkt *packet.Packet, atPs int64)) { k.onLoss = f }

// Rate is the configured long-run loss rate.
func (k *Corruption) Rate() float64 { return k.rate }

// MaxConsecutive is the longest run of consecutive lost frames.
func (k *Corruption) MaxConsecutive() int64 { return k.maxRun }

// lost draws whether the next frame is corrupted.
func (k *Corruption) lost() bool {
	switch {
	case k.rate == 0:
		return false
	case k.model == "iid":
		return k.rng.Float64() < k.rate
	}
	if k.bad {
		if k.rng.Float64() < k.pGood {
			k.bad = false
		}
	} else if k.rng.Float64() < k.pBad {
		k.bad = true
	}
	if k.bad {
		return k.rng.Float64() < k.lossBad
	}
	return k.lossGood > 0 && k.rng.Float64() < k.lossGood
}

// pass counts a frame and reports whether it survives the wire.
func (k *Corruption) pass(pkt *packet.Packet, atPs int64) bool {
	k.Frames++
	k.Bytes += int64(pkt.Len)
	if !k.lost() {
		k.run = 0
		return true
	}
	k.Lost++
	k.LostBytes += int64(pkt.Len)
	k.run++
	k.maxRun = max(k.maxRun, k.run)
	if k.onLoss != nil {
		k.onLoss(pkt, atPs)
	}
	return false
}

// ExpectedUnrecovered is the probability that a frame and all of copies
// retransmitted copies are lost on an i.i.d. link of loss rate p: p^(1+copies).
func ExpectedUnrecovered(p float64, copies int) float64 { return math.Pow(p, float64(1+copies)) }
