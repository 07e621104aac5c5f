package engine

import (
	"container/heap"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// recorder logs the order events reach it and, on some, schedules more
// events (at the same time or later), as components do.
type recorder struct {
	eng  sim.Engine
	rng  *rand.Rand
	log  []int
	next int
}

func (r *recorder) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	r.log = append(r.log, ev.Port)
	now := packet.SecToPs(ev.T)
	for k := r.rng.Intn(3); k > 0 && r.next < 5000; k-- {
		r.next++
		// Many same-time events: delays drawn from a small set.
		packet.Schedule(r.eng, r, now+int64(r.rng.Intn(4))*1000, packet.KindArrive, nil, r.next)
	}
	return nil
}

func replay(eng sim.Engine, seed int64) []int {
	r := &recorder{eng: eng, rng: rand.New(rand.NewSource(seed))}
	for i := 0; i < 50; i++ {
		r.next++
		packet.Schedule(eng, r, int64(r.rng.Intn(5))*1000, packet.KindArrive, nil, r.next)
	}
	if err := eng.Run(); err != nil {
		panic(err)
	}
	return r.log
}

// TestSameOrderAsAkita runs the same random schedules (heavy in same-time
// events, handlers scheduling more) on Akita's SerialEngine and on Serial:
// the events must run in the same order.
func TestSameOrderAsAkita(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		want := replay(sim.NewSerialEngine(), seed)
		got := replay(NewSerial(), seed)
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d events, Akita ran %d", seed, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("seed %d: event %d is #%d, Akita ran #%d", seed, i, got[i], want[i])
			}
		}
	}
}

type secondaryEvent struct {
	*sim.EventBase
}

func (secondaryEvent) IsSecondary() bool { return true }

type logHandler struct{ order []string }

func (h *logHandler) Handle(e sim.Event) error {
	if e.IsSecondary() {
		h.order = append(h.order, "secondary")
	} else {
		h.order = append(h.order, "primary")
	}
	return nil
}

// TestSecondaryAfterPrimary: at equal times the primary event runs first,
// as in Akita.
func TestSecondaryAfterPrimary(t *testing.T) {
	e := NewSerial()
	h := &logHandler{}
	e.Schedule(secondaryEvent{sim.NewEventBase(1e-9, h)})
	e.Schedule(sim.NewEventBase(1e-9, h))
	e.Schedule(sim.NewEventBase(2e-9, h))
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	want := []string{"primary", "secondary", "primary"}
	for i := range want {
		if h.order[i] != want[i] {
			t.Fatalf("order %v, want %v", h.order, want)
		}
	}
	if e.Events() != 3 || e.Scheduled() != 3 || e.Pending() != 0 {
		t.Fatalf("events %d scheduled %d pending %d", e.Events(), e.Scheduled(), e.Pending())
	}
	if e.CurrentTime() != 2e-9 {
		t.Fatalf("now %g", e.CurrentTime())
	}
}

// TestPastEventPanics: scheduling before now is a component bug.
func TestPastEventPanics(t *testing.T) {
	e := NewSerial()
	h := &logHandler{}
	e.Schedule(sim.NewEventBase(5e-9, h))
	_ = e.Run()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for an event in the past")
		}
	}()
	e.Schedule(sim.NewEventBase(1e-9, h))
}

// TestRecycledEventsAreCleared: a recycled packet event carries nothing
// of its previous use.
func TestRecycledEventsAreCleared(t *testing.T) {
	e := NewSerial()
	h := &logHandler{}
	packet.Schedule(e, h, 10, packet.KindLocal, &packet.Packet{}, 3)
	_ = e.Run()
	ev := e.at(e.free[len(e.free)-1])
	if ev.Pkt != nil || ev.Port != 0 || ev.H != nil || ev.Kind != 0 {
		t.Fatalf("recycled event not cleared: %+v", ev)
	}
}

// ticker is a component with its own event type (not a packet event):
// each tick schedules the next until its budget is spent.
type ticker struct {
	eng  sim.Engine
	left int
}

type tick struct {
	at sim.VTimeInSec
	t  *ticker
}

