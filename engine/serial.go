// Package engine is archsim's discrete-event engine: a single-threaded
// implementation of Akita's sim.Engine interface that runs events in the
// same order as Akita's SerialEngine, several times faster.
//
// Why not Akita's SerialEngine: it takes about eight uncontended
// lock/unlock pairs per event (its queues and clock are safe for use from
// several goroutines, which a serial run never needs), compares events
// through two interface calls per heap step, and needs a new event object
// per scheduled event. In the 64-sender Fig. 6 run that was a third of the
// wall time. Components do not change: they stay Akita components
// (sim.Handler) scheduling sim.Events on a sim.Engine.
//
// Order of same-time events. Akita's queue is a binary heap ordered by
// time alone, so events due at the same time leave it in an order fixed by
// the heap's shape. Serial keeps that heap and its sift rules exactly
// (container/heap's), so a run on it is event-for-event identical to the
// same run on Akita's SerialEngine; a test replays random schedules on
// both. Since 2026-11-29 the default (New) is FIFO instead: same-time
// events in the order they were scheduled, htsim's rule, on a radix heap
// (radix.go); Serial's order stays one flag away (--tie-break akita).
package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// entry is one pending event: its time, copied out of it so that heap
// comparisons read a float instead of calling Time() through an interface,
// and the slot of its carrier, a packet event (an event of another type
// rides in one, handled by a foreign). An entry holds no pointer: the
// heap's sifts move entries without the collector's write barriers (with a
// pointer in it, the sifts' barriers were about 4 % of archsim validate's
// CPU, paid while a collection was marking), and the collector never scans
// the queue.
type entry struct {
	t    sim.VTimeInSec
	slot int32
}

// foreign carries an event that is not a packet event through the queue.
type foreign struct{ ev sim.Event }

func (f *foreign) Handle(sim.Event) error { return f.ev.Handler().Handle(f.ev) }

// original is the event a queue entry stands for.
func original(pe *packet.Event) sim.Event {
	if f, ok := pe.H.(*foreign); ok {
		return f.ev
	}
	return pe
}

// Serial is a deterministic single-goroutine event engine. It is not safe
// for use from several goroutines (each simulation owns one engine; runs
// in parallel use one engine each).
type Serial struct {
	sim.HookableBase

	now       sim.VTimeInSec
	primary   []entry
	secondary []entry
	paused    bool
	running   bool
	events    int64
	scheduled int64
	limit     int64 // Run stops with an error after this many events (0: none)
	// checkAt is the event count at which Run next checks the limit and
	// Interrupt (every checkEvery events, and at the limit): one compare
	// per event.
	checkAt int64
	// carriers holds every packet event the engine handed out, by slot;
	// free lists the slots of the handled ones.
	carriers []*packet.Event
	free     []int32
	sift     sifter

	endHandlers []sim.SimulationEndHandler
}

// NewSerial returns an empty engine at time 0, in Akita's order of
// same-time events (New follows --tie-break, FIFO by default).
func NewSerial() *Serial { return &Serial{} }

// Schedule adds an event. An event earlier than the current time is a bug
// in the scheduling component, as in Akita.
func (e *Serial) Schedule(evt sim.Event) {
	e.scheduled++
	t := evt.Time()
	if t < e.now {
		panic(fmt.Sprintf("engine: event %T scheduled at %.12g s, before now (%.12g s)", evt, float64(t), float64(e.now)))
	}
	// Any event scheduled here, a packet event made by its component too,
	// rides in a carrier of the engine's (packet.Schedule's events come
	// from SchedulePacket and are carriers themselves). The carrier comes
	// from the free list: Run puts every handled carrier there, so taking
	// none would grow the list by one per event, for the whole run.
	slot, pe := e.carrier()
	pe.T, pe.H = t, &foreign{evt}
	if evt.IsSecondary() {
		e.secondary = push(e.secondary, entry{t, slot})
		return
	}
	e.primary = push(e.primary, entry{t, slot})
}

