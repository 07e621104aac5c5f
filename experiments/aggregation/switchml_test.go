package aggregation

import (
	"archsim/arch/tofino"
	"archsim/components/link"
	"fmt"
	"slices"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
	"archsim/components/workers"
	"archsim/programs"
)

// capture collects the packets a switch port sends to its host.
type capture struct{ pkts []*packet.Packet }

func (c *capture) Handle(e sim.Event) error {
	c.pkts = append(c.pkts, e.(*packet.Event).Pkt)
	return nil
}

// Retransmissions on both SwitchML programs (two workers): a worker's
// repeat for a completed slot gets the result again, equal to the first;
// a repeat for a slot still missing a worker is dropped and does not
// count twice. switchml-256 sends the repeat of a completed slot straight
// to its eight harvest passes. Passes are counted as in Result.Passes.
func TestSwitchMLRetransmissions(t *testing.T) {
	for _, c := range []struct {
		program      string
		values       int
		passesPerPkt int // passes of a fresh contribution
		harvest      int // more passes of a slot's last packet
		repeat       int // passes of a repeat for a completed slot
		dropped      int // passes of a repeat for an incomplete slot
	}{
		{"switchml", 64, 1, 1, 2, 1},      // a repeat reads the first halves
		{"switchml-256", 256, 4, 7, 8, 0}, // its pass 0 runs no processor
	} {
		t.Run(c.program, func(t *testing.T) {
			engine := sim.NewSerialEngine()
			asw, err := build(engine, "tofino", c.program, map[string]string{"NUM_WORKERS": "2"}, 1)
			if err != nil {
				t.Fatal(err)
			}
			sw, prog := asw.(*tofino.Switch), asw.Program()
			sw.SetDeadline(1 << 62)
			passes := 0
			first := prog.Register("value00")
			sw.TraceRegister(func(_ int, ra *programs.RegisterAction, _, _ int64) {
				if ra.Register == first {
					passes++
				}
			})
			host := &capture{}
			sw.Attach(0, link.To(host, 0, 0))
			proto := workers.SwitchML{Port: 48864, Pool: 16, Values: c.values}
			send := func(w int, seq int64, atPs int64) {
				grads := make([]int32, c.values)
				for i := range grads {
					grads[i] = workers.Gradient(w, 1, int(seq), i)
				}
				pkt := proto.Packet(w, 1, int(seq), seq, grads)
				pkt.InPort = w
				packet.Schedule(engine, sw.IngressHandler(w), atPs, packet.KindArrive, pkt, w)
			}
			send(0, 0, 0)     // slot 0: first contribution
			send(1, 0, 10e6)  // slot 0: last contribution: result
			send(1, 0, 50e6)  // repeat for the completed slot 0: result again
			send(0, 1, 100e6) // slot 1: first contribution
			send(0, 1, 150e6) // repeat for slot 1, still incomplete: dropped
			send(1, 1, 200e6) // slot 1: last contribution: result
			if err := engine.Run(); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, pkt := range host.pkts {
				r, ok := proto.Decode(pkt)
				if !ok {
					t.Fatalf("port 0 got a packet that is not a result: % x", pkt.Head[:60])
				}
				want := make([]int32, c.values)
				for i := range want {
					want[i] = workers.Gradient(0, 1, r.Slot/2, i) + workers.Gradient(1, 1, r.Slot/2, i)
				}
				if !slices.Equal(r.Values, want) {
					t.Errorf("pool index %d: %v, want %v", r.Slot, r.Values, want)
				}
				got = append(got, fmt.Sprint(r.Slot))
			}
			if fmt.Sprint(got) != "[0 0 2]" {
				t.Errorf("results for pool indices %v, want [0 0 2]", got)
			}
			want := 4*c.passesPerPkt + 2*c.harvest + c.repeat + c.dropped
			if passes != want {
				t.Errorf("%d aggregation passes, want %d", passes, want)
			}
			consumed := 0
			for _, d := range sw.Drops() {
				if d.Reason == "ingress program drop" {
					consumed += d.Packets
				} else {
					t.Errorf("%d packets dropped: %s", d.Packets, d.Reason)
				}
			}
			if consumed != 3 {
				t.Errorf("program dropped %d packets, want 3 (two first contributions and the repeat)", consumed)
			}
		})
	}
}
