package trio

import (
	"fmt"
	"strings"
	"testing"

	"archsim/components/link"
	"archsim/components/packet"

	"github.com/sarchlab/akita/v3/sim"
)

// queueRig runs a PFE whose program sends each packet to port 1 on the
// queue its eth.src names (qid = eth.src & 7), with the program's tm:
// queues; it returns the qids in the order the port sent them.
func queueRig(t *testing.T, tm string, qids []int, length int) ([]int, *PFE) {
	t.Helper()
	c := chipT(t)
	p := prog(t, tm, "std.egress_port = 1\nstd.qid = bit5(eth.src[2:0])")
	engine := newEngine()
	pfe := MakeBuilder().WithEngine(engine).WithConfig(c).WithMicrocode(lowerT(t, c, p)).WithSeed(1).Build("Trio.PFE")
	var got []int
	pfe.onDeliver = func(pkt *packet.Packet) { got = append(got, int(pkt.Head[11])) }
	for i, q := range qids {
		head := p.Traffic[0].BuildPacket(0, length)
		head[11] = byte(q) // eth.src's low byte
		// All arrive within a few ns: they queue behind the first.
		pfe.Inject(&packet.Packet{ID: uint64(i + 1), Flow: i + 1, Head: head, Len: length}, int64(i)*1000)
	}
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
	return got, pfe
}

// TestOutputQueuesStrictPriority: with the program's tm: queues, the port
// serves the higher priority level first, round-robin within a level,
// and a queue's cell limit drops what does not fit; without tm: queues it
// is one FIFO whatever the qid.
func TestOutputQueuesStrictPriority(t *testing.T) {
	tm := `tm:
  queues:
    - {qid: 0, priority: 0}
    - {qid: 1, priority: 0}
    - {qid: 7, priority: 7}
    - {qid: 3, priority: 0, limit_cells: 2}
`
	// 1500-byte frames take 120 ns each at 100G: the first leaves at once,
	// the others queue.
	got, pfe := queueRig(t, tm, []int{0, 0, 0, 1, 1, 7, 7, 3, 3, 3}, 1500)
	// The first frame (qid 0) is alone when it arrives; then the two
	// priority-7 frames; then 1 and 0 alternate (qid 0 was served last at
	// that level, so the turn is 1's); qid 3 (limit 2 cells of 80 B)
	// holds no 1500-byte frame (19 cells): all three dropped.
	if want := "[0 7 7 1 0 1 0]"; fmt.Sprint(got) != want {
		t.Errorf("sent %v, want %v", got, want)
	}
	if u, ok := pfe.QueueUse(1, 7); !ok || u.Enqueued != 2 || u.PeakCells != 2*19 || u.PeakBytes != 2*19*80 {
		t.Errorf("queue 7 use %+v (%v), want 2 frames, peak 38 cells", u, ok)
	}
	if n := droppedSum(&RunResult{Drops: pfe.dropList()}); n != 3 {
		t.Errorf("%d dropped, want 3 (qid 3's limit)", n)
	}
	fifo, _ := queueRig(t, "", []int{0, 7, 1, 7, 3}, 1500)
	if want := "[0 7 1 7 3]"; fmt.Sprint(fifo) != want {
		t.Errorf("without tm: queues sent %v, want %v (one FIFO)", fifo, want)
	}
}

// wireSink records when frames reach the far end of a link.
type wireSink struct {
	ids []uint64
	at  []int64
}

func (w *wireSink) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	w.ids, w.at = append(w.ids, ev.Pkt.ID), append(w.at, ev.AtPs())
	return nil
}

// TestReleasedTogetherLeaveInOrder: the first packet of a flow takes long
// (a loop of memory reads), the nine behind it finish first and wait in
// the reorder engine; when it finishes, all ten are released at the same
// instant. They must reach the output queue, the egress thread (again
// held behind the flow's slow first packet) and the wire in flow order,
// whatever order the event engine gives events of the same time, and the
// wire takes them one at a time: each arrives a serialization time after
// the one before it.
func TestReleasedTogetherLeaveInOrder(t *testing.T) {
	c := chipT(t)
	slow := `if ip.ttl == 1 {
  for meta.m0 = 0; meta.m0 < 20; meta.m0 = meta.m0 + 1 {
    meta.m1 = r.get(meta.m0)
  }
}`
	p := prog(t, "registers:\n  r: {width: 32, size: 64, actions: {get: {out: 32, do: out = value}}}\negress: |\n"+
		"  "+strings.ReplaceAll(slow, "\n", "\n  ")+"\n", "std.egress_port = 1\n"+slow)
	engine := newEngine()
	pfe := MakeBuilder().WithEngine(engine).WithConfig(c).WithMicrocode(lowerT(t, c, p)).WithSeed(1).Build("Trio.PFE")
	sink := &wireSink{}
	pfe.Attach(1, link.To(sink, 0, 0))
	const n, length = 10, 1500
	for i := 0; i < n; i++ {
		head := p.Traffic[0].BuildPacket(0, length)
		if i == 0 {
			head[14] = 1 // ip.ttl
		}
		pfe.Inject(&packet.Packet{ID: uint64(i + 1), Flow: 7, Head: head, Len: length}, int64(i)*1000)
	}
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
	if want := "[1 2 3 4 5 6 7 8 9 10]"; fmt.Sprint(sink.ids) != want {
		t.Fatalf("frames reached the wire's far end as %v, want %v", sink.ids, want)
	}
	ser := packet.SerializationPs(length, 100)
	for i := 1; i < n; i++ {
		if d := sink.at[i] - sink.at[i-1]; d < ser {
			t.Errorf("frame %d arrived %d ps after frame %d: less than its %d ps on the wire", i+1, d, i, ser)
		}
	}
}