func (e *tick) Time() sim.VTimeInSec { return e.at }
func (e *tick) Handler() sim.Handler { return e.t }
func (e *tick) IsSecondary() bool    { return false }
func (t *ticker) Handle(sim.Event) error {
	if t.left > 0 {
		t.left--
		t.eng.Schedule(&tick{at: t.eng.CurrentTime() + 1e-9, t: t})
	}
	return nil
}

// TestForeignEventsDoNotGrowTheFreeList: a million events of a foreign
// type, one in flight at a time, leave the engine's free list of carriers
// at one entry (a carrier taken per event, returned after it): the list
// does not grow with the run.
func TestForeignEventsDoNotGrowTheFreeList(t *testing.T) {
	e := NewSerial()
	tk := &ticker{eng: e, left: 1_000_000}
	e.Schedule(&tick{at: 0, t: tk})
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if e.Events() != 1_000_001 || len(e.free) > 2 {
		t.Fatalf("%d events, free list of %d carriers", e.Events(), len(e.free))
	}
}

// pinger reschedules each event it gets, a fixed distance ahead, until
// its budget is spent: a steady queue of in-flight events.
type pinger struct {
	eng  sim.Engine
	left int
}

func (p *pinger) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	if p.left > 0 {
		p.left--
		packet.Schedule(p.eng, p, packet.SecToPs(ev.T)+int64(ev.Port), packet.KindArrive, nil, ev.Port)
	}
	return nil
}

// BenchmarkEngine is the engine's cost per event with 512 events in
// flight (per op: one event scheduled and handled).
func BenchmarkEngine(b *testing.B) {
	for _, c := range []struct {
		name string
		eng  func() sim.Engine
	}{{"Serial", func() sim.Engine { return NewSerial() }}, {"Akita", func() sim.Engine { return sim.NewSerialEngine() }}} {
		b.Run(c.name, func(b *testing.B) {
			e := c.eng()
			p := &pinger{eng: e, left: b.N}
			for i := 0; i < 512; i++ {
				packet.Schedule(e, p, int64(i), packet.KindArrive, nil, 1000+i*37)
			}
			b.ResetTimer()
			_ = e.Run()
		})
	}
}

// fifoRef is a reference engine for FIFOOrder: a list scanned for the
// earliest (time, schedule number) event.
type fifoRef struct {
	sim.HookableBase
	now     sim.VTimeInSec
	pending []sim.Event
	seqs    []int
	seq     int
}

func (r *fifoRef) Schedule(e sim.Event) {
	r.seq++
	r.pending, r.seqs = append(r.pending, e), append(r.seqs, r.seq)
}

func (r *fifoRef) Run() error {
	for len(r.pending) > 0 {
		k := 0
		for i := range r.pending {
			ti, tk := r.pending[i].Time(), r.pending[k].Time()
			if ti < tk || (ti == tk && r.seqs[i] < r.seqs[k]) {
				k = i
			}
		}
		e := r.pending[k]
		r.pending = append(r.pending[:k], r.pending[k+1:]...)
		r.seqs = append(r.seqs[:k], r.seqs[k+1:]...)
		r.now = e.Time()
		_ = e.Handler().Handle(e)
	}
	return nil
}

func (r *fifoRef) Pause()                                                {}
func (r *fifoRef) Continue()                                             {}
func (r *fifoRef) CurrentTime() sim.VTimeInSec                           { return r.now }
func (r *fifoRef) RegisterSimulationEndHandler(sim.SimulationEndHandler) {}
func (r *fifoRef) Finished()                                             {}

// TestFIFOOrder: with FIFOOrder same-time events run in the order they
// were scheduled (the random schedules of TestSameOrderAsAkita against a
// reference that scans for the earliest (time, schedule number)), and the
// order differs from Akita's on them (or the test would prove nothing).
func TestFIFOOrder(t *testing.T) {
	defer SetDefaultOrder(DefaultOrder())
	differs := false
	for seed := int64(1); seed <= 20; seed++ {
		want := replay(&fifoRef{}, seed)
		SetDefaultOrder(FIFOOrder, 0)
		got := replay(New(), seed)
		SetDefaultOrder(AkitaOrder, 0)
		akita := replay(New(), seed)
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d events, the reference ran %d", seed, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("seed %d: event %d is #%d, the reference ran #%d", seed, i, got[i], want[i])
			}
			differs = differs || akita[i] != want[i]
		}
	}
	if !differs {
		t.Fatal("FIFO and Akita orders agree on every schedule: the schedules have no ties to tell them apart")
	}
}