// SchedulePacket schedules a packet event (packet.Schedule's fast path):
// the event is a carrier from the engine's free list of handled events and
// goes on the queue without the interface calls Schedule makes.
func (e *Serial) SchedulePacket(ps int64, h sim.Handler, kind packet.Kind, pkt *packet.Packet, port int) {
	slot, ev := e.carrier()
	t := packet.PsToSec(ps)
	ev.T, ev.Ps, ev.H, ev.Kind, ev.Pkt, ev.Port = t, ps, h, kind, pkt, port
	if t < e.now {
		panic(fmt.Sprintf("engine: packet event scheduled at %d ps, before now (%.12g s)", ps, float64(e.now)))
	}
	e.scheduled++
	e.primary = push(e.primary, entry{t, slot})
}

// PrimaryDueNow implements packet.Instant: a primary event due now is
// still queued.
func (e *Serial) PrimaryDueNow() bool { return len(e.primary) > 0 && e.primary[0].t == e.now }

// ScheduleLate implements packet.Instant: a packet event (no packet) of
// kind for h at ps on the secondary queue, handled after the primary
// events due at ps.
func (e *Serial) ScheduleLate(ps int64, h sim.Handler, kind packet.Kind) {
	slot, t := e.late(ps, h, kind)
	e.secondary = push(e.secondary, entry{t, slot})
}

// late is a carrier holding a ScheduleLate event, its slot and time.
func (e *Serial) late(ps int64, h sim.Handler, kind packet.Kind) (int32, sim.VTimeInSec) {
	slot, ev := e.carrier()
	t := packet.PsToSec(ps)
	ev.T, ev.Ps, ev.H, ev.Kind = t, ps, h, kind
	if t < e.now {
		panic(fmt.Sprintf("engine: late event scheduled at %d ps, before now (%.12g s)", ps, float64(e.now)))
	}
	e.scheduled++
	return slot, t
}

// carrier is a cleared packet event from the free list (or a new one) and
// its slot.
func (e *Serial) carrier() (int32, *packet.Event) {
	if n := len(e.free); n > 0 {
		slot := e.free[n-1]
		e.free = e.free[:n-1]
		return slot, e.at(slot)
	}
	slot := int32(len(e.carriers))
	ev := new(packet.Event)
	e.carriers = append(e.carriers, ev)
	return slot, ev
}

// at is the carrier in slot.
func (e *Serial) at(slot int32) *packet.Event {
	return e.carriers[slot]
}

// Run handles events in time order until none is left or Pause is called
// from a handler or hook.
func (e *Serial) Run() error {
	if e.running {
		return fmt.Errorf("engine: Run called while running")
	}
	e.running = true
	defer func() { e.running = false }()
	e.paused = false
	hooked := e.NumHooks() > 0
	for !e.paused {
		var next entry
		switch {
		case len(e.primary) == 0 && len(e.secondary) == 0:
			return nil
		case len(e.secondary) == 0:
			next, e.primary = e.sift.pop(e.primary)
		case len(e.primary) == 0:
			next, e.secondary = e.sift.pop(e.secondary)
		case e.primary[0].t <= e.secondary[0].t:
			next, e.primary = e.sift.pop(e.primary)
		default:
			next, e.secondary = e.sift.pop(e.secondary)
		}
		e.now = next.t
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
		// No interface call for the handler's lookup, and the handled
		// event goes back on the free list (handlers read a packet
		// event's fields and never keep the event itself).
		_ = pe.H.Handle(pe)
		*pe = packet.Event{}
		e.free = append(e.free, next.slot)
	}
	return nil
}

// handleHooked runs one event between the before- and after-event hooks.
func (e *Serial) handleHooked(ev sim.Event) {
	ctx := sim.HookCtx{Domain: e, Pos: sim.HookPosBeforeEvent, Item: ev}
	e.InvokeHook(ctx)
	_ = ev.Handler().Handle(ev)
	ctx.Pos = sim.HookPosAfterEvent
	e.InvokeHook(ctx)
	// A hook may keep the event: do not recycle it.
}

// Pause stops Run after the event being handled; Run may be called again
// to continue.
func (e *Serial) Pause() { e.paused = true }

