package tofino

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"archsim/engine"
)

// TestArbitrationIndependentOfEngineOrder: four ingress ports on two pipes
// send 200-byte packets at line rate to one egress queue of three packets,
// all at the same instants (a synchronized 4:1 incast), so the queue takes
// about one packet in four. Which ones is decided by the pipes' ingress
// arbiters and the traffic manager's, in either policy: the same packets
// are delivered whatever order the engine handles same-time events in
// (Akita's heap order, FIFO, a seeded random order), and no input is
// starved.
func TestArbitrationIndependentOfEngineOrder(t *testing.T) {
	engines := []struct {
		name string
		mk   func() engine.Engine
	}{
		{"akita", func() engine.Engine { return engine.NewSerial() }},
		{"fifo", func() engine.Engine { engine.SetDefaultOrder(engine.FIFOOrder, 0); return engine.New() }},
		{"random:5", func() engine.Engine { engine.SetDefaultOrder(engine.RandomOrder, 5); return engine.New() }},
	}
	defer engine.SetDefaultOrder(engine.DefaultOrder())
	const rounds = 40
	for _, policy := range []string{"random", "round_robin"} {
		t.Run(policy, func(t *testing.T) {
			var first []uint64
			for _, e := range engines {
				r := newTMRigOn(t, e.mk(), tmProg(t, "", "", "tm:\n  queues:\n    - {qid: 3, priority: 1, limit_cells: 9}\n"), "tofino.arbitration="+policy)
				ins := []int{r.cfg.DevPort(0, 0), r.cfg.DevPort(0, 1), r.cfg.DevPort(1, 0), r.cfg.DevPort(1, 1)}
				// Send in an order shuffled per engine: the schedule order
				// must not matter either.
				rng := rand.New(rand.NewSource(int64(len(e.name))))
				for k := 0; k < rounds; k++ {
					order := rng.Perm(len(ins))
					for _, i := range order {
						r.send(ins[i], int64(k)*tmWire(200), 200, tmHdr{port: 1, qid: 3})
					}
				}
				r.run()
				r.conserve()
				// A delivery is (input, round): packet ids follow the
				// shuffled send order.
				var got []uint64
				perInput := map[int]int{}
				for _, a := range r.port(1) {
					got = append(got, uint64(a.pkt.InPort)<<32|uint64(a.pkt.BornPs/tmWire(200)))
					perInput[a.pkt.InPort]++
				}
				if len(got) < rounds/2 || len(got) > rounds*2 {
					t.Fatalf("%s: %d delivered of %d, want about one per round", e.name, len(got), 4*rounds)
				}
				for _, in := range ins {
					if perInput[in] < len(got)/8 {
						t.Errorf("%s: input %d got %d of %d deliveries: starved (%v)", e.name, in, perInput[in], len(got), perInput)
					}
				}
				if first == nil {
					first = got
					continue
				}
				if !reflect.DeepEqual(got, first) {
					t.Errorf("%s delivered %s, Akita's order %s", e.name, fmtDeliveries(got), fmtDeliveries(first))
				}
			}
		})
	}
}

// fmtDeliveries prints (input, round) pairs.
func fmtDeliveries(ds []uint64) string {
	s := ""
	for _, d := range ds {
		s += fmt.Sprintf("(%d,%d)", d>>32, d&0xffffffff)
	}
	return s
}