// TestRandomOrder: RandomOrder keeps time order, is the same for the same
// seed, and puts the events of one time in different orders for two
// seeds.
func TestRandomOrder(t *testing.T) {
	defer SetDefaultOrder(DefaultOrder())
	order := func(seed int64) []int {
		SetDefaultOrder(RandomOrder, seed)
		e := New()
		h := &orderLog{}
		for i := 0; i < 40; i++ {
			packet.Schedule(e, h, int64(i%2)*1000, packet.KindArrive, nil, i)
		}
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		for k, p := range h.ports {
			if (k < 20) != (p%2 == 0) {
				t.Fatalf("seed %d: event %d (#%d) out of time order: %v", seed, k, p, h.ports)
			}
		}
		return h.ports
	}
	a, b, c := order(1), order(1), order(2)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("seed 1 twice: %v and %v", a, b)
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatalf("seeds 1 and 2 give the same order %v", a)
	}
}

type orderLog struct{ ports []int }

func (h *orderLog) Handle(e sim.Event) error {
	h.ports = append(h.ports, e.(*packet.Event).Port)
	return nil
}

func TestParseOrder(t *testing.T) {
	for in, want := range map[string]struct {
		o    Order
		seed int64
	}{"": {FIFOOrder, 0}, "akita": {AkitaOrder, 0}, "fifo": {FIFOOrder, 0}, "random": {RandomOrder, 1}, "random:7": {RandomOrder, 7}} {
		if o, seed, err := ParseOrder(in); err != nil || o != want.o || seed != want.seed {
			t.Errorf("ParseOrder(%q) = %v, %d, %v", in, o, seed, err)
		}
	}
	for _, bad := range []string{"lifo", "random:", "random:x"} {
		if _, _, err := ParseOrder(bad); err == nil {
			t.Errorf("ParseOrder(%q): no error", bad)
		}
	}
}

// BenchmarkHeap is one pop and one push on a queue holding n events whose
// times are random (a run's pending packets: about a thousand in the
// 64-sender trimming runs), the sifts' own cost.
func BenchmarkHeap(b *testing.B) {
	for _, n := range []int{64, 1024, 8192} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewSource(1))
			var h []entry
			for i := 0; i < n; i++ {
				h = push(h, entry{t: sim.VTimeInSec(rng.Intn(1 << 20)), slot: int32(i)})
			}
			ts := make([]sim.VTimeInSec, 4096)
			for i := range ts {
				ts[i] = sim.VTimeInSec(rng.Intn(1 << 16))
			}
			var s sifter
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var x entry
				x, h = s.pop(h)
				h = push(h, entry{t: x.t + ts[i&4095], slot: x.slot})
			}
		})
	}
}

// refHeap is container/heap's binary heap of entries ordered by time
// alone, Akita's queue as Serial must reproduce it.
type refHeap []entry