// Continue clears a pause; the next Run goes on from where it stopped.
func (e *Serial) Continue() { e.paused = false }

// CurrentTime is the time of the event being (or last) handled.
func (e *Serial) CurrentTime() sim.VTimeInSec { return e.now }

// Events is the number of events handled so far.
func (e *Serial) Events() int64 { return e.events }

// Scheduled is the number of events scheduled so far (after a Run that
// emptied the queue, equal to Events).
func (e *Serial) Scheduled() int64 { return e.scheduled }

// Pending is the number of events scheduled and not yet handled.
func (e *Serial) Pending() int { return len(e.primary) + len(e.secondary) }

// RegisterSimulationEndHandler adds a handler that Finished calls.
func (e *Serial) RegisterSimulationEndHandler(h sim.SimulationEndHandler) {
	e.endHandlers = append(e.endHandlers, h)
}

// Finished calls the simulation-end handlers with the current time.
func (e *Serial) Finished() {
	for _, h := range e.endHandlers {
		h.Handle(e.now)
	}
}

// The heap below is a binary min-heap on time with container/heap's exact
// sift rules (up: move while strictly earlier than the parent; down: the
// earlier child, the right one only when strictly earlier; stop unless the
// child is strictly earlier). Keeping them identical is what makes the
// order of same-time events match Akita's.

// The sifts move a hole instead of swapping: the same comparisons in the
// same order as container/heap's swaps, so the same arrangement.

func push(h []entry, x entry) []entry {
	h = append(h, x)
	j := len(h) - 1
	for j > 0 {
		i := (j - 1) / 2
		if !(x.t < h[i].t) {
			break
		}
		h[j] = h[i]
		j = i
	}
	h[j] = x
	return h
}

func pop(h []entry) (entry, []entry) {
	var s sifter
	return s.pop(h)
}

// sifter pops entries off heaps (pop). Its descent picks the earlier child
// with a branch or without one: the same pick either way, so the same
// arrangement, but which is faster depends on the run. Where the
// processor predicts the picks, the branch is faster; where they are close
// to a coin toss (the trimming runs' thousand packets in flight), the
// mispredicted branch costs more than the data dependency of a
// branch-free pick. sifter samples a window of 512 pops in every 16 384
// with the branch and runs a small model of a branch predictor over their
// picks: a two-bit counter per level and per pair of this pop's two
// previous picks. It takes the branch-free pick until the next window when
// the model predicts fewer than 69 % of the picks (sampling one pop in 16,
// the model took 1.2 % of validate's CPU). Over whole runs (every pick logged,
// 2026-11-28) the model reads 76 % on the Trio PFE's 20 000
// preloaded arrivals (pipeline/trio), where the branch is 9 % faster, and
// 62 % on the 64-sender trimming run, where the branch-free pick is 6 %
// faster. The proxy before it, whether a level's pick repeats that
// level's pick in the previous pop, read 62 % and 57 % and sent
// pipeline/trio down the slower path; a gshare model (eight picks of
// global history) read 73 % and 56 %, close to this one.
type sifter struct {
	ctr           [256]uint8 // two-bit counters by level and the pop's last two picks (2, 3: the right child)
	agree, levels int
	pops          int
	branchless    bool
}

const (
	siftWindow = 1 << 9          // pops sampled
	siftPeriod = 32 * siftWindow // pops from one sample to the next
)

