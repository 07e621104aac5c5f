package engine

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// station is a component with one shared entry behind a packet.Arbiter:
// it logs the input of every arrival it takes, and -1 for a mark (a
// same-time event that is not an arrival).
type station struct {
	arb *packet.Arbiter
	log []int
	at  []int64
	// grouped: an arrival's port is 100 x its group + its input.
	grouped bool
}

const kindMark = packet.KindLocal

func (s *station) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	switch ev.Kind {
	case packet.KindArbitrate:
		s.arb.Flush(func(h packet.Held) { s.take(h.Port, s.arb.AtPs()) })
	case kindMark:
		s.log, s.at = append(s.log, -1), append(s.at, ev.AtPs())
	default:
		group, input := 0, ev.Port
		if s.grouped {
			group, input = ev.Port/100, ev.Port%100
		}
		if s.arb.Offer(ev, group, input, 0) {
			s.take(ev.Port, ev.AtPs())
		}
	}
	return nil
}

func (s *station) take(input int, at int64) {
	s.log, s.at = append(s.log, input), append(s.at, at)
}

// arbitrate schedules eight inputs' arrivals at three shared instants
// (in an order shuffled by seed), a mark at the second instant and a lone
// arrival later, and returns what the station took.
func arbitrate(t *testing.T, eng Engine, seed int64, policy packet.Arbitration, arbSeed int64) (*station, []int, []int64) {
	t.Helper()
	s := &station{}
	s.arb = packet.NewArbiter(eng, s, policy, arbSeed)
	type ev struct {
		ps    int64
		kind  packet.Kind
		input int
	}
	var evs []ev
	for _, ps := range []int64{1000, 2000, 3000} {
		for in := 0; in < 8; in++ {
			evs = append(evs, ev{ps, packet.KindArrive, in})
		}
	}
	evs = append(evs, ev{2000, kindMark, 0}, ev{5000, packet.KindArrive, 3})
	rng := rand.New(rand.NewSource(seed))
	rng.Shuffle(len(evs), func(i, j int) { evs[i], evs[j] = evs[j], evs[i] })
	for _, e := range evs {
		packet.Schedule(eng, s, e.ps, e.kind, nil, e.input)
	}
	if err := eng.Run(); err != nil {
		t.Fatal(err)
	}
	return s, s.log, s.at
}

var testEngines = map[string]func() Engine{
	"akita":    func() Engine { return NewSerial() },
	"fifo":     func() Engine { return &FIFO{} },
	"keyed":    func() Engine { return &Keyed{} },
	"random:7": func() Engine { return &Keyed{rng: rand.New(rand.NewSource(7))} },
}

// TestArbiterOrder: simultaneous arrivals are taken in round-robin order
// of their inputs, starting one past the input that went first at the
// previous tie, after the instant's other events, and a lone arrival at
// once; the same on every engine order and every scheduling order.
func TestArbiterOrder(t *testing.T) {
	want := []int{
		0, 1, 2, 3, 4, 5, 6, 7, // t = 1000: from input 0
		-1, 1, 2, 3, 4, 5, 6, 7, 0, // t = 2000: the mark first, then from input 1
		2, 3, 4, 5, 6, 7, 0, 1, // t = 3000: from input 2
		3, // t = 5000: alone
	}
	engines := testEngines
	for _, name := range []string{"akita", "fifo", "keyed", "random:7"} {
		for seed := int64(1); seed <= 5; seed++ {
			s, got, at := arbitrate(t, engines[name](), seed, packet.ArbitrateRoundRobin, 0)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, schedule %d: took %v, want %v", name, seed, got, want)
			}
			if at[0] != 1000 || at[len(at)-1] != 5000 || at[9] != 2000 {
				t.Fatalf("%s, schedule %d: times %v", name, seed, at)
			}
			if s.arb.Ties != 3 {
				t.Fatalf("%s, schedule %d: %d ties, want 3 (the lone arrival is not held)", name, seed, s.arb.Ties)
			}
		}
	}
}

// TestArbiterWithoutInstant: on an engine that cannot say what is due now
// (Akita's own), arrivals are taken at once, in the engine's order.
func TestArbiterWithoutInstant(t *testing.T) {
	eng := sim.NewSerialEngine()
	s := &station{}
	s.arb = packet.NewArbiter(eng, s, packet.ArbitrateRoundRobin, 0)
	for in := 3; in >= 0; in-- {
		packet.Schedule(eng, s, 1000, packet.KindArrive, nil, in)
	}
	if err := eng.Run(); err != nil {
		t.Fatal(err)
	}
	if len(s.log) != 4 || s.arb.Ties != 0 {
		t.Fatalf("took %v with %d ties, want all four at once", s.log, s.arb.Ties)
	}
}

// TestArbiterGroups: groups (a traffic manager's output ports) keep their
// own round-robin pointers and go in ascending order.
func TestArbiterGroups(t *testing.T) {
	for _, mk := range []func() Engine{func() Engine { return NewSerial() }, func() Engine { return &Keyed{} }, func() Engine { return &FIFO{} }} {
		eng := mk()
		s := &station{grouped: true}
		s.arb = packet.NewArbiter(eng, s, packet.ArbitrateRoundRobin, 0)
		for _, ps := range []int64{1000, 2000} {
			for _, port := range []int{105, 3, 102, 1} {
				packet.Schedule(eng, s, ps, packet.KindArrive, nil, port)
			}
		}
		if err := eng.Run(); err != nil {
			t.Fatal(err)
		}
		want := []int{1, 3, 102, 105, 3, 1, 105, 102}
		if !reflect.DeepEqual(s.log, want) {
			t.Fatalf("%T: took %v, want %v", eng, s.log, want)
		}
	}
}

// TestArbiterRandom: a random arbiter takes each tie's inputs once each,
// after the instant's other events, in an order fixed by its seed alone
// (not by the engine's order or the order the events were scheduled in),
// and another seed gives another order.
func TestArbiterRandom(t *testing.T) {
	var first []int
	for _, name := range []string{"akita", "fifo", "keyed", "random:7"} {
		for seed := int64(1); seed <= 5; seed++ {
			_, got, _ := arbitrate(t, testEngines[name](), seed, packet.ArbitrateRandom, 42)
			if first == nil {
				first = got
				// Each instant's eight inputs once; the mark leads the second.
				for k, tie := range [][]int{got[0:8], got[9:17], got[17:25]} {
					seen := map[int]bool{}
					for _, in := range tie {
						seen[in] = true
					}
					if len(seen) != 8 {
						t.Fatalf("tie %d took %v, want inputs 0..7 once each", k, tie)
					}
				}
				if got[8] != -1 || got[25] != 3 {
					t.Fatalf("took %v: want the mark before the second tie, the lone arrival last", got)
				}
			}
			if !reflect.DeepEqual(got, first) {
				t.Fatalf("%s, schedule %d: took %v, want %v (as the first run)", name, seed, got, first)
			}
		}
	}
	_, other, _ := arbitrate(t, NewSerial(), 1, packet.ArbitrateRandom, 43)
	if reflect.DeepEqual(other, first) {
		t.Fatalf("seeds 42 and 43 took the same order %v", first)
	}
}