func (h refHeap) Len() int           { return len(h) }
func (h refHeap) Less(i, j int) bool { return h[i].t < h[j].t }
func (h refHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)        { *h = append(*h, x.(entry)) }
func (h *refHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TestHeapArrangementMatchesContainerHeap drives push and pop (each pop
// with the branch-free or the branching pick at random) and
// container/heap with the same random operations (times from a small set,
// so most comparisons are ties; queues up to a few thousand entries): the
// two arrays must hold the same entries in the same places after every
// operation, which is what makes same-time events leave in Akita's order.
func TestHeapArrangementMatchesContainerHeap(t *testing.T) {
	for seed := int64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var h []entry
		var s sifter
		ref := &refHeap{}
		span := 1 + rng.Intn(64)
		for op := 0; op < 40000; op++ {
			grow := len(h) == 0 || rng.Intn(100) < 50+int(seed%3)*2
			if grow {
				x := entry{t: sim.VTimeInSec(rng.Intn(span)), slot: int32(op)}
				h = push(h, x)
				heap.Push(ref, x)
			} else {
				var got entry
				s.branchless = rng.Intn(2) == 0 // both picks, whatever the window decided
				got, h = s.pop(h)
				if want := heap.Pop(ref).(entry); got != want {
					t.Fatalf("seed %d, op %d: popped %+v, container/heap %+v", seed, op, got, want)
				}
			}
			if len(h) != len(*ref) {
				t.Fatalf("seed %d, op %d: %d entries, container/heap %d", seed, op, len(h), len(*ref))
			}
			for i := range h {
				if h[i] != (*ref)[i] {
					t.Fatalf("seed %d, op %d: slot %d holds %+v, container/heap %+v", seed, op, i, h[i], (*ref)[i])
				}
			}
		}
	}
}

// TestSifterPicksByPredictability: the sampled window decides the pick.
// A queue of random times (either child earlier by a coin toss) gets the
// branch-free pick; a queue whose events come in time order (picks the
// model of a branch predictor learns) keeps the branch.
func TestSifterPicksByPredictability(t *testing.T) {
	run := func(next func(rng *rand.Rand, now sim.VTimeInSec) sim.VTimeInSec) bool {
		rng := rand.New(rand.NewSource(1))
		var h []entry
		for i := 0; i < 1024; i++ {
			h = push(h, entry{t: next(rng, 0), slot: int32(i)})
		}
		var s sifter
		for i := 0; i < siftWindow; i++ {
			var x entry
			x, h = s.pop(h)
			h = push(h, entry{t: next(rng, x.t), slot: x.slot})
		}
		return s.branchless
	}
	random := func(rng *rand.Rand, now sim.VTimeInSec) sim.VTimeInSec {
		return now + sim.VTimeInSec(rng.Intn(1<<16))
	}
	seq := sim.VTimeInSec(0)
	ordered := func(_ *rand.Rand, _ sim.VTimeInSec) sim.VTimeInSec {
		seq++
		return seq
	}
	if !run(random) {
		t.Errorf("random times: the branch kept, want the branch-free pick")
	}
	if run(ordered) {
		t.Errorf("times in order: the branch-free pick taken, want the branch")
	}
}

// spread is recorder with delays over six decades as well as ties, and
// some events late (packet.Instant.ScheduleLate): the radix heap's buckets
// all see use.
type spread struct {
	eng  Engine
	rng  *rand.Rand
	log  []int
	next int
}

func (r *spread) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	r.log = append(r.log, ev.Port)
	now := packet.SecToPs(ev.T)
	for k := r.rng.Intn(3); k > 0 && r.next < 20000; k-- {
		r.next++
		d := int64(r.rng.Intn(4)) * 1000 // ties
		if r.rng.Intn(2) == 0 {
			d = r.rng.Int63n(int64(1) << uint(r.rng.Intn(40)))
		}
		if r.rng.Intn(8) == 0 {
			r.eng.(packet.Instant).ScheduleLate(now+d, r, packet.KindArrive)
			continue
		}
		packet.Schedule(r.eng, r, now+d, packet.KindArrive, nil, r.next)
	}
	return nil
}

// TestFIFOSameAsKeyed: the radix-heap FIFO engine runs random schedules
// (ties, times over six decades, late events) in exactly the order of
// Keyed with schedule numbers for keys, its binary-heap twin.
func TestFIFOSameAsKeyed(t *testing.T) {
	run := func(eng Engine, seed int64) []int {
		r := &spread{eng: eng, rng: rand.New(rand.NewSource(seed))}
		for i := 0; i < 200; i++ {
			r.next++
			packet.Schedule(eng, r, r.rng.Int63n(1<<30), packet.KindArrive, nil, r.next)
		}
		if err := eng.Run(); err != nil {
			t.Fatal(err)
		}
		if eng.Pending() != 0 || eng.Events() != eng.Scheduled() {
			t.Fatalf("seed %d: %d pending, %d of %d events handled", seed, eng.Pending(), eng.Events(), eng.Scheduled())
		}
		return r.log
	}
	for seed := int64(1); seed <= 10; seed++ {
		want := run(&Keyed{}, seed)
		got := run(&FIFO{}, seed)
		if len(want) < 10000 || len(got) != len(want) {
			t.Fatalf("seed %d: %d events, Keyed ran %d", seed, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("seed %d: event %d is #%d, Keyed ran #%d", seed, i, got[i], want[i])
			}
		}
	}
}

