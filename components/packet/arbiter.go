package packet

import (
	"fmt"
	"math/rand"

	"github.com/sarchlab/akita/v3/sim"
)

// Instant is what an engine tells an Arbiter about the instant being
// handled: archsim's engines (engine.Serial, engine.Keyed) implement it.
type Instant interface {
	// PrimaryDueNow reports whether a primary event due at the current
	// time is still waiting to be handled.
	PrimaryDueNow() bool
	// ScheduleLate posts an event of kind for h at ps as a secondary
	// event: the engine handles it after every primary event due at ps,
	// those scheduled while it handles them included.
	ScheduleLate(ps int64, h sim.Handler, kind Kind)
}

// Arbitration is how an Arbiter orders the inputs of a tie.
type Arbitration uint8

const (
	// ArbitrateRandom takes the inputs of a tie in a random order, drawn
	// from the arbiter's own seeded generator: no input is favoured, and
	// senders that run in lockstep are not kept in it.
	ArbitrateRandom Arbitration = iota
	// ArbitrateRoundRobin takes them in round-robin order, starting from
	// the input after the one that went first at the group's last tie.
	ArbitrateRoundRobin
)

// ParseArbitration reads a config value: random or round_robin.
func ParseArbitration(s string) (Arbitration, error) {
	switch s {
	case "random":
		return ArbitrateRandom, nil
	case "round_robin":
		return ArbitrateRoundRobin, nil
	}
	return 0, fmt.Errorf("%q: want random or round_robin", s)
}

// Arbiter is an input arbiter: where packets from several inputs share one
// entry point (a pipe's ingress parser, a port's queues in the traffic
// manager), the packets that reach it at the same instant are taken in an
// order the arbiter chooses (Arbitration), whatever order the engine
// handles their events in. Without it the engine's order of same-time
// events would pick the winner (see the README's "Same-time events").
//
// An arrival is handled at once when no other primary event is due at
// its instant. Otherwise it is held, with every other arrival of that
// instant, until the engine has handled all the instant's primary
// events; then the held ones go in arbitration order (Flush). Either way
// an arrival that shares its instant with other events takes effect
// after them, so the outcome does not depend on the engine's order.
//
// With an engine that is not an Instant every arrival is handled at once
// (in the engine's order).
type Arbiter struct {
	inst   Instant
	h      sim.Handler
	policy Arbitration
	rng    *rand.Rand
	held   []Held
	atPs   int64
	open   bool
	// next is, by group, the input the group's next round-robin tie
	// starts from.
	next map[int]int
	// Ties counts the instants at which arrivals were held.
	Ties int
}

// Held is an arrival the arbiter holds: its event's kind, packet and
// port, the group of inputs it competes in (such as the port whose queues
// it joins; groups do not compete with each other and go in ascending
// order), the input it competes as and its class among one input's
// arrivals of one instant (a lower class goes first).
type Held struct {
	Kind  Kind
	Pkt   *Packet
	Port  int
	Group int
	Input int
	Class int
	key   uint64
}

// NewArbiter returns an arbiter for h's arrivals on engine e, ordering
// ties by policy (seed seeds ArbitrateRandom's generator); h handles the
// KindArbitrate event that flushes a tie by calling Flush.
func NewArbiter(e sim.Engine, h sim.Handler, policy Arbitration, seed int64) *Arbiter {
	a := &Arbiter{h: h, policy: policy, next: map[int]int{}}
	if inst, ok := e.(Instant); ok {
		a.inst = inst
	}
	if policy == ArbitrateRandom {
		a.rng = rand.New(rand.NewSource(seed))
	}
	return a
}

// Offer reports whether the arrival (ev, competing in group as input, of
// class) is to be handled now; when it is not, the arbiter holds it for
// Flush.
func (a *Arbiter) Offer(ev *Event, group, input, class int) bool {
	if !a.open {
		if a.inst == nil || !a.inst.PrimaryDueNow() {
			return true
		}
		a.open, a.atPs = true, ev.AtPs()
		a.Ties++
		a.inst.ScheduleLate(a.atPs, a.h, KindArbitrate)
	}
	a.held = append(a.held, Held{Kind: ev.Kind, Pkt: ev.Pkt, Port: ev.Port, Group: group, Input: input, Class: class})
	return false
}

// AtPs is the instant of the tie being flushed (or last flushed).
func (a *Arbiter) AtPs() int64 { return a.atPs }

// Flush hands the held arrivals to handle in arbitration order: by
// group, within a group by input in the policy's order, then by class;
// arrivals of the same input and class keep the order they came in.
// handle may offer new arrivals (they start a new tie).
func (a *Arbiter) Flush(handle func(Held)) {
	held := a.held
	a.held, a.open = nil, false
	if a.policy == ArbitrateRandom {
		// Each input's arrivals get one key, drawn in (group, input)
		// order so that the draws do not depend on the engine's order.
		insertionSort(held, func(p, x *Held) bool {
			if p.Group != x.Group {
				return p.Group < x.Group
			}
			if p.Input != x.Input {
				return p.Input < x.Input
			}
			return p.Class < x.Class
		})
		for i := range held {
			if i > 0 && held[i].Group == held[i-1].Group && held[i].Input == held[i-1].Input {
				held[i].key = held[i-1].key
			} else {
				held[i].key = a.rng.Uint64()
			}
		}
		insertionSort(held, func(p, x *Held) bool {
			if p.Group != x.Group {
				return p.Group < x.Group
			}
			return p.key < x.key
		})
	} else {
		rot := func(h *Held) int {
			d := h.Input - a.next[h.Group]
			if d < 0 {
				d += 1 << 30
			}
			return d
		}
		insertionSort(held, func(p, x *Held) bool {
			if p.Group != x.Group {
				return p.Group < x.Group
			}
			if kp, kx := rot(p), rot(x); kp != kx {
				return kp < kx
			}
			return p.Class < x.Class
		})
		for i := range held {
			if i == 0 || held[i].Group != held[i-1].Group {
				a.next[held[i].Group] = held[i].Input + 1
			}
		}
	}
	for i := range held {
		handle(held[i])
		held[i] = Held{}
	}
	if a.held == nil {
		a.held = held[:0]
	}
}

// insertionSort sorts hs stably by less (a tie holds a few packets).
func insertionSort(hs []Held, less func(p, x *Held) bool) {
	for i := 1; i < len(hs); i++ {
		x := hs[i]
		j := i
		for j > 0 && less(&x, &hs[j-1]) {
			hs[j] = hs[j-1]
			j--
		}
		hs[j] = x
	}
}
