package engine

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// FIFO is the engine of FIFOOrder: same-time events run in the order they
// were scheduled, as in Keyed with schedule numbers for keys, but on a
// radix heap instead of a binary heap, since an event is never scheduled
// before the current time.
//
// A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, 1990) keeps the pending
// events in 65 buckets by the highest bit in which their time differs from
// the time last taken out: bucket 0 holds the events due at that time,
// bucket b those that first differ in bit b-1. Non-negative float64 times
// compare as their bit patterns do, so the patterns are the keys. Taking
// the next event reads the front of bucket 0; when it is empty, the lowest
// non-empty bucket is emptied into lower ones around its earliest time (an
// event moves down at most 64 times in its life, and in practice once or
// twice). Scheduling is an append.
//
// Same-time events keep their schedule order: two events with one time are
// always in the same bucket (a bucket is a function of the time and the
// last time taken out), each arrives at the end of it, and a bucket is
// emptied front to back, so the earlier-scheduled stays ahead. The order
// is therefore exactly Keyed's FIFO order, event for event (a test replays
// random schedules on both).
//
// Its Schedule, SchedulePacket and Run repeat Serial's around its own
// queues on purpose, as Keyed's do: each order's hot calls are its own
// (and the build's profile, cmd/archsim/default.pgo, finds them by their
// lines). FIFO is the default engine (New) since 2026-11-29.
type FIFO struct {
	Serial
	p, s radixQueue // primary and secondary events
}

// radixQueue is one radix heap of entries (entry.slot; the time is the
// key's).
type radixQueue struct {
	last uint64 // the key of the events in b[0], the last taken out
	head int    // b[0]'s front (b[0][:head] are taken)
	n    int
	b    [65][]rentry
	full uint64 // bit i-1 set: b[i] is not empty (i ≥ 1)
	// low is the earliest key of the buckets above 0, if lowOK (a push
	// keeps it; emptying a bucket into lower ones drops it).
	low   uint64
	lowOK bool
}

// rentry is a radix heap's entry: the time's bits and the carrier's slot.
type rentry struct {
	key  uint64
	slot int32
}

// timeKey is t's bits (t ≥ 0; adding +0 turns a -0 into +0).
func timeKey(t sim.VTimeInSec) uint64 { return math.Float64bits(float64(t) + 0) }

func keyTime(k uint64) sim.VTimeInSec { return sim.VTimeInSec(math.Float64frombits(k)) }

func (q *radixQueue) push(k uint64, slot int32) {
	i := bits.Len64(k ^ q.last)
	q.b[i] = append(q.b[i], rentry{k, slot})
	q.n++
	if i > 0 {
		q.full |= 1 << (i - 1)
		if q.lowOK {
			q.low = min(q.low, k)
		}
	}
}

// lowest is the lowest non-empty bucket above 0 and its earliest key (b[0]
// taken, q.n > 0). Every key of a bucket is earlier than every key of the
// buckets above it.
func (q *radixQueue) lowest() (int, uint64) {
	i := bits.TrailingZeros64(q.full) + 1
	if q.lowOK {
		return i, q.low
	}
	src := q.b[i]
	m := src[0].key
	for _, x := range src[1:] {
		m = min(m, x.key)
	}
	q.low, q.lowOK = m, true
	return i, m
}

// settle makes b[0] hold the earliest pending events (q.n > 0), which the
// caller then takes out: last becomes their time. (Only taking one out
// may move last: events are never scheduled before the current time, but
// may be before a later pending one.)
func (q *radixQueue) settle() {
	if q.head < len(q.b[0]) {
		return
	}
	q.b[0], q.head = q.b[0][:0], 0
	i, m := q.lowest()
	q.lowOK = false
	src := q.b[i]
	q.last = m
	if len(src) == 1 {
		q.b[0] = append(q.b[0], src[0])
		q.b[i] = src[:0]
		q.full &^= 1 << (i - 1)
		return
	}
	// Every entry of bucket i shares the bits above i-1 with m, so it
	// moves to a lower bucket: appending to those while reading src is
	// safe.
	q.full &^= 1 << (i - 1)
	for _, x := range src {
		j := bits.Len64(x.key ^ m)
		q.b[j] = append(q.b[j], x)
		if j > 0 {
			q.full |= 1 << (j - 1)
		}
	}
	q.b[i] = src[:0]
}

// peek is the earliest pending time's key (q.n > 0).
func (q *radixQueue) peek() uint64 {
	if q.head < len(q.b[0]) {
		return q.last
	}
	_, m := q.lowest()
	return m
}

// pop takes the earliest pending entry, the first scheduled of its time
// (q.n > 0).
func (q *radixQueue) pop() rentry {
	q.settle()
	x := q.b[0][q.head]
	q.head++
	q.n--
	return x
}

// Schedule adds an event (as Serial's).
func (e *FIFO) Schedule(evt sim.Event) {
	e.scheduled++
	t := evt.Time()
	if t < e.now {
		panic(fmt.Sprintf("engine: event %T scheduled at %.12g s, before now (%.12g s)", evt, float64(t), float64(e.now)))
	}
	slot, pe := e.carrier()
	pe.T, pe.H = t, &foreign{evt}
	if evt.IsSecondary() {
		e.s.push(timeKey(t), slot)
		return
	}
	e.p.push(timeKey(t), slot)
}

// SchedulePacket schedules a packet event (as Serial's).
func (e *FIFO) SchedulePacket(ps int64, h sim.Handler, kind packet.Kind, pkt *packet.Packet, port int) {
	slot, ev := e.carrier()
	t := packet.PsToSec(ps)
	ev.T, ev.Ps, ev.H, ev.Kind, ev.Pkt, ev.Port = t, ps, h, kind, pkt, port
	if t < e.now {
		panic(fmt.Sprintf("engine: packet event scheduled at %d ps, before now (%.12g s)", ps, float64(e.now)))
	}
	e.scheduled++
	e.p.push(timeKey(t), slot)
}

// PrimaryDueNow implements packet.Instant (as Serial's).
func (e *FIFO) PrimaryDueNow() bool { return e.p.n > 0 && keyTime(e.p.peek()) == e.now }

// ScheduleLate implements packet.Instant (as Serial's).
func (e *FIFO) ScheduleLate(ps int64, h sim.Handler, kind packet.Kind) {
	slot, t := e.late(ps, h, kind)
	e.s.push(timeKey(t), slot)
}

// Pending is the number of events scheduled and not yet handled.
func (e *FIFO) Pending() int { return e.p.n + e.s.n }

// Run handles events in (time, schedule order) until none is left or Pause
// is called; a primary event goes before a secondary one of the same
// time, as in Serial.
func (e *FIFO) Run() error {
	if e.running {
		return fmt.Errorf("engine: Run called while running")
	}
	e.running = true
	defer func() { e.running = false }()
	e.paused = false
	hooked := e.NumHooks() > 0
	for !e.paused {
		var next rentry
		switch {
		case e.p.n == 0 && e.s.n == 0:
			return nil
		case e.s.n == 0:
			next = e.p.pop()
		case e.p.n == 0:
			next = e.s.pop()
		case e.p.peek() <= e.s.peek():
			next = e.p.pop()
		default:
			next = e.s.pop()
		}
		e.now = keyTime(next.key)
		if e.events >= e.checkAt {
			if err := e.check(); err != nil {
				return err
			}
		}
		e.events++
		pe := e.at(next.slot)
		if hooked {
			e.handleHooked(original(pe))
			continue
		}
		_ = pe.H.Handle(pe)
		*pe = packet.Event{}
		e.free = append(e.free, next.slot)
	}
	return nil
}