func (s *sifter) pop(h []entry) (entry, []entry) {
	n := len(h) - 1
	top, x := h[0], h[n]
	// Floyd's sift-down: the hole goes down to a leaf along the path of
	// earlier children (one comparison a level), then x climbs back while
	// its parent is not strictly earlier. The path's times never
	// decrease, so x stops above the first one not earlier than it, where
	// container/heap's sift-down (two comparisons a level) stops: the
	// same comparisons' outcome, the same arrangement. h[n] (x's old
	// slot) is a sentinel later than any event, so the last level needs
	// no bound test.
	h[n].t = sentinel
	i := 0
	switch s.pops++; {
	case s.pops <= siftWindow:
		i = s.sample(h, n)
		if s.pops == siftWindow {
			s.branchless = 100*s.agree < 69*s.levels
			s.agree, s.levels = 0, 0
		}
	case s.branchless:
		for j := 1; j < n; j = 2*i + 1 {
			j += b2i(h[j+1].t < h[j].t)
			h[i] = h[j]
			i = j
		}
	default:
		for j := 1; j < n; j = 2*i + 1 {
			if h[j+1].t < h[j].t {
				j++
			}
			h[i] = h[j]
			i = j
		}
	}
	if s.pops == siftPeriod {
		s.pops = 0
	}
	for i > 0 {
		p := (i - 1) / 2
		if h[p].t < x.t {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
	h[n] = entry{}
	return top, h[:n]
}

// sample is pop's descent with the branch, counting the picks the model
// predicts; it returns the leaf the hole reached.
func (s *sifter) sample(h []entry, n int) int {
	i, k := 0, 0 // k: the level times four plus this pop's last two picks
	for j := 1; j < n; j = 2*i + 1 {
		c := s.ctr[k&255]
		right := h[j+1].t < h[j].t
		if right {
			j++
			s.agree += int(c >> 1)
			s.ctr[k&255] = min(c+1, 3)
		} else {
			s.agree += 1 ^ int(c>>1)
			s.ctr[k&255] = c - b2u8(c > 0)
		}
		s.levels++
		k = (k+4)&^3 | (k<<1)&2 | int(b2u8(right))
		h[i] = h[j]
		i = j
	}
	return i
}

// b2u8 is 1 for true, 0 for false.
func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// sentinel is later than every event (pop's guard).
const sentinel = sim.VTimeInSec(math.MaxFloat64)

// b2i is 1 for true, 0 for false (compiled without a branch).
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// Engine is an engine as the simulations use it: Akita's sim.Engine and
// the counts of events.
type Engine interface {
	sim.Engine
	Events() int64
	Scheduled() int64
	Pending() int
}

// Order is how an engine orders events due at the same time.
type Order int

const (
	// AkitaOrder is Akita's SerialEngine's: by the shape of its binary
	// heap (Serial: a run in it is event for event the run on Akita's own
	// engine). The default until 2026-11-29; now a what-if.
	AkitaOrder Order = iota
	// FIFOOrder handles same-time events in the order they were scheduled
	// (first scheduled, first handled), as htsim's EventList (a
	// std::multimap, which inserts after equal keys) does. The default
	// (FIFO, a radix heap): a rule a user can state, the trimming paper's
	// simulator's, and independent of how the queue is arranged; and the
	// radix heap is faster than the binary heap at the trimming runs'
	// thousands of pending events (README: Performance, 2026-11-29).
	FIFOOrder
	// RandomOrder handles same-time events in a random order, drawn per
	// event from the engine's own generator (seeded by SetDefaultOrder,
	// so runs stay deterministic): the what-if without a favoured side.
	RandomOrder
)

// String names the order as the --tie-break flag does.
func (o Order) String() string {
	switch o {
	case FIFOOrder:
		return "fifo"
	case RandomOrder:
		return "random"
	}
	return "akita"
}

// ParseOrder reads a --tie-break value: akita, fifo, random or random:SEED
// (seed 1 when not given).
func ParseOrder(s string) (Order, int64, error) {
	switch s {
	case "akita":
		return AkitaOrder, 0, nil
	case "fifo", "":
		return FIFOOrder, 0, nil
	case "random":
		return RandomOrder, 1, nil
	}
	if v, ok := strings.CutPrefix(s, "random:"); ok {
		if seed, err := strconv.ParseInt(v, 10, 64); err == nil {
			return RandomOrder, seed, nil
		}
	}
	return AkitaOrder, 0, fmt.Errorf("tie-break %q: want akita, fifo, random or random:SEED (an integer)", s)
}

// eventLimit is the events an engine New makes may handle in one run
// (SetEventLimit; 0: no limit).
var eventLimit int64

// SetEventLimit bounds the events every engine New makes from now on may
// handle (0: no limit): a run that reaches it stops with an error instead
// of running on (a program that makes packets without end). A command
// sets it once, before any run starts.
func SetEventLimit(n int64) { eventLimit = n }

// checkEvery is how many events Run handles between two looks at
// Interrupt (about a millisecond of a run's time).
const checkEvery = 4096

// interrupted is set by Interrupt (a signal handler's goroutine) and read
// by every running engine.
var interrupted atomic.Bool

// ErrInterrupted is Run's error when Interrupt stopped it.
var ErrInterrupted = errors.New("interrupted")

// Interrupt stops every engine's Run within checkEvery events, with
// ErrInterrupted (the command's failure path then removes what it wrote).
func Interrupt() { interrupted.Store(true) }

// Interrupted reports whether Interrupt was called.
func Interrupted() bool { return interrupted.Load() }

// check is Run's look, every checkEvery events, at the event limit and at
// Interrupt; it sets when to look next.
func (e *Serial) check() error {
	if e.limit > 0 && e.events >= e.limit {
		return e.limitError()
	}
	if interrupted.Load() {
		return ErrInterrupted
	}
	e.checkAt = e.events + checkEvery
	if e.limit > 0 && e.limit < e.checkAt {
		e.checkAt = e.limit
	}
	return nil
}

// limitError is Run's error when the engine reached its event limit.
func (e *Serial) limitError() error {
	return fmt.Errorf("the run reached %d events (--max-events) at %.6g µs simulated without ending: a program that makes or recirculates packets without end, or a run larger than the limit", e.events, float64(e.now)*1e6)
}

// defaultOrder and orderSeed are what New uses (SetDefaultOrder).
var (
	defaultOrder = FIFOOrder
	orderSeed    int64
)

// SetDefaultOrder sets the order of same-time events of every engine New
// makes from now on, and RandomOrder's seed (every engine draws from its
// own generator with it). A command sets it once, before any run starts
// (runs in parallel goroutines then only read it).
func SetDefaultOrder(o Order, seed int64) { defaultOrder, orderSeed = o, seed }

// DefaultOrder is the order of the engines New makes, and its seed.
func DefaultOrder() (Order, int64) { return defaultOrder, orderSeed }

// DefaultOrderName is the default order as --tie-break spells it, the
// seed included for the random order ("fifo", "akita", "random:7"):
// ParseOrder reads it back.
func DefaultOrderName() string {
	if defaultOrder == RandomOrder {
		return fmt.Sprintf("random:%d", orderSeed)
	}
	return defaultOrder.String()
}

// New returns an empty engine at time 0 in the default order: a FIFO
// under FIFOOrder (the default), a Serial under AkitaOrder, a Keyed under
// RandomOrder.
func New() Engine {
	switch defaultOrder {
	case FIFOOrder:
		return &FIFO{Serial: Serial{limit: eventLimit}}
	case RandomOrder:
		return &Keyed{Serial: Serial{limit: eventLimit}, rng: rand.New(rand.NewSource(orderSeed))}
	}
	e := NewSerial()
	e.limit = eventLimit
	return e
}

// Keyed is Serial with same-time events ordered by a key each event gets
// when it is scheduled: a random number (RandomOrder, rng set) or, rng
// nil, its schedule number (FIFOOrder's order; New gives FIFOOrder the
// faster FIFO engine, and the tests hold the two to one order). It is a
// type of its own so that Serial runs the same code as before it existed:
// its Schedule, SchedulePacket and Run repeat Serial's with their own
// heaps on purpose. (A flag tested in Serial's methods, tried, cost
// Serial's order 3-4 % on the Ideal incast, and the build's profile,
// cmd/archsim/default.pgo, finds each engine's hot calls by their lines.)
type Keyed struct {
	Serial
	seq                  uint64
	rng                  *rand.Rand
	fprimary, fsecondary []fentry
}

// fentry is a Keyed's queue entry: entry and its key.
type fentry struct {
	t    sim.VTimeInSec
	slot int32
	key  uint64
}

// key is the next event's key.
func (e *Keyed) key() uint64 {
	if e.rng != nil {
		return e.rng.Uint64()
	}
	e.seq++
	return e.seq
}

// Schedule adds an event (as Serial's).
func (e *Keyed) Schedule(evt sim.Event) {
	e.scheduled++
	t := evt.Time()
	if t < e.now {
		panic(fmt.Sprintf("engine: event %T scheduled at %.12g s, before now (%.12g s)", evt, float64(t), float64(e.now)))
	}
	slot, pe := e.carrier()
	pe.T, pe.H = t, &foreign{evt}
	if evt.IsSecondary() {
		e.fsecondary = pushKeyed(e.fsecondary, fentry{t, slot, e.key()})
		return
	}
	e.fprimary = pushKeyed(e.fprimary, fentry{t, slot, e.key()})
}

// SchedulePacket schedules a packet event (as Serial's).
func (e *Keyed) SchedulePacket(ps int64, h sim.Handler, kind packet.Kind, pkt *packet.Packet, port int) {
	slot, ev := e.carrier()
	t := packet.PsToSec(ps)
	ev.T, ev.Ps, ev.H, ev.Kind, ev.Pkt, ev.Port = t, ps, h, kind, pkt, port
	if t < e.now {
		panic(fmt.Sprintf("engine: packet event scheduled at %d ps, before now (%.12g s)", ps, float64(e.now)))
	}
	e.scheduled++
	e.fprimary = pushKeyed(e.fprimary, fentry{t, slot, e.key()})
}

// PrimaryDueNow implements packet.Instant (as Serial's).
func (e *Keyed) PrimaryDueNow() bool { return len(e.fprimary) > 0 && e.fprimary[0].t == e.now }

// ScheduleLate implements packet.Instant (as Serial's).
func (e *Keyed) ScheduleLate(ps int64, h sim.Handler, kind packet.Kind) {
	slot, t := e.late(ps, h, kind)
	e.fsecondary = pushKeyed(e.fsecondary, fentry{t, slot, e.key()})
}

// Pending is the number of events scheduled and not yet handled.
func (e *Keyed) Pending() int { return len(e.fprimary) + len(e.fsecondary) }

// Run handles events in (time, key) order until none is left or Pause is
// called; a primary event goes before a secondary one of the
// same time, as in Serial.
func (e *Keyed) Run() error {
	if e.running {
		return fmt.Errorf("engine: Run called while running")
	}
	e.running = true
	defer func() { e.running = false }()
	e.paused = false
	hooked := e.NumHooks() > 0
	for !e.paused {
		var next fentry
		switch {
		case len(e.fprimary) == 0 && len(e.fsecondary) == 0:
			return nil
		case len(e.fsecondary) == 0:
			next, e.fprimary = popKeyed(e.fprimary)
		case len(e.fprimary) == 0:
			next, e.fsecondary = popKeyed(e.fsecondary)
		case e.fprimary[0].t <= e.fsecondary[0].t:
			next, e.fprimary = popKeyed(e.fprimary)
		default:
			next, e.fsecondary = popKeyed(e.fsecondary)
		}
		e.now = next.t
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

// before orders Keyed entries by time, then key.
func before(a, b fentry) bool {
	return a.t < b.t || (a.t == b.t && a.key < b.key)
}

func pushKeyed(h []fentry, x fentry) []fentry {
	h = append(h, x)
	j := len(h) - 1
	for j > 0 {
		i := (j - 1) / 2
		if !before(x, h[i]) {
			break
		}
		h[j] = h[i]
		j = i
	}
	h[j] = x
	return h
}

func popKeyed(h []fentry) (fentry, []fentry) {
	n := len(h) - 1
	top, x := h[0], h[n]
	i := 0
	for {
		j1 := 2*i + 1
		if j1 >= n {
			break
		}
		j := j1
		if j2 := j1 + 1; j2 < n && before(h[j2], h[j1]) {
			j = j2
		}
		if !before(h[j], x) {
			break
		}
		h[i] = h[j]
		i = j
	}
	if n > 0 {
		h[i] = x
	}
	h[n] = fentry{}
	return top, h[:n]
}
