package trio

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"archsim/arch/trio/lower"
	"archsim/arch/trio/spec"
	"archsim/programs"
)

// regAddsOneByOne is RegAdds without the same-line step (sameLine): each
// add charged on its own, the reference the fast path must equal.
func (t *tracer) regAddsOneByOne(run []programs.RegAdd) {
	lastChunk := -1
	for k := range run {
		t.regAdd(&run[k], &lastChunk)
	}
}

// TestRegAddsSameLine: on random runs of register adds (runs of
// consecutive cells and payload words with jumps, several register
// actions, atomic or not, several alike on one register, statements of 0-2 instructions, payload words
// in the head, the tail and past the packet, threads with and without an
// open segment), RegAdds leaves the same script, instruction and
// transaction counts and fetched chunks as charging the adds one by one.
func TestRegAddsSameLine(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	bulk := 0
	for trial := 0; trial < 3000; trial++ {
		regs, newTracer := randomAddTracer(rng)
		var run []programs.RegAdd
		idx, word := rng.Intn(40), rng.Intn(40)-20
		reg, stmt, pay := int32(rng.Intn(2)), int32(rng.Intn(3)), rng.Intn(4) != 0
		for n := 1 + rng.Intn(80); len(run) < n; {
			if rng.Intn(12) == 0 {
				idx, word = rng.Intn(200), rng.Intn(400)-40
				reg, stmt, pay = int32(rng.Intn(len(regs))), int32(rng.Intn(3)), rng.Intn(4) != 0
			}
			if (reg == 0 || reg == 5 || reg == 6) && rng.Intn(2) == 0 {
				reg = [...]int32{0, 0, 5, 5, 6}[rng.Intn(5)] // add0, add1, ... on one register
			}
			run = append(run, programs.RegAdd{Index: idx, Word: word, Reg: reg, Stmt: stmt, Payload: pay})
			idx++
			word++
		}
		if sameCharge(t, rng, newTracer, fmt.Sprintf("trial %d: RegAdds against one by one", trial),
			func(tr *tracer) { tr.RegAdds(run) }, func(tr *tracer) { tr.regAddsOneByOne(run) }) {
			bulk++
		}
	}
	if bulk < 100 {
		t.Fatalf("only %d trials coalesced adds: the test exercised little of the same-line step", bulk)
	}
}

// TestRegAddSpan: a span of adds (consecutive cells and payload words,
// each add's statement and register action its own: mostly Trio-ML's
// add0..add15 alike, sometimes another) leaves the same thread as
// RegAdds on the span's records.
func TestRegAddSpan(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	bulk := 0
	for trial := 0; trial < 3000; trial++ {
		regs, newTracer := randomAddTracer(rng)
		n := 1 + rng.Intn(40)
		s := &programs.AddSpan{Stmt: make([]int32, n), Reg: make([]int32, n)}
		stmt := int32(rng.Intn(3))
		for j := range n {
			s.Stmt[j], s.Reg[j] = stmt, [...]int32{0, 0, 0, 5, 5, 6}[rng.Intn(6)]
			if rng.Intn(10) == 0 {
				s.Stmt[j], s.Reg[j] = int32(rng.Intn(3)), int32(rng.Intn(len(regs)))
			}
		}
		idx, word := rng.Intn(200), rng.Intn(400)-40
		run := make([]programs.RegAdd, n)
		for j := range run {
			run[j] = programs.RegAdd{Word: word + j, Index: idx + j, Stmt: s.Stmt[j], Reg: s.Reg[j], Payload: true}
		}
		if sameCharge(t, rng, newTracer, fmt.Sprintf("trial %d: RegAddSpan against RegAdds", trial),
			func(tr *tracer) { tr.RegAddSpan(s, idx, word) }, func(tr *tracer) { tr.RegAdds(run) }) {
			bulk++
		}
	}
	if bulk < 100 {
		t.Fatalf("only %d trials coalesced adds: the test exercised little of the same-line step", bulk)
	}
}

// sameCharge draws one thread for two equal tracers (newTracer from
// randomAddTracer), charges adds on them with fast and with ref, fails
// unless the threads are equal, and reports whether fast coalesced adds
// (fewer script steps than RMW transactions).
func sameCharge(t *testing.T, rng *rand.Rand, newTracer func() *tracer, what string, fast, ref func(*tracer)) bool {
	t.Helper()
	state := rng.Int63()
	rng.Seed(state)
	a := newTracer()
	rng.Seed(state)
	b := newTracer()
	fast(a)
	ref(b)
	if !reflect.DeepEqual(a.th, b.th) {
		t.Fatalf("%s: thread differs:\n%+v\n%+v", what, *a.th, *b.th)
	}
	return len(a.th.script) < a.th.xtxn[lower.XRMW]
}

// randomAddTracer draws a PFE's tail and bank settings and the register
// actions of TestRegAddsSameLine; newTracer returns a tracer of those on
// a thread drawn from the generator (seed it alike for two equal ones).
func randomAddTracer(rng *rand.Rand) (regs []regInfo, newTracer func() *tracer) {
	p := &PFE{cfg: &spec.Config{}, tailPs: 700, tailShift: 6, bankLine: -1}
	p.cfg.SMem.RMWEngines = 5
	p.cfg.XTXN.TailChunkBytes = 64
	p.bankMask = -1
	if rng.Intn(2) == 0 {
		p.bankMask = 7
	}
	if rng.Intn(4) == 0 {
		p.tailShift = -1
		p.cfg.XTXN.TailChunkBytes = 48
	}
	regs = []regInfo{
		{place: place{addr: 0, entryBytes: 4, latency: 300}, atomic: true, busy: 10},
		{place: place{addr: 4096 + 8*int64(rng.Intn(8)), entryBytes: 8, latency: 300}, atomic: true, busy: 10},
		{place: place{addr: 128, entryBytes: 4, latency: 500}, atomic: true, busy: 20},
		{place: place{addr: 256, entryBytes: 4, latency: 300}, atomic: true, sync: true, busy: 10},
		{place: place{addr: 512, entryBytes: 4, latency: 300}, busy: 10, writeBusy: 5, instr: 3},
		{place: place{addr: 0, entryBytes: 4, latency: 300}, atomic: true, busy: 10}, // another action on 0's cells
		{place: place{addr: 0, entryBytes: 4, latency: 300}, atomic: true, busy: 11}, // one that costs more
	}
	return regs, func() *tracer {
		th := &thread{payloadAt: 40 + rng.Intn(3)*4, tailAt: 64, tailLen: rng.Intn(1200), tailFetched: make([]uint64, 1)}
		switch rng.Intn(3) {
		case 1:
			th.addInstr(2)
		case 2:
			th.addInstr(1)
			th.addAsync(step{x: uint8(lower.XRMW), bank: 0, busy: 10, latency: 300})
		}
		th.tailFetched[0] = rng.Uint64() & rng.Uint64()
		tr := &tracer{p: p, th: th}
		for _, r := range regs {
			tr.addReg(r)
		}
		return tr
	}
}
