package aggregation

import (
	"archsim/arch/trio"
	"archsim/components/link"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
	"archsim/components/workers"
)

// A block record whose buffer slot a newer generation took while it was
// still waiting: when the scan threads age the old record out they only
// remove it (its key no longer matches the slot's tag); the newer block's
// own partial result, counting its two sources, is the only packet the
// PFE creates.
func TestStaleRecordIsRemovedNotReported(t *testing.T) {
	engine := sim.NewSerialEngine()
	sw, err := build(engine, "trio", "trio-ml", map[string]string{"SOURCES": "4", "GROUP": "4", "GRAD_MAX": "16", "BLOCKS": "4", "TIMEOUT_NS": "1000000"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	pfe := sw.(*trio.PFE)
	pfe.SetDeadline(8e9)
	pfe.StartTimers(8e9)
	var created []*packet.Packet
	tap := &sink{ComponentBase: sim.NewComponentBase("Tap"), got: &created}
	for port := 0; port < 4; port++ {
		pfe.Attach(port, link.To(tap, port, 0))
	}
	proto := workers.TrioML{Port: 12000, ResultPort: 12001, Job: 1}
	send := func(src, gen int, at int64) {
		g := make([]int32, 16)
		for i := range g {
			g[i] = workers.Gradient(src, gen, 0, i)
		}
		pkt := proto.Packet(src, gen, 0, int64(gen), g)
		pkt.InPort = src
		pfe.Inject(pkt, at)
	}
	send(0, 1, 0)     // generation 1, block 0: one source, then nothing
	send(0, 2, 1e9)   // generation 2 takes slot 0
	send(1, 2, 1.1e9) // and a second source; two never come
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
	// One result per group port (4 copies of one created packet).
	if pfe.Stats.Emitted != 1 {
		t.Fatalf("%d packets created, want 1 (generation 2's partial result)", pfe.Stats.Emitted)
	}
	r, ok := proto.Decode(created[0])
	if !ok || r.Gen != 2 || !r.Degraded || r.Sources != 2 {
		t.Fatalf("created %+v (ok %v), want generation 2, degraded, 2 sources", r, ok)
	}
	for i, v := range r.Values {
		if want := workers.Gradient(0, 2, 0, i) + workers.Gradient(1, 2, 0, i); v != want {
			t.Fatalf("gradient %d: %d, want %d (sources 0 and 1 of generation 2)", i, v, want)
		}
	}
}

type sink struct {
	*sim.ComponentBase
	got *[]*packet.Packet
}

func (s *sink) Handle(e sim.Event) error {
	*s.got = append(*s.got, e.(*packet.Event).Pkt)
	return nil
}
func (s *sink) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (s *sink) NotifyPortFree(sim.VTimeInSec, sim.Port) {}