// TestDefaultOrderIsFIFO: an engine New makes, unless a command asked
// otherwise, handles same-time events first scheduled, first handled.
func TestDefaultOrderIsFIFO(t *testing.T) {
	if o, _ := DefaultOrder(); o != FIFOOrder {
		t.Fatalf("default order %v, want fifo", o)
	}
	if _, ok := New().(*FIFO); !ok {
		t.Fatalf("New() is a %T, want *FIFO", New())
	}
}

// TestDefaultOrderName: the name a shard records reads back as the order
// and seed it names.
func TestDefaultOrderName(t *testing.T) {
	defer SetDefaultOrder(DefaultOrder())
	for _, c := range []struct {
		o    Order
		seed int64
		name string
	}{{FIFOOrder, 0, "fifo"}, {AkitaOrder, 0, "akita"}, {RandomOrder, 7, "random:7"}} {
		SetDefaultOrder(c.o, c.seed)
		if got := DefaultOrderName(); got != c.name {
			t.Errorf("order %v seed %d: name %q, want %q", c.o, c.seed, got, c.name)
		}
		if o, seed, err := ParseOrder(DefaultOrderName()); err != nil || o != c.o || seed != c.seed {
			t.Errorf("ParseOrder(%q) = %v, %d, %v", DefaultOrderName(), o, seed, err)
		}
	}
}

// forever reschedules itself 1 ns later, without end.
type forever struct{ eng sim.Engine }

func (f *forever) Handle(e sim.Event) error {
	packet.Schedule(f.eng, f, packet.SecToPs(e.Time())+1000, packet.KindArrive, nil, 0)
	return nil
}

// TestEventLimitStopsEndlessRuns: every engine New makes stops a run at
// SetEventLimit's bound with an error naming it; with no limit, a run
// that ends is untouched.
func TestEventLimitStopsEndlessRuns(t *testing.T) {
	defer SetEventLimit(0)
	defer SetDefaultOrder(DefaultOrder())
	for _, o := range []Order{FIFOOrder, AkitaOrder, RandomOrder} {
		SetDefaultOrder(o, 1)
		SetEventLimit(1000)
		eng := New()
		f := &forever{eng: eng}
		packet.Schedule(eng, f, 0, packet.KindArrive, nil, 0)
		err := eng.Run()
		if err == nil || !strings.Contains(err.Error(), "the run reached 1000 events (--max-events)") {
			t.Errorf("%v: endless run: %v, want the limit named", o, err)
		}
		SetEventLimit(0)
		if got := replay(New(), 3); len(got) == 0 {
			t.Errorf("%v: no events ran without a limit", o)
		}
	}
}

// TestInterruptStopsRuns: Interrupt (a signal handler's) stops every
// engine's Run within checkEvery events with ErrInterrupted, in every
// order, with or without an event limit.
func TestInterruptStopsRuns(t *testing.T) {
	defer interrupted.Store(false)
	defer SetEventLimit(0)
	defer SetDefaultOrder(DefaultOrder())
	for _, limit := range []int64{0, 1 << 40} {
		for _, o := range []Order{FIFOOrder, AkitaOrder, RandomOrder} {
			SetDefaultOrder(o, 1)
			SetEventLimit(limit)
			interrupted.Store(false)
			eng := New()
			f := &forever{eng: eng}
			packet.Schedule(eng, f, 0, packet.KindArrive, nil, 0)
			done := make(chan error)
			go func() { done <- eng.Run() }()
			Interrupt()
			if err := <-done; err != ErrInterrupted {
				t.Errorf("%v, limit %d: endless run after Interrupt: %v, want ErrInterrupted", o, limit, err)
			}
		}
	}
}
