package packet

import (
	"testing"

	"github.com/sarchlab/akita/v3/sim"
)

// timerOwner counts the expiries its timer reports and re-arms it from a
// script of deadlines moved before the timer comes due.
type timerOwner struct {
	*sim.ComponentBase
	t       Timer
	fired   []int64
	events  int
	onEvent func(now int64)
}

func (o *timerOwner) Handle(e sim.Event) error {
	now := e.(*Event).AtPs()
	o.events++
	if o.onEvent != nil {
		o.onEvent(now)
	}
	if o.t.Fire(now) {
		o.fired = append(o.fired, now)
	}
	return nil
}

// TestTimerMovesLazily: a deadline moved later many times costs no event
// per move, an earlier one schedules at once, a stopped timer's event does
// nothing, and it expires exactly at its last deadline.
func TestTimerMovesLazily(t *testing.T) {
	eng := sim.NewSerialEngine()
	o := &timerOwner{ComponentBase: sim.NewComponentBase("Owner")}
	o.t = Timer{Engine: eng, Handler: o, Kind: KindLocal, Port: 3}
	o.t.Set(1000)
	for i := int64(1); i <= 100; i++ {
		o.t.Set(1000 + 10*i) // later: no new event
	}
	if err := eng.Run(); err != nil {
		t.Fatal(err)
	}
	if len(o.fired) != 1 || o.fired[0] != 2000 || o.events != 2 {
		t.Fatalf("moved later 100 times: expiries %v after %d events, want [2000] after 2", o.fired, o.events)
	}
	if o.t.Armed() {
		t.Fatal("an expired timer is still armed")
	}

	o.fired, o.events = nil, 0
	o.t.Set(5000)
	o.t.Set(3000) // earlier: a second event at once
	if err := eng.Run(); err != nil {
		t.Fatal(err)
	}
	if len(o.fired) != 1 || o.fired[0] != 3000 || o.events != 2 {
		t.Fatalf("moved earlier: expiries %v after %d events, want [3000] after 2", o.fired, o.events)
	}

	o.fired, o.events = nil, 0
	o.t.Set(7000)
	o.t.Stop()
	if err := eng.Run(); err != nil {
		t.Fatal(err)
	}
	if len(o.fired) != 0 || o.events != 1 {
		t.Fatalf("stopped: expiries %v after %d events, want none after 1", o.fired, o.events)
	}
}

// TestFreeListReuses: a packet given back comes out zeroed with its head
// array, last in first out; one with too small a head is not kept.
func TestFreeListReuses(t *testing.T) {
	l := &FreeList{HeadCap: 80, MinCap: 64}
	a := l.Get()
	if cap(a.Head) != 80 || len(a.Head) != 0 {
		t.Fatalf("new packet head len %d cap %d, want 0 and 80", len(a.Head), cap(a.Head))
	}
	a.ID, a.Len, a.Head = 7, 1500, append(a.Head, 1, 2, 3)
	l.Put(a)
	l.Put(&Packet{Head: make([]byte, 0, 32)}) // too small: dropped
	l.Put(nil)
	b := l.Get()
	if b != a || b.ID != 0 || b.Len != 0 || len(b.Head) != 0 || cap(b.Head) != 80 {
		t.Fatalf("reused %p (want %p) id %d len %d head %d/%d", b, a, b.ID, b.Len, len(b.Head), cap(b.Head))
	}
	if c := l.Get(); c == a {
		t.Fatal("a packet handed out twice")
	}
}
